"""tools/rescore.py: stored answers re-graded with the current scorer, no API call.

The run: beam_t01 answers with its distributed load 3 % too large (a loads fault at the
default 2 % tolerance, perfect at 5 %), then with the exact model in the repair round;
frame_t01 fails its hinges, then its loads; truss_t01 is perfect; beam_t02 is unavailable.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from structeval.dataset import load_tasks
from structeval.harness import GradingSettings, RetryPolicy, Session
from structeval.harness.common.settings import TransportSettings
from structeval.harness.common.trace import read_trace
from structeval.harness.run.rescore import RescoreError, rescore_run
from tests.fakeserver import fixture as fx
from tests.fakeserver.server import Answer, Fail, FakeOpenAI, Script

ROOT = Path(__file__).resolve().parents[1]
IDS = ("beam_t01", "frame_t01", "truss_t01", "beam_t02")
NEAR = fx.tagged(fx.scaled_load("beam_t01", "Q1", 1.03))


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> tuple[Path, Path, dict[str, fx.FixtureTask]]:
    base = tmp_path_factory.mktemp("rescore")
    tasks = {t.id: t for t in fx.build_dataset(base / "data")}
    sha = {k: fx.image_sha(t) for k, t in tasks.items()}
    script = (Script()
              .on(sha["beam_t01"], 1, Answer(NEAR))
              .on(sha["beam_t01"], 2, Answer(fx.tagged(fx.GT_MODELS["beam_t01"])))
              .on(sha["frame_t01"], 1, Answer(fx.tagged(fx.released("frame_t01", "L2", "endB",
                                                                    "rigid"))))
              .on(sha["frame_t01"], 2, Answer(fx.tagged(fx.scaled_load("frame_t01", "Q1", 1.5))))
              .on(sha["truss_t01"], 1, Answer(fx.boxed(fx.GT_MODELS["truss_t01"])))
              .on(sha["beam_t02"], 1, Fail(503)))
    out = base / "run"
    loaded = {t.id: t for t in load_tasks(base / "data")}  # as run_eval.py loads them
    with FakeOpenAI(script) as server:
        Session(out, grading=GradingSettings(model="fake-vlm", max_retries=1),
                transport_settings=TransportSettings(api_base=server.base_url, timeout=10),
                policy=RetryPolicy(tries=2, base_delay=0.001, max_delay=0.002),
                api_key=fx.SECRET_KEY, resume=False, data_dir=base / "data").run(
            [loaded[i] for i in IDS], progress=False, echo=lambda _: None)
    return out, base / "data", tasks


def rows(directory: Path) -> list[str]:
    return [json.dumps(t) for t in json.loads((directory / "results.json").read_text())["tasks"]]


def summary(directory: Path) -> dict:
    return json.loads((directory / "results.json").read_text())["summary"]


def answers(directory: Path) -> list[tuple[int, str, int, str]]:
    """Every graded answer of the latest session's attempts: (run, task, attempt, text)."""
    records, _ = read_trace(directory / "trace.jsonl")
    last = max(r["session"] for r in records)
    return sorted((r["run"], r["task_id"], r["attempt"], r["response"]["text"])
                  for r in records if r["type"] == "attempt" and r["session"] == last
                  and r.get("outcome") == "graded")


def test_the_source_run_is_as_scripted(run):
    out, _, _ = run
    got = {json.loads(r)["id"]: (json.loads(r)["first_attempt_stage"], json.loads(r)["stage"])
           for r in rows(out)}
    assert got == {"beam_t01": ("loads", "perfect"), "frame_t01": ("releases", "loads"),
                   "truss_t01": ("perfect", "perfect"), "beam_t02": (None, None)}


def test_same_tolerance_reproduces_the_results_exactly(run, tmp_path):
    out, _, _ = run
    outcome = rescore_run(out, output=tmp_path / "same")
    assert rows(tmp_path / "same") == rows(out)  # byte for byte, row by row
    for key in ("weighted_accuracy", "pass_at_1_weighted_accuracy", "stages",
                "pass_at_1_stages", "tokens", "by_category", "by_difficulty", "headline"):
        assert summary(tmp_path / "same")[key] == summary(out)[key], key
    assert (outcome.rescored, outcome.kept, outcome.changed) == (3, 2, 0)
    assert answers(tmp_path / "same") == answers(out)


def test_another_tolerance_changes_only_verdicts_never_answers(run, tmp_path):
    """At 5 % the 3 % load error is within tolerance: beam_t01's first attempt becomes
    perfect, so its pass@1 goes 0.75 → 1; nothing else moves, and every answer is kept."""
    out, _, _ = run
    outcome = rescore_run(out, output=tmp_path / "loose", tolerance=0.05)
    before = {json.loads(r)["id"]: json.loads(r) for r in rows(out)}
    after = {json.loads(r)["id"]: json.loads(r) for r in rows(tmp_path / "loose")}
    assert after["beam_t01"]["first_attempt_stage"] == "perfect"
    assert after["beam_t01"]["first_attempt_ratio"] == 1.0
    for task_id in IDS:
        changed = {k for k in before[task_id] if before[task_id][k] != after[task_id][k]}
        allowed = {"first_attempt_ratio", "first_attempt_stage"} if task_id == "beam_t01" \
            else set()
        assert changed <= allowed, (task_id, changed)
    assert answers(tmp_path / "loose") == answers(out)
    assert outcome.changed == 1
    # pass@1 (0.75·1 + 0.5·3 + 1·2 + 0)/8 → (1·1 + 0.5·3 + 1·2 + 0)/8
    assert summary(out)["pass_at_1_weighted_accuracy"] == 53.125
    assert summary(tmp_path / "loose")["pass_at_1_weighted_accuracy"] == 56.25
    manifest = json.loads((tmp_path / "loose" / "run.json").read_text())
    assert manifest["grading"]["tolerance"] == 0.05
    assert manifest["rescored"]["tolerance_recorded"] == 0.02


def test_repair_attempts_are_kept_as_recorded_and_marked(run, tmp_path):
    out, _, _ = run
    rescore_run(out, output=tmp_path / "m", tolerance=0.05)
    records, skipped = read_trace(tmp_path / "m" / "trace.jsonl")
    assert skipped == 0
    last = max(r["session"] for r in records)
    mine = [r for r in records if r["type"] == "attempt" and r["session"] == last]
    firsts = [r for r in mine if r["attempt"] == 1 and r["outcome"] == "graded"]
    repairs = [r for r in mine if r["attempt"] > 1]
    assert firsts and all(r["rescored"] is True for r in firsts)
    assert repairs and all(r["rescored"] is False and r["kept_as_recorded"] for r in repairs)
    frame_repair = next(r for r in repairs if r["task_id"] == "frame_t01")
    assert frame_repair["verdict"]["stage"] == "loads"  # the verdict as recorded
    unavailable = [r for r in mine if r["task_id"] == "beam_t02"]
    assert unavailable and unavailable[0]["outcome"] == "unavailable"


def test_the_rescored_directory_is_a_normal_run(run, tmp_path):
    out, _, _ = run
    rescore_run(out, output=tmp_path / "n", tolerance=0.05)
    for tool, args in (("report.py", [str(tmp_path / "n"), "-o", str(tmp_path / "r.html"),
                                      "--no-progress"]),
                       ("compare.py", [str(out), str(tmp_path / "n")]),
                       ("leaderboard.py", [str(out), str(tmp_path / "n")])):
        done = subprocess.run([sys.executable, str(ROOT / "tools" / tool), *args],
                              capture_output=True, text=True, cwd=ROOT, timeout=300)
        assert done.returncode == 0, (tool, done.stderr)
    assert (tmp_path / "r.html").stat().st_size > 1000


def test_the_tool_says_what_it_did_and_refuses_what_it_cannot(run, tmp_path):
    out, _, _ = run
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "rescore.py"), str(out),
                           "--output", str(tmp_path / "t"), "--tolerance", "0.05",
                           "--no-progress"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "3 first attempt(s) re-graded, 2 repair attempt(s) kept as recorded, 1 task(s) " \
           "changed credit" in done.stdout
    again = subprocess.run([sys.executable, str(ROOT / "tools" / "rescore.py"), str(out),
                            "--output", str(tmp_path / "t")], capture_output=True, text=True,
                           cwd=ROOT)
    assert again.returncode == 2 and "not empty" in again.stderr
    empty = tmp_path / "nothing"
    empty.mkdir()
    bad = subprocess.run([sys.executable, str(ROOT / "tools" / "rescore.py"), str(empty)],
                         capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 2 and "no run.json" in bad.stderr and "Traceback" not in bad.stderr


def test_a_corrected_ground_truth_is_graded_with_the_new_truth(run, tmp_path):
    """The dataset's truss load F1 doubled after the run: its perfect answer now fails the
    loads stage; the fingerprint follows the new ground truth (the image did not change)."""
    import shutil

    from structeval.dataset.ground_truth import generate

    out, data_dir, _ = run
    changed = tmp_path / "data"
    shutil.copytree(data_dir, changed)
    raw = changed / "raw_models" / "truss_t01.json"
    doc = json.loads(raw.read_text())
    doc["loads"][0]["value"] *= 2
    raw.write_text(json.dumps(doc, indent=2))
    assert not generate(changed)["errors"]
    outcome = rescore_run(out, output=tmp_path / "g", data_dir=changed)
    truss = next(json.loads(r) for r in rows(tmp_path / "g") if '"truss_t01"' in r)
    assert (truss["first_attempt_stage"], truss["ratio"]) == ("loads", 0.75)
    assert outcome.input_changed == []
    with pytest.raises(RescoreError, match="must be a new directory"):
        rescore_run(out, output=out)
