"""Any chat-completions payload, streamed or not → one validated reply, or a typed fault.

Every byte a server sends is hostile until this module has looked at it. The
shape we accept is small and explicit:

* the body is an object with a non-empty ``choices`` list whose first entry is
  an object holding a ``message`` object (streamed: ``delta`` objects);
* ``content`` is a string, ``null`` (the model said nothing), or a list of
  parts whose ``text`` parts are joined (some OpenAI-compatible servers send
  ``[{"type": "text", "text": ...}]``); a ``refusal`` string stands in for
  missing content;
* ``usage`` counts are non-negative integers below :data:`MAX_TOKENS`, else
  the usage is *unknown* — recorded as such and left out of token sums; the
  reasoning tokens of ``usage.completion_tokens_details.reasoning_tokens`` are
  validated the same way (reasoning models count them in the completion);
* the ``model`` the API says answered and its ``system_fingerprint`` are kept
  when they are short strings (provenance), and ignored otherwise.

Anything else (a number or object as content, a null or missing message, a
non-object choice, an ``error`` object in a 200) is a :class:`MalformedReply`:
an infrastructure fault, retried and never charged to the model. The answer
text is kept up to a cap (:data:`MAX_ANSWER_CHARS`); the rest is dropped with a
note, and the streaming reader stops accumulating at the cap, so memory stays
bounded whatever the server sends.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ...safe_text import valid_unicode
from ..common.json_prefix import PrefixError, loads_prefix
from .tool_calls import ToolCall, ToolCallReader

MAX_ANSWER_CHARS = 2_000_000  # kept of one answer; far beyond any FrameCalc model
MAX_TOKENS = 10**9  # a usage count at or above this is not believable
ANSWER_BYTES_PER_CHAR = 6  # "\u00e9" in JSON: the body cap must hold a capped answer


def body_cap(max_chars: int) -> int:
    """Bytes of a reply body (or of one event) read at most for a ``max_chars`` answer."""
    return ANSWER_BYTES_PER_CHAR * max_chars + (1 << 20)


class MalformedReply(Exception):
    """The reply does not have the shape of a chat completion (an infrastructure fault).
    ``kind`` is ``malformed``, or ``server`` for an error object the server sent."""

    def __init__(self, message: str, kind: str = "malformed"):
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class Usage:
    """Token counts as reported; ``state`` is reported | missing | invalid. ``reasoning`` is
    the part of ``completion`` spent on hidden reasoning (None: not reported)."""

    prompt: int = 0
    completion: int = 0
    total: int = 0
    state: str = "missing"
    reasoning: int | None = None

    @property
    def known(self) -> bool:
        return self.state == "reported"


def _count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if 0 <= value < MAX_TOKENS else None


def parse_usage(raw: Any) -> Usage:
    """Believable counts, or an unknown Usage (missing, or invalid when present but absurd:
    negative, fractional, textual, ≥ 10^9)."""
    if raw is None:
        return Usage()
    if not isinstance(raw, dict):
        return Usage(state="invalid")
    prompt, completion = _count(raw.get("prompt_tokens")), _count(raw.get("completion_tokens"))
    total = _count(raw.get("total_tokens")) if "total_tokens" in raw else None
    if prompt is None or completion is None or ("total_tokens" in raw and total is None):
        return Usage(state="invalid")
    details = raw.get("completion_tokens_details")
    reasoning = None
    if details is not None:
        if not isinstance(details, dict):
            return Usage(state="invalid")
        if details.get("reasoning_tokens") is not None:
            reasoning = _count(details["reasoning_tokens"])
            if reasoning is None or reasoning > completion:
                return Usage(state="invalid")
    return Usage(prompt, completion, total if total is not None else prompt + completion,
                 "reported", reasoning)


MAX_LABEL_CHARS = 200  # a model name or fingerprint longer than this is not believed


def label(value: Any) -> str | None:
    """A short printable string (the reply's ``model``, ``system_fingerprint``), else None."""
    if isinstance(value, str) and 0 < len(value) <= MAX_LABEL_CHARS and value.isprintable():
        return value
    return None


class AnswerText:
    """The answer as it arrives, kept up to ``cap`` characters; the rest is counted."""

    def __init__(self, cap: int = MAX_ANSWER_CHARS):
        self.cap = cap
        self._parts: list[str] = []
        self.kept = 0
        self.dropped = 0
        self.dropped_unknown = False  # the reply was cut before its end: more was dropped

    def add(self, piece: str) -> None:
        room = self.cap - self.kept
        if len(piece) > room:
            self.dropped += len(piece) - room
            piece = piece[:room]
        if piece:
            self._parts.append(piece)
            self.kept += len(piece)

    @property
    def truncated(self) -> bool:
        return self.dropped > 0 or self.dropped_unknown

    def text(self) -> str:
        return "".join(self._parts)

    def note(self) -> dict[str, Any] | None:
        """What the trace says about a capped answer (None when nothing was dropped)."""
        if not self.truncated:
            return None
        return {"kept_chars": self.kept, "dropped_chars": self.dropped,
                "more_unread": self.dropped_unknown,
                "note": f"the answer was longer than the {self.cap:,}-character cap; only the "
                        "kept part was stored and graded"}


@dataclass(frozen=True)
class ParsedReply:
    text: str
    finish_reason: str | None
    usage: Usage
    truncation: dict[str, Any] | None = None  # AnswerText.note() of a capped answer
    model: str | None = None  # the model the API says answered (e.g. a dated snapshot)
    system_fingerprint: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()  # the functions the model called (--image-mode zoom)
    tool_problem: str | None = None  # why its tool calls cannot be read (one clause)


def content_text(content: Any, where: str) -> str | None:
    """A message's content as text: a string, None, or a list whose text parts are joined."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        pieces = []
        for k, part in enumerate(content):
            if isinstance(part, str):
                pieces.append(part)
                continue
            if not isinstance(part, dict):
                raise MalformedReply(f"{where}[{k}] is {_kind(part)}, not a content part")
            text = part.get("text", part.get("refusal"))
            if isinstance(text, str):
                pieces.append(text)
            elif text is not None:
                raise MalformedReply(f"{where}[{k}].text is {_kind(text)}, not a string")
        return "".join(pieces)
    raise MalformedReply(f"{where} is {_kind(content)}, not a string or a list of parts")


def _kind(value: Any) -> str:
    """What a JSON value is, with its article: "a number", "an object", "null"."""
    if value is None:
        return "null"
    name = {bool: "boolean", int: "number", float: "number", str: "string", list: "list",
            dict: "object"}.get(type(value), type(value).__name__)
    return f"an {name}" if name[0] in "aeiou" else f"a {name}"


def _server_error(payload: dict[str, Any]) -> None:
    error = payload.get("error")
    if error is not None and "choices" not in payload:
        message = error.get("message") if isinstance(error, dict) else error
        raise MalformedReply(f"the server sent an error instead of a completion: "
                             f"{str(message)[:500]}", kind="server")


def _finish(value: Any, where: str) -> str | None:
    if value is None or isinstance(value, str):
        return value or None
    raise MalformedReply(f"{where} is {_kind(value)}, not a string")


def _first_choice(payload: Any, where: str) -> dict[str, Any] | None:
    if not isinstance(payload, dict):
        raise MalformedReply(f"{where} is {_kind(payload)}, not an object")
    _server_error(payload)
    choices = payload.get("choices")
    if not isinstance(choices, list):
        raise MalformedReply(f"{where}.choices is {_kind(choices)}, not a list")
    if not choices:
        return None
    if not isinstance(choices[0], dict):
        raise MalformedReply(f"{where}.choices[0] is {_kind(choices[0])}, not an object")
    return choices[0]


def parse_completion(payload: Any, *, max_chars: int = MAX_ANSWER_CHARS,
                     cut: bool = False) -> ParsedReply:
    """A non-streamed reply. ``cut``: the body was read only up to its cap (the payload is
    what :func:`loads_prefix` recovered), so more of the answer was dropped unseen."""
    choice = _first_choice(payload, "reply")
    if choice is None:
        raise MalformedReply("reply.choices is empty")
    message = choice.get("message")
    if not isinstance(message, dict):
        if cut and message is None and "message" not in choice:
            raise MalformedReply("the reply was cut before its message")
        raise MalformedReply(f"reply.choices[0].message is {_kind(message)}, not an object")
    text = content_text(message.get("content"), "reply.choices[0].message.content")
    if text is None:
        refusal = message.get("refusal")
        text = refusal if isinstance(refusal, str) else ""
    answer = AnswerText(max_chars)
    answer.add(text)
    answer.dropped_unknown = cut
    finish = _finish(choice.get("finish_reason"), "reply.choices[0].finish_reason")
    tools = ToolCallReader()
    tools.whole(message.get("tool_calls"), "reply.choices[0].message.tool_calls")
    calls = tools.calls()
    return ParsedReply(answer.text(), finish, parse_usage(payload.get("usage")), answer.note(),
                       label(payload.get("model")), label(payload.get("system_fingerprint")),
                       calls, tools.problem)


class StreamAssembler:
    """Streamed chunks → one reply; ``feed`` each decoded event, then ``result``."""

    def __init__(self, max_chars: int = MAX_ANSWER_CHARS):
        self.answer = AnswerText(max_chars)
        self.finish: str | None = None
        self.usage_raw: Any = None
        self.events = 0
        self.model: str | None = None
        self.system_fingerprint: str | None = None
        self.tools = ToolCallReader()

    def feed(self, event: Any) -> None:
        self.events += 1
        where = f"stream event {self.events}"
        choice = _first_choice(event, where)
        if isinstance(event, dict):
            if event.get("usage") is not None:
                self.usage_raw = event["usage"]
            self.model = self.model or label(event.get("model"))
            self.system_fingerprint = self.system_fingerprint or label(
                event.get("system_fingerprint"))
        if choice is None:
            return
        delta = choice.get("delta")
        if delta is not None:
            if not isinstance(delta, dict):
                raise MalformedReply(f"{where}: choices[0].delta is {_kind(delta)}, "
                                     "not an object")
            text = content_text(delta.get("content"), f"{where}: choices[0].delta.content")
            if text is None and isinstance(delta.get("refusal"), str):
                text = delta["refusal"]
            if text:
                self.answer.add(text)
            self.tools.fragment(delta.get("tool_calls"), f"{where}: choices[0].delta.tool_calls")
        finish = _finish(choice.get("finish_reason"), f"{where}: choices[0].finish_reason")
        if finish:
            self.finish = finish

    @property
    def full(self) -> bool:
        """The cap is reached: nothing more needs to be read."""
        return self.answer.kept >= self.answer.cap

    def result(self) -> ParsedReply:
        calls = self.tools.calls()
        return ParsedReply(self.answer.text(), self.finish, parse_usage(self.usage_raw),
                           self.answer.note(), self.model, self.system_fingerprint, calls,
                           self.tools.problem)


# ---------------------------------------------------------------- bounded byte readers


def read_body(chunks: Iterable[bytes], cap: int) -> tuple[bytes, bool]:
    """(at most ``cap`` bytes of the body, whether more followed). Stops reading at the cap."""
    buffer = bytearray()
    for chunk in chunks:
        room = cap - len(buffer)
        if len(chunk) > room:
            buffer += chunk[:room]
            return bytes(buffer), True
        buffer += chunk
    return bytes(buffer), False


def decode_body(body: bytes, cut: bool) -> Any:
    """The JSON of a reply body; a cut body through :func:`loads_prefix`."""
    text = body.decode("utf-8", errors="replace")
    try:
        return valid_unicode(loads_prefix(text) if cut else json.loads(text))
    except (ValueError, RecursionError) as exc:  # PrefixError is a ValueError
        raise MalformedReply(f"the reply body is not JSON ({_short(exc)}): "
                             f"{text[:80]!r}") from None


def _short(exc: BaseException) -> str:
    return str(exc)[:120]


@dataclass(frozen=True)
class SSEEvent:
    """One server-sent event: its ``event`` name and the JSON-decoded ``data`` (``done``
    for ``[DONE]``); ``cut`` when the event was longer than the cap and read only in part."""

    name: str
    data: Any
    done: bool = False
    cut: bool = False


def sse_events(chunks: Iterable[bytes], line_cap: int) -> Iterator[SSEEvent]:
    """Server-sent events from a byte stream, each event's data held to ``line_cap`` bytes:
    a longer event is decoded as far as it goes (:func:`loads_prefix`) and ends the stream,
    as does any other line longer than the cap."""
    pending = bytearray()
    scanned = 0  # bytes of ``pending`` known to hold no newline
    data_lines: list[bytes] = []
    data_size = 0
    name = "message"
    for chunk in chunks:
        pending += chunk
        while True:
            cut_at = pending.find(b"\n", scanned)
            if cut_at < 0:
                scanned = len(pending)
                if data_size + len(pending) > line_cap:
                    if pending.startswith(b"data:"):
                        yield _event(name, [*data_lines, bytes(pending[:line_cap])], cut=True)
                    return
                break
            line = bytes(pending[:cut_at]).rstrip(b"\r")
            del pending[:cut_at + 1]
            scanned = 0
            if not line:
                if data_lines:
                    yield _event(name, data_lines)
                data_lines, data_size, name = [], 0, "message"
            elif line.startswith(b"data:"):
                data_lines.append(line)
                data_size += len(line)
                if data_size > line_cap:
                    yield _event(name, data_lines, cut=True)
                    return
            elif line.startswith(b"event:"):
                name = line[6:].strip().decode("utf-8", errors="replace")[:100] or "message"
    if data_lines:
        yield _event(name, data_lines)


def _event(name: str, lines: list[bytes], cut: bool = False) -> SSEEvent:
    data = b"\n".join(line[5:].lstrip(b" ") if len(line) > 5 else b"" for line in lines)
    if data.strip() == b"[DONE]":
        return SSEEvent(name, None, done=True)
    text = data.decode("utf-8", errors="replace")
    try:
        decoded = valid_unicode(loads_prefix(text) if cut else json.loads(text))
    except (PrefixError, ValueError, RecursionError) as exc:
        raise MalformedReply(f"a stream event is not JSON ({_short(exc)}): {text[:80]!r}") \
            from None
    if name == "error":
        raise MalformedReply(f"the stream carried an error event: {text[:500]}", kind="server")
    return SSEEvent(name, decoded, cut=cut)
