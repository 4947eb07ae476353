"""The ``tool_calls`` of a chat completion (``--image-mode zoom``), whole or streamed.

A reply's tool calls are as hostile as its text. What is accepted: a list of at
most :data:`MAX_TOOL_CALLS` objects, each with a string ``id`` and a ``function``
object holding a string ``name`` and ``arguments`` (a JSON text; an object is
taken as the JSON it is, since some OpenAI-compatible servers send one). A name
or id longer than :data:`MAX_LABEL` characters, and arguments beyond
:data:`MAX_ARGUMENT_CHARS`, are cut (the zoom loop then explains that the
arguments are not JSON). Anything else — tool calls that are not a list, an
entry without an id, a streamed fragment at an absurd index — is not an
infrastructure fault to retry but a *shape problem*: the reply is kept and the
problem is reported in one sentence (:attr:`ToolCallReader.problem`), so the
zoom loop can give the attempt a typed outcome instead of guessing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

MAX_TOOL_CALLS = 64
MAX_LABEL = 200
MAX_ARGUMENT_CHARS = 10_000


@dataclass(frozen=True)
class ToolCall:
    """One function call the model asked for."""

    id: str
    name: str
    arguments: str  # JSON text as the model wrote it (cut at MAX_ARGUMENT_CHARS)

    def to_json(self) -> dict[str, Any]:
        """The call as an assistant message carries it (OpenAI's shape)."""
        return {"id": self.id, "type": "function",
                "function": {"name": self.name, "arguments": self.arguments}}

    @classmethod
    def from_json(cls, data: Any) -> ToolCall | None:
        """A call stored by :meth:`to_json` (a cache entry), None for anything else."""
        if not isinstance(data, dict) or not isinstance(data.get("function"), dict):
            return None
        ident, function = data.get("id"), data["function"]
        name, arguments = function.get("name"), function.get("arguments")
        if not all(isinstance(v, str) for v in (ident, name, arguments)):
            return None
        if not ident or len(ident) > MAX_LABEL or len(name) > MAX_LABEL \
                or len(arguments) > MAX_ARGUMENT_CHARS:
            return None
        return cls(ident, name, arguments)


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _arguments(value: Any) -> str | None:
    if isinstance(value, str):
        return value[:MAX_ARGUMENT_CHARS]
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)[:MAX_ARGUMENT_CHARS]
    return None


class ToolCallReader:
    """Collects the tool calls of one reply: :meth:`whole` for a message's list, or
    :meth:`fragment` for each streamed delta entry; then :meth:`calls`."""

    def __init__(self) -> None:
        self._parts: dict[int, dict[str, str]] = {}
        self.problem: str | None = None

    def _fail(self, text: str) -> None:
        self.problem = self.problem or text

    def whole(self, raw: Any, where: str) -> None:
        """A non-streamed ``message.tool_calls``."""
        if raw is None:
            return
        if not isinstance(raw, list):
            self._fail(f"{where} is {_kind(raw)}, not a list")
            return
        for k, entry in enumerate(raw[:MAX_TOOL_CALLS + 1]):
            self._entry(k, entry, f"{where}[{k}]")

    def fragment(self, raw: Any, where: str) -> None:
        """A streamed ``delta.tool_calls``: entries carry an ``index``; their ``arguments``
        arrive in pieces and are joined."""
        if raw is None:
            return
        if not isinstance(raw, list):
            self._fail(f"{where} is {_kind(raw)}, not a list")
            return
        for entry in raw:
            index = entry.get("index") if isinstance(entry, dict) else None
            if isinstance(index, bool) or not isinstance(index, int) \
                    or not 0 <= index <= MAX_TOOL_CALLS:
                self._fail(f"{where} has an entry without a usable index")
                return
            self._entry(index, entry, f"{where}[{index}]", join=True)

    def _entry(self, index: int, entry: Any, where: str, join: bool = False) -> None:
        if index >= MAX_TOOL_CALLS:
            self._fail(f"the reply asks for more than {MAX_TOOL_CALLS} tool calls")
            return
        function = entry.get("function") if isinstance(entry, dict) else None
        if not isinstance(entry, dict) or not (function is None or isinstance(function, dict)):
            self._fail(f"{where} is not a function call object")
            return
        part = self._parts.setdefault(index, {"id": "", "name": "", "arguments": ""})
        ident = entry.get("id")
        name = (function or {}).get("name")
        arguments = _arguments((function or {}).get("arguments", "" if join else None))
        for key, value in (("id", ident), ("name", name)):
            if isinstance(value, str) and value:
                part[key] = (part[key] + value if join and part[key] != value
                             else value)[:MAX_LABEL]
            elif value is not None and not (join and value == ""):
                self._fail(f"{where}.{key} is {_kind(value)}, not a string")
        if arguments is None:
            self._fail(f"{where}.function.arguments is not a JSON text")
            return
        joined = part["arguments"] + arguments if join else arguments
        part["arguments"] = joined[:MAX_ARGUMENT_CHARS]

    def calls(self) -> tuple[ToolCall, ...]:
        """The complete calls, in index order (a call without an id or a name is a shape
        problem: it cannot be answered)."""
        out = []
        for index in sorted(self._parts):
            part = self._parts[index]
            if not part["id"] or not part["name"]:
                self._fail(f"tool call {index} has no {'id' if not part['id'] else 'name'}")
                continue
            out.append(ToolCall(part["id"], part["name"], part["arguments"]))
        return tuple(out)


__all__ = ["MAX_ARGUMENT_CHARS", "MAX_TOOL_CALLS", "ToolCall", "ToolCallReader"]
