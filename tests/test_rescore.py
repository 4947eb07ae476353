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
from structeval.harness.run.runner import SessionOutcome
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
    scripted_run(base / "run", base / "data", script)
    return base / "run", base / "data", tasks


def scripted_run(out: Path, data_dir: Path, script: Script, *, concurrency: int = 4,
                 echo=lambda _: None, **session: object) -> tuple[SessionOutcome, set[str]]:
    """A session of the IDS tasks of ``data_dir``, loaded as run_eval.py loads them, against
    the scripted server (one repair round): its outcome and the images it asked about."""
    loaded = {t.id: t for t in load_tasks(data_dir)}
    with FakeOpenAI(script) as server:
        outcome = Session(out, grading=GradingSettings(model="fake-vlm", max_retries=1),
                          transport_settings=TransportSettings(api_base=server.base_url,
                                                               timeout=10,
                                                               concurrency=concurrency),
                          policy=RetryPolicy(tries=2, base_delay=0.001, max_delay=0.002),
                          api_key=fx.SECRET_KEY, data_dir=data_dir,
                          **{"resume": False, **session}).run(
            [loaded[i] for i in IDS], progress=False, echo=echo)
        return outcome, {c.image_sha for c in server.calls}


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


# ------------------------------------------------------- a run stopped by --max-cost


def test_a_run_stopped_by_max_cost_keeps_every_task(tmp_path):
    """One perfect answer costs $0.00045 and the bound is $0.0004: the first task is
    scored, the other three are never started (no trace record; only results.json lists
    them). The rescore keeps all four: same rows, same denominators, same pass@1, and
    ``stopped_by_max_cost`` 3 — not 1 task at 100 %."""
    from structeval.harness.run.cost import Prices

    tasks = {t.id: t for t in fx.build_dataset(tmp_path / "data")}
    script = Script()
    for task_id in IDS:
        script.on(fx.image_sha(tasks[task_id]), 1, Answer(fx.tagged(fx.GT_MODELS[task_id])))
    out = tmp_path / "capped"
    scripted_run(out, tmp_path / "data", script, concurrency=1,
                 prices=Prices(2.5, 10.0, "test"), max_cost=0.0004)
    before = summary(out)
    assert (before["tasks"], before["scored"], before["stopped_by_max_cost"]) == (4, 1, 3)
    assert before["pass_at_1_weighted_accuracy"] == 12.5  # beam_t01: 1 of 8 difficulty points
    outcome = rescore_run(out, output=tmp_path / "r")
    after = summary(tmp_path / "r")
    assert rows(tmp_path / "r") == rows(out)
    for key in ("tasks", "scored", "unavailable", "stopped_by_max_cost",
                "pass_at_1_weighted_accuracy", "weighted_accuracy", "by_category",
                "by_difficulty", "headline"):
        assert after[key] == before[key], key
    assert after["cost"]["max_cost"] == 0.0004
    assert (outcome.rescored, outcome.unreadable, outcome.notes) == (1, [], [])


# ------------------------------------------------------- hand-edited traces


def edited(run_dir: Path, target: Path, change) -> Path:
    """A copy of the run whose trace records pass through ``change(record)`` (which edits
    in place, or returns a line of text to write instead)."""
    import shutil

    shutil.copytree(run_dir, target)
    lines = []
    for line in (target / "trace.jsonl").read_text().splitlines():
        record = json.loads(line)
        written = change(record)
        lines.append(written if isinstance(written, str) else json.dumps(record))
    (target / "trace.jsonl").write_text("\n".join(lines) + "\n")
    return target


def frame_repair(edit):
    """Apply ``edit`` to frame_t01's repair attempt (its verdict is kept as recorded)."""
    def change(record):
        if record["type"] == "attempt" and record["task_id"] == "frame_t01" \
                and record["attempt"] == 2:
            edit(record)
    return change


def frame_task(edit):
    def change(record):
        if record["type"] == "task" and record["task_id"] == "frame_t01":
            return edit(record)
    return change


def _set_nan(record):
    return json.dumps(record).replace('"ratio": 0.75', '"ratio": NaN', 1)


HAND_EDITS = {
    "repair ratio 'abc'": (frame_repair(lambda r: r["verdict"].update(ratio="abc")),
                           "verdict ratio 'abc' is not a credit between 0 and 1"),
    "repair verdict [1]": (frame_repair(lambda r: r.update(verdict=[1])),
                           "verdict [1] is not an object"),
    "repair response 'oops'": (frame_repair(lambda r: r.update(response="oops")),
                               "response 'oops' is not an object"),
    "repair flags 5": (frame_repair(lambda r: r["response"].update(flags=5)),
                       "answer flags 5"),
    "repair ratio 7.5": (frame_repair(lambda r: r["verdict"].update(ratio=7.5)),
                         "verdict ratio 7.5 is not a credit between 0 and 1"),
    "task ratio NaN": (frame_task(_set_nan), "line(s) of the trace could not be read"),
    "task status odd": (frame_task(lambda r: r.update(status="odd")), "status 'odd'"),
    "task difficulty 99": (frame_task(lambda r: r.update(difficulty=99)), "difficulty 99"),
}


@pytest.mark.parametrize("name", list(HAND_EDITS))
def test_a_hand_edited_record_makes_its_task_unreadable_never_a_crash(run, tmp_path, name):
    """frame_t01 (difficulty 3) had pass@1 0.5 and 0.75 after repair. Whatever the edit,
    the rescore keeps the four tasks and the 8 difficulty points of the denominators:
    frame_t01 is unavailable with the reason, noted; the others are as before."""
    out, _, _ = run
    change, reason = HAND_EDITS[name]
    source = edited(out, tmp_path / "edited", change)
    outcome = rescore_run(source, output=tmp_path / "r")
    got = {json.loads(r)["id"]: json.loads(r) for r in rows(tmp_path / "r")}
    assert sorted(got) == sorted(IDS)
    frame = got["frame_t01"]
    assert (frame["status"], frame["ratio"], frame["difficulty"]) == ("unavailable", 0.0, 3)
    assert frame["reason"].startswith("unreadable trace record: ") and reason in frame["reason"]
    assert len(outcome.unreadable) == 1 and outcome.unreadable[0].startswith("frame_t01 (run 0)")
    assert reason in outcome.notes[0] and "--resume" in outcome.notes[0]
    s = summary(tmp_path / "r")
    assert (s["tasks"], s["scored"], s["unavailable"]) == (4, 2, 2)
    # pass@1 (0.75·1 + 0·3 + 1·2 + 0)/8; after repair (1·1 + 0 + 2 + 0)/8
    assert s["pass_at_1_weighted_accuracy"] == 34.375
    assert s["weighted_accuracy"] == 37.5 <= 100.0
    for task_id in ("beam_t01", "truss_t01", "beam_t02"):
        assert got[task_id] == json.loads(next(r for r in rows(out) if f'"{task_id}"' in r))


def test_a_rescored_run_with_an_unreadable_task_reads_back_the_same(run, tmp_path):
    """The rescored trace is believable as a whole: rescoring it again gives the same rows,
    and --resume's reading of it finds the unreadable task unavailable (to run again)."""
    from structeval.harness.run.trace_state import previous_state

    out, _, _ = run
    change, _ = HAND_EDITS["repair ratio 7.5"]
    first = tmp_path / "r1"
    rescore_run(edited(out, tmp_path / "edited", change), output=first)
    rescore_run(first, output=tmp_path / "r2")
    assert rows(tmp_path / "r2") == rows(first)
    state = previous_state(read_trace(first / "trace.jsonl")[0])
    assert state.finished[(0, "frame_t01")].status == "unavailable"


def test_the_tool_notes_unreadable_records_without_a_traceback(run, tmp_path):
    """tools/rescore.py's own main (in-process: a subprocess would only add start-up time)."""
    from click.testing import CliRunner

    from tests.tool_modules import load_tool

    out, _, _ = run
    change, _ = HAND_EDITS["repair response 'oops'"]
    source = edited(out, tmp_path / "edited", change)
    done = CliRunner().invoke(load_tool("rescore").main,
                              [str(source), "--output", str(tmp_path / "t"), "--no-progress"])
    assert done.exit_code == 0 and done.exception is None, done.output
    assert "Traceback" not in done.output
    assert "note: 1 task(s) with trace records edited or unreadable are counted unavailable" \
           in done.output
    assert "frame_t01 (run 0): attempt 2: response 'oops' is not an object" in done.output
    assert "pass@1 weighted accuracy 34.38%" in done.output


@pytest.mark.parametrize("name", [n for n in HAND_EDITS if n.startswith("task")])
def test_resume_reads_the_same_edits_with_a_note_and_asks_the_task_again(run, tmp_path, name):
    out, data_dir, tasks = run
    source = edited(out, tmp_path / "edited", HAND_EDITS[name][0])
    notes: list[str] = []
    again = {fx.image_sha(tasks[i]) for i in ("frame_t01", "beam_t02")}  # beam_t02 unavailable
    script = Script(default=Answer(fx.NO_JSON))
    outcome, asked = scripted_run(source, data_dir, script, resume=True, echo=notes.append)
    assert asked == again
    assert any("skipped 1 unreadable line" in n for n in notes)
    assert (outcome.reused, outcome.ran) == (2, 2)
