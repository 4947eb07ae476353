"""tools/compare.py and tools/leaderboard.py on hand-made run directories.

Every expected number is worked out by hand from the rows written here
(ratios are multiples of 0.25 and difficulties small integers, so the sums are
exact in binary floating point).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from structeval.reports.compare import TaskSetMismatch, compare_runs
from structeval.reports.leaderboard import leaderboard
from structeval.reports.runfiles import ResultsError, load_results

ROOT = Path(__file__).resolve().parents[1]


def row(task_id: str, ratio: float, difficulty: int = 1, *, category: str = "beam",
        run: int = 0, first: float | None = None, stage: str | None = None,
        status: str = "scored") -> dict:
    stage = stage or {1.0: "perfect", 0.75: "loads", 0.5: "releases", 0.25: "supports",
                      0.0: "geometry"}[ratio]
    return {"id": task_id, "category": category, "difficulty": difficulty, "run": run,
            "status": status, "ratio": ratio, "score": ratio * difficulty, "stage": stage,
            "first_attempt_ratio": ratio if first is None else first,
            "first_attempt_stage": stage, "attempts": 1, "tokens": 100, "reason": None}


def write_run(path: Path, rows: list[dict], *, model: str = "m", date: str | None = None,
              fingerprints: dict[str, str] | None = None, summary: dict | None = None) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "results.json").write_text(json.dumps({"summary": summary or {}, "tasks": rows}))
    if date is not None:
        manifest = {"format": 1, "grading": {"model": model, "prompt_type": "standard",
                                             "tolerance": 0.02},
                    "sessions": [{"session": 0, "started_at": f"{date}T10:00:00+00:00"}]}
        (path / "run.json").write_text(json.dumps(manifest))
    if fingerprints:
        lines = [json.dumps({"type": "task", "run": 0, "session": 0, "task_id": k,
                             "fingerprint": v}) for k, v in fingerprints.items()]
        (path / "trace.jsonl").write_text("\n".join(lines) + "\n")
    return path


def tool(name: str, *args: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "tools" / name), *map(str, args)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)


# ----------------------------------------------------------------------------- compare


@pytest.fixture()
def mismatched(tmp_path):
    a = write_run(tmp_path / "a", [row("t1", 1.0, 1), row("t2", 0.5, 2), row("t3", 0.75, 3),
                                   row("only_a", 1.0, 1)])
    b = write_run(tmp_path / "b", [row("t1", 1.0, 1), row("t2", 1.0, 2), row("t3", 0.25, 3),
                                   row("only_b", 0.0, 4)])
    return a, b


def test_compare_refuses_different_task_sets(mismatched):
    a, b = mismatched
    done = tool("compare.py", a, b / "results.json")
    assert done.returncode == 2
    assert "different task sets" in done.stderr
    assert "only in A" in done.stderr and "only_a" in done.stderr
    assert "only in B" in done.stderr and "only_b" in done.stderr
    assert "--intersection" in done.stderr
    assert done.stdout == ""


def test_compare_on_the_intersection_by_hand(mismatched, tmp_path):
    """Shared t1, t2, t3 (difficulties 1, 2, 3): A = (1 + 2·0.5 + 3·0.75)/6 = 70.8333 %,
    B = (1 + 2·1 + 3·0.25)/6 = 62.5 %, A − B = 8.3333 points. Score differences 0, −1,
    +1.5: the zero is dropped, ranks 1 (−) and 2 (+), W+ = 2 of n = 2 → exact two-sided
    p = 2·min(P(W+ ≤ 2), P(W+ ≥ 2)) = 2·min(3/4, 1/2) = 1."""
    a, b = mismatched
    out = tmp_path / "cmp.json"
    done = tool("compare.py", a, b, "--intersection", "--json", out)
    assert done.returncode == 0, done.stderr
    assert "Intersection: 3 shared task(s); dropped 1 only in A, 1 only in B" in done.stdout
    data = json.loads(out.read_text())
    overall = data["overall"]
    assert (overall["tasks"], overall["a_accuracy"], overall["b_accuracy"]) == (3, 70.8333, 62.5)
    assert overall["difference"]["estimate"] == 8.3333
    assert overall["wilcoxon"]["p_value"] == 1.0
    assert (overall["wilcoxon"]["w_plus"], overall["wilcoxon"]["zeros"]) == (2.0, 1)
    assert (overall["a_better"], overall["ties"], overall["b_better"]) == (1, 1, 1)
    assert data["only_a"] == ["only_a"] and data["only_b"] == ["only_b"]
    line = next(x for x in done.stdout.splitlines() if x.startswith("OVERALL"))
    assert "70.83%" in line and "62.50%" in line and "+8.33" in line


def test_a_dominating_run_is_significant(tmp_path):
    """12 tasks of difficulty 1 where A beats B by 0.25 on six and by 0.5 on six: tied
    magnitudes → normal approximation. W+ = 78 (all ranks), mean 39, variance
    12·13·25/24 − 2·(6³ − 6)/48 = 162.5 − 8.75 = 153.75; z = (39 − 0.5)/√153.75."""
    a_rows = [row(f"t{i:02d}", 1.0 if i < 6 else 0.75) for i in range(12)]
    b_rows = [row(f"t{i:02d}", 0.75 if i < 6 else 0.25) for i in range(12)]
    c = compare_runs(load_results(write_run(tmp_path / "a", a_rows)),
                     load_results(write_run(tmp_path / "b", b_rows)))
    w = c.overall.wilcoxon
    assert (w.method, w.w_plus, w.w_minus, w.n) == ("normal", 78.0, 0.0, 12)
    assert w.z == pytest.approx(38.5 / 153.75 ** 0.5, rel=1e-12)
    assert w.p_value == pytest.approx(math.erfc(38.5 / 153.75 ** 0.5 / math.sqrt(2)), rel=1e-12)
    assert w.p_value < 0.01
    # A − B = (6·0.25 + 6·0.5)/12 = 0.375 → 37.5 points; every resample keeps both kinds
    # of task or not, so the interval stays inside [25, 50]
    d = c.overall.difference
    assert d.estimate == 37.5 and 25.0 <= d.low < 37.5 < d.high <= 50.0
    assert (c.overall.a_better, c.overall.ties, c.overall.b_better) == (12, 0, 0)


def test_identical_runs_differ_by_exactly_zero(tmp_path):
    rows = [row("t1", 1.0, 2, category="beam"), row("t2", 0.25, 3, category="frame"),
            row("t3", 0.5, 5, category="truss")]
    c = compare_runs(load_results(write_run(tmp_path / "a", rows)),
                     load_results(write_run(tmp_path / "b", rows)))
    for g in [c.overall, *c.by_category, *c.by_difficulty]:
        assert (g.difference.estimate, g.difference.low, g.difference.high) == (0.0, 0.0, 0.0)
        assert g.wilcoxon.p_value == 1.0
    assert [g.name for g in c.by_category] == ["beam", "frame", "truss"]
    assert [g.name for g in c.by_difficulty] == ["difficulty 2", "difficulty 3", "difficulty 5"]


def test_repeated_runs_count_with_their_mean_ratio(tmp_path):
    """A answered t1 twice (1 and 0.5 → mean 0.75) and t2 twice (0 and 0.5 → 0.25)."""
    a = write_run(tmp_path / "a", [row("t1", 1.0), row("t2", 0.0), row("t1", 0.5, run=1),
                                   row("t2", 0.5, run=1)])
    b = write_run(tmp_path / "b", [row("t1", 0.25), row("t2", 0.25)])
    c = compare_runs(load_results(a), load_results(b))
    assert (c.overall.a_accuracy, c.overall.b_accuracy) == (50.0, 25.0)
    assert c.to_json()["a"]["runs"] == 2


def test_compare_refuses_a_changed_task(tmp_path):
    a = write_run(tmp_path / "a", [row("t1", 1.0, 2), row("t2", 1.0, 1)])
    b = write_run(tmp_path / "b", [row("t1", 1.0, 3), row("t2", 1.0, 1)])
    with pytest.raises(TaskSetMismatch, match="t1"):
        compare_runs(load_results(a), load_results(b), intersection=True)


def test_compare_refuses_tasks_graded_against_different_ground_truth(tmp_path):
    rows = [row("t1", 1.0), row("t2", 1.0)]
    a = write_run(tmp_path / "a", rows, fingerprints={"t1": "aa", "t2": "bb"})
    b = write_run(tmp_path / "b", rows, fingerprints={"t1": "aa", "t2": "cc"})
    done = tool("compare.py", a, b)
    assert done.returncode == 2
    assert "t2" in done.stderr and "ground truth" in done.stderr and "t1," not in done.stderr


@pytest.mark.parametrize(("content", "expected"), [
    ("not json", "not valid JSON"),
    ('{"summary": {}}', "not a run_eval results file"),
    ('{"tasks": []}', "lists no task"),
    ('{"tasks": [{"id": "t", "category": "beam", "difficulty": 0, "status": "scored", '
     '"ratio": 1.5}]}', "tasks[0].difficulty"),
    ('{"tasks": [{"id": "t", "category": "beam", "difficulty": 1, "status": "done", '
     '"ratio": 1}]}', "tasks[0].status"),
])
def test_unusable_results_are_explained(tmp_path, content, expected):
    (tmp_path / "results.json").write_text(content)
    with pytest.raises(ResultsError, match=expected.replace("[", r"\[").replace("]", r"\]")):
        load_results(tmp_path)


def test_duplicates_and_incomplete_runs_are_refused(tmp_path):
    with pytest.raises(ResultsError, match="listed twice"):
        load_results(write_run(tmp_path / "dup", [row("t1", 1.0), row("t1", 0.5)]))
    with pytest.raises(ResultsError, match=r"missing from run\(s\) \[1\]"):
        load_results(write_run(tmp_path / "gap", [row("t1", 1.0), row("t2", 1.0),
                                                  row("t1", 1.0, run=1)]))


def test_an_unfinished_run_says_so(tmp_path):
    (tmp_path / "trace.jsonl").write_text("")
    done = tool("compare.py", tmp_path, tmp_path)
    assert done.returncode == 2 and "--resume" in done.stderr


# ----------------------------------------------------------------------------- leaderboard


def test_leaderboard_table_by_hand(tmp_path):
    """strong: ratios 1, 1 at difficulties 1, 3 → 100 % after repair, a constant sample, so its
    interval is the point 100–100; pass@1 (0.5, 1) → (0.5 + 3)/4 = 87.5 %.
    weak: 1 at d1 and 0.25 at d3 → (1 + 0.75)/4 = 43.75 %; average ratio 62.5 %;
    pass@1 equal to final. Ranked by pass@1, the headline (issue 11)."""
    strong = write_run(tmp_path / "s", [row("t1", 1.0, 1, first=0.5), row("t2", 1.0, 3)],
                       model="Strong|VLM", date="2025-03-01")
    weak = write_run(tmp_path / "w", [row("t1", 1.0, 1), row("t2", 0.25, 3)],
                     model="weak-vlm", date="2025-02-11")
    done = tool("leaderboard.py", weak, strong / "results.json")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("| # | Model | Prompt | pass@1 weighted accuracy (95% CI) | "
                               "After repair (95% CI) |")
    first, second = lines[2], lines[3]
    assert first.startswith("| 1 | Strong\\|VLM | standard | 87.5 (")
    assert first.endswith(" | 100.0 (100.0–100.0) | 100.0 | 2 | 1 | 0 | – | – | – | – | "
                          "2025-03-01 |")
    assert second.startswith("| 2 | weak-vlm | standard | 43.8 (")
    assert second.endswith("| 62.5 | 2 | 1 | 0 | – | – | – | – | 2025-02-11 |")
    assert "different task sets" not in done.stdout


def test_leaderboard_ranks_by_pass_at_1_not_after_repair(tmp_path):
    """A run that only gets there after repair ranks below one that is right at once:
    fixer pass@1 0.25 everywhere, after repair 1 → 25 % / 100 %; steady 0.75 at once and
    after repair → 75 % / 75 %."""
    fixer = write_run(tmp_path / "f", [row("t1", 1.0, 2, first=0.25), row("t2", 1.0, 2,
                                                                          first=0.25)],
                      model="fixer", date="2025-01-01")
    steady = write_run(tmp_path / "s", [row("t1", 0.75, 2), row("t2", 0.75, 2)],
                       model="steady", date="2025-01-01")
    lines = leaderboard([load_results(fixer), load_results(steady)]).splitlines()
    assert lines[2].startswith("| 1 | steady | standard | 75.0 (75.0–75.0) | 75.0 (75.0–75.0)")
    assert lines[3].startswith("| 2 | fixer | standard | 25.0 (25.0–25.0) | 100.0 (100.0–100.0)")


def test_leaderboard_warns_about_different_task_sets(tmp_path):
    a = write_run(tmp_path / "a", [row("t1", 1.0)], model="a", date="2025-01-01")
    b = write_run(tmp_path / "b", [row("t9", 1.0)], model="b", date="2025-01-01")
    text = leaderboard([load_results(a), load_results(b)])
    assert "**Warning:** these runs used 2 different task sets" in text


def test_leaderboard_without_run_json_uses_the_directory_name(tmp_path):
    text = leaderboard([load_results(write_run(tmp_path / "my_run", [row("t1", 0.5)]))])
    assert "| 1 | my\\_run | – | 50.0 (50.0–50.0) | 50.0 (50.0–50.0) |" in text


def _priced(usd: float, **extra: object) -> dict:
    return {"cost": {"usd": usd, "prices": {"in": 1.0, "out": 2.0}}, **extra}


def test_leaderboard_lists_a_run_with_nothing_scored_as_unrankable_not_as_0(tmp_path):
    """dead: both tasks unavailable (a dead endpoint) → not ranked, last, no 0.0 shown;
    poor: one task at 0.25 of difficulty 1 → 25 %, ranked 1 although it is weak."""
    dead = write_run(tmp_path / "d", [row("t1", 0.0, 1, status="unavailable", stage="geometry"),
                                      row("t2", 0.0, 1, status="unavailable",
                                          stage="geometry")],
                     model="a-dead-endpoint", date="2025-01-01",
                     summary=_priced(0.0, selection={"split": "benchmark"}, modality="image",
                                     lang="en"))
    poor = write_run(tmp_path / "p", [row("t1", 0.25, 1), row("t2", 0.0, 1,
                                                              status="unavailable")],
                     model="poor", date="2025-01-01", summary=_priced(0.5))
    lines = leaderboard([load_results(dead), load_results(poor)]).splitlines()
    assert lines[2].startswith("| 1 | poor | standard | 12.5 (")
    assert lines[3] == ("| – | a-dead-endpoint | standard | unrankable: nothing scored | – | – "
                        "| 2 | 1 | 2 | benchmark | image | en | – | 2025-01-01 |")
    assert "0.0 (" not in lines[3]
    assert any("A run with nothing scored is unrankable" in x for x in lines)


def test_leaderboard_columns_unavailable_split_modality_language(tmp_path):
    run = write_run(tmp_path / "r", [row("t1", 1.0, 2), row("t2", 0.5, 2),
                                     row("t3", 0.0, 2, status="unavailable")],
                    model="m", date="2025-01-01",
                    summary={"selection": {"split": "matched"}, "modality": "dxf",
                             "lang": "zh"})
    table = leaderboard([load_results(run)])
    header = table.splitlines()[0]
    assert "| Unavailable | Split | Modality | Language | Cost per scored task | Date |" in header
    assert table.splitlines()[2].endswith("| 3 | 1 | 1 | matched | dxf | zh | – | 2025-01-01 |")


def test_leaderboard_cost_is_per_scored_task(tmp_path):
    """$0.90 for 3 scored tasks of 4 (one never answered): $0.30 per scored task, not $0.225
    (÷ 4 tasks)."""
    run = write_run(tmp_path / "r", [row("t1", 1.0), row("t2", 1.0), row("t3", 0.5),
                                     row("t4", 0.0, status="unavailable")],
                    model="m", date="2025-01-01", summary=_priced(0.9))
    line = leaderboard([load_results(run)]).splitlines()[2]
    assert "| $0.3000 |" in line and "0.2250" not in line


@pytest.mark.parametrize("usd", ["nan", -1.0, "x", True])
def test_leaderboard_ignores_an_unbelievable_cost(tmp_path, usd):
    run = write_run(tmp_path / "r", [row("t1", 1.0)], model="m", date="2025-01-01",
                    summary=_priced(0.0))
    data = json.loads((run / "results.json").read_text())
    data["summary"]["cost"]["usd"] = float(usd) if usd == "nan" else usd
    (run / "results.json").write_text(json.dumps(data))
    line = leaderboard([load_results(run)]).splitlines()[2]
    assert line.endswith("| – | 2025-01-01 |")


def test_leaderboard_rejects_unreadable_results(tmp_path):
    done = tool("leaderboard.py", tmp_path / "nowhere")
    assert done.returncode == 2 and "no such results file" in done.stderr
