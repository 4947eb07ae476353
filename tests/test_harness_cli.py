"""``run_eval.py`` as users run it: a real process, a local server, a fixture data folder.

The resume test kills the process with SIGKILL mid-run, then finishes the run
with ``--resume`` and compares the results with an uninterrupted run's.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from structeval.harness.command.cli import main
from tests.fakeserver import fixture as fx
from tests.fakeserver.process import common, kill_9_when, run_eval
from tests.fakeserver.server import Answer, Call, Fail, FakeOpenAI, Reply, Script


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> tuple[Path, dict[str, fx.FixtureTask]]:
    root = tmp_path_factory.mktemp("cli") / "data"
    return root, {t.id: t for t in fx.build_dataset(root)}


class Answers:
    """Per task: attempt 1 and attempt 2 answers; optionally hold one task's first request
    until released (so a run can be killed while it is in flight)."""

    def __init__(self, tasks: dict[str, fx.FixtureTask], hold: str | None = None):
        sha = {k: fx.image_sha(t) for k, t in tasks.items()}
        self.script = (
            Script()
            .on(sha["beam_t01"], 1, Answer(fx.tagged(fx.equivalent("beam_t01"))))
            .on(sha["beam_t02"], 1, Answer(fx.tagged(fx.scaled_load("beam_t02", "F1", 1.5))))
            .on(sha["beam_t02"], 2, Answer(fx.fenced(fx.scaled_load("beam_t02", "F1", 1.5))))
            .on(sha["frame_t01"], 1, Answer(fx.tagged(fx.released("frame_t01", "L2", "endB",
                                                                   "rigid"))))
            .on(sha["frame_t01"], 2, Answer(fx.tagged(fx.GT_MODELS["frame_t01"])))
            .on(sha["truss_t01"], 1, Fail(502), Answer(fx.boxed(fx.GT_MODELS["truss_t01"]))))
        self.hold_sha = sha[hold] if hold else None
        self.release = threading.Event()

    def __call__(self, call: Call) -> Reply:
        if call.image_sha == self.hold_sha and not self.release.is_set():
            self.release.wait(30)
        return self.script(call)


def without_wall(out: Path) -> dict:
    data = json.loads((out / "results.json").read_text())
    del data["summary"]["wall_s"]
    return data


def task_records(out: Path) -> list[dict]:
    lines = (out / "trace.jsonl").read_text().splitlines()
    return [r for r in map(json.loads, filter(None, lines)) if r["type"] == "task"]


def files_text(out: Path) -> str:
    return "".join(p.read_text(errors="replace") for p in out.rglob("*") if p.is_file())


@pytest.fixture(scope="module")
def uninterrupted(data, tmp_path_factory):
    data_dir, tasks = data
    out = tmp_path_factory.mktemp("ref") / "run"
    with FakeOpenAI(Answers(tasks)) as server:
        proc = run_eval(*common(server, data_dir, out, "--concurrency", "1"))
    return out, proc


def test_a_full_run_prints_the_summary_and_keeps_the_key_secret(uninterrupted):
    out, proc = uninterrupted
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    for needle in ("Category", "beam", "frame", "truss", "OVERALL", "Difficulty", "no JSON",
                   "invalid", "geometry", "supports", "releases", "loads", "perfect",
                   "pass@1", "after repair", "Tokens:", "Wall time:"):
        assert needle in text, needle
    # beam_t01 1.0·1, beam_t02 0.75·2, frame_t01 1.0·3 after repair, truss_t01 1.0·2 → 7.5/8
    assert "Weighted accuracy: 93.75%" in text
    summary = json.loads((out / "results.json").read_text())["summary"]
    assert summary["weighted_accuracy"] == 93.75
    assert summary["pass_at_1_weighted_accuracy"] == 75.0  # frame_t01 0.5 at first: 6/8
    for blob in (proc.stdout, proc.stderr, files_text(out)):
        assert fx.SECRET_KEY not in blob


def test_kill_9_then_resume_equals_an_uninterrupted_run(data, uninterrupted, tmp_path):
    data_dir, tasks = data
    reference, _ = uninterrupted
    out = tmp_path / "killed"
    answers = Answers(tasks, hold="frame_t01")  # third task in id order
    with FakeOpenAI(answers) as server:
        proc = run_eval(*common(server, data_dir, out, "--concurrency", "1"), wait=False)

        def ready() -> bool:
            return (out / "trace.jsonl").exists() and len(task_records(out)) >= 2 and any(
                c.image_sha == answers.hold_sha for c in server.calls)

        kill_9_when(proc, ready, answers.release)
        assert not (out / "results.json").exists()
        done = {r["task_id"] for r in task_records(out)}
        assert done == {"beam_t01", "beam_t02"}
        calls_before = len(server.calls)

        resumed = run_eval(*common(server, data_dir, out, "--resume", "--concurrency", "3"))
        assert resumed.returncode == 0, resumed.stderr
        assert "2 task(s) taken from earlier sessions, 2 run now" in resumed.stdout
        later = {c.image_sha for c in server.calls[calls_before:]}
        assert later == {fx.image_sha(tasks["frame_t01"]), fx.image_sha(tasks["truss_t01"])}
    assert without_wall(out) == without_wall(reference)
    assert fx.SECRET_KEY not in files_text(out)


def test_debug_verifies_the_selected_tasks(data):
    data_dir, _ = data
    proc = run_eval("--debug", "--data-dir", str(data_dir), env_key=None)
    assert proc.returncode == 0, proc.stderr
    assert "OVERALL" in proc.stdout and "100.0" in proc.stdout


def test_debug_fails_on_a_wrong_stored_solution(data, tmp_path):
    import shutil

    data_dir, _ = data
    broken = tmp_path / "data"
    shutil.copytree(data_dir, broken)
    meta_file = broken / "ground_truth_meta" / "beam_t01.json"
    meta = json.loads(meta_file.read_text())
    meta["solution"]["reactions"][1]["value"] += 1.0
    meta_file.write_text(json.dumps(meta))
    proc = run_eval("--debug", "--data-dir", str(broken), env_key=None)
    assert proc.returncode == 1
    assert "OVERALL" in proc.stdout


def test_wrong_credentials_stop_the_run_without_leaking_the_key(data, tmp_path):
    data_dir, _ = data
    with FakeOpenAI(Script(default=Fail(401, "invalid api key"))) as server:
        proc = run_eval(*common(server, data_dir, tmp_path / "auth"))
    assert proc.returncode == 4
    assert "--api-key" in proc.stderr and "--resume" in proc.stderr
    for blob in (proc.stdout, proc.stderr, files_text(tmp_path / "auth")):
        assert fx.SECRET_KEY not in blob


def test_persistent_outage_marks_tasks_unavailable_with_exit_3(data, tmp_path):
    data_dir, _ = data
    with FakeOpenAI(Script(default=Fail(503))) as server:
        proc = run_eval(*common(server, data_dir, tmp_path / "down", "--filter", "beam_t0",
                                "--transport-retries", "2"))
    assert proc.returncode == 3, proc.stderr
    assert "2 unavailable" in proc.stdout and "--resume" in proc.stdout
    summary = json.loads((tmp_path / "down" / "results.json").read_text())["summary"]
    assert (summary["tasks"], summary["unavailable"], summary["weighted_accuracy"]) == (2, 2, 0.0)


@pytest.mark.parametrize("args,message", [
    (["--api-key", "k"], "--model is required"),
    (["--model", "m"], "no API key"),
    (["--model", "m", "--api-key", "k", "--resume"], "--resume needs the --output"),
    (["--model", "m", "--api-key", "k", "--prompt-type", "poetic"], "poetic"),
    (["--model", "m", "--api-key", "k", "--difficulty", "7"], "7"),
])
def test_usage_errors(args, message):
    result = CliRunner().invoke(main, args, env={"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""})
    assert result.exit_code == 2
    assert message in result.output


def test_an_empty_selection_is_an_error(data):
    data_dir, _ = data
    result = CliRunner().invoke(main, ["--model", "m", "--api-key", "k", "--data-dir",
                                       str(data_dir), "--filter", "nothing-like-this"])
    assert result.exit_code == 2 and "no task matches" in result.output


def test_a_broken_dataset_is_refused_with_the_loaders_reason(data, tmp_path):
    import shutil

    data_dir, _ = data
    broken = tmp_path / "data"
    shutil.copytree(data_dir, broken)
    (broken / "images" / "truss_t01.png").unlink()
    result = CliRunner().invoke(main, ["--model", "m", "--api-key", "k", "--data-dir",
                                       str(broken)])
    assert result.exit_code == 2 and "truss_t01.png" in result.output
