"""Supports: which symbol stands at which joint, and which way its ground lies.

Symbol set "a": pin (triangle), roller (triangle on wheels), fixed (hatched wall),
slider (block between rails). A roller restrains the direction from its ground to
its joint, a slider the same direction and rotation; their angle is an axis when
the ground is visibly square to one, and otherwise comes from the angle mark on
the ground line (its text states the surface's inclination to the horizontal).
A second symbol set goes here as another table of symbols.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .geometry import XY, axis_angle, sub, unit
from .loads import exact_direction
from .topology import Topology
from .view import Drawing, Glyph, ReadError

SYMBOLS = {"a": {"pin": "pin", "roller": "roller", "fixed": "fixed", "slider": "slider"}}
MARK_AT = 2.0


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


def read_supports(d: Drawing, top: Topology, marks: list[tuple[Glyph, float]]) -> list[Support]:
    out = []
    for g in d.of("support"):
        table = SYMBOLS.get(str(g.facts.get("set", "a")))
        if table is None or str(g.facts.get("symbol")) not in table:
            raise ReadError(f"unknown support symbol {g.facts.get('symbol')!r}")
        kind = table[str(g.facts["symbol"])]
        j = top.joint_at(g.pts["attach"])
        if j is None:
            raise ReadError(f"a {kind} symbol stands at no joint")
        if kind in ("pin", "fixed"):
            out.append(Support(j, kind, 0.0, g))
            continue
        to_joint = unit(sub(g.pts["attach"], g.pts["ground"]))
        exact = axis_angle(to_joint)
        if exact is not None:
            n = exact
        else:
            surface = _surface_angle(g, marks)
            normal = (-surface[1], surface[0])
            if normal[0] * to_joint[0] + normal[1] * to_joint[1] < 0:
                normal = (-normal[0], -normal[1])
            n = math.degrees(math.atan2(normal[1], normal[0]))
        # roller: n = (−sin θ, cos θ) → θ = n − 90°; slider: n = (cos θ, sin θ) → θ = n
        angle = (n - 90.0) if kind == "roller" else n
        out.append(Support(j, kind, angle % 360.0, g))
    return out
