"""``--batch``: first attempts through the Batch API, repairs live, resumable, every fault typed.

A local server speaks the Batch API endpoints (tests/fakeserver/batch_api.py) and
answers each job's lines with the same script as live requests, so a batched run
and a live run of the same script must give the same grades.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from structeval.harness.client.service_errors import ServiceFatal
from structeval.harness.command.cli import main
from structeval.harness.common.settings import GradingSettings, RetryPolicy, TransportSettings
from structeval.harness.common.trace import read_trace
from structeval.harness.run.batch import STATE_FILE, BatchSettings
from structeval.harness.run.cost import Prices
from structeval.harness.run.runner import Session
from tests.fakeserver import fixture as fx
from tests.fakeserver.batch_api import BatchAPI
from tests.fakeserver.server import Answer, Fail, FakeOpenAI, Script

IDS = ("beam_t01", "frame_t01", "truss_t01", "beam_t02")
PRICES = Prices(2.0, 8.0, "test")


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> dict[str, fx.FixtureTask]:
    root = tmp_path_factory.mktemp("data")
    return {t.id: t for t in fx.build_dataset(root)}


def tasks_of(dataset):
    return [dataset[i] for i in IDS]


def script(dataset) -> Script:
    """Two tasks perfect at once, one repaired at attempt 2, one whose batch line fails."""
    sha = {k: fx.image_sha(t) for k, t in dataset.items()}
    return (Script()
            .on(sha["beam_t01"], 1, Answer(fx.tagged(fx.support_kind("beam_t01", "S2", "pin"))))
            .on(sha["beam_t01"], 2, Answer(fx.fenced(fx.equivalent("beam_t01"))))
            .on(sha["frame_t01"], 1, Answer(fx.tagged(fx.GT_MODELS["frame_t01"])))
            .on(sha["truss_t01"], 1, Answer(fx.boxed(fx.GT_MODELS["truss_t01"])))
            .on(sha["beam_t02"], 1, Fail(500, "overloaded"),
                Answer(fx.tagged(fx.GT_MODELS["beam_t02"]))))


def session(out: Path, server: FakeOpenAI, *, batch: bool = True, resume: bool = False,
            sleep=lambda s: None, prices: Prices | None = PRICES, cache=None) -> Session:
    return Session(out, grading=GradingSettings(model="fake-vlm", max_retries=2),
                   transport_settings=TransportSettings(api_base=server.base_url, timeout=5.0,
                                                        concurrency=2),
                   policy=RetryPolicy(tries=2, base_delay=0.001, max_delay=0.002),
                   api_key=fx.SECRET_KEY, resume=resume, prices=prices, sleep=sleep, cache=cache,
                   batch=BatchSettings(poll_s=0.001) if batch else None)


def task_rows(out: Path) -> dict[str, tuple]:
    tasks = json.loads((out / "results.json").read_text())["tasks"]
    return {t["id"]: (t["status"], t["ratio"], t["first_attempt_ratio"], t["attempts"])
            for t in tasks}


def attempts(out: Path) -> list[dict]:
    records, _ = read_trace(out / "trace.jsonl")
    return [r for r in records if r["type"] == "attempt"]


@pytest.fixture(scope="module")
def batched(dataset, tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "batched"
    api = BatchAPI(polls_until_done=3)
    notes: list[str] = []
    with FakeOpenAI(script(dataset), routes=api) as server:
        outcome = session(out, server).run(tasks_of(dataset), progress=False,
                                           echo=notes.append)
        live = [c for c in server.calls if c not in api.line_calls]
    return out, outcome, api, live, notes


def test_batched_run_grades_like_a_live_run(batched, dataset, tmp_path):
    out, _, _, _, _ = batched
    with FakeOpenAI(script(dataset)) as server:
        session(tmp_path / "live", server, batch=False).run(tasks_of(dataset), progress=False,
                                                            echo=[].append)
    assert task_rows(out) == task_rows(tmp_path / "live")
    assert task_rows(out)["beam_t01"] == ("scored", 1.0, 0.25, 2)


def test_first_attempts_come_from_the_job_and_repairs_are_live(batched):
    out, _, api, live, notes = batched
    assert (api.uploads, api.created) == (1, 1)
    assert len(api.line_calls) == 4  # one line per task, attempt 1 each
    assert all(c.attempt == 1 for c in api.line_calls)
    # live: the repair of beam_t01 and the first attempt of beam_t02 whose line failed (500)
    assert sorted((c.attempt, c.hit) for c in live) == [(1, 2), (2, 1)]
    by_task = {}
    for record in attempts(out):
        by_task.setdefault(record["task_id"], []).append(record["response"]["cache"])
    assert by_task["beam_t01"] == ["batch", "off"]  # no response cache here
    assert by_task["frame_t01"] == ["batch"]
    assert by_task["beam_t02"] == ["off"]
    assert any("3 of 4 first attempt(s) answered by the Batch API; 1 will be sent live" in n
               for n in notes)
    summary = json.loads((out / "results.json").read_text())["summary"]
    assert summary["batch"] == {"submitted": 4, "answered": 3, "failed": 1, "unreadable": 0,
                                "unknown": 0}


def test_batch_answers_cost_half(batched):
    out, _, _, _, _ = batched
    full = PRICES.cost(100, 20)
    costs = {(r["task_id"], r["attempt"]): r["cost_usd"] for r in attempts(out)}
    assert costs[("frame_t01", 1)] == pytest.approx(full / 2)
    assert costs[("beam_t01", 2)] == pytest.approx(full)  # the live repair
    summary = json.loads((out / "results.json").read_text())["summary"]
    assert summary["cost"]["paid_this_session_usd"] == pytest.approx(3 * full / 2 + 2 * full)


def test_the_job_lines_are_the_live_requests(batched, dataset):
    """Each line's body is what the live path sends (model, messages, parameters)."""
    _, _, api, live, _ = batched
    repair = next(c for c in live if c.attempt == 1)  # beam_t02's live first attempt
    line = next(c for c in api.line_calls if c.image_sha == repair.image_sha)
    assert line.body == {k: v for k, v in repair.body.items() if k != "stream"}


def test_the_state_file_records_the_job_and_holds_no_key(batched):
    out, _, _, _, _ = batched
    state = json.loads((out / STATE_FILE).read_text())
    assert [j["status"] for j in state["jobs"]] == ["completed"]
    assert len(state["jobs"][0]["requests"]) == 4
    assert (out / state["jobs"][0]["output"]).is_file()
    for path in out.iterdir():
        assert fx.SECRET_KEY not in path.read_text(errors="replace")


class Interrupt(Exception):
    pass


def test_an_interrupted_job_is_polled_again_on_resume_not_submitted_again(dataset, tmp_path):
    api = BatchAPI(polls_until_done=3)
    out = tmp_path / "run"

    def stop(_seconds):
        raise KeyboardInterrupt

    with FakeOpenAI(script(dataset), routes=api) as server:
        with pytest.raises(KeyboardInterrupt):
            session(out, server, sleep=stop).run(tasks_of(dataset), progress=False,
                                                 echo=[].append)
        assert (api.uploads, api.created) == (1, 1)
        assert json.loads((out / STATE_FILE).read_text())["jobs"][0]["output"] is None
        session(out, server, resume=True).run(tasks_of(dataset), progress=False,
                                              echo=[].append)
        assert (api.uploads, api.created) == (1, 1)  # the same job, polled to its end
    assert len(api.line_calls) == 4
    assert task_rows(out)["frame_t01"] == ("scored", 1.0, 1.0, 1)


def test_a_job_that_expires_sends_the_first_attempts_live(dataset, tmp_path):
    api = BatchAPI(polls_until_done=1, final_status="expired")
    notes: list[str] = []
    with FakeOpenAI(script(dataset), routes=api) as server:
        session(tmp_path / "run", server).run(tasks_of(dataset), progress=False,
                                              echo=notes.append)
        live = [c for c in server.calls if c not in api.line_calls]
    assert not api.line_calls
    assert sum(1 for c in live if c.attempt == 1) >= 4
    assert any("ended 'expired' without an output file" in n for n in notes)
    assert task_rows(tmp_path / "run")["truss_t01"] == ("scored", 1.0, 1.0, 1)


def test_garbage_and_foreign_lines_are_counted_not_fatal(dataset, tmp_path):
    garbage = (b"not json", b"[1, 2]", json.dumps({"custom_id": "se-someone-else",
                                                   "response": {"status_code": 200}}).encode(),
               b"\x1b[2J\xff\xfe")
    api = BatchAPI(polls_until_done=1, garbage_lines=garbage)
    with FakeOpenAI(script(dataset), routes=api) as server:
        session(tmp_path / "run", server).run(tasks_of(dataset), progress=False,
                                              echo=[].append)
    summary = json.loads((tmp_path / "run" / "results.json").read_text())["summary"]
    assert summary["batch"]["unreadable"] == 3
    assert summary["batch"]["unknown"] == 1
    assert summary["batch"]["answered"] == 3


def test_an_endpoint_without_the_batch_api_stops_with_one_sentence(dataset, tmp_path):
    with FakeOpenAI(script(dataset), routes=BatchAPI(missing=True)) as server:
        with pytest.raises(ServiceFatal, match=r"no Batch API .*run without --batch"):
            session(tmp_path / "run", server).run(tasks_of(dataset), progress=False,
                                                  echo=[].append)
        assert not server.calls  # nothing was asked live either


def test_an_edited_state_file_is_read_entry_by_entry(dataset, tmp_path):
    api = BatchAPI(polls_until_done=1)
    out = tmp_path / "run"
    with FakeOpenAI(script(dataset), routes=api) as server:
        session(out, server).run(tasks_of(dataset)[:1], progress=False, echo=[].append)
        state = json.loads((out / STATE_FILE).read_text())
        state["jobs"].append({"id": "../../etc/passwd", "requests": {}, "status": "x"})
        state["jobs"].append("nonsense")
        (out / STATE_FILE).write_text(json.dumps(state))
        notes: list[str] = []
        session(out, server, resume=True).run(tasks_of(dataset), progress=False,
                                              echo=notes.append)
    assert any("2 unreadable job record(s)" in n for n in notes)
    assert api.created == 2  # the first job kept; the three new tasks in a second one


def test_answers_the_cache_holds_are_not_submitted_again(dataset, tmp_path):
    from structeval.harness.run.response_cache import ResponseCache

    api = BatchAPI(polls_until_done=1)
    with FakeOpenAI(script(dataset), routes=api) as server:
        cache = ResponseCache(tmp_path / "cache")
        session(tmp_path / "one", server, cache=cache).run(tasks_of(dataset), progress=False,
                                                           echo=[].append)
        assert api.created == 1
        calls = len(server.calls)
        session(tmp_path / "two", server, cache=ResponseCache(tmp_path / "cache")).run(
            tasks_of(dataset), progress=False, echo=[].append)
    assert api.created == 1 and len(server.calls) == calls  # all from the cache
    assert task_rows(tmp_path / "two") == task_rows(tmp_path / "one")
    caches = [r["response"]["cache"] for r in attempts(tmp_path / "two")]
    assert set(caches) == {"hit"}


def test_cli_refuses_batch_with_max_cost(tmp_path):
    result = CliRunner().invoke(main, ["--model", "m", "--api-base", "http://127.0.0.1:9/v1",
                                       "--batch", "--max-cost", "1", "--price-in", "1",
                                       "--price-out", "1", "--output", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert "--batch cannot be combined with --max-cost" in result.output


def test_dry_run_shows_the_batch_price(dataset, tmp_path):
    data_dir = Path(next(iter(dataset.values())).image_path).parent.parent
    args = ["--model", "m", "--api-key", "k", "--data-dir", str(data_dir), "--split", "all",
            "--dry-run", "--price-in", "2", "--price-out", "8", "--no-cache"]
    plain = CliRunner().invoke(main, args)
    batched = CliRunner().invoke(main, [*args, "--batch"])
    assert plain.exit_code == 0 and batched.exit_code == 0, batched.output
    assert "With --batch" not in plain.output
    first = float(plain.output.split("Estimated cost")[1].split("$")[3].split(" ")[0])
    line = next(ln for ln in batched.output.splitlines() if ln.startswith("With --batch"))
    assert float(line.split("$")[1].split(" ")[0]) == pytest.approx(first / 2, abs=1e-4)
