"""The provider recipes of docs/batch-and-providers.md against local servers speaking each
provider's shapes where they differ from OpenAI's.

Each test runs the recipe's settings (the flags the docs give) against a server that
checks the request the way that provider would and answers in that provider's reply and
error shapes: vLLM (flat error objects, ``reasoning_content`` beside the answer, a
context-length refusal), Ollama (``reasoning`` beside the answer, "model not found"),
Gemini's OpenAI-compatible endpoint (error bodies that are JSON *lists*), Anthropic's
(its own error envelope, ``reasoning_effort`` ignored, temperature at most 1).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from structeval.harness.client.negotiation import ParameterRejected
from structeval.harness.client.service_errors import ServiceFatal
from structeval.harness.common.settings import GradingSettings, RetryPolicy, TransportSettings
from structeval.harness.run.runner import Session
from tests.fakeserver import fixture as fx
from tests.fakeserver.server import Call, FakeOpenAI, Raw

IDS = ("beam_t01", "truss_t01")


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> dict[str, fx.FixtureTask]:
    root = tmp_path_factory.mktemp("data")
    return {t.id: t for t in fx.build_dataset(root, list(IDS))}


def answers(dataset) -> dict[str, str]:
    """Image sha256 → a perfect answer of that task."""
    return {fx.image_sha(t): fx.tagged(fx.GT_MODELS[t.id]) for t in dataset.values()}


def completion(text: str, model: str, **message_extra) -> bytes:
    return json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": model,
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": text,
                                                **message_extra}}],
                       "usage": {"prompt_tokens": 50, "completion_tokens": 10,
                                 "total_tokens": 60}}).encode()


def run(out: Path, tasks, server: FakeOpenAI, **grading) -> Session:
    session = Session(out, grading=GradingSettings(**{"model": "m", "max_retries": 0,
                                                      **grading}),
                      transport_settings=TransportSettings(api_base=server.base_url,
                                                           timeout=5.0, concurrency=1),
                      policy=RetryPolicy(tries=3, base_delay=0.001, max_delay=0.002),
                      api_key=fx.SECRET_KEY, resume=False)
    session.run(tasks, progress=False, echo=[].append)
    return session


def statuses(out: Path) -> dict[str, tuple[str, float]]:
    tasks = json.loads((out / "results.json").read_text())["tasks"]
    return {t["id"]: (t["status"], t["ratio"]) for t in tasks}


def image_parts(body: dict) -> list[dict]:
    return [part for m in body["messages"] if isinstance(m.get("content"), list)
            for part in m["content"] if part.get("type") == "image_url"]


def test_vllm_recipe(dataset, tmp_path):
    """vLLM: the answer beside ``reasoning_content``; a token limit beyond the context is a
    flat error object that names it, and the run stops naming --max-tokens."""
    good = answers(dataset)

    def vllm(limit: int) -> Callable[[Call], Raw]:
        def reply(call: Call) -> Raw:
            body = call.body
            assert "max_completion_tokens" not in body  # the recipe sends max_tokens
            if body.get("max_tokens", 0) > limit:
                return Raw(json.dumps({
                    "object": "error", "type": "BadRequestError", "param": None, "code": 400,
                    "message": f"'max_tokens' or 'max_completion_tokens' is too large: "
                               f"{body['max_tokens']}. This model's maximum context length is "
                               f"{limit} tokens."}), status=400)
            return Raw(completion(good[call.image_sha], body["model"],
                                  reasoning_content="Let me read the drawing first..."))
        return reply

    tasks = list(dataset.values())
    extra = {"chat_template_kwargs": {"enable_thinking": True}}
    with FakeOpenAI(vllm(16384)) as server:
        run(tmp_path / "ok", tasks, server, model="Qwen/Qwen2.5-VL-7B-Instruct",
            max_tokens=4096, extra_body=extra)
        assert all(c.body["chat_template_kwargs"] == {"enable_thinking": True}
                   for c in server.calls)
    assert statuses(tmp_path / "ok") == {i: ("scored", 1.0) for i in IDS}
    with FakeOpenAI(vllm(2048)) as server, \
            pytest.raises(ParameterRejected, match="--max-tokens"):
        run(tmp_path / "long", tasks, server, model="Qwen/Qwen2.5-VL-7B-Instruct",
            max_tokens=4096)


def test_ollama_recipe(dataset, tmp_path):
    """Ollama: images only as base64 data URLs, the answer beside ``reasoning``; a model not
    pulled is a 404 that stops the run naming --model."""
    good = answers(dataset)

    def ollama(call: Call) -> Raw:
        if call.body["model"] != "qwen2.5vl:7b":
            return Raw(json.dumps({"error": {"message": f"model \"{call.body['model']}\" not "
                                             "found, try pulling it first",
                                             "type": "api_error", "param": None,
                                             "code": None}}), status=404)
        for part in image_parts(call.body):
            assert part["image_url"]["url"].startswith("data:image/")
        return Raw(completion(good[call.image_sha], call.body["model"],
                              reasoning="The beam has two supports."))

    tasks = list(dataset.values())
    with FakeOpenAI(ollama) as server:
        run(tmp_path / "ok", tasks, server, model="qwen2.5vl:7b", max_image_side=1568)
        with pytest.raises(ServiceFatal, match="--model"):
            run(tmp_path / "missing", tasks, server, model="llava:nonexistent")
    assert statuses(tmp_path / "ok") == {i: ("scored", 1.0) for i in IDS}


def test_gemini_recipe(dataset, tmp_path):
    """Gemini's OpenAI-compatible endpoint: error bodies are JSON lists. A 429 in that shape
    is retried; a 400 in that shape naming the image ``detail`` is adapted to once."""
    good = answers(dataset)
    seen: dict[str, int] = {}

    def gemini(call: Call) -> Raw:
        seen[call.image_sha] = seen.get(call.image_sha, 0) + 1
        if seen[call.image_sha] == 1:
            return Raw(json.dumps([{"error": {"code": 429, "status": "RESOURCE_EXHAUSTED",
                                              "message": "Resource has been exhausted"}}]),
                       status=429)
        if any("detail" in part["image_url"] for part in image_parts(call.body)):
            return Raw(json.dumps([{"error": {
                "code": 400, "status": "INVALID_ARGUMENT",
                "message": "Invalid JSON payload received. Unknown name \"detail\" at "
                           "'messages[1].content[1].image_url': Cannot find field."}}]),
                status=400)
        assert call.body.get("reasoning_effort") == "low"
        return Raw(completion(good[call.image_sha], call.body["model"]))

    with FakeOpenAI(gemini) as server:
        session = run(tmp_path / "ok", list(dataset.values()), server,
                      model="gemini-2.5-flash", reasoning_effort="low", image_detail="high")
    assert statuses(tmp_path / "ok") == {i: ("scored", 1.0) for i in IDS}
    assert "detail" in session.transport.negotiator.negotiated()


def test_anthropic_recipe(dataset, tmp_path):
    """Anthropic's OpenAI-compatible endpoint: the key as a bearer token, temperature at most
    1, ``reasoning_effort`` ignored, extended thinking through --extra-body; its error
    envelope for a bad key stops the run naming --api-key."""
    good = answers(dataset)

    def anthropic(call: Call) -> Raw:
        if call.authorization != f"Bearer {fx.SECRET_KEY}":
            return Raw(json.dumps({"type": "error", "error": {
                "type": "authentication_error", "message": "invalid x-api-key"}}), status=401)
        assert 0 <= call.body.get("temperature", 1) <= 1
        assert call.body.get("n", 1) == 1
        assert call.body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
        return Raw(completion(good[call.image_sha], call.body["model"]))

    thinking = {"thinking": {"type": "enabled", "budget_tokens": 2048}}
    with FakeOpenAI(anthropic) as server:
        run(tmp_path / "ok", list(dataset.values()), server, model="claude-sonnet-4-5",
            extra_body=thinking, max_image_side=1568)
    assert statuses(tmp_path / "ok") == {i: ("scored", 1.0) for i in IDS}

    def refuse(call: Call) -> Raw:
        return Raw(json.dumps({"type": "error", "error": {
            "type": "authentication_error", "message": "invalid x-api-key"}}), status=401)

    with FakeOpenAI(refuse) as server, pytest.raises(ServiceFatal, match="--api-key"):
        run(tmp_path / "bad", list(dataset.values()), server, model="claude-sonnet-4-5")
