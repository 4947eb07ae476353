"""The real openai client against a local scripted server: what is retried, what is not.

Infrastructure faults (429, 5xx, timeouts, dropped or cut responses) must be
retried and never reach grading; wrong credentials must stop the run; a
refused request must not be retried. Sleeps are recorded, not slept.
"""

from __future__ import annotations

import email.utils
import random
import time

import pytest

from structeval.harness.client.transport import (
    ChatTransport,
    ServiceFatal,
    ServiceUnavailable,
    parse_retry_after,
    token_limit_parameter,
)
from structeval.harness.common.settings import RetryPolicy
from tests.fakeserver.server import Answer, Cut, Fail, FakeOpenAI

MESSAGES = [{"role": "user", "content": "describe"}]


class Recorder:
    def __init__(self):
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def _sequence(*replies):
    queue = list(replies)
    return lambda call: queue.pop(0) if len(queue) > 1 else queue[0]


def _transport(server, *, stream=False, tries=4, timeout=5.0, sleep=None):
    policy = RetryPolicy(tries=tries, base_delay=0.5, max_delay=4.0, jitter=0.25)
    return ChatTransport(api_key="sk-transport-test", api_base=server.base_url, timeout=timeout,
                         stream=stream, policy=policy, sleep=sleep or Recorder(),
                         rng=random.Random(7))


def _complete(transport):
    return transport.complete(model="m", messages=MESSAGES, temperature=0.0, max_tokens=100)


@pytest.mark.parametrize("stream", [False, True])
def test_answer_text_and_usage(stream):
    with FakeOpenAI(_sequence(Answer("hello <json>{}</json>", 11, 7, chunks=5))) as server:
        reply = _complete(_transport(server, stream=stream))
    assert reply.text == "hello <json>{}</json>"
    assert (reply.prompt_tokens, reply.completion_tokens, reply.total_tokens) == (11, 7, 18)
    assert reply.finish_reason == "stop" and reply.usage_reported and reply.incidents == ()
    body = server.calls[0].body
    assert bool(body.get("stream")) is stream
    assert ("stream_options" in body) is stream
    assert body["max_tokens"] == 100 and body["temperature"] == 0.0


def test_finish_reason_length_is_the_models_answer_not_a_fault():
    with FakeOpenAI(_sequence(Answer('<json>{"points": [', finish_reason="length"))) as server:
        reply = _complete(_transport(server))
    assert reply.finish_reason == "length" and reply.incidents == ()
    assert len(server.calls) == 1


def test_429_honours_retry_after_seconds():
    sleep = Recorder()
    with FakeOpenAI(_sequence(Fail(429, retry_after="7"), Answer("ok"))) as server:
        reply = _complete(_transport(server, sleep=sleep))
    assert reply.text == "ok" and sleep.waits == [7.0]
    assert [(i.kind, i.status, i.wait_s) for i in reply.incidents] == [("rate_limit", 429, 7.0)]


def test_500_and_503_back_off_exponentially_with_jitter():
    sleep = Recorder()
    with FakeOpenAI(_sequence(Fail(500), Fail(503), Fail(502), Answer("ok"))) as server:
        reply = _complete(_transport(server, sleep=sleep))
    assert reply.text == "ok" and len(server.calls) == 4
    assert [i.status for i in reply.incidents] == [500, 503, 502]
    for wait, nominal in zip(sleep.waits, (0.5, 1.0, 2.0), strict=True):
        assert nominal * 0.75 <= wait <= nominal * 1.25
    assert len(set(sleep.waits)) == 3


def test_persistent_failure_is_unavailable_after_the_configured_tries():
    sleep = Recorder()
    with FakeOpenAI(_sequence(Fail(503))) as server, pytest.raises(ServiceUnavailable) as info:
        _complete(_transport(server, tries=3, sleep=sleep))
    assert len(server.calls) == 3 and len(sleep.waits) == 2
    assert [i.kind for i in info.value.incidents] == ["server"] * 3
    assert info.value.incidents[-1].wait_s is None


def test_slow_answer_past_the_timeout_is_retried_then_succeeds():
    with FakeOpenAI(_sequence(Answer("late", delay=1.0), Answer("on time"))) as server:
        transport = _transport(server, timeout=0.3)
        started = time.monotonic()
        reply = _complete(transport)
        elapsed = time.monotonic() - started  # the server's shutdown poll is not counted
    assert reply.text == "on time" and [i.kind for i in reply.incidents] == ["timeout"]
    assert elapsed < 0.9


@pytest.mark.parametrize("stream", [False, True])
def test_body_cut_mid_way_is_retried(stream):
    with FakeOpenAI(_sequence(Cut("a" * 400), Answer("whole"))) as server:
        reply = _complete(_transport(server, stream=stream))
    assert reply.text == "whole" and [i.kind for i in reply.incidents] == ["connection"]


def test_stream_that_ends_without_finish_reason_is_truncated_and_retried():
    with FakeOpenAI(_sequence(Cut("b" * 400, clean=True), Answer("whole"))) as server:
        reply = _complete(_transport(server, stream=True))
    assert reply.text == "whole" and [i.kind for i in reply.incidents] == ["truncated"]


def test_unreachable_endpoint_is_a_connection_incident():
    policy = RetryPolicy(tries=2, base_delay=0.0)
    transport = ChatTransport(api_key="k", api_base="http://127.0.0.1:9/v1", timeout=2,
                              stream=False, policy=policy, sleep=Recorder())
    with pytest.raises(ServiceUnavailable) as info:
        _complete(transport)
    assert [i.kind for i in info.value.incidents] == ["connection", "connection"]


@pytest.mark.parametrize("status", [401, 403, 404])
def test_credentials_or_model_errors_stop_the_run(status):
    with FakeOpenAI(_sequence(Fail(status, "nope"))) as server, pytest.raises(ServiceFatal):
        _complete(_transport(server))
    assert len(server.calls) == 1


def test_a_refused_request_is_not_retried():
    with (FakeOpenAI(_sequence(Fail(400, "image too large"))) as server,
          pytest.raises(ServiceUnavailable) as info):
        _complete(_transport(server))
    assert len(server.calls) == 1
    assert [(i.kind, i.status) for i in info.value.incidents] == [("rejected", 400)]


def test_retry_after_forms():
    assert parse_retry_after({"retry-after": "3"}) == 3.0
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    date = email.utils.formatdate(1_000_030, usegmt=True)
    assert parse_retry_after({"retry-after": date}, now=1_000_000) == pytest.approx(30.0)
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None


def test_backoff_policy_bounds():
    policy = RetryPolicy(base_delay=1.0, max_delay=5.0, jitter=0.5, max_retry_after=60)
    rng = random.Random(3)
    for failures, nominal in ((1, 1.0), (2, 2.0), (3, 4.0), (4, 5.0), (9, 5.0)):
        for _ in range(50):
            assert nominal * 0.5 <= policy.delay(failures, None, rng) <= nominal * 1.5
    assert policy.delay(1, 1e9, rng) == 60
    assert policy.delay(1, 0.0, rng) == 0.0


def test_token_limit_parameter_follows_the_endpoint():
    assert token_limit_parameter(None) == "max_completion_tokens"
    assert token_limit_parameter("https://api.openai.com/v1") == "max_completion_tokens"
    assert token_limit_parameter("http://127.0.0.1:8000/v1") == "max_tokens"
    assert token_limit_parameter("https://openrouter.ai/api/v1") == "max_tokens"
