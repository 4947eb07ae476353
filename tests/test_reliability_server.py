"""A hostile OpenAI-compatible server against ``run_eval.py``: no reply shape crashes a run.

Every task of a fixture dataset gets its own hostile reply (by its image); one
real ``run_eval.py`` process answers them all, and each task's outcome is
checked against what the reply deserves: a reply of the wrong *shape* (content
that is a number or an object, a null message, a non-object choice, a body that
is not JSON, an error object in a 200, Retry-After: nan) is the
infrastructure's fault — the task is ``unavailable`` with a ``malformed`` /
``server`` / ``rate_limit`` incident, never graded and never a crash; a reply
the model really gave (content as a list of text parts, a refusal, nothing) is
graded. Each run must exit 3 (some tasks unavailable), write ``results.json``
and print no traceback, and ``--resume`` must finish the run once the server
behaves.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakeserver import fixture as fx
from tests.fakeserver.process import common, run_eval
from tests.fakeserver.server import Answer, Call, FakeOpenAI, Raw, RawStream, Reply

GOOD = fx.tagged(fx.GT_MODELS["beam_t02"])
HALF = len(GOOD) // 2


def _completion(content, *, finish="stop", usage=None, **message) -> str:
    body = {"id": "x", "object": "chat.completion",
            "choices": [{"index": 0, "finish_reason": finish,
                         "message": {"role": "assistant", "content": content, **message}}]}
    if usage is not None:
        body["usage"] = usage
    return json.dumps(body)


def _chunk(delta, finish=None, **extra) -> str:
    return json.dumps({"id": "x", "object": "chat.completion.chunk",
                       "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                       **extra})


_USAGE = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}

# case → (reply, expected status, expected stage if scored / incident kind if unavailable)
NON_STREAM: dict[str, tuple[Reply, str, str]] = {
    "content_parts": (Raw(_completion([{"type": "text", "text": GOOD[:HALF]},
                                        {"type": "text", "text": GOOD[HALF:]}],
                                       usage=_USAGE)), "scored", "perfect"),
    "content_number": (Raw(_completion(42)), "unavailable", "malformed"),
    "content_object": (Raw(_completion({"text": GOOD})), "unavailable", "malformed"),
    "content_part_number": (Raw(_completion([{"type": "text", "text": 3}])), "unavailable",
                            "malformed"),
    "choices_number": (Raw(json.dumps({"choices": [1]})), "unavailable", "malformed"),
    "choices_empty": (Raw(json.dumps({"choices": []})), "unavailable", "malformed"),
    "choices_missing": (Raw(json.dumps({"id": "x"})), "unavailable", "malformed"),
    "message_null": (Raw(json.dumps({"choices": [{"index": 0, "message": None}]})),
                     "unavailable", "malformed"),
    "body_list": (Raw("[1, 2, 3]"), "unavailable", "malformed"),
    "body_html": (Raw("<html><body>Bad gateway</body></html>", content_type="text/html"),
                  "unavailable", "malformed"),
    "body_deep": (Raw("[" * 100_000), "unavailable", "malformed"),
    "body_nan": (Raw('{"choices": NaN}'), "unavailable", "malformed"),
    "error_in_200": (Raw(json.dumps({"error": {"message": "overloaded", "type": "x"}})),
                     "unavailable", "server"),
    "finish_number": (Raw(_completion(GOOD, finish=7)), "unavailable", "malformed"),
    "retry_after_nan": (Raw("{}", 429, (("Retry-After", "nan"),)), "unavailable",
                        "rate_limit"),
    "retry_after_ms_nan": (Raw("{}", 429, (("retry-after-ms", "NaN"),)), "unavailable",
                           "rate_limit"),
    "retry_after_huge": (Raw("{}", 429, (("Retry-After", "999999999"),)), "unavailable",
                         "rate_limit"),
    "retry_after_negative": (Raw("{}", 503, (("Retry-After", "-5"),)), "unavailable",
                             "server"),
    "retry_after_inf": (Raw("{}", 429, (("Retry-After", "inf"), ("retry-after-ms", "1e999"))),
                        "unavailable", "rate_limit"),
    "usage_huge": (Raw(_completion(GOOD, usage={"prompt_tokens": 10**30,
                                                "completion_tokens": 5})), "scored", "perfect"),
    "usage_negative": (Raw(_completion(GOOD, usage={"prompt_tokens": -4,
                                                    "completion_tokens": 5})),
                       "scored", "perfect"),
    "usage_text": (Raw(_completion(GOOD, usage={"prompt_tokens": "many",
                                                "completion_tokens": 1.5})),
                   "scored", "perfect"),
    "invalid_utf8": (Raw(_completion(GOOD, usage=_USAGE).encode().replace(b"Here", b"\xffHere")),
                     "scored", "perfect"),
    "refusal": (Raw(_completion(None, refusal="I cannot help with that.", usage=_USAGE)),
                "scored", "no_json"),
    "content_null": (Raw(_completion(None, usage=_USAGE)), "scored", "no_json"),
}

STREAM: dict[str, tuple[Reply, str, str]] = {
    "delta_parts": (RawStream((_chunk({"role": "assistant"}),
                               _chunk({"content": [{"type": "text", "text": GOOD[:HALF]}]}),
                               _chunk({"content": [{"type": "text", "text": GOOD[HALF:]}]}),
                               _chunk({}, "stop"), json.dumps({"choices": [], "usage": _USAGE}))),
                    "scored", "perfect"),
    "delta_number": (RawStream((_chunk({"content": 5}), _chunk({}, "stop"))), "unavailable",
                     "malformed"),
    "delta_object": (RawStream((_chunk({"content": {"a": 1}}), _chunk({}, "stop"))),
                     "unavailable", "malformed"),
    "delta_not_object": (RawStream((_chunk("text"),)), "unavailable", "malformed"),
    "chunk_choices_number": (RawStream((json.dumps({"choices": [1]}),)), "unavailable",
                             "malformed"),
    "chunk_list": (RawStream(("[1]",)), "unavailable", "malformed"),
    "chunk_not_json": (RawStream(("this is not json",)), "unavailable", "malformed"),
    "chunk_error": (RawStream((json.dumps({"error": {"message": "model crashed"}}),)),
                    "unavailable", "server"),
    "no_finish": (RawStream((_chunk({"content": GOOD}),)), "unavailable", "truncated"),
    "usage_huge_stream": (RawStream((_chunk({"content": GOOD}), _chunk({}, "stop"),
                                     json.dumps({"choices": [],
                                                 "usage": {"prompt_tokens": 10**30,
                                                           "completion_tokens": 1}}))),
                          "scored", "perfect"),
}


def _dataset(root: Path, cases: dict[str, tuple[Reply, str, str]]) -> dict[str, str]:
    """case → task id, one task (its own image) per case."""
    tasks = fx.build_dataset(root, ["beam_t02"], copies=len(cases))
    return {case: task.id for case, task in zip(cases, tasks, strict=True)}


class Hostile:
    """Per task (by image), the case's reply; a healthy answer once ``healthy`` is set."""

    def __init__(self, data_dir: Path, cases: dict[str, tuple[Reply, str, str]],
                 ids: dict[str, str]):
        from hashlib import sha256

        sha = {}
        for case, task_id in ids.items():
            image = data_dir / "images" / f"{task_id}.png"
            sha[sha256(image.read_bytes()).hexdigest()] = case
        self.case_of = sha
        self.cases = cases
        self.healthy = False

    def __call__(self, call: Call) -> Reply:
        if self.healthy:
            return Answer(GOOD)
        return self.cases[self.case_of[call.image_sha or ""]][0]


def _records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "trace.jsonl").read_text().splitlines()
            if line.strip()]


def _check_outcomes(out: Path, cases: dict[str, tuple[Reply, str, str]],
                    ids: dict[str, str]) -> None:
    rows = {r["id"]: r for r in json.loads((out / "results.json").read_text())["tasks"]}
    records = _records(out)
    for case, (_, status, detail) in cases.items():
        row = rows[ids[case]]
        assert row["status"] == status, (case, row)
        attempts = [r for r in records if r["type"] == "attempt" and r["task_id"] == ids[case]]
        if status == "scored":
            assert row["stage"] == detail, (case, row)
        else:
            kinds = {i["kind"] for a in attempts for i in a["incidents"]}
            assert kinds == {detail}, (case, kinds)
            waits = [i["wait_s"] for a in attempts for i in a["incidents"] if i["wait_s"]]
            assert all(0 <= w <= 0.002 for w in waits), (case, waits)  # --backoff-max


def _assert_clean_exit(proc, code: int) -> None:
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout
    assert fx.SECRET_KEY not in proc.stderr + proc.stdout


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_hostile_replies_are_typed_outcomes_and_resume_finishes(tmp_path, stream):
    cases = STREAM if stream else NON_STREAM
    data_dir = tmp_path / "data"
    ids = _dataset(data_dir, cases)
    out = tmp_path / "run"
    hostile = Hostile(data_dir, cases, ids)
    extra = ["--max-retries", "0", "--transport-retries", "2", "--concurrency", "4",
             *(["--stream"] if stream else [])]
    with FakeOpenAI(hostile) as server:
        first = run_eval(*common(server, data_dir, out, *extra))
        _assert_clean_exit(first, 3)
        _check_outcomes(out, cases, ids)

        again = run_eval(*common(server, data_dir, out, "--resume", *extra))
        _assert_clean_exit(again, 3)  # the same hostile replies: no crash on resume either
        _check_outcomes(out, cases, ids)

        hostile.healthy = True
        final = run_eval(*common(server, data_dir, out, "--resume", *extra))
        _assert_clean_exit(final, 0)
    results = json.loads((out / "results.json").read_text())
    assert results["summary"]["unavailable"] == 0
    stages = {r["id"]: r["stage"] for r in results["tasks"]}
    for case, (_, status, stage) in cases.items():
        if status == "scored":  # kept from the first session, never re-asked
            assert stages[ids[case]] == stage
        else:
            assert stages[ids[case]] == "perfect"
    text = (out / "trace.jsonl").read_text() + (out / "results.json").read_text()
    assert fx.SECRET_KEY not in text


def test_unbelievable_usage_is_unknown_not_summed(tmp_path):
    cases = {k: NON_STREAM[k] for k in ("usage_huge", "usage_negative", "usage_text",
                                       "content_parts")}
    data_dir = tmp_path / "data"
    ids = _dataset(data_dir, cases)
    out = tmp_path / "run"
    with FakeOpenAI(Hostile(data_dir, cases, ids)) as server:
        proc = run_eval(*common(server, data_dir, out, "--max-retries", "0"))
    _assert_clean_exit(proc, 0)
    summary = json.loads((out / "results.json").read_text())["summary"]
    # only content_parts reported believable counts (100 + 20); three attempts unknown
    assert summary["tokens"] == {"prompt": 100, "completion": 20, "total": 120, "unknown": 3}
    assert "usage unknown for 3 attempt(s)" in proc.stdout
    by_task = {r["task_id"]: r for r in _records(out) if r["type"] == "attempt"}
    for case in ("usage_huge", "usage_negative", "usage_text"):
        attempt = by_task[ids[case]]
        assert attempt["response"]["usage"] == "invalid"
        assert attempt["tokens"] == {"prompt": 0, "completion": 0, "total": 0, "unknown": 1}


def test_a_hand_edited_trace_record_is_ignored_and_its_task_run_again(tmp_path):
    cases = {"content_parts": NON_STREAM["content_parts"]}
    data_dir = tmp_path / "data"
    ids = _dataset(data_dir, cases)
    out = tmp_path / "run"
    with FakeOpenAI(Hostile(data_dir, cases, ids)) as server:
        _assert_clean_exit(run_eval(*common(server, data_dir, out, "--max-retries", "0")), 0)
        trace = out / "trace.jsonl"
        lines = trace.read_text().splitlines()
        edited = [line.replace('"ratio": 1.0', '"ratio": NaN') if '"type": "task"' in line
                  else line for line in lines]
        assert edited != lines
        trace.write_text("\n".join(edited) + "\n")
        calls = len(server.calls)
        proc = run_eval(*common(server, data_dir, out, "--resume", "--max-retries", "0"))
        _assert_clean_exit(proc, 0)
        assert "skipped 1 unreadable line(s)" in proc.stderr
        assert len(server.calls) == calls + 1  # the task was asked again
    assert json.loads((out / "results.json").read_text())["summary"]["weighted_accuracy"] == 100
