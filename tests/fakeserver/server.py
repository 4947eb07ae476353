"""A local OpenAI-compatible chat-completions server with scripted answers, for tests.

Why a real HTTP server rather than a mocked client: the harness must survive what
real endpoints do on the wire (429 with Retry-After, 5xx, slow answers, streams
cut mid-body), and only the real ``openai`` client talking over a socket shows
how those faults actually surface. Nothing here touches the network beyond
127.0.0.1, and no key is needed (whatever key the client sends is recorded in
memory only, so tests can check it never reaches a file).

A request is attributed to a task by the sha256 of the image it carries — or, for
a DXF request (``--modality dxf``: no image), of the DXF text it carries — and to
an attempt through the previous answer it quotes (the repair loop keeps only the
last failed exchange, so attempt k+1 quotes what this server answered at
attempt k); scripts are keyed ``(input sha256, attempt)``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol


@dataclass(frozen=True)
class Answer:
    """A normal completion; streamed as SSE chunks when the request asks for a stream."""

    text: str
    prompt_tokens: int = 100
    completion_tokens: int = 20
    finish_reason: str = "stop"
    delay: float = 0.0
    chunks: int = 4
    reasoning_tokens: int | None = None  # usage.completion_tokens_details.reasoning_tokens
    model: str | None = None  # the model the reply says answered (default: the requested one)
    system_fingerprint: str | None = None


@dataclass(frozen=True)
class Fail:
    """An HTTP error status with an OpenAI-style error body (``param`` names the parameter
    the error is about, as OpenAI's 400s do)."""

    status: int
    message: str = "scripted failure"
    retry_after: str | None = None
    param: str | None = None


@dataclass(frozen=True)
class Cut:
    """The answer starts but stops half-way: by dropping the connection mid-body, or
    (``clean``, streams only) by ending the stream politely without a finish reason."""

    text: str
    clean: bool = False


@dataclass(frozen=True)
class EchoAuth:
    """A hostile server: answers with the Authorization header it received."""


@dataclass(frozen=True)
class Raw:
    """A hostile server: any status, headers and body bytes (a malformed 200, a 429 with a
    ``Retry-After: nan``, an HTML page...)."""

    body: bytes | str
    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()
    content_type: str = "application/json"


@dataclass(frozen=True)
class RawStream:
    """A hostile stream: each entry is sent as one ``data:`` event, verbatim (JSON text of
    any shape), then ``[DONE]`` unless ``done`` is False."""

    events: tuple[str, ...]
    done: bool = True


@dataclass(frozen=True)
class Trickle:
    """A slow-loris server: sends its reply one byte every ``interval`` seconds — the
    status line and headers (``phase="headers"``) or, after prompt headers, the body or
    stream (``phase="body"``). Gives up by itself after ``limit_s`` seconds."""

    text: str = "<json>{}</json>"
    interval: float = 0.5
    phase: str = "body"
    limit_s: float = 20.0


@dataclass(frozen=True)
class Huge:
    """An answer of ``size`` characters, generated while it is sent (the server never holds
    it), streamed as SSE events of ``piece`` characters when the request streams."""

    size: int
    piece: int = 1 << 16
    prefix: str = "<json>{}</json>"


@dataclass(frozen=True)
class ToolCalls:
    """A reply that calls functions (``--image-mode zoom``): each call is (name, arguments
    JSON text), given the ids ``call_<k>_<n>`` (``k`` this server's reply count, so ids
    never repeat); streamed with each call's arguments in two fragments."""

    calls: tuple[tuple[str, str], ...]
    text: str | None = None
    prompt_tokens: int = 100
    completion_tokens: int = 20


Reply = Answer | Fail | Cut | EchoAuth | Raw | RawStream | Trickle | Huge | ToolCalls


@dataclass
class Call:
    """One request as the server saw it."""

    body: dict[str, Any]
    authorization: str
    image_sha: str | None  # of the input: the image, or the DXF text of a DXF request
    attempt: int
    hit: int  # 1 for the first request of this (image, attempt), 2 for its retry, ...
    at: float = field(default_factory=time.monotonic)


Responder = Callable[[Call], Reply]


class Routes(Protocol):
    """More endpoints for a :class:`FakeOpenAI`: ``handle`` answers a request it serves
    (through the handler's ``_json``/``_bytes``) and returns True, else False."""

    def handle(self, server: FakeOpenAI, handler: Any, method: str, body: bytes) -> bool: ...

_DATA_URL = re.compile(r"^data:[^;,]+;base64,(.*)$", re.S)


def image_sha(body: dict[str, Any]) -> str | None:
    for message in body.get("messages", []):
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for part in content:
            if part.get("type") == "image_url":
                match = _DATA_URL.match(part["image_url"]["url"])
                if match:
                    return hashlib.sha256(base64.b64decode(match.group(1))).hexdigest()
    return None


_DXF_START = re.compile(r"\s*0\s*\r?\n\s*SECTION\b")


def dxf_sha(body: dict[str, Any]) -> str | None:
    """sha256 (UTF-8) of the first text part of a user message that is a DXF file's text."""
    for message in body.get("messages", []):
        content = message.get("content")
        if message.get("role") != "user" or not isinstance(content, list):
            continue
        for part in content:
            text = part.get("text") if part.get("type") == "text" else None
            if isinstance(text, str) and _DXF_START.match(text):
                return hashlib.sha256(text.encode("utf-8")).hexdigest()
    return None


def input_sha(body: dict[str, Any]) -> str | None:
    """What a request shows: its image's sha256, else its DXF text's."""
    return image_sha(body) or dxf_sha(body)


class Script:
    """Replies per (image sha256, attempt); each list is consumed in order, its last
    entry repeating. Unknown keys get ``default``."""

    def __init__(self, default: Reply | None = None):
        self.plan: dict[tuple[str, int], list[Reply]] = {}
        self.default = default

    def on(self, sha: str, attempt: int, *replies: Reply) -> Script:
        self.plan[(sha, attempt)] = list(replies)
        return self

    def __call__(self, call: Call) -> Reply:
        replies = self.plan.get((call.image_sha or "", call.attempt))
        if not replies:
            if self.default is None:
                return Fail(400, f"no script for image {call.image_sha} attempt {call.attempt}")
            return self.default
        return replies[min(call.hit, len(replies)) - 1]


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients hanging up (timeouts, keep-alive closes) are part of the script."""


class FakeOpenAI:
    """``with FakeOpenAI(script) as server: server.base_url`` → ``http://127.0.0.1:N/v1``."""

    def __init__(self, responder: Responder, *, routes: Routes | None = None):
        self.responder = responder
        self.routes = routes  # further endpoints (e.g. the Batch API), asked first
        self.calls: list[Call] = []
        self._hits: dict[tuple[str | None, int], int] = defaultdict(int)
        self._answered: dict[tuple[str | None, str], int] = {}
        self._lock = threading.Lock()
        self._server = _QuietServer(("127.0.0.1", 0), self._handler_class())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def record(self, body: dict[str, Any], authorization: str) -> Call:
        sha = input_sha(body)
        quoted = [m.get("content") for m in body.get("messages", [])
                  if m.get("role") == "assistant"]
        with self._lock:
            attempt = 1 + (self._answered.get((sha, str(quoted[-1])), 0) if quoted else 0)
            self._hits[(sha, attempt)] += 1
            call = Call(body, authorization, sha, attempt, self._hits[(sha, attempt)])
            self.calls.append(call)
        return call

    def answered(self, call: Call, text: str) -> None:
        with self._lock:
            self._answered[(call.image_sha, text)] = call.attempt

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # no 40 ms delayed-ACK stalls between writes

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                if server.routes is None or not server.routes.handle(server, self, "GET", b""):
                    self._json(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                if server.routes is not None and server.routes.handle(server, self, "POST",
                                                                      raw):
                    return
                body = json.loads(raw or b"{}")
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._json(404, {"error": {"message": f"no route {self.path}"}})
                    return
                call = server.record(body, self.headers.get("Authorization", ""))
                reply = server.responder(call)
                if isinstance(reply, EchoAuth):
                    reply = Answer(f"your credentials: {call.authorization}")
                if isinstance(reply, Fail):
                    headers = {"Retry-After": reply.retry_after} if reply.retry_after else {}
                    error = {"message": reply.message, "type": "scripted"}
                    if reply.param:
                        error["param"] = reply.param
                    self._json(reply.status, {"error": error}, headers)
                    return
                stream = bool(body.get("stream"))
                if isinstance(reply, Raw):
                    self._raw(reply)
                    return
                if isinstance(reply, RawStream):
                    self._start_chunked()
                    for event in reply.events:
                        self._event(event)
                    if reply.done:
                        self._event("[DONE]")
                    self._chunk(b"")
                    return
                if isinstance(reply, Trickle):
                    self._trickle(reply, stream, body.get("model", ""))
                    return
                if isinstance(reply, Huge):
                    self._huge(reply, stream)
                    return
                if isinstance(reply, Cut):
                    self._cut(reply, stream)
                    return
                if isinstance(reply, ToolCalls):
                    self._tool_calls(reply, stream, body.get("model", ""), len(server.calls))
                    return
                server.answered(call, reply.text)
                time.sleep(reply.delay)
                if stream:
                    self._stream(reply, body)
                else:
                    self._json(200, completion_body(reply, body.get("model", "")))

            def _json(self, status: int, payload: dict[str, Any],
                      headers: dict[str, str] | None = None) -> None:
                self._bytes(status, json.dumps(payload).encode(), headers)

            def _bytes(self, status: int, data: bytes, headers: dict[str, str] | None = None,
                       content_type: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def _start_chunked(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()

            def _chunk(self, data: bytes) -> None:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()

            def _event(self, payload: dict[str, Any] | str) -> None:
                text = payload if isinstance(payload, str) else json.dumps(payload)
                self._chunk(f"data: {text}\n\n".encode())

            def _stream(self, reply: Answer, body: dict[str, Any]) -> None:
                self._start_chunked()
                model = reply.model or body.get("model", "")
                for piece in _pieces(reply.text, reply.chunks):
                    self._event(_chunk_payload(model, {"content": piece}, None))
                self._event(_chunk_payload(model, {}, reply.finish_reason))
                if (body.get("stream_options") or {}).get("include_usage"):
                    usage = _chunk_payload(model, None, None)
                    usage["usage"] = _usage(reply)
                    self._event(usage)
                self._event("[DONE]")
                self._chunk(b"")

            def _tool_calls(self, reply: ToolCalls, stream: bool, model: str, k: int) -> None:
                calls = [{"id": f"call_{k}_{n}", "type": "function",
                          "function": {"name": name, "arguments": arguments}}
                         for n, (name, arguments) in enumerate(reply.calls)]
                usage = _usage(Answer("", reply.prompt_tokens, reply.completion_tokens))
                if not stream:
                    self._json(200, {"id": "chatcmpl-fake", "object": "chat.completion",
                                     "created": 0, "model": model, "usage": usage,
                                     "choices": [{"index": 0, "finish_reason": "tool_calls",
                                                  "message": {"role": "assistant",
                                                              "content": reply.text,
                                                              "tool_calls": calls}}]})
                    return
                self._start_chunked()
                if reply.text:
                    self._event(_chunk_payload(model, {"content": reply.text}, None))
                for n, call in enumerate(calls):
                    arguments = call["function"]["arguments"]
                    half = len(arguments) // 2
                    first = {"index": n, "id": call["id"], "type": "function",
                             "function": {"name": call["function"]["name"],
                                          "arguments": arguments[:half]}}
                    self._event(_chunk_payload(model, {"tool_calls": [first]}, None))
                    rest = {"index": n, "function": {"arguments": arguments[half:]}}
                    self._event(_chunk_payload(model, {"tool_calls": [rest]}, None))
                self._event(_chunk_payload(model, {}, "tool_calls"))
                end = _chunk_payload(model, None, None)
                end["usage"] = usage
                self._event(end)
                self._event("[DONE]")
                self._chunk(b"")

            def _raw(self, reply: Raw) -> None:
                data = reply.body.encode() if isinstance(reply.body, str) else reply.body
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Content-Length", str(len(data)))
                for key, value in reply.headers:
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def _trickle(self, reply: Trickle, stream: bool, model: str) -> None:
                if stream:
                    events = [_chunk_payload(model, {"content": reply.text}, None),
                              _chunk_payload(model, {}, "stop")]
                    data = "".join(f"data: {json.dumps(e)}\n\n" for e in events).encode()
                    data += b"data: [DONE]\n\n"
                    kind = "text/event-stream"
                else:
                    data = json.dumps(completion_body(Answer(reply.text), model)).encode()
                    kind = "application/json"
                head = (f"HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\n"
                        f"Content-Length: {len(data)}\r\n\r\n").encode()
                if reply.phase == "headers":
                    slow, rest = head, data
                else:
                    self.wfile.write(head)
                    self.wfile.flush()
                    slow, rest = data, b""
                self.close_connection = True
                end = time.monotonic() + reply.limit_s
                for k in range(len(slow)):
                    if time.monotonic() > end:
                        return
                    self.wfile.write(slow[k:k + 1])
                    self.wfile.flush()
                    time.sleep(reply.interval)
                self.wfile.write(rest)
                self.wfile.flush()

            def _huge(self, reply: Huge, stream: bool) -> None:
                self.close_connection = True
                filler = "x" * reply.piece
                if stream:
                    self._start_chunked()
                    self._event(_chunk_payload("", {"content": reply.prefix}, None))
                    sent = len(reply.prefix)
                    while sent < reply.size:
                        piece = filler[: min(reply.piece, reply.size - sent)]
                        self._event(_chunk_payload("", {"content": piece}, None))
                        sent += len(piece)
                    self._event(_chunk_payload("", {}, "stop"))
                    self._event("[DONE]")
                    self._chunk(b"")
                    return
                head = b'{"id": "chatcmpl-huge", "object": "chat.completion", "choices": [' \
                       b'{"index": 0, "message": {"role": "assistant", "content": "' + \
                       reply.prefix.replace('"', '\\"').encode()
                tail = b'"}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 1, ' \
                       b'"completion_tokens": 1, "total_tokens": 2}}'
                body_chars = reply.size - len(reply.prefix)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(head) + body_chars + len(tail)))
                self.end_headers()
                self.wfile.write(head)
                block = filler.encode()
                left = body_chars
                while left > 0:
                    self.wfile.write(block[: min(len(block), left)])
                    left -= len(block)
                self.wfile.write(tail)

            def _cut(self, reply: Cut, stream: bool) -> None:
                text = reply.text
                if stream:
                    self._start_chunked()
                    self._event(_chunk_payload("", {"content": text[: len(text) // 2]}, None))
                    if reply.clean:
                        self._chunk(b"")
                        return
                else:
                    data = json.dumps(completion_body(Answer(text), "")).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data[: len(data) // 2])
                self.wfile.flush()
                self.close_connection = True
                self.connection.shutdown(2)

        return Handler


def _pieces(text: str, count: int) -> list[str]:
    size = max(1, -(-len(text) // max(1, count)))
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]


def _usage(reply: Answer) -> dict[str, Any]:
    usage: dict[str, Any] = {"prompt_tokens": reply.prompt_tokens,
                             "completion_tokens": reply.completion_tokens,
                             "total_tokens": reply.prompt_tokens + reply.completion_tokens}
    if reply.reasoning_tokens is not None:
        usage["completion_tokens_details"] = {"reasoning_tokens": reply.reasoning_tokens}
    return usage


def completion_body(reply: Answer, model: str) -> dict[str, Any]:
    out = {"id": "chatcmpl-fake", "object": "chat.completion", "created": 0,
           "model": reply.model or model,
           "choices": [{"index": 0, "finish_reason": reply.finish_reason,
                        "message": {"role": "assistant", "content": reply.text}}],
           "usage": _usage(reply)}
    if reply.system_fingerprint:
        out["system_fingerprint"] = reply.system_fingerprint
    return out


class OpenAIRules:
    """A responder that validates parameters the way OpenAI does, then asks ``inner``.

    For reasoning model names (``o1``/``o3``/``o4``/``gpt-5`` families, as this test
    server decides them independently of the harness's list): 400 for any temperature
    but 1 and for ``max_tokens`` ("use max_completion_tokens"). For other models, 400
    for ``reasoning_effort``. Any body field listed in ``refuse`` is refused with 400
    naming it (``param``); ``token_limit_max`` refuses larger limits as a value error.
    Every refusal is counted in ``refused`` (parameter → requests refused).
    """

    def __init__(self, inner: Responder, *, refuse: tuple[str, ...] = (),
                 token_limit_max: int | None = None, reasoning: bool | None = None):
        self.inner = inner
        self.refuse = refuse
        self.token_limit_max = token_limit_max
        self.reasoning = reasoning
        self.refused: dict[str, int] = defaultdict(int)
        self._lock = threading.Lock()

    def _is_reasoning(self, model: str) -> bool:
        if self.reasoning is not None:
            return self.reasoning
        name = model.rsplit("/", 1)[-1].lower()
        return bool(re.match(r"(o[134])(\b|-|$)", name)) or name.startswith("gpt-5")

    def _no(self, param: str, message: str) -> Fail:
        with self._lock:
            self.refused[param] += 1
        return Fail(400, message, param=param)

    def __call__(self, call: Call) -> Reply:
        body = call.body
        for param in self.refuse:
            if param in body:
                return self._no(param, f"Unrecognized request argument supplied: {param}")
        if self._is_reasoning(str(body.get("model", ""))):
            if "temperature" in body and body["temperature"] != 1:
                return self._no("temperature", f"Unsupported value: 'temperature' does not "
                                f"support {body['temperature']} with this model. Only the "
                                "default (1) value is supported.")
            if "max_tokens" in body:
                return self._no("max_tokens", "Unsupported parameter: 'max_tokens' is not "
                                "supported with this model. Use 'max_completion_tokens' "
                                "instead.")
        elif "reasoning_effort" in body:
            return self._no("reasoning_effort", "Unsupported parameter: 'reasoning_effort' is "
                            "not supported with this model.")
        limit = body.get("max_completion_tokens", body.get("max_tokens"))
        if self.token_limit_max is not None and isinstance(limit, int) \
                and limit > self.token_limit_max:
            name = "max_completion_tokens" if "max_completion_tokens" in body else "max_tokens"
            return self._no(name, f"{name} is too large: {limit}. This model supports at "
                            f"most {self.token_limit_max} completion tokens, whereas you "
                            f"provided {limit}.")
        return self.inner(call)


def _chunk_payload(model: str, delta: dict[str, Any] | None,
                   finish: str | None) -> dict[str, Any]:
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    return {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0,
            "model": model, "choices": choices}
