"""One attempt in ``--image-mode zoom``: requests until the model answers without a call.

The conversation grows within the attempt: each reply that calls functions is
appended (the assistant message with its ``tool_calls``), each call is answered
by a ``tool`` message (OpenAI's tool messages carry text only: the box actually
cropped, its native size, any clamping, or why nothing was cropped), and when
there were crops one ``user`` message follows with each crop's label and image.
The next request sends all of it again. The attempt ends

* ``answer``: a reply without tool calls — its text is the answer, graded as any;
* ``limit``: the model called again after being told that the ``--max-zooms``
  calls of the attempt were used up (every call counts, refused ones too, so the
  exchange is at most ``max_zooms + 2`` requests);
* ``malformed``: the reply's tool calls cannot be read (no id, not a list...), so
  they cannot be answered;
* ``unavailable``: a request failed as any request can (:class:`ServiceUnavailable`,
  :class:`~..client.service_errors.ToolsRefused` among them).

Requests go through ``send`` (the caller's: response cache, endpoint, cost meter),
so every request of the exchange is a cache entry keyed by the conversation so
far, and a rerun replays the exchange from the cache.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..client.service_errors import ServiceUnavailable
from ..client.tool_calls import ToolCall
from ..common.trace import Redactor, redact_then_cut
from ..inputs.task_input import image_part
from ..inputs.zoom import ZoomAnswer, ZoomSheet
from .ask import Asked

#: characters of a call's arguments (or name, id) the trace keeps
TRACED_ARGUMENT_CHARS = 500

Send = Callable[[list[dict[str, Any]]], Asked]


@dataclass
class Turn:
    """One request of the exchange: its reply and the calls it made, each with its answer."""

    asked: Asked
    calls: list[tuple[ToolCall, ZoomAnswer]] = field(default_factory=list)


@dataclass
class Exchange:
    """What an attempt's exchange produced (see the module docstring for ``end``)."""

    turns: list[Turn]
    end: str  # answer | limit | malformed | unavailable
    error: ServiceUnavailable | None = None

    @property
    def final(self) -> Asked | None:
        return self.turns[-1].asked if self.turns else None

    @property
    def calls(self) -> int:
        return sum(len(turn.calls) for turn in self.turns)


def sanitised_call(call: ToolCall, redact: Redactor) -> dict[str, Any]:
    """A call as the trace keeps it: every string redacted, then cut."""
    def cut(text: str) -> str:
        return redact_then_cut(text, redact, TRACED_ARGUMENT_CHARS)

    return {"id": cut(call.id), "type": "function",
            "function": {"name": cut(call.name), "arguments": cut(call.arguments)}}


def run_exchange(sheet: ZoomSheet, messages: list[dict[str, Any]],
                 traced: list[dict[str, Any]], send: Send, redact: Redactor) -> Exchange:
    """Run one attempt's exchange; ``messages`` and ``traced`` (the trace's copy, images
    as placeholders) are extended in place with every call and its answer."""
    turns: list[Turn] = []
    used = 0
    warned = False
    while True:
        try:
            asked = send(messages)
        except ServiceUnavailable as exc:
            return Exchange(turns, "unavailable", exc)
        reply = asked.reply
        turn = Turn(asked)
        turns.append(turn)
        if reply.tool_problem is not None:
            return Exchange(turns, "malformed")
        if not reply.tool_calls:
            return Exchange(turns, "answer")
        if warned:  # the calls stay unanswered; the trace still lists them
            turn.calls += [(call, ZoomAnswer("unanswered", "")) for call in reply.tool_calls]
            return Exchange(turns, "limit")
        content = reply.text or None
        messages.append({"role": "assistant", "content": content,
                         "tool_calls": [call.to_json() for call in reply.tool_calls]})
        traced.append({"role": "assistant", "content": content,
                       "tool_calls": [sanitised_call(c, redact) for c in reply.tool_calls]})
        crops: list[dict[str, Any]] = []
        shown: list[dict[str, Any]] = []
        for call in reply.tool_calls:
            used += 1
            if used > sheet.max_zooms:
                warned = True
                answer = ZoomAnswer("limit", sheet.limit_text())
            else:
                answer = sheet.answer(call.name, call.arguments, used)
            turn.calls.append((call, answer))
            tool = {"role": "tool", "tool_call_id": call.id, "content": answer.text}
            messages.append(tool)
            traced.append({**tool, "tool_call_id": sanitised_call(call, redact)["id"]})
            if answer.image is not None:
                label = {"type": "text", "text": answer.label}
                crops += [label, image_part(answer.image, False)]
                shown += [label, image_part(answer.image, True)]
        if crops:
            messages.append({"role": "user", "content": crops})
            traced.append({"role": "user", "content": shown})


__all__ = ["TRACED_ARGUMENT_CHARS", "Exchange", "Send", "Turn", "run_exchange",
           "sanitised_call"]
