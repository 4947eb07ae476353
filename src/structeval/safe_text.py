"""Text from outside made safe to store and to show: valid Unicode, and console lines
without control sequences.

Why one module: a server (or a hand-made file) can send any code point, and two
kinds break us. A lone surrogate (JSON ``"\\ud800"`` decodes to one) cannot be
encoded as UTF-8, so it crashes whatever writes the text — the trace, the response
cache, the negotiation memory or the terminal. :func:`valid_unicode` is applied
once, where text enters (a decoded reply or error body, a command-line argument),
so nothing downstream sees one. And a terminal obeys what it is sent: ``ESC[2J``
clears it, ``ESC]0;…BEL`` retitles the window, a bare carriage return lets the next
characters overwrite a line already printed. :func:`console_text` drops every such
sequence from a line before it is printed, whether or not stdout is a terminal (a
log file is later read with ``cat`` or ``less -R`` in one), and :func:`echo` is the
one way the command-line tools print.
"""

from __future__ import annotations

import re
from typing import Any

import click

REPLACEMENT = "\ufffd"

_SURROGATE = re.compile("[\ud800-\udfff]")

# Escape sequences (ECMA-48), in their 7-bit (ESC …) and 8-bit (C1) forms:
# OSC / DCS / SOS / PM / APC strings up to their terminator (BEL or ST) or the end of
# the text; CSI with its parameters; any other two-character ESC sequence.
_SEQUENCE = re.compile(
    r"(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f]).*?(?:\x07|\x1b\\|\x9c|\Z)"
    r"|(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?"
    r"|\x1b[\x20-\x7e]?",
    re.S)
# What is left of C0 (but newline and tab), DEL and C1 once the sequences are gone;
# a carriage return included: a bare one rewrites the line on screen.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def valid_unicode(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings (keys included, in nested lists
    and dicts as JSON decodes them) replaced by U+FFFD; other values unchanged. Cheap
    when there is nothing to replace: one failed-or-not UTF-8 encode per string."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return _SURROGATE.sub(REPLACEMENT, value)
        return value
    if isinstance(value, dict):
        return {valid_unicode(k): valid_unicode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [valid_unicode(v) for v in value]
    return value


def console_text(text: object) -> str:
    """``text`` as it may reach a terminal: valid Unicode without escape sequences, bare
    carriage returns or other control characters (newline and tab are kept)."""
    s = valid_unicode(str(text))
    if not _CONTROL.search(s):
        return s
    return _CONTROL.sub("", _SEQUENCE.sub("", s))


def one_line(text: str) -> str:
    """A server's words as one line of a message: every run of whitespace (line breaks
    included, so a reply cannot start a line of its own that looks like ours) becomes one
    space."""
    return " ".join(text.split())


def echo(message: object = "", *, err: bool = False, nl: bool = True) -> None:
    """Print one message (stdout, or stderr with ``err``) through :func:`console_text`."""
    click.echo(console_text(message), err=err, nl=nl)
