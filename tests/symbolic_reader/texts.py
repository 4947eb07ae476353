"""Every number the reader uses comes from here: the drawing's texts, parsed.

A text is one of a few *kinds* (a length, a force, an intensity, a couple, an
angle, a joint letter); each kind is recognised by its unit. The table of forms is
the place to extend: millimetres ("2500" with a unit note, or "2500 mm"),
parametric values ("2a", "qa²" against a legend "q = 10 kN/m, a = 2 m"), repeated
spacings ("6 × 2 m") — each a new row or a new parser returning the same ``Value``.

Numbers and units read the same in English and Chinese drawings (a Chinese
textbook writes 10 kN, 5 kN/m, 2 m too, with or without the space). Words — the
task's notes and the notes printed under a figure — state *facts* the reader
needs; :data:`NOTE_FACTS` lists the wordings of each fact in both languages, as a
reader who knows both writes them down (a fact, not a sentence, is matched: a
reworded note still says it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

NUMBER = r"(\d+(?:\.\d+)?)"

#: kind → (regular expression, the factor to the model's unit)
FORMS: dict[str, list[tuple[re.Pattern[str], float]]] = {
    "length": [(re.compile(rf"^{NUMBER}\s*m$"), 1.0)],
    "force": [(re.compile(rf"^{NUMBER}\s*kN$"), 1.0)],
    "intensity": [(re.compile(rf"^{NUMBER}\s*kN/m$"), 1.0)],
    "couple": [(re.compile(rf"^{NUMBER}\s*kN·m$"), 1.0)],
    "angle": [(re.compile(rf"^{NUMBER}\s*°$"), 1.0)],
}
LETTER = re.compile(r"^[A-Z]{1,3}$")

#: fact → the ways a note says it (English, Chinese)
NOTE_FACTS: dict[str, list[re.Pattern[str]]] = {
    "pin-jointed": [re.compile(r"\bpin-jointed\b", re.IGNORECASE),
                    re.compile(r"(各杆|所有杆件?)[^。；]*两端均为铰接")],
}


@dataclass(frozen=True)
class Value:
    kind: str
    value: float  # in the model's units (m, kN, kN/m, kN·m, degrees)


def parse(text: str) -> Value | None:
    """The value a text states, or None for a text that states none (a joint letter)."""
    t = text.strip()
    for kind, forms in FORMS.items():
        for pattern, factor in forms:
            m = pattern.match(t)
            if m:
                return Value(kind, float(m.group(1)) * factor)
    return None


def is_letter(text: str) -> bool:
    return bool(LETTER.match(text.strip()))


def is_word(text: str) -> bool:
    """A text that is neither a value nor a letter: a note, read for the facts it states."""
    return parse(text) is None and not is_letter(text) and bool(text.strip())


def states(text: str, fact: str) -> bool:
    """Whether a note (or several, run together) states ``fact``."""
    return any(p.search(text) for p in NOTE_FACTS[fact])


def _wide(ch: str) -> bool:
    return "\u2e80" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef" or "\u3000" <= ch <= "\u303f"


def run_together(lines: list[str]) -> str:
    """Lines of a wrapped note read as one text: a space where a line break fell between
    two Latin words, none after or before a Chinese character."""
    out = ""
    for line in (ln.strip() for ln in lines):
        if out and line and not _wide(out[-1]) and not _wide(line[0]):
            out += " "
        out += line
    return out
