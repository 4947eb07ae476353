"""The value of a JSON text that was cut short: what we keep of an oversized reply.

A reply body (or one server-sent event) larger than its cap is read only up to
the cap, so the JSON it holds is cut mid-way — usually inside the answer's
``content`` string. :func:`loads_prefix` recovers everything that was complete
plus the cut string as far as it goes, and closes the open containers, so that
the answer can still be validated and graded up to the cap. Strings are decoded
by the standard library's C scanner, so a multi-megabyte answer costs one pass.
A number or literal cut mid-way is dropped (``12`` may have been ``1234``).
"""

from __future__ import annotations

import json
import re
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any

MAX_DEPTH = 64  # a chat-completions payload nests ~5 deep; far beyond is hostile

_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_NUMBER_TAIL = re.compile(r"[-+0-9.eE]+$")
_WS = re.compile(r"[ \t\n\r]*")
_TAIL_U = re.compile(r"u[0-9a-fA-F]{0,3}$")
_LITERALS = {"true": True, "false": False, "null": None}


class PrefixError(ValueError):
    """The text is not the beginning of a JSON document."""


class _Missing:
    """A scalar cut mid-way: left out of its container."""


_MISSING = _Missing()


def loads_prefix(text: str) -> Any:
    """The JSON value ``text`` begins with, completed as described above; PrefixError when
    ``text`` is not the start of a JSON value (or nests deeper than MAX_DEPTH)."""
    value, _, _ = _value(text, _skip(text, 0), 0)
    if value is _MISSING:
        raise PrefixError("the text ends before any JSON value")
    return value


def _skip(text: str, i: int) -> int:
    return _WS.match(text, i).end()  # type: ignore[union-attr]


def _value(text: str, i: int, depth: int) -> tuple[Any, int, bool]:
    """(value, index after it, complete)."""
    if depth > MAX_DEPTH:
        raise PrefixError(f"nested deeper than {MAX_DEPTH} levels")
    if i >= len(text):
        return _MISSING, i, False
    ch = text[i]
    if ch == "{":
        return _object(text, i + 1, depth + 1)
    if ch == "[":
        return _array(text, i + 1, depth + 1)
    if ch == '"':
        return _string(text, i + 1)
    if _NUMBER_TAIL.match(text, i):  # a number (or its sign) running into the cut
        return _MISSING, len(text), False
    match = _NUMBER.match(text, i)
    if match and match.end() > i:
        return json.loads(match.group()), match.end(), True
    for word, literal in _LITERALS.items():
        if text.startswith(word, i):
            return literal, i + len(word), True
        if word.startswith(text[i:i + len(word)]) and i + len(word) > len(text):
            return _MISSING, len(text), False
    raise PrefixError(f"unexpected character {ch!r} at {i}")


def _string(text: str, start: int) -> tuple[Any, int, bool]:
    try:
        value, end = scanstring(text, start, True)
        return value, end, True
    except json.JSONDecodeError as exc:
        if not exc.msg.startswith("Unterminated string") and exc.pos < len(text) - 6:
            raise PrefixError(f"bad string at {start}: {exc.msg}") from None
    rest = _uncut_escape(text[start:])
    try:
        value, _ = scanstring(rest + '"', 0, True)
    except json.JSONDecodeError as exc:
        raise PrefixError(f"bad string at {start}: {exc.msg}") from None
    if value and "\ud800" <= value[-1] <= "\udbff":  # cut between the halves of a pair
        value = value[:-1]
    return value, len(text), False


def _uncut_escape(rest: str) -> str:
    """``rest`` without an escape sequence cut mid-way at its end (a lone backslash, or
    ``\\u`` with fewer than four hex digits), which the scanner would reject."""
    tail = _TAIL_U.search(rest, max(0, len(rest) - 4))
    body_end = tail.start() if tail else len(rest)
    k = body_end
    while k > 0 and rest[k - 1] == "\\":
        k -= 1
    return rest[:body_end - 1] if (body_end - k) % 2 else rest


def _after_item(text: str, i: int, close: str) -> tuple[int, bool | None]:
    """After a container's item: (index of the next item, None), (index past ``close``,
    True) when the container ends, or (end of text, False) when the text is cut there."""
    i = _skip(text, i)
    if i >= len(text):
        return i, False
    if text[i] == close:
        return i + 1, True
    if text[i] != ",":
        raise PrefixError(f"expected ',' or {close!r} at {i}")
    return _skip(text, i + 1), None


def _object(text: str, i: int, depth: int) -> tuple[Any, int, bool]:
    out: dict[str, Any] = {}
    i = _skip(text, i)
    if text.startswith("}", i):
        return out, i + 1, True
    while True:
        if i >= len(text):
            return out, i, False
        if text[i] != '"':
            raise PrefixError(f"expected a key at {i}")
        key, i, complete = _string(text, i + 1)
        if not complete:
            return out, i, False
        i = _skip(text, i)
        if i >= len(text):
            return out, i, False
        if text[i] != ":":
            raise PrefixError(f"expected ':' at {i}")
        value, i, complete = _value(text, _skip(text, i + 1), depth)
        if value is not _MISSING:
            out[key] = value
        if not complete:
            return out, i, False
        i, closed = _after_item(text, i, "}")
        if closed is not None:
            return out, i, closed


def _array(text: str, i: int, depth: int) -> tuple[Any, int, bool]:
    out: list[Any] = []
    i = _skip(text, i)
    if text.startswith("]", i):
        return out, i + 1, True
    while True:
        value, i, complete = _value(text, i, depth)
        if value is not _MISSING:
            out.append(value)
        if not complete:
            return out, i, False
        i, closed = _after_item(text, i, "]")
        if closed is not None:
            return out, i, closed
