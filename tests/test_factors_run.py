"""Per-factor analysis of a scripted run, checked against figures worked out by hand.

The run (``tests/factor_run.py``) shows four structures in up to four
presentations; its docstring tabulates every task's difficulty, presentation and
scripted credits. Every expected value below is written as arithmetic on that
table, not copied from the output.

Hand-worked definitions (docs/results/factor-table.md, "Reading the factor table"): a delta is the
difficulty-weighted mean over structures of (mean credit at v − mean credit at
w); C-zh is unavailable, so structure C drops out of the deltas and of the
robustness (it has one scored presentation left), while by_factor counts it 0.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from structeval.dataset import load_tasks
from structeval.harness.command.printout import format_factors, format_summary
from structeval.statistics.resampling import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    paired_bootstrap_ci,
)
from tests.factor_run import make_factor_run, script_for
from tests.fakeserver import fixture as fx
from tests.fakeserver.server import FakeOpenAI

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def factor_run(tmp_path_factory):
    return make_factor_run(tmp_path_factory.mktemp("factors"))


@pytest.fixture(scope="module")
def summary(factor_run):
    return factor_run.results["summary"]


def accuracy_row(tasks: int, unavailable: int, score: float, max_score: int,
                 first_score: float, ratio_sum: float) -> dict:
    """The by_category row shape, from hand-summed scores."""
    return {"tasks": tasks, "unavailable": unavailable, "score": score, "max_score": max_score,
            "accuracy": round(100 * score / max_score, 4),
            "pass_at_1_accuracy": round(100 * first_score / max_score, 4),
            "avg_ratio": round(100 * ratio_sum / tasks, 4)}


def test_the_run_went_as_scripted(factor_run):
    got = {t["id"]: (t["first_attempt_ratio"], t["ratio"], t["status"])
           for t in factor_run.results["tasks"]}
    assert got == {"B-en": (1.0, 1.0, "scored"), "B-zh": (0.25, 1.0, "scored"),
                   "B-sk": (0.0, 1.0, "scored"), "F-en": (0.75, 1.0, "scored"),
                   "F-zh": (0.5, 0.75, "scored"), "F-sk": (0.5, 0.5, "scored"),
                   "F-ex": (0.25, 0.75, "scored"), "T-en": (0.75, 1.0, "scored"),
                   "T-zh": (0.75, 1.0, "scored"), "C-en": (1.0, 1.0, "scored"),
                   "C-zh": (None, 0.0, "unavailable")}
    structures = {t["id"]: t["structure"] for t in factor_run.results["tasks"]}
    assert structures["F-ex"] == structures["F-en"] == "frame_t01"


def test_by_factor_by_hand(summary):
    """Only dimensioning, language and style take two values; units, values and symbols
    have one each, so they are absent; the run records its modality (image: run.json
    grading.modality, issue 11), whose single group is the whole run."""
    by_factor = summary["by_factor"]
    assert list(by_factor) == ["dimensioning", "language", "style", "modality"]
    assert list(by_factor["modality"]) == ["image"]
    assert list(by_factor["language"]) == ["en", "zh"]  # the default first
    # full: every task but F-ex. After repair B 1+1+1, F 3·(1 + 0.75 + 0.5), T 2·(1 + 1),
    # C 2·(1 + 0); pass@1 B 1 + 0.25 + 0, F 3·(0.75 + 0.5 + 0.5), T 2·(0.75 + 0.75), C 2·1
    assert by_factor["dimensioning"]["full"] == accuracy_row(
        10, 1, 3 + 3 * 2.25 + 2 * 2 + 2 * 1, 3 * 1 + 3 * 3 + 2 * 2 + 2 * 2,
        1.25 + 3 * 1.75 + 2 * 1.5 + 2 * 1, 3 + 2.25 + 2 + 1 + 0)
    assert by_factor["dimensioning"]["exam"] == accuracy_row(1, 0, 3 * 0.75, 3, 3 * 0.25, 0.75)
    # en: B-en, F-en, F-ex, T-en, C-en
    assert by_factor["language"]["en"] == accuracy_row(
        5, 0, 1 + 3 * 1 + 3 * 0.75 + 2 * 1 + 2 * 1, 1 + 3 + 3 + 2 + 2,
        1 + 3 * 0.75 + 3 * 0.25 + 2 * 0.75 + 2 * 1, 1 + 1 + 0.75 + 1 + 1)
    # zh: B-zh, B-sk, F-zh, F-sk, T-zh, C-zh (unavailable: 0, difficulty kept)
    assert by_factor["language"]["zh"] == accuracy_row(
        6, 1, 1 + 1 + 3 * 0.75 + 3 * 0.5 + 2 * 1 + 0, 1 + 1 + 3 + 3 + 2 + 2,
        0.25 + 0 + 3 * 0.5 + 3 * 0.5 + 2 * 0.75 + 0, 1 + 1 + 0.75 + 0.5 + 1 + 0)
    # sketch: B-sk, F-sk; cad: the other nine
    assert by_factor["style"]["sketch"] == accuracy_row(2, 0, 1 + 3 * 0.5, 1 + 3, 0 + 3 * 0.5,
                                                        1 + 0.5)
    assert by_factor["style"]["cad"] == accuracy_row(
        9, 1, 2 * 1 + 3 * (1 + 0.75 + 0.75) + 2 * 2 + 2 * 1, 2 + 9 + 4 + 4,
        1.25 + 3 * (0.75 + 0.5 + 0.25) + 2 * 1.5 + 2 * 1, 2 + 2.5 + 2 + 1)
    # the groups of one factor partition the run, like by_category
    for values in by_factor.values():
        assert sum(r["tasks"] for r in values.values()) == summary["tasks"] == 11
        assert sum(r["max_score"] for r in values.values()) == 23


def delta(summary, factor: str, label: str) -> dict:
    entries = {e["label"]: e for e in summary["presentation_deltas"][factor]}
    return entries[label]


def check_interval(interval: dict, estimate: float, per_structure: list[float]) -> None:
    """The point estimate by hand; the bounds lie within the per-structure deltas (every
    resample mean does) and come from the shared, seeded bootstrap."""
    assert interval["estimate"] == pytest.approx(estimate, abs=1e-4)
    assert min(per_structure) - 1e-9 <= interval["low"] <= interval["estimate"]
    assert interval["estimate"] <= interval["high"] <= max(per_structure) + 1e-9
    assert (interval["resamples"], interval["seed"], interval["level"]) == (
        BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, 0.95)
    assert interval["n"] == len(per_structure)


def test_language_delta_by_hand(summary):
    """Structures with scored tasks at en and zh: B, F, T (C's zh task is unavailable).
    pass@1: B (0.25 + 0)/2 − 1 = −0.875, F (0.5 + 0.5)/2 − (0.75 + 0.25)/2 = 0,
    T 0.75 − 0.75 = 0; weights 1, 3, 2 → −0.875/6. After repair: B (1 + 1)/2 − 1 = 0,
    F (0.75 + 0.5)/2 − (1 + 0.75)/2 = −0.25, T 1 − 1 = 0 → 3·(−0.25)/6.
    Controlled pairs (zh and en, all else equal): B-zh/B-en, F-zh/F-en, T-zh/T-en.
    pass@1: −0.75, −0.25, 0 → (−0.75 − 0.75)/6; after repair 0, −0.25, 0 → −0.75/6."""
    e = delta(summary, "language", "zh − en")
    assert (e["value"], e["reference"], e["structures"], e["controlled_pairs"]) == (
        "zh", "en", 3, 3)
    assert e["tasks"] == {"zh": 2 + 2 + 1, "en": 1 + 2 + 1}
    check_interval(e["pass_at_1"], 100 * (1 * -0.875 + 3 * 0 + 2 * 0) / 6, [-87.5, 0, 0])
    check_interval(e["after_repair"], 100 * (3 * -0.25) / 6, [0, -25, 0])
    c = e["controlled"]
    assert (c["structures"], c["pairs"]) == (3, 3)
    check_interval(c["pass_at_1"], 100 * (1 * -0.75 + 3 * -0.25 + 2 * 0) / 6, [-75, -25, 0])
    check_interval(c["after_repair"], 100 * (3 * -0.25) / 6, [0, -25, 0])
    # the interval is the shared paired bootstrap over the structures, in dataset order
    expected = paired_bootstrap_ci([0.125, 0.5, 0.75], [1.0, 0.5, 0.75], [1, 3, 2]).scaled(100)
    assert e["pass_at_1"] == expected.to_json()


def test_style_delta_by_hand(summary):
    """sketch − cad over B and F. pass@1: B 0 − (1 + 0.25)/2 = −0.625,
    F 0.5 − (0.75 + 0.5 + 0.25)/3 = 0 → −0.625/4. After repair: B 1 − 1 = 0,
    F 0.5 − (1 + 0.75 + 0.75)/3 = −1/3 → 3·(−1/3)/4. Controlled: B-sk/B-zh,
    F-sk/F-zh: pass@1 −0.25, 0 → −0.25/4; after repair 0, −0.25 → −0.75/4."""
    e = delta(summary, "style", "sketch − cad")
    assert (e["structures"], e["controlled_pairs"], e["tasks"]) == (
        2, 2, {"sketch": 2, "cad": 2 + 3})
    check_interval(e["pass_at_1"], 100 * (1 * -0.625 + 3 * 0) / 4, [-62.5, 0])
    check_interval(e["after_repair"], 100 * (3 * -1 / 3) / 4, [0, -100 / 3])
    check_interval(e["controlled"]["pass_at_1"], 100 * (1 * -0.25) / 4, [-25, 0])
    check_interval(e["controlled"]["after_repair"], 100 * (3 * -0.25) / 4, [0, -25])


def test_dimensioning_delta_by_hand(summary):
    """exam − full on F alone: pass@1 0.25 − (0.75 + 0.5 + 0.5)/3, after repair
    0.75 − (1 + 0.75 + 0.5)/3 = 0; one controlled pair F-ex/F-en: 0.25 − 0.75 and
    0.75 − 1. One structure: every resample is that structure, the CI is a point."""
    e = delta(summary, "dimensioning", "exam − full")
    assert (e["structures"], e["controlled_pairs"]) == (1, 1)
    first = 100 * (0.25 - (0.75 + 0.5 + 0.5) / 3)
    assert e["pass_at_1"]["estimate"] == pytest.approx(first, abs=1e-4)
    assert e["pass_at_1"]["low"] == e["pass_at_1"]["high"] == e["pass_at_1"]["estimate"]
    assert e["after_repair"]["estimate"] == 100 * (0.75 - (1 + 0.75 + 0.5) / 3) == 0
    assert e["controlled"]["pass_at_1"]["estimate"] == 100 * (0.25 - 0.75)
    assert e["controlled"]["after_repair"]["estimate"] == 100 * (0.75 - 1)


def test_only_pairs_with_shared_structures_are_listed(summary):
    assert {f: [e["label"] for e in es] for f, es in summary["presentation_deltas"].items()} \
        == {"dimensioning": ["exam − full"], "language": ["zh − en"], "style": ["sketch − cad"]}


def test_robustness_by_hand(summary):
    """Structures with two or more scored presentations: B, F, T (C has only C-en left).
    pass@1 stages: B perfect/supports/geometry, F loads/releases/releases/supports,
    T loads/loads → 1 of 3. After repair: B perfect ×3, F perfect/loads/releases/loads,
    T perfect ×2 → 2 of 3."""
    r = summary["presentation_robustness"]
    assert r["pass_at_1"] == {"share": round(1 / 3, 6), "robust": 1, "compared": 3,
                              "structures": 3, "runs": 1}
    assert r["after_repair"] == {"share": round(2 / 3, 6), "robust": 2, "compared": 3,
                                 "structures": 3, "runs": 1}


def test_the_printed_summary_has_the_factor_table(summary):
    text = format_summary(summary, model="m", prompt_type="standard", output="out")
    lines = text.splitlines()
    zh = next(x for x in lines if x.split()[:1] == ["zh"])
    assert zh.split() == ["zh", "6", f"{100 * 7.75 / 12:.2f}%", f"{100 * 4.75 / 12:.2f}%"]
    row = next(x for x in lines if x.startswith("language: zh − en"))
    assert f"{100 * -0.875 / 6:+.2f} [" in row and f"{100 * -0.75 / 6:+.2f} [" in row
    assert row.split()[4:6] == ["3", "3"]  # structures, controlled pairs
    assert "pass@1 1 of 3 (33.3%), after repair 2 of 3 (66.7%)" in text


def test_the_docs_example_is_what_this_run_prints(summary):
    page = (ROOT / "docs" / "results" / "factor-table.md").read_text(encoding="utf-8")
    assert format_factors(summary) in page


def test_run_eval_prints_the_factor_table(factor_run, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    env["OPENAI_API_KEY"] = fx.SECRET_KEY
    with FakeOpenAI(script_for(load_tasks(factor_run.data))) as server:
        done = subprocess.run(
            [sys.executable, str(ROOT / "run_eval.py"), "--model", "fake-vlm", "--api-base",
             server.base_url, "--data-dir", str(factor_run.data), "--output",
             str(tmp_path / "cli"), "--max-retries", "1", "--transport-retries", "2",
             "--backoff-base", "0.001", "--backoff-max", "0.002"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 3, done.stderr  # C-zh stays unavailable
    assert format_factors(factor_run.results["summary"]) in done.stdout
    assert fx.SECRET_KEY not in done.stdout + done.stderr


def test_results_json_is_deterministic(factor_run, tmp_path):
    """Same answers, same summary bytes (apart from the wall time)."""
    again = make_factor_run(tmp_path)
    first, second = (dict(r.results["summary"], wall_s=0) for r in (factor_run, again))
    assert json.dumps(first) == json.dumps(second)
