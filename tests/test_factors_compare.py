"""``tools/compare.py --by-factor`` and the perception-gap label, on hand-made run directories.

Ratios are multiples of 0.25 and difficulties small integers, so every expected
figure below is exact arithmetic on the rows written here.
"""

from __future__ import annotations

import json
from pathlib import Path

from structeval.reports.compare import compare_runs
from structeval.reports.runfiles import load_results
from tests.test_reports_tools import tool

EN_CAD = {"dimensioning": "full", "values": "numeric", "units": "m-kN", "language": "en",
          "symbols": "a", "style": "cad"}
ZH_CAD = {**EN_CAD, "language": "zh"}
ZH_SKETCH = {**ZH_CAD, "style": "sketch"}
#: task → (difficulty, presentation, ratio in A, ratio in B)
TASKS = {"t1": (1, EN_CAD, 1.0, 0.75), "t2": (2, EN_CAD, 1.0, 0.75), "t5": (3, EN_CAD, 0.75, 0.5),
         "t3": (1, ZH_CAD, 0.75, 0.25), "t4": (2, ZH_SKETCH, 0.25, 1.0)}
STAGE = {1.0: "perfect", 0.75: "loads", 0.5: "releases", 0.25: "supports", 0.0: "geometry"}


def entry(task_id: str, ratio: float, difficulty: int, presentation: dict | None,
          structure: str | None = None) -> dict:
    out = {"id": task_id, "category": "beam", "difficulty": difficulty, "run": 0,
           "status": "scored", "ratio": ratio, "score": ratio * difficulty,
           "stage": STAGE[ratio], "first_attempt_ratio": ratio,
           "first_attempt_stage": STAGE[ratio], "attempts": 1, "tokens": 10, "reason": None}
    if presentation is not None:
        out.update(structure=structure or task_id, presentation=presentation)
    return out


def write(path: Path, side: int, *, modality: str | None = None, presentations: bool = True,
          fingerprint: str = "same") -> Path:
    """Run A (side 2) or B (side 3) of TASKS; run.json records ``modality`` when given."""
    path.mkdir(parents=True)
    rows = [entry(k, v[side], v[0], v[1] if presentations else None) for k, v in TASKS.items()]
    (path / "results.json").write_text(json.dumps({"summary": {}, "tasks": rows}))
    grading = {"model": f"m{side}", "prompt_type": "standard", "tolerance": 0.02}
    if modality is not None:
        grading["modality"] = modality
    (path / "run.json").write_text(json.dumps({"format": 1, "grading": grading, "sessions": [
        {"session": 0, "started_at": "2026-01-01T10:00:00+00:00"}]}))
    (path / "trace.jsonl").write_text("".join(
        json.dumps({"type": "task", "run": 0, "session": 0, "task_id": k,
                    "fingerprint": f"{fingerprint}-{k}"}) + "\n" for k in TASKS))
    return path


def test_by_factor_by_hand(tmp_path):
    """language=en (t1, t2, t5; difficulties 1, 2, 3): A = (1 + 2·1 + 3·0.75)/6 = 87.5 %,
    B = (0.75 + 2·0.75 + 3·0.5)/6 = 62.5 %; every ratio difference is 0.25, so the CI is
    the point 25. Score differences +0.25, +0.5, +0.75: ranks 1, 2, 3 all positive,
    W+ = 6 of n = 3 → exact p = 2·P(W+ ≥ 6) = 2/8.
    language=zh (t3, t4): A = (0.75 + 2·0.25)/3, B = (0.25 + 2·1)/3; score differences
    +0.5, −1.5 → W+ = 1 of n = 2, p = 2·min(P(W+ ≤ 1), P(W+ ≥ 1)) = 2·min(1/2, 3/4) = 1.
    style=cad (t1, t2, t5, t3): A = (1 + 2 + 2.25 + 0.75)/7, B = (0.75 + 1.5 + 1.5 + 0.25)/7;
    style=sketch (t4): A 0.25, B 1.
    dimensioning, values, units and symbols take one value each: no rows."""
    a, b = write(tmp_path / "a", 2), write(tmp_path / "b", 3)
    out = tmp_path / "cmp.json"
    done = tool("compare.py", a, b, "--by-factor", "--json", out)
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text())
    assert list(data["by_factor"]) == ["language", "style"]
    en, zh = data["by_factor"]["language"]
    assert (en["name"], en["tasks"], en["a_accuracy"], en["b_accuracy"]) == (
        "language=en", 3, 100 * 5.25 / 6, 100 * 3.75 / 6)
    assert en["difference"]["estimate"] == en["difference"]["low"] == \
        en["difference"]["high"] == 25.0
    assert (en["wilcoxon"]["w_plus"], en["wilcoxon"]["n"], en["wilcoxon"]["method"],
            en["wilcoxon"]["p_value"]) == (6.0, 3, "exact", 2 / 8)
    assert (en["a_better"], en["ties"], en["b_better"]) == (3, 0, 0)
    assert (zh["name"], zh["tasks"]) == ("language=zh", 2)
    assert zh["a_accuracy"] == round(100 * 1.25 / 3, 4)
    assert zh["b_accuracy"] == round(100 * 2.25 / 3, 4)
    assert zh["difference"]["estimate"] == round(100 * (1.25 - 2.25) / 3, 4)
    assert (zh["wilcoxon"]["w_plus"], zh["wilcoxon"]["p_value"]) == (1.0, 1.0)
    cad, sketch = data["by_factor"]["style"]
    assert (cad["name"], cad["tasks"], cad["a_accuracy"], cad["b_accuracy"]) == (
        "style=cad", 4, round(100 * 6 / 7, 4), round(100 * 4 / 7, 4))
    assert (sketch["name"], sketch["a_accuracy"], sketch["b_accuracy"]) == (
        "style=sketch", 25.0, 100.0)
    # the overall row is unchanged by --by-factor
    assert data["overall"]["a_accuracy"] == round(100 * 6.5 / 9, 4)
    assert data["modality"] == {"a": "image", "b": "image", "differ": False}
    text = done.stdout
    assert "By presentation factor value" in text
    line = next(x for x in text.splitlines() if x.startswith("language=en"))
    assert "87.50%" in line and "62.50%" in line and "+25.00" in line and "0.2500" in line


def test_without_by_factor_the_output_is_as_before(tmp_path):
    a, b = write(tmp_path / "a", 2), write(tmp_path / "b", 3)
    out = tmp_path / "cmp.json"
    done = tool("compare.py", a, b, "--json", out)
    assert done.returncode == 0, done.stderr
    assert "By presentation factor" not in done.stdout
    assert "by_factor" not in json.loads(out.read_text())


def test_dxf_against_image_is_the_perception_gap(tmp_path):
    """A DXF run (A) against an image run (B): A − B is dxf − image, overall
    (6.5 − 6)/9 = 5.5556 points. The fingerprints differ (different inputs by design),
    which would otherwise refuse the comparison."""
    a = write(tmp_path / "a", 2, modality="dxf", fingerprint="dxf")
    b = write(tmp_path / "b", 3, fingerprint="png")
    out = tmp_path / "cmp.json"
    done = tool("compare.py", a, b, "--by-factor", "--json", out)
    assert done.returncode == 0, done.stderr
    assert "perception gap (dxf − image) = A − B" in done.stdout
    assert "Perception gap (dxf − image), overall: +5.56 points" in done.stdout
    data = json.loads(out.read_text())
    gap = data["modality"]["perception_gap"]
    assert (gap["label"], gap["equals"]) == ("dxf − image", "A - B")
    assert gap["overall"]["estimate"] == round(100 * 0.5 / 9, 4)
    assert (data["a"]["modality"], data["b"]["modality"]) == ("dxf", "image")


def test_image_against_dxf_turns_the_gap_round(tmp_path):
    """Swapped: A − B = image − dxf, so the gap is its negative, CI bounds swapped too."""
    a = write(tmp_path / "a", 2, fingerprint="png")
    b = write(tmp_path / "b", 3, modality="dxf", fingerprint="dxf")
    c = compare_runs(load_results(a), load_results(b), by_factor=True)
    gap = c.modalities.gap(c.overall)
    d = c.overall.difference
    assert c.modalities.gap_sign == -1
    assert (gap.estimate, gap.low, gap.high) == (-d.estimate, -d.high, -d.low)
    assert c.to_json()["modality"]["perception_gap"]["equals"] == "B - A"


def test_same_modality_with_changed_inputs_is_still_refused(tmp_path):
    a = write(tmp_path / "a", 2, fingerprint="old")
    b = write(tmp_path / "b", 3, fingerprint="new")
    done = tool("compare.py", a, b, "--by-factor")
    assert done.returncode == 2 and "asked differently" in done.stderr


def test_a_task_shown_differently_is_refused(tmp_path):
    a, b = write(tmp_path / "a", 2), write(tmp_path / "b", 3)
    data = json.loads((b / "results.json").read_text())
    data["tasks"][0]["presentation"] = ZH_CAD  # t1 was en in A
    (b / "results.json").write_text(json.dumps(data))
    done = tool("compare.py", a, b, "--by-factor")
    assert done.returncode == 2
    assert "asked differently" in done.stderr and "t1" in done.stderr


def test_older_results_without_presentations_still_compare(tmp_path):
    a = write(tmp_path / "a", 2, presentations=False)
    b = write(tmp_path / "b", 3, presentations=False)
    out = tmp_path / "cmp.json"
    done = tool("compare.py", a, b, "--by-factor", "--json", out)
    assert done.returncode == 0, done.stderr
    assert "no presentation factor takes two values" in done.stdout
    data = json.loads(out.read_text())
    assert data["by_factor"] == {}
    assert data["overall"]["a_accuracy"] == round(100 * 6.5 / 9, 4)
    # one side old, one side new: the recorded presentations are used
    c = compare_runs(load_results(a), load_results(write(tmp_path / "c", 3)), by_factor=True)
    assert [g.name for g in c.by_factor["language"]] == ["language=en", "language=zh"]


def test_a_malformed_presentation_is_a_typed_error(tmp_path):
    a, b = write(tmp_path / "a", 2), write(tmp_path / "b", 3)
    data = json.loads((b / "results.json").read_text())
    data["tasks"][2]["presentation"] = ["zh"]
    data["tasks"][3]["structure"] = 7
    (b / "results.json").write_text(json.dumps(data))
    done = tool("compare.py", a, b, "--by-factor")
    assert done.returncode == 2
    assert "tasks[2].presentation: must be an object of factor → value" in done.stderr
    assert "tasks[3].structure: must be a non-empty string" in done.stderr
    assert "Traceback" not in done.stderr
