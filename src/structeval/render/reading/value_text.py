"""How a value becomes a label under a presentation's ``values`` × ``units`` factors.

Every text that states a length, a force, an intensity or a couple is formed here
and nowhere else, so a new wording (another language, another unit) changes one
module. Three forms exist:

* ``numeric`` / ``m-kN``: "2.5 m", "10 kN", "5 kN/m", "20 kN·m" (v1 drawings).
* ``mm-kN``: lengths in millimetres without a unit, as building drawings write them
  ("3500"), with one note "Dimensions in mm" on the drawing; loads keep kN.
* ``parametric``: a legend such as "q = 10 kN/m, P = 2qa, a = 2 m" defines base
  quantities by number and derived ones as expressions; dimensions read "2a",
  "1.5a", "a/2", loads "P", "2P", "qa", couples "qa²" or "P·a". The bases are chosen
  from the model so that as many values as possible are *exact* short multiples
  (integers or fractions with denominator ≤ 4); any other value is written as its
  number. An expression is never a rounded value.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction

from ...model.types import BendingMoment, DistributedLoad, Model, PointLoad
from ...phrasebook import say
from ...presentation import Presentation

MM_NOTE = say("figure.millimetres", "en")  # the English wording (zh: "尺寸单位：mm")
MAX_DENOMINATOR = 4
MAX_RATIO = Fraction(24)
MIN_RATIO = Fraction(1, MAX_DENOMINATOR)
EXACT = 1e-9  # relative: a ratio is short only if it is exact to round-off


def fmt_number(value: float) -> str:
    """Textbook numbers: 12, 2.5, 0.354 (three decimals at most, no trailing zeros)."""
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def short_ratio(value: float, base: float) -> Fraction | None:
    """``value / base`` as a short exact fraction (denominator ≤ 4, between 1/4 and 24),
    or None when it is not one."""
    if base <= 0 or value <= 0:
        return None
    r = Fraction(value / base).limit_denominator(MAX_DENOMINATOR)
    if not MIN_RATIO <= r <= MAX_RATIO:
        return None
    if abs(float(r) * base - value) > EXACT * max(abs(value), 1.0):
        return None
    return r


def simple_ratio(value: float, base: float | None) -> Fraction | None:
    """A ratio simple enough to prefer a derived symbol over a base of its own ("qa",
    "2qa", "qa/2", "1.5qa"): numerator ≤ 12, denominator ≤ 2."""
    if base is None:
        return None
    r = short_ratio(value, base)
    return r if r is not None and r.numerator <= 12 and r.denominator <= 2 else None


def term(r: Fraction, symbol: str) -> str:
    """``r × symbol`` as a textbook writes it: "a", "2a", "1.5a", "a/2", "2a/3", "qa²/4"."""
    n, d = r.numerator, r.denominator
    if d == 1:
        return symbol if n == 1 else f"{n}{symbol}"
    if d == 2 and n > 1:
        return f"{fmt_number(float(r))}{symbol}"
    return f"{'' if n == 1 else n}{symbol}/{d}"


@dataclass
class Legend:
    """The parametric bases of one drawing; ``used`` collects the symbols a label used."""

    a: float | None = None
    q: float | None = None
    P: float | None = None
    M: float | None = None
    forces_in_qa: bool = False
    couples_in: str = ""  # "qa²", "P·a" or "M"
    definitions: dict[str, str] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)

    def text(self) -> str:
        order = [s for s in ("q", "P", "M", "a") if s in self.definitions]
        return ", ".join(f"{s} = {self.definitions[s]}" for s in order)


def _complexity(r: Fraction) -> int:
    """How hard a coefficient is to read: its digits plus a fraction's denominator."""
    return len(str(r.numerator)) + (0 if r.denominator == 1 else r.denominator)


def _best_base(values: Iterable[float]) -> float | None:
    """The base that writes the most values as short multiples; among those the value
    that occurs most often (a textbook's base is the repeated bay or panel), then the
    simplest coefficients, then the larger base."""
    given = [round(abs(v), 9) for v in values if abs(v) > 1e-12]
    if not given:
        return None
    counts = Counter(given)

    def score(c: float) -> tuple[int, int, int, float]:
        ratios = [short_ratio(v, c) for v in given]
        return (sum(r is not None for r in ratios), counts[c],
                -sum(_complexity(r) for r in ratios if r is not None), c)

    return max(sorted(counts), key=score)


def _lengths(model: Model, heights: bool = True) -> list[float]:
    """The lengths a drawing of ``model`` writes: gaps between distinct x and y stations
    (no heights when they are given as levels)."""
    from .stations import distinct, features

    pts = features(model)
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    span = max(max(xs) - min(xs), max(ys) - min(ys), 1e-9)
    out = []
    axes = (xs, ys) if heights else (xs,)
    for values in (distinct(v, 1e-6 * span) for v in axes):
        out += [b - a for a, b in itertools.pairwise(values)]
    return out


def choose_legend(model: Model, units: str, heights: bool = True) -> Legend:
    """Bases a, q, P, M for ``model`` (see the module docstring); ``heights``: whether
    heights are written as lengths (not as levels)."""
    leg = Legend()
    leg.a = _best_base(_lengths(model, heights)) or 1.0
    a = leg.a
    leg.definitions["a"] = _length_number(a, units)
    intensities = [w for ld in model.loads if isinstance(ld, DistributedLoad)
                   for w in (ld.w_start, ld.w_end)]
    forces = [ld.value for ld in model.loads if isinstance(ld, PointLoad)]
    couples = [ld.value for ld in model.loads if isinstance(ld, BendingMoment)]
    leg.q = _best_base(intensities)
    if leg.q is not None:
        leg.definitions["q"] = f"{fmt_number(leg.q)} kN/m"
    qa = leg.q * a if leg.q is not None else None
    if forces:
        if qa is not None and all(simple_ratio(abs(f), qa) for f in forces if f):
            leg.forces_in_qa = True
        else:
            leg.P = _best_base(forces)
            assert leg.P is not None
            r = simple_ratio(leg.P, qa)
            leg.definitions["P"] = term(r, "qa") if r else f"{fmt_number(leg.P)} kN"
    if couples:
        qa2 = qa * a if qa is not None else None
        pa = leg.P * a if leg.P is not None else None
        if qa2 is not None and all(simple_ratio(abs(m), qa2) for m in couples if m):
            leg.couples_in = "qa²"
        elif pa is not None and all(simple_ratio(abs(m), pa) for m in couples if m):
            leg.couples_in = "P·a"
        else:
            leg.couples_in = "M"
            leg.M = _best_base(couples)
            assert leg.M is not None
            r, r2 = simple_ratio(leg.M, qa2), simple_ratio(leg.M, pa)
            leg.definitions["M"] = (term(r, "qa²") if r else term(r2, "P·a") if r2
                                    else f"{fmt_number(leg.M)} kN·m")
    return leg


def _length_number(metres: float, units: str) -> str:
    if units == "mm-kN":
        return f"{fmt_number(metres * 1000.0)} mm"
    return f"{fmt_number(metres)} m"


@dataclass
class ValueText:
    """The label of every value on one drawing (see the module docstring)."""

    units: str = "m-kN"
    legend: Legend | None = None
    language: str = "en"  # of the unit note (numbers and symbols read alike in every language)

    def _as(self, value: float, base: float | None, symbol: str) -> str | None:
        """``value`` as a short multiple of ``base`` written with ``symbol`` ("3P/4"), noting
        the legend symbols it uses; None when it is none."""
        r = short_ratio(value, base) if self.legend is not None and base else None
        if r is None:
            return None
        assert self.legend is not None
        self.legend.used |= {c for c in symbol if c in "aqPM"}
        return term(r, symbol)

    # -- lengths -----------------------------------------------------------------------
    def _length_bare(self, metres: float) -> str:
        """A length as a chain writes it, without a repeat count."""
        metres = abs(metres)
        text = self._as(metres, self.legend.a if self.legend else None, "a")
        if text is not None:
            return text
        if self.units == "mm-kN":
            return fmt_number(metres * 1000.0)
        return f"{fmt_number(metres)} m"

    def length(self, metres: float) -> str:
        return self._length_bare(metres)

    def repeat(self, count: int, metres: float) -> str:
        """``count`` equal spacings written once: "6 × 2 m", "6 × 2000", "6 × a"."""
        return f"{count} × {self._length_bare(metres)}"

    # -- loads -------------------------------------------------------------------------
    def force(self, kn: float) -> str:
        kn, leg = abs(kn), self.legend
        qa = leg.q * leg.a if leg is not None and leg.forces_in_qa and leg.q and leg.a else None
        return (self._as(kn, qa, "qa") or self._as(kn, leg.P if leg else None, "P")
                or f"{fmt_number(kn)} kN")

    def intensity(self, kn_per_m: float) -> str:
        w = abs(kn_per_m)
        return self._as(w, self.legend.q if self.legend else None, "q") or f"{fmt_number(w)} kN/m"

    def couple(self, knm: float) -> str:
        m, leg = abs(knm), self.legend
        if leg is not None and leg.a:
            base = {"qa²": leg.q * leg.a ** 2 if leg.q else None,
                    "P·a": leg.P * leg.a if leg.P else None, "M": leg.M}.get(leg.couples_in)
            text = self._as(m, base, leg.couples_in)
            if text is not None:
                return text
        return f"{fmt_number(m)} kN·m"

    def symbols(self) -> frozenset[str]:
        """The names the legend may define (joint letters must avoid them)."""
        return frozenset(self.legend.definitions) if self.legend is not None else frozenset()

    # -- notes on the drawing ----------------------------------------------------------
    def legend_text(self) -> str | None:
        """The legend line, with only the symbols some label uses (and what they need)."""
        leg = self.legend
        if leg is None or not leg.used:
            return None
        needed = set(leg.used)
        for name in list(needed):
            needed |= {c for c in leg.definitions.get(name, "") if c in "qaPM"}
        shown = Legend(definitions={k: v for k, v in leg.definitions.items() if k in needed})
        return shown.text()

    def unit_note(self) -> str | None:
        return say("figure.millimetres", self.language) if self.units == "mm-kN" else None


def value_text(model: Model, presentation: Presentation | None) -> ValueText:
    """The label maker for ``model`` drawn in ``presentation`` (default: numeric, m-kN)."""
    shown = presentation or Presentation()
    legend = None
    if shown.values == "parametric":
        from .exam import is_building_frame

        levels = shown.dimensioning == "exam" and is_building_frame(model)
        legend = choose_legend(model, shown.units, heights=not levels)
    return ValueText(shown.units, legend, shown.language)


def level_text(metres: float) -> str:
    """A level above the datum, in metres with three decimals: "±0.000", "+3.500"."""
    if abs(metres) < 5e-4:
        return "±0.000"
    return f"{'+' if metres > 0 else '-'}{abs(metres):.3f}"


__all__ = ["MM_NOTE", "Legend", "ValueText", "choose_legend", "fmt_number", "level_text",
           "short_ratio", "term", "value_text"]
