"""How a structure is shown: the presentation factors of a task.

A *structure* is a FrameCalc model — the ground truth. A *task* shows one structure
in one *presentation*: how it is dimensioned, whether values are numbers or a
parametric legend, the length unit written on the drawing, the language of its
texts, the symbol convention, and the drawing style. Tasks that show the same
structure share its ground truth byte for byte, so a score difference between two
presentations measures a reading skill with the physics held constant.

This module sits below both the dataset (which stores and validates presentations)
and the renderer (which draws them), and the harness and reports group results by
its factors. It knows nothing about either.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

#: factor → its values, the first being the default (what v1 tasks were)
FACTORS: dict[str, tuple[str, ...]] = {
    "dimensioning": ("full", "exam"),
    "values": ("numeric", "parametric"),
    "units": ("m-kN", "mm-kN"),
    "language": ("en", "zh"),
    "symbols": ("a", "b"),
    "style": ("cad", "textbook", "scanned", "sketch", "exam-page", "sheet"),
}

#: what each factor means, for --help, the README and error messages
FACTOR_HELP: dict[str, str] = {
    "dimensioning": "full: every coordinate dimensioned; exam: the minimal set a textbook "
                    "gives (repeated spacings once, symmetry, slopes, levels)",
    "values": "numeric: numbers on the drawing; parametric: a legend (q = 10 kN/m, a = 2 m) "
              "and values written as 2a, qa, qa²",
    "units": "m-kN: dimensions in metres; mm-kN: dimensions in millimetres",
    "language": "en: English texts; zh: Chinese texts (the answer is the same JSON)",
    "symbols": "a: the default symbol set; b: a second textbook convention (link bars)",
    "style": "cad, textbook, scanned, sketch (pencil on paper), exam-page (figure on a "
             "problem page), sheet (a drawing sheet: plan, elevations, load table; the task "
             "names a frame)",
}


class PresentationError(ValueError):
    """A presentation block or selector names an unknown factor or value."""


@dataclass(frozen=True, order=True)
class Presentation:
    """One value per factor; the defaults are the v1 look (full, numeric, m-kN, en, a, cad)."""

    dimensioning: str = "full"
    values: str = "numeric"
    units: str = "m-kN"
    language: str = "en"
    symbols: str = "a"
    style: str = "cad"

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if value not in FACTORS[f.name]:
                raise PresentationError(
                    f"presentation.{f.name} must be one of {', '.join(FACTORS[f.name])}, "
                    f"got {value!r}")

    @classmethod
    def from_json(cls, data: Any, *, style: str | None = None) -> Presentation:
        """Parse a ``problem.presentation`` block; missing factors take their defaults
        (``style`` defaults to the image's style when given)."""
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            raise PresentationError("presentation must be an object of factor → value")
        unknown = sorted(set(data) - set(FACTORS))
        if unknown:
            raise PresentationError(f"presentation has unknown factor(s) {', '.join(unknown)}; "
                                    f"known: {', '.join(FACTORS)}")
        values = {k: v for k, v in data.items()}
        if style is not None:
            values.setdefault("style", style)
        return cls(**values)

    def to_json(self) -> dict[str, str]:
        """Every factor, in the fixed order of :data:`FACTORS` (stable bytes in raw files)."""
        return {name: getattr(self, name) for name in FACTORS}

    def with_(self, **changes: str) -> Presentation:
        return replace(self, **changes)

    def differs_from_default(self) -> dict[str, str]:
        """The factors whose value is not the default one (what a task id suffix names)."""
        return {name: getattr(self, name) for name in FACTORS
                if getattr(self, name) != FACTORS[name][0]}


def parse_selectors(items: Iterable[str]) -> dict[str, frozenset[str]]:
    """``["language=zh", "style=cad,sketch"]`` → {factor: accepted values}.

    Repeating a factor widens it (values are OR-ed); different factors are AND-ed.
    """
    out: dict[str, set[str]] = {}
    for item in items:
        key, sep, raw = str(item).partition("=")
        key = key.strip()
        if not sep or not key or not raw.strip():
            raise PresentationError(f"presentation selector {item!r} must look like KEY=VALUE "
                                    f"(e.g. language=zh); factors: {', '.join(FACTORS)}")
        if key not in FACTORS:
            raise PresentationError(f"unknown presentation factor {key!r}; choose one of "
                                    f"{', '.join(FACTORS)}")
        for value in (v.strip() for v in raw.split(",")):
            if value not in FACTORS[key]:
                raise PresentationError(f"presentation {key} has no value {value!r}; choose "
                                        f"one of {', '.join(FACTORS[key])}")
            out.setdefault(key, set()).add(value)
    return {k: frozenset(v) for k, v in out.items()}


def matches(presentation: Presentation, selectors: Mapping[str, Iterable[str]]) -> bool:
    """Whether the presentation has one of the accepted values of every selected factor."""
    return all(getattr(presentation, key) in set(values) for key, values in selectors.items())
