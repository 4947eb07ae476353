"""Notes on the drawing: the parametric legend and the unit of bare numbers.

A parametric drawing is fair only if every symbol a label uses is defined on the
drawing, exactly once, and the legend cannot be taken for a label of something
drawn (it lies clear of the figure). A drawing whose dimensions are bare numbers
must say their unit ("Dimensions in mm").
"""

from __future__ import annotations

import re

from ...phrasebook import LANGUAGES, say
from ..scene.layout import LayoutItem
from ..scene.shapes import XY, Rect, rects_overlap
from .record import Record, Violation

UNIT_WORDS = re.compile(r"kN/m|kN·m|kN|mm|\bm\b|°")
SYMBOL = re.compile(r"[A-Za-z]")
DEFINED = re.compile(r"(?:^|,)\s*([A-Za-z])\s*=")
BARE = re.compile(r"^(\d+ × )?\d+(\.\d+)?$")
#: the unit note in every language a drawing may be lettered in
MM_NOTES = frozenset(say("figure.millimetres", lang) for lang in LANGUAGES)


CLEAR = 4.0  # px between a note and the figure


def _corners(r: Rect) -> list[XY]:
    return [(r[0], r[1]), (r[2], r[1]), (r[2], r[3]), (r[0], r[3])]


def _points(it: LayoutItem) -> list[XY]:
    """What an item covers: its glyph's points (a tilted line's box would claim more),
    else its box."""
    g = it.glyph
    if g is None or g.type == "text":
        return _corners(it.bbox)
    pts = list(g.points.values()) + [p for path in g.paths.values() for p in path]
    return pts or _corners(it.bbox)


def _page_box(pts: list[XY], u: XY, v: XY) -> Rect:
    """The box of the points in the page's own axes (the scanned tilt undone)."""
    us = [p[0] * u[0] + p[1] * u[1] for p in pts]
    vs = [-(p[0] * v[0] + p[1] * v[1]) for p in pts]
    return (min(us), min(vs), max(us), max(vs))


def _symbols(text: str) -> set[str]:
    return set(SYMBOL.findall(UNIT_WORDS.sub("", text)))


def _values(rec: Record) -> list[LayoutItem]:
    """Texts that state a value (loads, supports' angles, dimensions)."""
    return [it for it in rec.labels if it.owner_type in ("load", "support", "dimension")]


def legend(rec: Record) -> list[Violation]:
    out = []
    notes = [it for it in rec.labels if it.owner_type == "figure"]
    legends = [it for it in notes if it.role == "legend"]
    defined: dict[str, int] = {}
    uses: set[str] = set()
    for it in legends:
        for name in DEFINED.findall(it.text or ""):
            defined[name] = defined.get(name, 0) + 1
        for part in (it.text or "").split(","):
            uses |= _symbols(part.partition("=")[2])
    for it in _values(rec):
        uses |= _symbols(it.text or "")
    for name, n in sorted(defined.items()):
        if n > 1:
            out.append(Violation("legend", f"symbol {name}", f"is defined {n} times"))
    for name in sorted(uses - set(defined)):
        out.append(Violation("legend", f"symbol {name}", "is used but the drawing defines "
                             "it nowhere"))
    figure = [p for it in rec.items if it.owner_type != "figure" for p in _points(it)]
    if figure and notes:
        u, v = rec.frame
        box = _page_box(figure, u, v)
        for it in notes:
            mine = _page_box(_corners(it.bbox), u, v)
            if rects_overlap(mine, box, CLEAR):
                out.append(Violation("legend", f"{it.role} {it.text!r}", "is not clear of "
                                     "the figure"))
    bare = [it for it in rec.labels if it.owner_type == "dimension" and BARE.match(it.text or "")]
    if bare and not any(it.text in MM_NOTES for it in notes):
        out.append(Violation("legend", f"dimension {bare[0].text!r}", "is a bare number but "
                             f"the drawing has no note {sorted(MM_NOTES)[0]!r}"))
    return out
