"""The transport's promises, in process against the scripted server: secrets, time, size.

* the key (and any bearer token or api-key value) never survives in part, wherever a
  message is cut — tested over every cut offset around the key;
* ``--timeout`` bounds the whole request by wall clock, against a server trickling
  one byte every 0.5 s in its headers, its body or its stream;
* Retry-After is believed only when sane and never beyond the policy's cap, and the
  waits of one task stay within its budget;
* cut-off replies are recovered as far as they go (``json_prefix``, ``sse_events``).
"""

from __future__ import annotations

import json
import random
import time
import tracemalloc

import pytest

from structeval.harness.client.response import MalformedReply, sse_events
from structeval.harness.client.transport import (
    ChatTransport,
    RequestRejected,
    ServiceUnavailable,
    parse_retry_after,
)
from structeval.harness.common.json_prefix import PrefixError, loads_prefix
from structeval.harness.common.settings import RetryPolicy, WaitBudget
from structeval.harness.common.trace import REDACTED, Redactor, redact_then_cut
from tests.fakeserver.server import Answer, Fail, FakeOpenAI, Huge, Raw, Trickle

SHORT_KEY = "sk-Z9q8W7e6"  # 11 characters
LONG_KEY = "sk-proj-" + "".join(random.Random(5).choice("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789")
                                for _ in range(156))  # 164 characters, like a real one
MESSAGES = [{"role": "user", "content": "describe"}]


def _fragments(key: str, size: int = 4) -> list[str]:
    return [key[i:i + size] for i in range(len(key) - size + 1)]


def _leaks(text: str, key: str) -> list[str]:
    return [f for f in _fragments(key) if f in text]


@pytest.mark.parametrize("key", [SHORT_KEY, LONG_KEY], ids=["short", "long"])
def test_a_key_straddling_any_cut_offset_never_leaks(key):
    redact = Redactor([key])
    limit = 300
    filler = "." * 400  # no character of the key
    checked = 0
    for start in range(limit - len(key) - 5, limit + 5):
        text = filler[:start] + key + filler
        for cut in (limit, 120, 299):
            out = redact_then_cut(text, redact, cut)
            assert not _leaks(out, key), (start, cut, out[-40:])
            checked += 1
    assert checked > 3 * len(key)
    # a text some other component already cut through the key, at either end
    for keep in range(4, len(key)):
        assert not _leaks(redact(filler[:57] + key[:keep]), key)
        assert not _leaks(redact(key[-keep:] + filler[:57]), key)


def test_bearer_tokens_and_api_key_headers_are_masked():
    redact = Redactor(["sk-not-this-one"])
    cases = {
        "Authorization: Bearer abcdefgh12345": "abcdefgh12345",
        '{"headers": {"x-api-key": "XK-12345678"}}': "XK-12345678",
        "api-key=AZ-98765432&next=1": "AZ-98765432",
        "'Authorization': 'Basic dXNlcjpwYXNzd29yZA=='": "dXNlcjpwYXNzd29yZA==",
        "echo: authorization=tok_9f8e7d6c": "tok_9f8e7d6c",
    }
    for text, secret in cases.items():
        out = redact(text)
        assert secret not in out and REDACTED in out, (text, out)


@pytest.mark.parametrize("key", [SHORT_KEY, LONG_KEY], ids=["short", "long"])
def test_server_error_messages_never_carry_a_key_fragment_at_any_offset(key):
    """HTTP 400 bodies echo the key at every offset around the 300-character cut (the
    client puts its own words before the server's message, hence the wide range)."""
    offsets = list(range(max(0, 300 - len(key) - 100), 310))

    def reply(call):
        start = offsets[len(calls)]
        calls.append(start)
        return Fail(400, "." * start + key + " was rejected " + "." * 200)

    calls: list[int] = []
    with FakeOpenAI(reply) as server:
        transport = ChatTransport(api_key=key, api_base=server.base_url, timeout=5,
                                  stream=False, policy=RetryPolicy(tries=1),
                                  sleep=lambda s: None)
        for _ in offsets:
            with pytest.raises(RequestRejected) as info:
                transport.complete(model="m", messages=MESSAGES, temperature=0,
                                   max_tokens=5)
            message = info.value.incidents[-1].message + str(info.value)
            assert not _leaks(message, key), message[-60:]
    assert len(calls) == len(offsets)


# ------------------------------------------------------------------ wall-clock timeout


@pytest.mark.parametrize(("phase", "stream"), [("headers", False), ("body", False),
                                               ("body", True)])
def test_a_trickling_server_is_cut_off_at_the_timeout(phase, stream):
    timeout = 2.0
    with FakeOpenAI(lambda call: Trickle(phase=phase, interval=0.5, limit_s=30)) as server:
        transport = ChatTransport(api_key="k", api_base=server.base_url, timeout=timeout,
                                  stream=stream, policy=RetryPolicy(tries=1),
                                  sleep=lambda s: None)
        assert transport.deadline_enforced
        started = time.monotonic()
        with pytest.raises(ServiceUnavailable) as info:
            transport.complete(model="m", messages=MESSAGES, temperature=0, max_tokens=5)
        elapsed = time.monotonic() - started
    assert [i.kind for i in info.value.incidents] == ["timeout"]
    # per-read timeouts alone would let it run ~30 s (one byte every 0.5 s)
    assert 0.9 * timeout <= elapsed < 3 * timeout, elapsed


# ------------------------------------------------------------------ Retry-After, budget


@pytest.mark.parametrize(("headers", "expected"), [
    ({"retry-after": "nan"}, None), ({"retry-after": "NaN"}, None),
    ({"retry-after": "inf"}, None), ({"retry-after": "-5"}, None),
    ({"retry-after": "999999999"}, None), ({"retry-after": "1e400"}, None),
    ({"retry-after-ms": "NaN"}, None), ({"retry-after-ms": "-1"}, None),
    ({"retry-after-ms": "nan", "retry-after": "4"}, 4.0),
    ({"retry-after": "Fri, 31 Dec 9999 23:59:59 GMT"}, None),
    ({"retry-after": "\x00\xff"}, None), ({"retry-after": "12"}, 12.0),
    ({"retry-after-ms": "1500"}, 1.5),
])
def test_retry_after_is_believed_only_when_sane(headers, expected):
    assert parse_retry_after(headers) == expected


def test_retry_after_is_capped_by_backoff_max_and_nonsense_uses_the_policy():
    policy = RetryPolicy(base_delay=1.0, max_delay=8.0, jitter=0.0, max_retry_after=8.0)
    rng = random.Random(0)
    assert policy.delay(1, 3.0, rng) == 3.0
    assert policy.delay(1, 600.0, rng) == 8.0
    assert policy.delay(3, None, rng) == 4.0  # what a NaN header becomes
    assert policy.delay(3, float("nan"), rng) == 4.0


def test_the_waits_of_a_task_stay_within_its_budget():
    waits: list[float] = []
    with FakeOpenAI(lambda call: Raw("{}", 429, (("Retry-After", "3"),))) as server:
        transport = ChatTransport(api_key="k", api_base=server.base_url, timeout=5,
                                  stream=False,
                                  policy=RetryPolicy(tries=50, max_retry_after=3.0),
                                  sleep=waits.append)
        budget = WaitBudget(10.0)
        with pytest.raises(ServiceUnavailable) as info:
            transport.complete(model="m", messages=MESSAGES, temperature=0, max_tokens=5,
                               budget=budget)
        # a second request of the same task finds the budget nearly spent
        with pytest.raises(ServiceUnavailable):
            transport.complete(model="m", messages=MESSAGES, temperature=0, max_tokens=5,
                               budget=budget)
    assert waits == [3.0, 3.0, 3.0]  # a fourth wait would pass 10 s
    assert "wait budget of 10 s" in info.value.incidents[-1].message
    assert len(server.calls) == 4 + 1


# ------------------------------------------------------------------ sizes


def test_an_error_body_is_read_only_to_its_cap():
    body = b'{"error": {"message": "' + b"x" * (40 << 20) + b'"}}'  # made before tracing
    with FakeOpenAI(lambda call: Raw(body, 500)) as server:
        transport = ChatTransport(api_key="k", api_base=server.base_url, timeout=20,
                                  stream=False, policy=RetryPolicy(tries=1),
                                  sleep=lambda s: None)
        tracemalloc.start()
        try:
            with pytest.raises(ServiceUnavailable):
                transport.complete(model="m", messages=MESSAGES, temperature=0, max_tokens=5)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < 8 << 20, peak  # a 40 MB body would need > 80 MB


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_an_answer_past_the_cap_is_kept_to_the_cap(stream):
    with FakeOpenAI(lambda call: Huge(3_000_000, prefix="<json>")) as server:
        transport = ChatTransport(api_key="k", api_base=server.base_url, timeout=20,
                                  stream=stream, policy=RetryPolicy(tries=1),
                                  sleep=lambda s: None, max_answer_chars=100_000)
        reply = transport.complete(model="m", messages=MESSAGES, temperature=0, max_tokens=5)
    assert len(reply.text) == 100_000 and reply.text.startswith("<json>xxx")
    assert reply.truncation["kept_chars"] == 100_000
    assert reply.incidents == ()


def test_an_answer_as_long_as_the_cap_is_kept_whole():
    text = "<json>{}</json>" + "y" * 5000
    with FakeOpenAI(lambda call: Answer(text)) as server:
        transport = ChatTransport(api_key="k", api_base=server.base_url, timeout=20,
                                  stream=False, policy=RetryPolicy(tries=1),
                                  sleep=lambda s: None, max_answer_chars=len(text))
        reply = transport.complete(model="m", messages=MESSAGES, temperature=0, max_tokens=5)
    assert reply.text == text and reply.truncation is None


# ------------------------------------------------------------------ cut-off JSON and SSE


DOC = {"id": "c", "choices": [{"index": 0, "message": {
    "role": "assistant", "content": 'a\\b "q" \u00e9\u4e2d \U0001f600 end'},
    "finish_reason": "stop"}], "usage": {"prompt_tokens": 12, "completion_tokens": -3.5e2,
                                           "flags": [True, False, None]}}


@pytest.mark.parametrize("ascii_only", [True, False])
def test_every_prefix_of_a_reply_decodes_to_a_prefix_of_its_content(ascii_only):
    text = json.dumps(DOC, ensure_ascii=ascii_only)
    content = DOC["choices"][0]["message"]["content"]
    for cut in range(1, len(text) + 1):
        value = loads_prefix(text[:cut])
        assert isinstance(value, dict)
        got = (value.get("choices") or [{}])[0].get("message", {}).get("content")
        if got is not None:
            assert content.startswith(got), (cut, got)
    assert loads_prefix(text) == DOC


@pytest.mark.parametrize("bad", ["", "   ", "]", "{1: 2}", '{"a" 1}', "[1 2]", "tru e",
                                 "[" * 100, '"\\x"'])
def test_text_that_does_not_start_json_is_refused(bad):
    with pytest.raises(PrefixError):
        loads_prefix(bad)


def test_an_event_longer_than_the_cap_is_decoded_as_far_as_it_goes():
    event = json.dumps({"choices": [{"index": 0, "delta": {"content": "z" * 5000}}]})
    stream = [f"data: {event}\n\n".encode()[i:i + 700] for i in range(0, 6000, 700)]
    events = list(sse_events(stream, line_cap=2000))
    assert len(events) == 1 and events[0].cut
    content = events[0].data["choices"][0]["delta"]["content"]
    assert 1900 < len(content) < 2000 and set(content) == {"z"}


def test_sse_events_split_anywhere_give_the_same_events():
    body = (b'event: message\ndata: {"a": 1}\r\n\r\n: comment\n\ndata: {"b":\ndata: 2}\n\n'
            b"data: [DONE]\n\n")
    whole = list(sse_events([body], 1000))
    for size in (1, 2, 3, 7, 13):
        parts = [body[i:i + size] for i in range(0, len(body), size)]
        assert list(sse_events(parts, 1000)) == whole
    assert [e.data for e in whole[:2]] == [{"a": 1}, {"b": 2}] and whole[2].done
    with pytest.raises(MalformedReply):
        list(sse_events([b"event: error\ndata: {\"error\": 1}\n\n"], 1000))
