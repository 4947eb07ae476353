"""structeval.statistics.factors on hand-made task results: repeated runs, outages, orders,
modality and old results. Every expected value is arithmetic on the rows written here."""

from __future__ import annotations

import json

import pytest

from structeval.harness.run.results import TaskResult, summarize
from structeval.statistics.factors import (
    by_factor,
    factor_summary,
    presentation_deltas,
    presentation_robustness,
    recorded_modality,
    value_order,
)
from structeval.statistics.runs import per_task

STAGE = {1.0: "perfect", 0.75: "loads", 0.5: "releases", 0.25: "supports", 0.0: "geometry"}
BASE = {"dimensioning": "full", "values": "numeric", "units": "m-kN", "language": "en",
        "symbols": "a", "style": "cad"}


def result(task_id: str, structure: str, difficulty: int, run: int, first: float | None,
           final: float, **shown: str) -> TaskResult:
    """A scored task (``first`` None: unavailable) shown as BASE with ``shown`` changed."""
    if first is None:
        return TaskResult(task_id, "beam", difficulty, run, "unavailable", 0.0, None, None, None,
                          0, structure=structure, presentation={**BASE, **shown})
    return TaskResult(task_id, "beam", difficulty, run, "scored", final, STAGE[final], first,
                      STAGE[first], 2, structure=structure, presentation={**BASE, **shown})


def two_runs() -> list[TaskResult]:
    """Structures P (difficulty 1: en, zh) and Q (difficulty 2: en, zh, zh sketch), two
    runs; Q-zh is unavailable in run 1. (pass@1, after repair) per run:

    P-en (1, 1) (0.5, 1)      P-zh (0.5, 0.5) (0.5, 1)
    Q-en (0.75, 1) (0.75, 0.75)   Q-zh (0.25, 0.75) unavailable   Q-zs (0.75, 0.75) twice
    """
    plan = [("P-en", "P", 1, {}, [(1.0, 1.0), (0.5, 1.0)]),
            ("P-zh", "P", 1, {"language": "zh"}, [(0.5, 0.5), (0.5, 1.0)]),
            ("Q-en", "Q", 2, {}, [(0.75, 1.0), (0.75, 0.75)]),
            ("Q-zh", "Q", 2, {"language": "zh"}, [(0.25, 0.75), (None, 0.0)]),
            ("Q-zs", "Q", 2, {"language": "zh", "style": "sketch"}, [(0.75, 0.75)] * 2)]
    return [result(tid, s, d, run, *credits[run], **shown)
            for run in (0, 1) for tid, s, d, shown, credits in plan]


def test_repeated_runs_use_per_task_means_and_skip_outages():
    """Q-zh is unavailable in run 1, so it drops out of deltas (not of by_factor).
    Per-task means: P-en (0.75, 1), P-zh (0.5, 0.75), Q-en (0.75, 0.875), Q-zs (0.75, 0.75).
    zh − en: pass@1 P 0.5 − 0.75, Q 0.75 − 0.75 → 1·(−0.25)/3; after repair P 0.75 − 1,
    Q 0.75 − 0.875 → (1·(−0.25) + 2·(−0.125))/3. Controlled: only P-zh/P-en (Q-zs differs
    in style too). sketch − cad on Q: Q-zs against Q-en only: 0 and −0.125; no controlled
    pair is left (Q-zh, the one that differs in style only, is out)."""
    rows = two_runs()
    deltas = presentation_deltas(per_task(rows))
    zh = deltas["language"][0]
    assert (zh["label"], zh["structures"], zh["controlled_pairs"]) == ("zh − en", 2, 1)
    assert zh["tasks"] == {"zh": 2, "en": 2}
    assert zh["pass_at_1"]["estimate"] == pytest.approx(100 * -0.25 / 3, abs=1e-4)
    assert zh["after_repair"]["estimate"] == pytest.approx(100 * (-0.25 - 0.25) / 3, abs=1e-4)
    assert zh["controlled"]["pass_at_1"]["estimate"] == 100 * (0.5 - 0.75)
    assert zh["controlled"]["after_repair"]["estimate"] == 100 * (0.75 - 1)
    sketch = deltas["style"][0]
    assert (sketch["label"], sketch["structures"], sketch["controlled_pairs"]) == (
        "sketch − cad", 1, 0)
    assert sketch["pass_at_1"]["estimate"] == 0.0
    assert sketch["after_repair"]["estimate"] == 100 * (0.75 - 0.875)
    assert sketch["controlled"] is None


def test_robustness_is_judged_run_by_run():
    """P (en, zh) and Q (en, zh sketch; Q-zh is out) in two runs: 4 structure-runs.
    pass@1 stages — run 0: P perfect/releases ✗, Q loads/loads ✓; run 1: P releases/releases
    ✓, Q loads/loads ✓ → 3 of 4. After repair — run 0: P perfect/releases ✗, Q perfect/loads
    ✗; run 1: P perfect/perfect ✓, Q loads/loads ✓ → 2 of 4."""
    r = presentation_robustness(per_task(two_runs()))
    assert r["pass_at_1"] == {"share": 0.75, "robust": 3, "compared": 4, "structures": 2,
                              "runs": 2}
    assert r["after_repair"] == {"share": 0.5, "robust": 2, "compared": 4, "structures": 2,
                                 "runs": 2}


def test_by_factor_over_runs_adds_counts_like_by_category():
    """en: P-en and Q-en in both runs: 1 + 1 + 2·1 + 2·0.75 of 1 + 1 + 2 + 2.
    zh: P-zh, Q-zh (one outage), Q-zs, twice: 0.5 + 1 + 2·0.75 + 0 + 2·0.75·2 of 10."""
    summary = summarize(two_runs(), wall_s=1.0)
    en, zh = summary["by_factor"]["language"]["en"], summary["by_factor"]["language"]["zh"]
    assert (en["tasks"], en["unavailable"], en["score"], en["max_score"]) == (
        4, 0, 1 + 1 + 2 * 1 + 2 * 0.75, 6)
    assert (zh["tasks"], zh["unavailable"], zh["score"], zh["max_score"]) == (
        6, 1, 0.5 + 1 + 2 * 0.75 + 0 + 2 * 0.75 * 2, 10)
    assert zh["accuracy"] == 60.0
    # the summary's deltas are the statistics module's, over both runs
    assert summary["presentation_deltas"] == presentation_deltas(per_task(two_runs()))
    assert "modality" not in summary["by_factor"]


def test_every_pair_of_values_in_factor_order():
    """Three styles on one structure: textbook − cad, sketch − cad, sketch − textbook,
    the reference being the earlier value of FACTORS (the default first)."""
    rows = [result("S-c", "S", 1, 0, 1.0, 1.0), result("S-t", "S", 1, 0, 0.5, 0.5,
                                                       style="textbook"),
            result("S-s", "S", 1, 0, 0.25, 0.25, style="sketch")]
    labels = [(e["label"], e["pass_at_1"]["estimate"])
              for e in presentation_deltas(per_task(rows))["style"]]
    assert labels == [("textbook − cad", 100 * (0.5 - 1)), ("sketch − cad", 100 * (0.25 - 1)),
                      ("sketch − textbook", 100 * (0.25 - 0.5))]
    assert value_order("style", ["sketch", "zz-new", "cad", "aa-new"]) == [
        "cad", "sketch", "aa-new", "zz-new"]


def test_a_recorded_modality_adds_its_entry():
    rows = [result("S-en", "S", 2, 0, 1.0, 1.0), result("S-zh", "S", 2, 0, 0.5, 0.75,
                                                        language="zh")]
    out = by_factor(rows, "dxf")
    assert list(out["modality"]) == ["dxf"]
    assert out["modality"]["dxf"]["accuracy"] == 100 * (2 * 1 + 2 * 0.75) / 4
    assert "modality" not in by_factor(rows)
    assert summarize(rows, wall_s=0, modality="dxf")["by_factor"]["modality"]["dxf"]["tasks"] == 2


def test_a_modality_alone_prints_no_factor_table():
    from structeval.harness.command.printout import format_factors
    from structeval.reports.presentations import factor_section

    same = [result(f"S{i}", f"S{i}", 1, 0, 1.0, 1.0) for i in range(2)]
    assert format_factors(summarize(same, wall_s=0, modality="dxf")) == ""
    assert factor_section(factor_summary(same, "dxf"), 1) == ""
    varied = [*same, result("S0-zh", "S0", 1, 0, 0.5, 0.5, language="zh")]
    text = format_factors(summarize(varied, wall_s=0, modality="dxf"))
    assert "modality      dxf" in text and "language      en" in text


@pytest.mark.parametrize("manifest, expected", [
    ({"grading": {"model": "m", "modality": "dxf"}}, "dxf"),
    ({"grading": {"model": "m"}, "sessions": [{"modality": "image"}, {"modality": "dxf"}]},
     "dxf"),
    ({"modality": "image"}, "image"),
    ({"grading": {"model": "m"}}, None),
    ({"grading": "broken", "sessions": "broken", "modality": 3}, None),
    ([], None),
    (None, None),
])
def test_recorded_modality_is_read_defensively(manifest, expected):
    assert recorded_modality(manifest) == expected


def test_results_without_presentations_give_empty_factor_entries():
    rows = [TaskResult(f"t{i}", "beam", 1, 0, "scored", 1.0, "perfect", 1.0, "perfect", 1)
            for i in range(3)]
    assert factor_summary(rows) == {
        "by_factor": {}, "presentation_deltas": {},
        "presentation_robustness": {
            "pass_at_1": {"share": None, "robust": 0, "compared": 0, "structures": 0,
                          "runs": 1},
            "after_repair": {"share": None, "robust": 0, "compared": 0, "structures": 0,
                             "runs": 1}}}
    json.dumps(summarize(rows, wall_s=0), allow_nan=False)  # storable as is


def test_tasks_with_one_presentation_are_not_a_robustness_case():
    """Two tasks of one structure shown identically (e.g. two image seeds) are one
    presentation: no delta, and nothing to be robust across."""
    rows = [result("S-1", "S", 1, 0, 1.0, 1.0), result("S-2", "S", 1, 0, 0.0, 0.0)]
    summary = factor_summary(rows)
    assert summary["presentation_deltas"] == {}
    assert summary["presentation_robustness"]["pass_at_1"]["compared"] == 0
