"""Drawn texts → values: the only place numbers enter the reader.

A text states one value of a kind (a length, a force, an intensity, a couple, an
angle, a level) or none (a joint letter, a note). Three sets of forms exist:

* numbers with units ("2.5 m", "10 kN", "5 kN/m", "20 kN·m", "30°") — :data:`FORMS`;
* millimetres: a bare number ("3500") is a length in mm when, and only when, the
  drawing carries the unit note ("Dimensions in mm", "尺寸单位：mm"; no note: the
  text states nothing); a level ("±0.000", "+3.500") is in metres above the datum;
* parametric values ("2a", "qa²/2", "P", "1.5q") against the drawing's legend
  ("q = 10 kN/m, P = 2qa, a = 2 m"), evaluated exactly by a small parser: a
  coefficient (integer or decimal), symbols with optional "²" (joined directly or
  by "·"), an optional "/ integer". No ``eval``. A symbol's kind follows from its
  definition's unit, so "qa" is a force and "qa²" a couple by their dimensions.

Repeated spacings ("6 × 2 m", "6 × 2000", "4 × a") are a length with a count.

Numbers and units read the same in English and Chinese drawings (a Chinese
textbook writes 10 kN, 5 kN/m, 2 m too, with or without the space). Words — the
task's notes and the notes printed under a figure — state *facts* the reader
needs; :data:`NOTE_FACTS` lists the wordings of each fact in both languages, as a
reader who knows both writes them down (a fact, not a sentence, is matched: a
reworded note still says it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

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
MM_NOTE = re.compile(r"^(?:(?:all )?dimensions in mm\.?|(?:图中)?尺寸单位(?:为|：|:)\s*mm。?)$",
                     re.IGNORECASE)
REPEAT = re.compile(r"^(\d+)\s*×\s*(.+)$")
LEVEL = re.compile(r"^(±0\.000|[+-]\d+\.\d{3})$")
BARE = re.compile(rf"^{NUMBER}$")
#: a legend definition's number with its unit → (kind, factor to model units)
UNITS = {"m": ("length", 1.0), "mm": ("length", 0.001), "kN": ("force", 1.0),
         "kN/m": ("intensity", 1.0), "kN·m": ("couple", 1.0)}
#: dimensions (kN exponent, m exponent) of each kind
DIMS = {"length": (0, 1), "force": (1, 0), "intensity": (1, -1), "couple": (1, 1)}
KIND_OF = {v: k for k, v in DIMS.items()}

#: fact → the ways a note says it (English, Chinese)
NOTE_FACTS: dict[str, list[re.Pattern[str]]] = {
    "pin-jointed": [re.compile(r"\bpin-jointed\b", re.IGNORECASE),
                    re.compile(r"(各杆|所有杆件?)[^。；]*两端均为铰接")],
}


@dataclass(frozen=True)
class Value:
    kind: str
    value: float  # in the model's units (m, kN, kN/m, kN·m, degrees; a level in m)
    count: int = 1  # a repeated spacing: this many intervals of ``value``


def parse(text: str) -> Value | None:
    """A numeric text with its unit (the ``full``/``numeric``/``m-kN`` forms)."""
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
# -- the expression parser --------------------------------------------------------------

TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d+)?)|([A-Za-z])|(²)|(·)|(/))")


class ExpressionError(ValueError):
    """Not an expression of the legend's symbols."""


def _tokens(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ExpressionError(f"unexpected {text[pos:]!r}")
        kinds = ("number", "symbol", "square", "dot", "slash")
        kind = next(k for k, g in zip(kinds, m.groups(), strict=True) if g is not None)
        out.append((kind, m.group(m.lastindex or 0)))
        pos = m.end()
    return out


def expression(text: str, symbols: dict[str, tuple[float, tuple[int, int]]],
               ) -> tuple[float, tuple[int, int]]:
    """(value, dimensions) of ``[coefficient] symbol[²] (·? symbol[²])* [/ integer]``."""
    toks = _tokens(text)
    i, value, dims, seen = 0, 1.0, (0, 0), False
    if i < len(toks) and toks[i][0] == "number":
        value = float(toks[i][1])
        i += 1
    while i < len(toks) and toks[i][0] in ("symbol", "dot"):
        if toks[i][0] == "dot":
            i += 1
            continue
        name = toks[i][1]
        if name not in symbols:
            raise ExpressionError(f"{name!r} is not defined")
        power = 1
        if i + 1 < len(toks) and toks[i + 1][0] == "square":
            power, i = 2, i + 1
        v, (df, dl) = symbols[name]
        value *= v ** power
        dims = (dims[0] + power * df, dims[1] + power * dl)
        seen, i = True, i + 1
    if i < len(toks) and toks[i][0] == "slash":
        if i + 1 >= len(toks) or toks[i + 1][0] != "number" or "." in toks[i + 1][1]:
            raise ExpressionError("a fraction needs an integer denominator")
        value /= int(toks[i + 1][1])
        i += 2
    if i != len(toks) or not seen:
        raise ExpressionError(f"{text!r} is not a product of symbols")
    return value, dims


def _definition(text: str, symbols: dict[str, tuple[float, tuple[int, int]]],
                ) -> tuple[float, tuple[int, int]] | None:
    """A legend definition: "10 kN/m", "2000 mm" or an expression of known symbols."""
    m = re.match(rf"^{NUMBER}\s*(mm|m|kN/m|kN·m|kN)$", text.strip())
    if m:
        kind, factor = UNITS[m.group(2)]
        return float(m.group(1)) * factor, DIMS[kind]
    try:
        return expression(text, symbols)
    except ExpressionError:
        return None


@dataclass
class Lexicon:
    """What a drawing's notes say about its other texts: the legend's symbols and the
    unit of bare numbers."""

    symbols: dict[str, tuple[float, tuple[int, int]]] = field(default_factory=dict)
    mm: bool = False
    notes: set[str] = field(default_factory=set)

    def parse(self, text: str) -> Value | None:
        t = text.strip()
        if t in self.notes:
            return None
        m = REPEAT.match(t)
        if m:
            inner = self.parse(m.group(2))
            if inner is None or inner.kind != "length" or inner.count != 1:
                return None
            return Value("length", inner.value, int(m.group(1)))
        v = parse(t)
        if v is not None:
            return v
        if LEVEL.match(t):
            return Value("level", float(t.replace("±", "")))
        if BARE.match(t):
            return Value("length", float(t) / 1000.0) if self.mm else None
        if self.symbols:
            try:
                value, dims = expression(t, self.symbols)
            except ExpressionError:
                return None
            kind = KIND_OF.get(dims)
            return Value(kind, value) if kind else None
        return None


def legend_of(text: str) -> list[tuple[str, str]] | None:
    """``[(symbol, definition)]`` of a legend text ("q = 10 kN/m, a = 2 m"), else None."""
    if "=" not in text:
        return None
    out = []
    for part in text.split(","):
        name, sep, definition = part.partition("=")
        if not sep or not re.fullmatch(r"[A-Za-z]", name.strip()):
            return None
        out.append((name.strip(), definition.strip()))
    return out


def lexicon(found: Iterable[str]) -> Lexicon:
    """The lexicon of a drawing's texts; a symbol defined twice, or a definition that
    does not resolve, is an error of the drawing."""
    lex = Lexicon()
    pending: dict[str, str] = {}
    for text in found:
        t = text.strip()
        if MM_NOTE.match(t):
            lex.mm = True
            lex.notes.add(t)
            continue
        entries = legend_of(t)
        if entries is None:
            continue
        lex.notes.add(t)
        for name, definition in entries:
            if name in pending:
                raise ValueError(f"the legend defines {name} twice")
            pending[name] = definition
    while pending:
        done = [(n, got) for n, d in pending.items()
                if (got := _definition(d, lex.symbols)) is not None]
        if not done:
            raise ValueError(f"the legend's {', '.join(sorted(pending))} cannot be evaluated")
        for name, got in done:
            lex.symbols[name] = got
            del pending[name]
    return lex
