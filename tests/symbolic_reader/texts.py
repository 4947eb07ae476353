"""Every number the reader uses comes from here: the drawing's texts, parsed.

A text is one of a few *kinds* (a length, a force, an intensity, a couple, an
angle, a joint letter); each kind is recognised by its unit. The table of forms is
the place to extend: millimetres ("2500" with a unit note, or "2500 mm"),
parametric values ("2a", "qa²" against a legend "q = 10 kN/m, a = 2 m"), repeated
spacings ("6 × 2 m"), Chinese wording — each a new row or a new parser returning
the same ``Value``.
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
