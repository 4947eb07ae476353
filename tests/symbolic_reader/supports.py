"""Supports: which symbol stands at which joint, and which way it restrains.

Symbol set "a": pin (triangle), roller (triangle on wheels), fixed (hatched wall),
slider (block between rails). A roller restrains the direction from its ground to
its joint, a slider the same direction and rotation.

Symbol set "b" (link bars) is read from the bars themselves: a bar can only push or
pull along its axis, so one bar is a roller restraining the bar's direction, two
bars meeting at the joint a pin, two parallel bars a guided support (slider)
restraining the bars' direction and rotation, and a hatched wall without bars a
fixed end. The symbol's name in the glyph must agree with what the bars show.

In both sets the restrained direction is an axis when it is visibly one, and
otherwise comes from the angle mark on the ground line (its text states the
surface's inclination to the horizontal; the restrained direction is square to it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .geometry import XY, axis_angle, parallel, square, sub, unit
from .loads import exact_direction
from .topology import Topology
from .view import Drawing, Glyph, ReadError

SYMBOLS = {"a": {"pin": "pin", "roller": "roller", "fixed": "fixed", "slider": "slider"},
           "b": {"link": "roller", "two-links": "pin", "parallel-links": "slider",
                 "wall": "fixed"}}
MARK_AT = 2.0
MEET = 1.0  # px: two bars' joint ends this close meet in one pin


@dataclass
class Support:
    joint: int
    kind: str
    angle: float  # FrameCalc angleDeg
    glyph: Glyph | None = None


def _surface_angle(g: Glyph, marks: list[tuple[Glyph, float]]) -> XY:
    """The ground line's direction, exactly, from its angle mark."""
    ends = g.paths["ground_line"]
    here = [(m, deg) for m, deg in marks
            if min(math.dist(m.pts["vertex"], e) for e in ends) <= MARK_AT]
    if len(here) != 1:
        raise ReadError(f"a slanted {g.facts['symbol']} has {len(here)} angle marks")
    mark, deg = here[0]
    seen = unit(sub(mark.pts["ray"], mark.pts["vertex"]))
    return exact_direction(seen, deg)


def _bars(g: Glyph) -> list[tuple[XY, XY]]:
    joint, ground = g.paths.get("bar_joint", ()), g.paths.get("bar_ground", ())
    if len(joint) != len(ground):
        raise ReadError("a link bar has one end only")
    return list(zip(joint, ground, strict=True))


def _link_kind(g: Glyph) -> tuple[str, XY | None]:
    """The kind a set b symbol shows, and the direction its bars restrain (towards the
    joint), from the bars alone."""
    bars = _bars(g)
    if not bars:
        kind, towards = "fixed", None
    elif len(bars) == 1:
        kind, towards = "roller", unit(sub(*bars[0]))
    elif len(bars) == 2:
        (j1, f1), (j2, f2) = bars
        d1, d2 = sub(j1, f1), sub(j2, f2)
        if math.dist(j1, j2) <= MEET and not parallel(d1, d2):
            kind, towards = "pin", None
        elif parallel(d1, d2) and math.dist(j1, j2) > MEET:
            kind, towards = "slider", unit(d1)
        else:
            raise ReadError("two link bars that neither meet nor run parallel")
    else:
        raise ReadError(f"a support of {len(bars)} link bars")
    named = SYMBOLS["b"].get(str(g.facts.get("symbol")))
    if named != kind:
        raise ReadError(f"a {g.facts.get('symbol')!r} symbol drawn with bars of a {kind}")
    if towards is not None and not square(towards, sub(*g.paths["ground_line"])):
        raise ReadError(f"a {kind}'s bars are not square to its ground")
    return kind, towards


def _restrained(g: Glyph, towards: XY, marks: list[tuple[Glyph, float]]) -> float:
    """World angle (degrees) of the restrained direction n, drawn as ``towards``."""
    exact = axis_angle(towards)
    if exact is not None:
        return exact
    surface = _surface_angle(g, marks)
    normal = (-surface[1], surface[0])
    if normal[0] * towards[0] + normal[1] * towards[1] < 0:
        normal = (-normal[0], -normal[1])
    return math.degrees(math.atan2(normal[1], normal[0]))


def read_supports(d: Drawing, top: Topology, marks: list[tuple[Glyph, float]]) -> list[Support]:
    out = []
    for g in d.of("support"):
        symbol_set = str(g.facts.get("set", "a"))
        table = SYMBOLS.get(symbol_set)
        if table is None or str(g.facts.get("symbol")) not in table:
            raise ReadError(f"unknown support symbol {g.facts.get('symbol')!r}")
        if symbol_set == "b":
            kind, towards = _link_kind(g)
        else:
            kind = table[str(g.facts["symbol"])]
            towards = unit(sub(g.pts["attach"], g.pts["ground"]))
        j = top.joint_at(g.pts["attach"])
        if j is None:
            raise ReadError(f"a {kind} symbol stands at no joint")
        if kind in ("pin", "fixed"):
            out.append(Support(j, kind, 0.0, g))
            continue
        assert towards is not None
        n = _restrained(g, towards, marks)
        # roller: n = (−sin θ, cos θ) → θ = n − 90°; slider: n = (cos θ, sin θ) → θ = n
        angle = (n - 90.0) if kind == "roller" else n
        out.append(Support(j, kind, angle % 360.0, g))
    return out
