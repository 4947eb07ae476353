"""Symbol set b (link bars): each symbol reads as its kind, and its bars show their axis.

A link-bar support says what it restrains by how many bars it has and how they
stand, so these are the facts that must survive the delivered size: one bar for a
roller, two bars meeting at the joint for a pin, two parallel bars apart for a
guided support, none for a wall; every bar clearly longer than its end circles,
circles large enough to see, a pin's bars spread wide enough not to look like one,
and a roller's or guided support's bars square to their ground (a reader takes the
restrained direction from the bars, and its exact angle from the ground line's
mark). A figure never mixes the two symbol sets.
"""

from __future__ import annotations

import math

from ..scene.layout import LayoutItem
from ..scene.shapes import XY
from .record import Record, Violation, point_segment

#: bars per set b symbol
BARS = {"link": 1, "two-links": 2, "parallel-links": 2, "wall": 0}
MIN_BAR_R = 2.5  # px: radius of a bar's end circles
BAR_TO_R = 5.0  # a bar's circle centres at least this many radii apart (a bar, not beads)
MIN_SPREAD_DEG = 40.0  # between a pin's two bars
PARALLEL_DEG = 0.5  # a guided support's bars, and a bar square to its ground, within this
MIN_CLEAR = 5.0  # px between the circles of a guided support's two bars
ON_GROUND = 1.5  # px: a bar's ground circle touches the ground line


def _angle(a: XY, b: XY) -> float:
    """Degrees between two directions, ignoring their sense (0…90)."""
    na, nb = math.hypot(*a), math.hypot(*b)
    c = abs(a[0] * b[0] + a[1] * b[1]) / (na * nb)
    return math.degrees(math.acos(min(1.0, c)))


def _bars(item: LayoutItem) -> list[tuple[XY, XY]]:
    g = item.glyph
    assert g is not None
    return list(zip(g.paths.get("bar_joint", ()), g.paths.get("bar_ground", ()), strict=True))


def link_bars(item: LayoutItem) -> list[Violation]:
    """The rules above for one set b support."""
    g = item.glyph
    assert g is not None
    symbol = str(g.facts["symbol"])
    who = f"{symbol} support {item.owner}"
    bars = _bars(item)
    if symbol not in BARS:
        return [Violation("supports", who, "is no symbol of set b")]
    if len(bars) != BARS[symbol]:
        return [Violation("supports", who, f"has {len(bars)} bars; a {symbol} has "
                          f"{BARS[symbol]}")]
    if not bars:
        return []
    out = []
    r = g.lengths.get("bar_r", 0.0)
    if r < MIN_BAR_R:
        out.append(Violation("supports", who, f"its bar circles are {r:.1f} px, less than "
                             f"{MIN_BAR_R} px"))
    ground = g.paths["ground_line"]
    along = (ground[1][0] - ground[0][0], ground[1][1] - ground[0][1])
    for joint, foot in bars:
        length = math.dist(joint, foot)
        if length < BAR_TO_R * max(r, MIN_BAR_R):
            out.append(Violation("supports", who, f"a bar is {length:.1f} px long between its "
                                 f"circle centres, less than {BAR_TO_R:g} × their radius"))
        if point_segment(foot, *ground) > r + ON_GROUND:
            out.append(Violation("supports", who, "a bar does not stand on its ground line"))
        if symbol != "two-links" and _angle((foot[0] - joint[0], foot[1] - joint[1]),
                                            along) < 90.0 - PARALLEL_DEG:
            out.append(Violation("supports", who, "a bar is not square to its ground line"))
    if symbol == "two-links":
        (j1, f1), (j2, f2) = bars
        spread = _angle((f1[0] - j1[0], f1[1] - j1[1]), (f2[0] - j2[0], f2[1] - j2[1]))
        if math.dist(j1, j2) > 1.0:
            out.append(Violation("supports", who, "its two bars do not meet at the joint"))
        if spread < MIN_SPREAD_DEG:
            out.append(Violation("supports", who, f"its bars are {spread:.0f}° apart, less "
                                 f"than {MIN_SPREAD_DEG:.0f}°"))
    if symbol == "parallel-links":
        (j1, f1), (j2, f2) = bars
        d1 = (f1[0] - j1[0], f1[1] - j1[1])
        if _angle(d1, (f2[0] - j2[0], f2[1] - j2[1])) > PARALLEL_DEG:
            out.append(Violation("supports", who, "its two bars are not parallel"))
        n = math.hypot(*d1)
        apart = abs((j2[0] - j1[0]) * d1[1] - (j2[1] - j1[1]) * d1[0]) / n
        if apart < 2 * r + MIN_CLEAR:
            out.append(Violation("supports", who, f"its bars are {apart:.1f} px apart: their "
                                 f"circles run together (at least {2 * r + MIN_CLEAR:.1f} px)"))
    return out


def one_set(rec: Record) -> list[Violation]:
    """All supports of a figure are drawn in one symbol set."""
    sets = sorted({str(it.glyph.facts.get("set", "a")) for it in rec.glyphs("support")
                   if it.glyph is not None})
    if len(sets) > 1:
        return [Violation("supports", "figure", f"mixes symbol sets {', '.join(sets)}")]
    return []
