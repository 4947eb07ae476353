"""Whole sessions against the scripted server: exact scores, stages, statuses, traces, resume.

Every expected number below is derived by hand from the script (which answer,
which fault, which difficulty), not from the code under test.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from structeval import solve
from structeval.harness import GradingSettings, RetryPolicy, RunDirError, Session
from structeval.harness.common.settings import TransportSettings
from structeval.harness.common.trace import read_trace
from structeval.harness.inputs.prompts import system_prompt
from tests.fakeserver import fixture as fx
from tests.fakeserver.server import Answer, Cut, EchoAuth, Fail, FakeOpenAI, Script

RELEASES_FAULT = fx.tagged(fx.released("frame_t01", "L2", "endB", "rigid"))
LOADS_FAULT = fx.tagged(fx.scaled_load("frame_t01", "Q1", 1.5))
SUPPORTS_FAULT = fx.tagged(fx.support_kind("beam_t01", "S2", "pin"), "Thinking... done.")


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> dict[str, fx.FixtureTask]:
    root = tmp_path_factory.mktemp("data")
    return {t.id: t for t in fx.build_dataset(root)}


def ordered(dataset):
    return [dataset[i] for i in ("beam_t01", "frame_t01", "truss_t01", "beam_t02")]


def main_script(dataset) -> Script:
    sha = {k: fx.image_sha(t) for k, t in dataset.items()}
    return (Script()
            .on(sha["beam_t01"], 1, Fail(429, retry_after="0.01"), Answer(SUPPORTS_FAULT))
            .on(sha["beam_t01"], 2, Answer(fx.fenced(fx.equivalent("beam_t01"))))
            .on(sha["frame_t01"], 1, Answer(fx.NO_JSON))
            .on(sha["frame_t01"], 2, Fail(500), Answer(RELEASES_FAULT))
            .on(sha["frame_t01"], 3, Answer(LOADS_FAULT))
            .on(sha["truss_t01"], 1, Cut("x" * 300), Answer(fx.boxed(fx.GT_MODELS["truss_t01"])))
            .on(sha["beam_t02"], 1, Fail(503)))


def run_session(out: Path, tasks, server, *, concurrency=2, stream=False, max_retries=2,
                model="fake-vlm", tries=3, timeout=5.0, resume=False, notes=None):
    session = Session(out, grading=GradingSettings(model=model, max_retries=max_retries),
                      transport_settings=TransportSettings(api_base=server.base_url,
                                                           timeout=timeout, stream=stream,
                                                           concurrency=concurrency),
                      policy=RetryPolicy(tries=tries, base_delay=0.001, max_delay=0.002),
                      api_key=fx.SECRET_KEY, resume=resume)
    return session.run(tasks, progress=False, echo=(notes if notes is not None else []).append)


def results_without_wall(out: Path) -> dict:
    data = json.loads((out / "results.json").read_text())
    del data["summary"]["wall_s"]
    return data


def attempts_of(out: Path, task_id: str) -> list[dict]:
    records, _ = read_trace(out / "trace.jsonl")
    return [r for r in records if r["type"] == "attempt" and r["task_id"] == task_id]


def all_text_written(out: Path) -> str:
    return "".join(p.read_text(errors="replace") for p in out.rglob("*") if p.is_file())


@pytest.fixture(scope="module")
def main_run(dataset, tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "main"
    with FakeOpenAI(main_script(dataset)) as server:
        outcome = run_session(out, ordered(dataset), server)
    return out, outcome, server


def test_task_results_are_exact(main_run):
    out, _, _ = main_run
    tasks = {t["id"]: t for t in json.loads((out / "results.json").read_text())["tasks"]}
    assert list(tasks) == ["beam_t01", "frame_t01", "truss_t01", "beam_t02"]
    expect = {  # status, ratio, score, stage, first ratio, first stage, attempts
        "beam_t01": ("scored", 1.0, 1.0, "perfect", 0.25, "supports", 2),
        "frame_t01": ("scored", 0.75, 2.25, "loads", 0.0, "no_json", 3),
        "truss_t01": ("scored", 1.0, 2.0, "perfect", 1.0, "perfect", 1),
        "beam_t02": ("unavailable", 0.0, 0.0, None, None, None, 0),
    }
    for task_id, row in expect.items():
        t = tasks[task_id]
        got = (t["status"], t["ratio"], t["score"], t["stage"], t["first_attempt_ratio"],
               t["first_attempt_stage"], t["attempts"])
        assert got == row, task_id
        assert t["run"] == 0
    assert "503" in tasks["beam_t02"]["reason"]


def test_summary_is_exact(main_run):
    out, outcome, _ = main_run
    summary = json.loads((out / "results.json").read_text())["summary"]
    assert summary == outcome.summary
    # weighted: (1·1 + 0.75·3 + 1·2 + 0·2) / (1+3+2+2); pass@1: (0.25·1 + 0 + 1·2 + 0) / 8
    assert summary["weighted_accuracy"] == 65.625
    assert summary["avg_ratio"] == 68.75
    assert summary["pass_at_1_weighted_accuracy"] == 28.125
    assert summary["pass_at_1_avg_ratio"] == 31.25
    assert summary["stages"] == {"no_json": 0, "invalid": 0, "geometry": 0, "supports": 0,
                                 "releases": 0, "loads": 1, "perfect": 2}
    assert summary["pass_at_1_stages"] == {"no_json": 1, "invalid": 0, "geometry": 0,
                                           "supports": 1, "releases": 0, "loads": 0,
                                           "perfect": 1}
    # six graded answers at 100 prompt + 20 completion tokens each
    assert summary["tokens"] == {"prompt": 600, "completion": 120, "total": 720}
    assert (summary["tasks"], summary["scored"], summary["unavailable"]) == (4, 3, 1)
    assert summary["by_category"]["beam"] == {
        "tasks": 2, "unavailable": 1, "score": 1.0, "max_score": 3, "accuracy": 33.3333,
        "pass_at_1_accuracy": 8.3333, "avg_ratio": 50.0}
    assert summary["by_difficulty"]["3"]["accuracy"] == 75.0
    assert summary["by_difficulty"]["2"]["accuracy"] == 50.0
    assert summary["wall_s"] > 0


def test_trace_records_every_attempt_with_its_evidence(main_run, dataset):
    out, _, _ = main_run
    records, skipped = read_trace(out / "trace.jsonl")
    assert skipped == 0
    kinds = [r["type"] for r in records]
    assert kinds[0] == "session" and kinds[-1] == "session_end"
    assert sorted(r["task_id"] for r in records if r["type"] == "task") == sorted(
        ["beam_t01", "frame_t01", "truss_t01", "beam_t02"])

    frame = attempts_of(out, "frame_t01")
    assert [a["attempt"] for a in frame] == [1, 2, 3]
    assert [a["verdict"]["stage"] for a in frame] == ["no_json", "releases", "loads"]
    assert [a["verdict"]["ratio"] for a in frame] == [0.0, 0.5, 0.75]
    assert [a["response"]["text"] for a in frame] == [fx.NO_JSON, RELEASES_FAULT, LOADS_FAULT]
    assert frame[0]["extraction"]["method"] is None and frame[0]["solver"] is None
    assert frame[1]["extraction"]["method"] == "json_tag"
    assert frame[1]["validation"] == {"ok": True, "issues": []}
    assert frame[1]["solver"]["ok"] and frame[1]["solver"]["reactions"]
    assert "hinge" in frame[1]["verdict"]["message"].lower()
    assert [i["status"] for i in frame[1]["response"]["incidents"]] == [500]
    assert frame[2]["tokens"] == {"prompt": 100, "completion": 20, "total": 120}
    request = frame[0]["request"]
    assert request["model"] == "fake-vlm" and request["max_tokens"] == 8192
    assert request["prompt_type"] == "standard" and request["temperature"] == 0.0
    image = request["messages"][1]["content"][1]["image_url"]["url"]
    assert image.startswith("<image image/png")
    assert image.endswith("sha256=" + fx.image_sha(dataset["frame_t01"]) + ">")

    beam = attempts_of(out, "beam_t01")
    incidents = beam[0]["response"]["incidents"]
    assert [(i["kind"], i["status"], i["wait_s"]) for i in incidents] == [("rate_limit", 429,
                                                                           0.01)]
    truss = attempts_of(out, "truss_t01")
    assert len(truss) == 1 and truss[0]["extraction"]["method"] == "box"
    assert [i["kind"] for i in truss[0]["response"]["incidents"]] == ["connection"]

    unavailable = attempts_of(out, "beam_t02")
    assert len(unavailable) == 1 and unavailable[0]["outcome"] == "unavailable"
    assert [i["status"] for i in unavailable[0]["incidents"]] == [503, 503, 503]


def test_repair_keeps_only_the_last_failed_exchange(main_run, dataset):
    _, _, server = main_run
    sha = fx.image_sha(dataset["frame_t01"])
    bodies = {c.attempt: c.body for c in server.calls if c.image_sha == sha and c.hit == 1}
    assert len(bodies[1]["messages"]) == 2
    third = bodies[3]["messages"]
    assert [m["role"] for m in third] == ["system", "user", "assistant", "user"]
    assert third[2]["content"] == RELEASES_FAULT  # attempt 2's answer, not attempt 1's
    assert fx.NO_JSON not in json.dumps(third)
    assert "hinges" in third[3]["content"] and "<json></json>" in third[3]["content"]
    assert third[0]["content"] == system_prompt("standard")
    assert third[1]["content"][1]["image_url"]["url"].startswith("data:image/png;base64,")


def test_perfect_answer_ends_the_task(main_run, dataset):
    _, _, server = main_run
    sha = fx.image_sha(dataset["truss_t01"])
    assert {c.attempt for c in server.calls if c.image_sha == sha} == {1}


def test_api_key_reaches_the_server_but_no_file(main_run):
    out, _, server = main_run
    assert all(c.authorization == f"Bearer {fx.SECRET_KEY}" for c in server.calls)
    written = all_text_written(out)
    assert written and fx.SECRET_KEY not in written
    assert json.loads((out / "run.json").read_text())["system_prompt"] == system_prompt(
        "standard")


def test_a_server_echoing_the_key_cannot_leak_it(dataset, tmp_path):
    with FakeOpenAI(Script(default=EchoAuth())) as server:
        run_session(tmp_path / "echo", [dataset["beam_t01"]], server, max_retries=1)
    written = all_text_written(tmp_path / "echo")
    assert fx.SECRET_KEY not in written and "Bearer [REDACTED]" in written


@pytest.mark.parametrize("concurrency,stream", [(1, False), (4, True)])
def test_results_do_not_depend_on_concurrency_or_streaming(main_run, dataset, tmp_path,
                                                           concurrency, stream):
    reference, _, _ = main_run
    with FakeOpenAI(main_script(dataset)) as server:
        run_session(tmp_path / "again", ordered(dataset), server, concurrency=concurrency,
                    stream=stream)
    assert results_without_wall(tmp_path / "again") == results_without_wall(reference)


def test_more_stages_malformed_and_slow_answers(dataset, tmp_path):
    sha = {k: fx.image_sha(t) for k, t in dataset.items()}
    script = (Script()
              .on(sha["beam_t01"], 1, Answer(fx.tagged(fx.invalid("beam_t01"))))
              .on(sha["beam_t01"], 2, Answer(fx.tagged(fx.moved_point("beam_t01", "C", 1))))
              .on(sha["beam_t01"], 3, Answer(fx.broken_json(fx.GT_MODELS["beam_t01"])))
              .on(sha["truss_t01"], 1, Answer(fx.with_drafts(
                  fx.GT_MODELS["truss_t01"], fx.support_kind("truss_t01", "S2", "pin"))))
              .on(sha["beam_t02"], 1, Answer("late", delay=1.0)))
    with FakeOpenAI(script) as server:
        outcome = run_session(tmp_path / "more", [dataset[i] for i in
                                                  ("beam_t01", "truss_t01", "beam_t02")],
                              server, timeout=0.3, tries=2, concurrency=3)
    got = {r.id: (r.status, r.ratio, r.stage, r.first_attempt_stage, r.attempts)
           for r in outcome.results}
    assert got == {"beam_t01": ("scored", 1.0, "perfect", "invalid", 3),
                   "truss_t01": ("scored", 1.0, "perfect", "perfect", 1),
                   "beam_t02": ("unavailable", 0.0, None, None, 0)}
    beam = attempts_of(tmp_path / "more", "beam_t01")
    assert [a["verdict"]["stage"] for a in beam] == ["invalid", "geometry", "perfect"]
    assert beam[0]["validation"]["ok"] is False
    assert beam[0]["validation"]["issues"][0]["path"] == "links[0].b"
    assert beam[2]["extraction"]["repaired"] is True
    slow = attempts_of(tmp_path / "more", "beam_t02")[0]
    assert [i["kind"] for i in slow["incidents"]] == ["timeout", "timeout"]
    assert outcome.summary["stages"]["perfect"] == 2


def test_no_ground_truth_in_any_request(dataset, tmp_path):
    """Same image and notes, different ground truth: the requests must be identical, and no
    request (first attempts or repair feedback) may carry a ground-truth reaction value."""
    task = dataset["beam_t01"]
    other = fx.FixtureTask(task.id, task.category, task.difficulty, task.split,
                           task.image_path, fx.parse_model(fx.scaled_load("beam_t01", "Q1", 3)),
                           task.meta, task.notes)
    bodies = []
    for variant, name in ((task, "gt"), (other, "changed")):
        script = Script(default=Answer(SUPPORTS_FAULT))
        with FakeOpenAI(script) as server:
            run_session(tmp_path / name, [variant], server, max_retries=2)
        bodies.append([json.dumps(c.body, sort_keys=True) for c in server.calls])
    assert bodies[0][0] == bodies[1][0]
    reactions = [abs(r["value"]) for r in solve(fx.GT_MODELS["beam_t01"])["reactions"]]
    values = [f"{v:.2f}" for v in reactions if v > 1e-9]  # 26.67, 33.33
    assert values and all(v not in body for v in values for body in bodies[0])


def test_resume_runs_only_unavailable_tasks(main_run, dataset, tmp_path):
    out = tmp_path / "resumed"
    shutil.copytree(main_run[0], out)
    sha = fx.image_sha(dataset["beam_t02"])
    notes: list[str] = []
    with FakeOpenAI(Script().on(sha, 1, Answer(fx.tagged(fx.GT_MODELS["beam_t02"])))) as server:
        outcome = run_session(out, ordered(dataset), server, resume=True, notes=notes)
    assert {c.image_sha for c in server.calls} == {sha}
    assert (outcome.reused, outcome.ran, outcome.session) == (3, 1, 1)
    tasks = {t["id"]: t for t in json.loads((out / "results.json").read_text())["tasks"]}
    assert tasks["beam_t02"]["status"] == "scored" and tasks["beam_t02"]["ratio"] == 1.0
    before = {t["id"]: t for t in json.loads((main_run[0] / "results.json").read_text())["tasks"]}
    for task_id in ("beam_t01", "frame_t01", "truss_t01"):
        assert tasks[task_id] == before[task_id]
    summary = outcome.summary
    assert summary["weighted_accuracy"] == 90.625  # (1 + 2.25 + 2 + 2) / 8
    assert summary["unavailable"] == 0
    assert summary["wall_s"] >= main_run[1].summary["wall_s"]
    manifest = json.loads((out / "run.json").read_text())
    assert [s["session"] for s in manifest["sessions"]] == [0, 1]


def test_resume_reruns_a_task_whose_ground_truth_changed(main_run, dataset, tmp_path):
    out = tmp_path / "changed"
    shutil.copytree(main_run[0], out)
    task = dataset["truss_t01"]
    changed = fx.FixtureTask(task.id, task.category, task.difficulty, task.split,
                             task.image_path,
                             fx.parse_model(fx.scaled_load("truss_t01", "F1", 2)), task.meta,
                             task.notes)
    with FakeOpenAI(Script(default=Answer(fx.tagged(fx.GT_MODELS["truss_t01"])))) as server:
        outcome = run_session(out, [changed], server, resume=True)
    assert len(server.calls) == 3  # the old answer now fails the loads stage, every attempt
    assert outcome.results[0].stage == "loads" and outcome.results[0].ratio == 0.75
    assert outcome.reused == 0


def test_resume_refuses_other_grading_settings(main_run, tmp_path, dataset):
    out = tmp_path / "other"
    shutil.copytree(main_run[0], out)
    with FakeOpenAI(Script(default=Fail(500))) as server:
        with pytest.raises(RunDirError, match="model: this run 'another-vlm'"):
            run_session(out, ordered(dataset), server, resume=True, model="another-vlm")
        with pytest.raises(RunDirError, match="max_retries"):
            run_session(out, ordered(dataset), server, resume=True, max_retries=5)
        assert server.calls == []


def test_an_existing_run_is_never_overwritten(main_run, dataset):
    with FakeOpenAI(Script(default=Fail(500))) as server:
        with pytest.raises(RunDirError, match="--resume"):
            run_session(main_run[0], ordered(dataset), server)
        assert server.calls == []


def test_a_torn_last_trace_line_is_skipped(main_run, dataset, tmp_path):
    out = tmp_path / "torn"
    shutil.copytree(main_run[0], out)
    with open(out / "trace.jsonl", "a") as handle:
        handle.write('{"type": "task", "task_id": "beam_t02", "status": "sco')
    notes: list[str] = []
    with FakeOpenAI(Script(default=Answer(fx.NO_JSON))) as server:
        outcome = run_session(out, ordered(dataset), server, resume=True, max_retries=2,
                              notes=notes)
    assert {c.image_sha for c in server.calls} == {fx.image_sha(dataset["beam_t02"])}
    assert any("skipped 1 unreadable line" in n for n in notes)
    assert outcome.results[3].stage == "no_json" and outcome.results[3].attempts == 3
    records, skipped = read_trace(out / "trace.jsonl")
    assert skipped == 1 and records[-1]["type"] == "session_end"


def test_a_refused_repair_keeps_the_credit_but_a_refused_first_request_is_unavailable(
        dataset, tmp_path):
    sha = {k: fx.image_sha(t) for k, t in dataset.items()}
    script = (Script()
              .on(sha["frame_t01"], 1, Answer(LOADS_FAULT))
              .on(sha["frame_t01"], 2, Fail(400, "context too long"))
              .on(sha["beam_t01"], 1, Fail(400, "image too large")))
    with FakeOpenAI(script) as server:
        outcome = run_session(tmp_path / "refused", [dataset["frame_t01"], dataset["beam_t01"]],
                              server)
    frame, beam = outcome.results
    assert (frame.status, frame.ratio, frame.stage, frame.attempts) == ("scored", 0.75, "loads",
                                                                         1)
    assert (beam.status, beam.attempts) == ("unavailable", 0) and "image too large" in beam.reason
    outcomes = [a["outcome"] for a in attempts_of(tmp_path / "refused", "frame_t01")]
    assert outcomes == ["graded", "rejected"]
    assert len(server.calls) == 3  # nothing refused was retried


def test_answers_with_invalid_unicode_are_traced_not_fatal(dataset, tmp_path):
    script = Script(default=Answer("\ud800 broken surrogate and no JSON"))
    with FakeOpenAI(script) as server:
        outcome = run_session(tmp_path / "unicode", [dataset["beam_t01"]], server,
                              max_retries=0)
    assert (outcome.results[0].status, outcome.results[0].stage) == ("scored", "no_json")
    text = attempts_of(tmp_path / "unicode", "beam_t01")[0]["response"]["text"]
    assert text == "\ufffd broken surrogate and no JSON"
