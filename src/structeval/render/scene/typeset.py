"""Breaking a sentence into lines that fit a width, in English and in Chinese.

English breaks at spaces; Chinese may break between any two characters, except
that closing punctuation (，。）…) never starts a line and opening punctuation
（《…) never ends one — the rule every Chinese typesetter follows. A Latin word
or number inside Chinese text ("图 3-12", "EI") stays whole.
"""

from __future__ import annotations

import unicodedata

from .fonts import text_size

CLOSING = set("，。、；：？！）》」』”’…")
OPENING = set("（《「『“‘")


def wide(ch: str) -> bool:
    """A character set square on the line (Chinese characters and full-width punctuation)."""
    return unicodedata.east_asian_width(ch) in ("W", "F")


def units(text: str) -> list[str]:
    """The pieces a line may break between."""
    out: list[str] = []
    for ch in text:
        last = out[-1] if out else ""
        if ch == " ":
            out.append(" ")
        elif (ch in CLOSING and last and last != " ") or (last and last[-1] in OPENING):
            out[-1] = last + ch
        elif wide(ch) or not last or last == " " or wide(last[-1]):
            out.append(ch)
        else:
            out[-1] = last + ch  # a Latin word or number grows
    return out


def wrap(text: str, size: float, width: float, lettering: str | None = None) -> list[str]:
    """The lines of ``text`` at font ``size``, each at most ``width`` px wide (a single
    piece wider than that gets a line of its own)."""
    lines: list[str] = []
    line = ""
    for piece in units(text):
        candidate = line + piece
        if line.strip() and text_size(candidate.rstrip(), size, lettering)[0] > width:
            lines.append(line.rstrip())
            line = piece.lstrip()
        else:
            line = candidate
    if line.strip():
        lines.append(line.rstrip())
    return lines

