"""Issue 18 item 3: ``--image-mode zoom``, the agentic mode.

A scripted tool-calling server (``ToolCalls`` replies of :mod:`tests.fakeserver.server`)
drives each case: valid calls then an answer (graded; every call, crop and token count in
the trace; cost summed; a rerun served by the cache), malformed and out-of-range boxes
(each answered by an explanatory tool message), too many calls (the limit message, then a
typed end), a server that ignores the tool (its answer graded), one that refuses tools
(a typed unavailable outcome in one sentence; the CLI stops as for any repeated 4xx), and
tool calls in a shape that cannot be answered. Images are small (1200 x 500 pixels).
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import io
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from structeval.harness import GradingSettings, ResponseCache, RetryPolicy, Session
from structeval.harness.common.settings import TransportSettings
from structeval.harness.common.trace import Redactor, read_trace
from structeval.harness.inputs.images import encode_bytes, png_bytes
from structeval.harness.inputs.zoom import ZoomSheet
from structeval.harness.run.cost import Prices
from structeval.harness.run.dry_run import CALL_TEXT_TOKENS, CALL_TOKENS, zoom_bound
from tests.fakeserver import fixture as fx
from tests.fakeserver.process import common, run_eval
from tests.fakeserver.server import Answer, Call, Fail, FakeOpenAI, Raw, ToolCalls

WIDTH, HEIGHT = 1200, 500
PRICES = Prices(2.5, 10.0, "test")
SMALL_SHEET = ZoomSheet(encode_bytes(png_bytes(Image.new("RGB", (40, 30), "white")),
                                     "image/png"), Image.new("RGB", (40, 30), "white"), "en", 8)


def _box(x: float, y: float, w: float, h: float) -> str:
    return json.dumps({"x": x, "y": y, "width": w, "height": h})


class Sequence:
    """Replies in the order requests arrive (one task at a time), the last repeating."""

    def __init__(self, *replies):
        self.replies = list(replies)
        self.calls: list[Call] = []

    def __call__(self, call: Call):
        self.calls.append(call)
        return self.replies[min(len(self.calls), len(self.replies)) - 1]


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    root = tmp_path_factory.mktemp("zoom") / "data"
    base = fx.build_dataset(root, ["beam_t02"])[0]
    y, x, c = np.mgrid[0:HEIGHT, 0:WIDTH, 0:3]
    path = root / "sheet.png"
    Image.fromarray(((x * 7 + y * 13 + c * 101) % 251).astype(np.uint8), "RGB").save(path)
    return dataclasses.replace(base, image_path=path)


def _run(out: Path, server: FakeOpenAI, task, *, cache: ResponseCache | None = None,
         stream: bool = False, max_zooms: int = 8, max_retries: int = 0):
    grading = GradingSettings(model="fake-vlm", max_retries=max_retries, image_mode="zoom",
                              max_zooms=max_zooms)
    return Session(out, grading=grading,
                   transport_settings=TransportSettings(api_base=server.base_url, timeout=10,
                                                        stream=stream),
                   policy=RetryPolicy(tries=2, base_delay=0.001, max_delay=0.002),
                   api_key=fx.SECRET_KEY, resume=False, cache=cache, prices=PRICES).run(
        [task], progress=False, echo=lambda _: None)


def _attempts(out: Path) -> list[dict]:
    records, _ = read_trace(out / "trace.jsonl")
    return [r for r in records if r["type"] == "attempt"]


def _decoded(url: str) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))


def _correct() -> Answer:
    return Answer(fx.tagged(fx.GT_MODELS["beam_t02"]))


@pytest.mark.parametrize("stream", [False, True])
def test_calls_then_an_answer_are_graded_traced_costed_and_cached(task, tmp_path, stream):
    script = Sequence(ToolCalls((("zoom", _box(0, 0, 400, 300)),)),
                      ToolCalls((("zoom", _box(1000, 300, 400, 400)),), text="Looking."),
                      _correct())
    cache = ResponseCache(tmp_path / "cache")
    with FakeOpenAI(script) as server:
        outcome = _run(tmp_path / "a", server, task, cache=cache, stream=stream)
        bodies = [c.body for c in server.calls]
        again = _run(tmp_path / "b", server, task, cache=cache, stream=stream)
        sent_after_rerun = len(server.calls)
    result = outcome.results[0]
    assert result.status == "scored" and result.ratio == 1.0
    assert len(bodies) == 3 and sent_after_rerun == 3  # the rerun sent nothing
    assert again.results[0].ratio == 1.0

    first = bodies[0]
    assert [t["function"]["name"] for t in first["tools"]] == ["zoom"]
    assert f"full-size drawing ({WIDTH} x {HEIGHT})" in first["tools"][0]["function"][
        "description"]
    intro = first["messages"][1]["content"][1]["text"]
    assert f"{WIDTH} x {HEIGHT} pixels at full size" in intro and "At most 8 calls" in intro
    assert _decoded(first["messages"][1]["content"][2]["image_url"]["url"]).size == (1024, 427)

    second = bodies[1]["messages"]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "tool", "user"]
    assert second[2]["tool_calls"][0]["function"]["arguments"] == _box(0, 0, 400, 300)
    assert second[3]["tool_call_id"] == second[2]["tool_calls"][0]["id"]
    assert "cropped x 0-400, y 0-300 (400 x 300 full-size pixels)" in second[3]["content"]
    label, image = second[4]["content"]
    assert label["text"] == "Zoom 1: x 0-400, y 0-300 of the full-size drawing, shown at " \
                            "400 x 300 pixels."
    native = Image.open(task.image_path).convert("RGB")
    crop = _decoded(image["image_url"]["url"])
    assert crop.convert("RGB").tobytes() == native.crop((0, 0, 400, 300)).tobytes()

    third = bodies[2]["messages"]
    assert len(third) == 8 and third[5]["content"] == "Looking."
    assert "clamped" in third[6]["content"] and "cropped x 1000-1200, y 300-500" in \
        third[6]["content"]
    assert _decoded(third[7]["content"][1]["image_url"]["url"]).size == (200, 200)

    attempt = _attempts(tmp_path / "a")[0]
    zoom = attempt["zoom"]
    assert zoom["end"] == "answer" and zoom["calls"] == 2 and len(zoom["requests"]) == 3
    calls = [c for r in zoom["requests"] for c in r["calls"]]
    assert [c["outcome"] for c in calls] == ["cropped", "clamped"]
    assert calls[0]["box"] == [0, 0, 400, 300] and calls[1]["asked"] == [1000, 300, 400, 400]
    assert calls[1]["box"] == [1000, 300, 200, 200]
    sent = base64.b64decode(image["image_url"]["url"].split(",", 1)[1])
    assert calls[0]["crop"]["sha256"] == hashlib.sha256(sent).hexdigest()
    assert calls[0]["crop"]["pixels"] == [400, 300] and calls[0]["crop"]["bytes"] == len(sent)
    assert [r["tokens"]["prompt"] for r in zoom["requests"]] == [100, 100, 100]
    assert attempt["tokens"]["prompt"] == 300 and attempt["tokens"]["completion"] == 60
    assert result.tokens.prompt == 300
    assert attempt["cost_usd"] == pytest.approx(PRICES.cost(300, 60))
    assert result.costs.usd == pytest.approx(PRICES.cost(300, 60))
    assert [r["cache"] for r in zoom["requests"]] == ["miss"] * 3
    assert [r["cache"] for r in _attempts(tmp_path / "b")[0]["zoom"]["requests"]] == \
        ["hit"] * 3
    assert "base64" not in json.dumps(attempt)
    run_json = json.loads((tmp_path / "a" / "run.json").read_text())
    assert run_json["grading"]["image_mode"] == "zoom" and run_json["grading"]["max_zooms"] == 8
    summary = json.loads((tmp_path / "a" / "results.json").read_text())["summary"]
    assert summary["image_mode"] == "zoom" and summary["max_zooms"] == 8


def test_bad_boxes_and_calls_are_answered_and_the_attempt_goes_on(task, tmp_path):
    bad = (("zoom", _box(10, 10, 0, 50)), ("zoom", _box(5000, 10, 100, 100)),
           ("zoom", _box(-300, -300, 200, 200)), ("zoom", '{"x": "left", "y": 0, '
                                                          '"width": 9, "height": 9}'),
           ("zoom", "{not json"), ("zoom", '{"x": 1, "y": 2}'), ("pan", _box(0, 0, 9, 9)),
           ("zoom", '[1, 2, 3, 4]'), ("zoom", '{"x": NaN, "y": 0, "width": 9, "height": 9}'))
    script = Sequence(ToolCalls(bad), _correct())
    with FakeOpenAI(script) as server:
        outcome = _run(tmp_path / "o", server, task, max_zooms=len(bad))
        messages = server.calls[-1].body["messages"]
    assert outcome.results[0].status == "scored" and outcome.results[0].ratio == 1.0
    tools = [m["content"] for m in messages if m["role"] == "tool"]
    assert len(tools) == len(bad) and messages[-1]["role"] == "tool"  # no crop: no image
    assert "width and height must be positive" in tools[0]
    assert "wholly outside the drawing (1200 x 500 pixels)" in tools[1]
    assert "wholly outside" in tools[2]
    assert "not a finite number: x" in tools[3]
    assert "not valid JSON" in tools[4]
    assert "missing: width, height" in tools[5]
    assert 'no function "pan"' in tools[6]
    assert "not a JSON object" in tools[7]
    assert "not a finite number: x" in tools[8]
    calls = _attempts(tmp_path / "o")[0]["zoom"]["requests"][0]["calls"]
    assert [c["outcome"] for c in calls] == ["size", "outside", "outside", "arguments",
                                             "arguments", "arguments", "unknown",
                                             "arguments", "arguments"]
    assert all("crop" not in c for c in calls)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80) | st.dictionaries(
    st.sampled_from(["x", "y", "width", "height", "z"]),
    st.integers(-10**400, 10**400) | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=3) | st.booleans() | st.none(), max_size=5).map(json.dumps),
    st.sampled_from(["zoom", "pan", "", "zoom\u0000"]))
def test_no_arguments_make_a_zoom_answer_raise(arguments, name):
    answer = SMALL_SHEET.answer(name, arguments, 1)
    assert answer.outcome in ("cropped", "clamped", "outside", "size", "arguments",
                              "unknown") and answer.text
    if answer.image is not None:  # a crop is the native pixels of the box it names
        box = answer.box
        assert 0 <= box.x < box.x + box.width <= 40 and 0 <= box.y < box.y + box.height <= 30
        assert max(answer.image.pixels) <= 768


def test_too_many_calls_get_the_limit_message_then_a_typed_end(task, tmp_path):
    keeps_calling = Sequence(ToolCalls((("zoom", _box(0, 0, 50, 50)),)))
    with FakeOpenAI(keeps_calling) as server:
        outcome = _run(tmp_path / "k", server, task, max_zooms=2)
        bodies = [c.body for c in server.calls]
    assert len(bodies) == 4  # 2 crops, the limit message, then the end
    limit = [m for m in bodies[3]["messages"] if m["role"] == "tool"][-1]["content"]
    assert "limit of 2 per answer is reached" in limit and "final answer" in limit
    result = outcome.results[0]
    assert result.status == "scored" and result.ratio == 0.0  # no answer: no credit
    zoom = _attempts(tmp_path / "k")[0]["zoom"]
    assert zoom["end"] == "limit" and "after the limit of 2 calls" in zoom["note"]
    assert [c["outcome"] for r in zoom["requests"] for c in r["calls"]] == [
        "cropped", "cropped", "limit", "unanswered"]

    heeds = Sequence(*[ToolCalls((("zoom", _box(0, 0, 50, 50)),))] * 3, _correct())
    with FakeOpenAI(heeds) as server:
        outcome = _run(tmp_path / "h", server, task, max_zooms=2)
        assert len(server.calls) == 4
    assert outcome.results[0].ratio == 1.0
    assert _attempts(tmp_path / "h")[0]["zoom"]["end"] == "answer"


def test_a_server_that_ignores_the_tool_has_its_answer_graded(task, tmp_path):
    with FakeOpenAI(Sequence(_correct())) as server:
        outcome = _run(tmp_path / "i", server, task)
        assert len(server.calls) == 1 and server.calls[0].body["tools"]
    assert outcome.results[0].status == "scored" and outcome.results[0].ratio == 1.0
    zoom = _attempts(tmp_path / "i")[0]["zoom"]
    assert zoom["end"] == "answer" and zoom["calls"] == 0


REFUSAL = "llava does not support tools"


def test_a_server_refusing_tools_gives_a_typed_unavailable_outcome(task, tmp_path):
    with FakeOpenAI(Sequence(Fail(400, REFUSAL))) as server:
        outcome = _run(tmp_path / "r", server, task)
        assert len(server.calls) == 1  # a refusal is not retried, nor adapted away
    result = outcome.results[0]
    assert result.status == "unavailable"
    assert result.reason == (f"the server refused tool calling (HTTP 400: {REFUSAL}); run "
                             "with --image-mode tiles or fit")
    assert _attempts(tmp_path / "r")[0]["outcome"] == "unavailable"


def test_the_cli_stops_on_a_server_refusing_tools_as_on_any_repeated_4xx(tmp_path):
    fx.build_dataset(tmp_path / "data")
    with FakeOpenAI(Sequence(Fail(400, REFUSAL))) as server:
        done = run_eval(*common(server, tmp_path / "data", tmp_path / "o"), "--image-mode",
                        "zoom", "--concurrency", "1")
        assert len(server.calls) == 3  # fail fast: the first three requests, then stop
    assert done.returncode == 4, done.stderr
    assert "Traceback" not in done.stderr
    assert "refused with HTTP 400" in done.stderr and REFUSAL in done.stderr
    assert "the server refused tool calling: run with --image-mode tiles or fit" in \
        done.stderr and "check --api-base" not in done.stderr


def test_tool_calls_in_a_shape_that_cannot_be_answered_are_a_typed_outcome(task, tmp_path):
    body = {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "finish_reason": "tool_calls",
                         "message": {"role": "assistant", "content": None,
                                     "tool_calls": "zoom(1, 2, 3, 4)"}}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10}}
    with FakeOpenAI(Sequence(Raw(json.dumps(body)))) as server:
        outcome = _run(tmp_path / "m", server, task)
        assert len(server.calls) == 1
    result = outcome.results[0]
    assert result.status == "unavailable"
    assert result.reason.startswith("the server returned tool calls in a shape that cannot "
                                    "be answered (reply.choices[0].message.tool_calls is str")
    assert result.reason.endswith("run with --image-mode tiles or fit")


def test_a_repair_continues_the_same_conversation(task, tmp_path):
    wrong = Answer(fx.tagged({**fx.GT_MODELS["beam_t02"], "points": []}))
    script = Sequence(ToolCalls((("zoom", _box(0, 0, 50, 50)),)), wrong,
                      ToolCalls((("zoom", _box(50, 50, 50, 50)),)), _correct())
    with FakeOpenAI(script) as server:
        outcome = _run(tmp_path / "p", server, task, max_retries=1)
        last = server.calls[-1].body["messages"]
    assert outcome.results[0].ratio == 1.0 and outcome.results[0].attempts == 2
    roles = [m["role"] for m in last]
    assert roles == ["system", "user", "assistant", "tool", "user", "assistant", "user",
                     "assistant", "tool", "user"]
    assert "Zoom 1:" in last[9]["content"][0]["text"]  # the count starts again per attempt


def test_secrets_never_reach_the_trace_or_the_cache(task, tmp_path):
    echo = _box(0, 0, 10, 10)[:-1] + f', "note": "{fx.SECRET_KEY}"}}'
    script = Sequence(ToolCalls((("zoom", echo),), text=f"key {fx.SECRET_KEY}"), _correct())
    with FakeOpenAI(script) as server:
        cache = ResponseCache(tmp_path / "cache", redact=Redactor([fx.SECRET_KEY]))
        _run(tmp_path / "s", server, task, cache=cache)  # the redactor run_eval gives it
    # the first reply holds the key, the second request quotes it: neither is stored
    assert cache.refused == 2 and cache.stores == 0
    files = [tmp_path / "s" / "trace.jsonl", *sorted((tmp_path / "cache").rglob("*.json"))]
    for path in files:
        assert fx.SECRET_KEY not in path.read_text(), path
        assert fx.SECRET_KEY[:12] not in path.read_text(), path


def test_zoom_options_that_cannot_work_are_usage_errors(tmp_path):
    from click.testing import CliRunner

    from structeval.harness.command.cli import main

    fx.build_dataset(tmp_path / "data", ["beam_t02"])
    with FakeOpenAI(Sequence(_correct())) as server:
        base = [*common(server, tmp_path / "data", tmp_path / "o"), "--api-key", fx.SECRET_KEY]

        def cli(*extra: str):
            return CliRunner().invoke(main, [*base, *extra])

        batch = cli("--image-mode", "zoom", "--batch")
        zero = cli("--image-mode", "zoom", "--max-zooms", "0")
        fit = cli("--max-zooms", "3")
        tools = cli("--image-mode", "zoom", "--extra-body", '{"tool_choice": "none"}')
        dry = cli("--image-mode", "zoom", "--max-zooms", "4", "--dry-run", "--price-in", "2.5",
                  "--price-out", "10")
        assert not server.calls
    assert [r.exit_code for r in (batch, zero, fit, tools)] == [2, 2, 2, 2]
    assert "--batch cannot be combined with --image-mode zoom" in batch.output
    assert "--max-zooms" in zero.output and "0 is not in the range" in zero.output
    assert "--max-zooms goes with --image-mode zoom" in fit.output
    assert "--extra-body may not set tool_choice" in tools.output
    assert dry.exit_code == 0, dry.output
    assert "every figure is an upper bound" in dry.output and "6 requests per attempt" in \
        dry.output
    assert all(r.exception is None or isinstance(r.exception, SystemExit)
               for r in (batch, zero, fit, tools, dry))


def test_the_dry_run_bound_counts_every_request_of_the_exchange():
    bound = zoom_bound(text=100, overview=765, crop=765, answer=50, zooms=2, repairs=0)
    step = CALL_TOKENS + CALL_TEXT_TOKENS
    base = 100 + 765
    # requests with 0, 1, 2 crops, then the limit request and the final one with 2 crops
    assert bound.first_prompt == base * 4 + (1 + 2 + 2) * (765 + step)
    assert bound.first_images == 765 * 4 + (1 + 2 + 2) * 765
    assert bound.max_prompt == bound.first_prompt
    repaired = zoom_bound(text=100, overview=765, crop=765, answer=50, zooms=2, repairs=1)
    after = base + 2 * (765 + step) + 50 + 150  # the first attempt, its answer, feedback
    assert repaired.max_prompt == bound.first_prompt + after * 4 + (1 + 2 + 2) * (765 + step)


def test_reports_show_a_zoom_run_in_its_own_row_and_compare_pairs_it(tmp_path):
    from structeval.reports.compare import compare_runs, format_comparison
    from structeval.reports.leaderboard import leaderboard
    from structeval.reports.runfiles import load_results
    from tests.test_factors_compare import write

    a, b = write(tmp_path / "a", 2), write(tmp_path / "b", 3)
    manifest = json.loads((a / "run.json").read_text())
    manifest["grading"].update(image_mode="zoom", max_zooms=8)
    (a / "run.json").write_text(json.dumps(manifest))
    rows = [line for line in leaderboard([load_results(a), load_results(b)]).splitlines()
            if line.startswith("| 1 ") or line.startswith("| 2 ")]
    assert any("| image, zoom |" in row for row in rows)
    assert sum("zoom" in row for row in rows) == 1
    text = format_comparison(compare_runs(load_results(a), load_results(b)))
    assert "Image mode: A zoom, B fit" in text


# ---------------------------------------------------------------- replies, cache entries


def test_tool_calls_are_read_whole_and_streamed_and_a_bad_shape_is_named():
    from structeval.harness.client.response import StreamAssembler, parse_completion

    def body(calls):
        return {"choices": [{"message": {"content": None, "tool_calls": calls},
                             "finish_reason": "tool_calls"}]}

    whole = parse_completion(body([{"id": "c1", "type": "function", "function": {
        "name": "zoom", "arguments": {"x": 1, "y": 2, "width": 3, "height": 4}}}]))
    assert [(c.id, c.name) for c in whole.tool_calls] == [("c1", "zoom")]
    assert json.loads(whole.tool_calls[0].arguments)["height"] == 4  # an object is taken
    assert whole.tool_problem is None
    assert "not a list" in parse_completion(body({"id": "c1"})).tool_problem
    assert "has no id" in parse_completion(body([{"function": {"name": "zoom",
                                                               "arguments": "{}"}}])).tool_problem
    many = [{"id": f"c{k}", "function": {"name": "zoom", "arguments": "{}"}} for k in range(70)]
    assert "more than 64" in parse_completion(body(many)).tool_problem

    stream = StreamAssembler()
    for delta in ({"tool_calls": [{"index": 0, "id": "c9", "function": {"name": "zoom",
                                                                        "arguments": '{"x": '}}]},
                  {"tool_calls": [{"index": 0, "function": {"arguments": "5}"}}]}):
        stream.feed({"choices": [{"delta": delta, "finish_reason": None}]})
    stream.feed({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]})
    read = stream.result()
    assert [(c.id, c.arguments) for c in read.tool_calls] == [("c9", '{"x": 5}')]
    bad = StreamAssembler()
    bad.feed({"choices": [{"delta": {"tool_calls": [{"id": "c1"}]}, "finish_reason": None}]})
    assert "without a usable index" in bad.result().tool_problem


def test_a_cache_entry_keeps_tool_calls_and_refuses_a_forged_one():
    from structeval.harness.client.tool_calls import ToolCall
    from structeval.harness.run.response_cache import StoredReply

    call = ToolCall("c1", "zoom", _box(1, 2, 3, 4))
    stored = StoredReply("", "tool_calls", 1, 2, 3, "reported", None, None, None, None, 0.1,
                         (call,))
    assert StoredReply.from_json(stored.to_json()) == stored
    forged = {**stored.to_json(), "tool_calls": [{"id": 5, "function": {}}]}
    assert StoredReply.from_json(forged) is None
    plain = StoredReply("a", "stop", 1, 2, 3, "reported", None, None, None, None, 0.1)
    assert "tool_calls" not in plain.to_json()  # entries without calls are as before
