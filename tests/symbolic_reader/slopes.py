"""Slopes: a rise:run triangle on an inclined member gives the heights along its line.

The triangle's hypotenuse lies on a member, its legs are visibly horizontal and
vertical; the whole number beside the vertical leg is the rise, the one beside the
horizontal leg the run (:func:`claim_texts` gives such numbers to the triangle before
anything else reads them). The member's line then rises ``rise/run`` per unit of x
(the picture shows which way): along the straight run of members through it, a joint
with a known x has its y from any joint of the run whose x and y are known.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .geometry import XY, box_segment, parallel, point_segment, sub
from .implied import _onward
from .texts import Value
from .topology import JOIN, Topology
from .view import Drawing, Glyph, ReadError, Text

CLAIM = 0.8  # text caps: a number this close to a triangle's leg is the triangle's


def _legs(g: Glyph) -> tuple[tuple[XY, XY], tuple[XY, XY]]:
    """(horizontal leg, vertical leg) of a triangle."""
    s, c, e = g.pts["start"], g.pts["corner"], g.pts["end"]
    one, two = (s, c), (c, e)
    if parallel(sub(one[1], one[0]), (1.0, 0.0)) and parallel(sub(two[1], two[0]), (0.0, 1.0)):
        return one, two
    if parallel(sub(two[1], two[0]), (1.0, 0.0)) and parallel(sub(one[1], one[0]), (0.0, 1.0)):
        return two, one
    raise ReadError("a slope triangle's legs are not horizontal and vertical")


def claim_texts(d: Drawing) -> None:
    """Mark the whole numbers beside slope triangles' legs as slope numbers."""
    triangles = d.of("slope")
    if not triangles:
        return
    legs = [leg for g in triangles for leg in _legs(g)]
    for i, t in enumerate(d.texts):
        if not t.text.strip().isdigit():
            continue
        near = min(box_segment(t.box, a, b) for a, b in legs)
        if near <= CLAIM * t.cap:
            d.texts[i] = Text(t.text, t.centre, t.box, t.cap, Value("slope", float(t.text)))


@dataclass(frozen=True)
class SlopeMark:
    member: int
    dy_dx: float  # signed, model units (page X right, Y up, as the model's x and y)


def read_slopes(d: Drawing, top: Topology) -> list[SlopeMark]:
    triangles = d.of("slope")
    numbers = [t for t in d.texts if t.value is not None and t.value.kind == "slope"]
    owner: dict[tuple[int, int], list[Text]] = {}
    for t in numbers:
        k, leg = min(((k, leg) for k in range(len(triangles)) for leg in (0, 1)),
                     key=lambda kl: box_segment(t.box, *_legs(triangles[kl[0]])[kl[1]]))
        owner.setdefault((k, leg), []).append(t)
    out = []
    for k, g in enumerate(triangles):
        s, e = g.pts["start"], g.pts["end"]
        hosts = [m for m, mem in enumerate(top.members)
                 if point_segment(s, *top.segment(mem)) <= JOIN
                 and point_segment(e, *top.segment(mem)) <= JOIN]
        if len(hosts) != 1:
            raise ReadError(f"a slope triangle stands on {len(hosts)} members")
        run, rise = owner.get((k, 0), []), owner.get((k, 1), [])
        if len(run) != 1 or len(rise) != 1:
            raise ReadError("a slope triangle needs one number at each leg")
        d_page = sub(e, s)
        sign = 1.0 if d_page[0] * d_page[1] > 0 else -1.0
        out.append(SlopeMark(hosts[0], sign * rise[0].value.value / run[0].value.value))  # type: ignore[union-attr]
    return out


def _line_joints(top: Topology, member: int) -> list[int]:
    """The joints of the straight run of members through ``member``."""
    m = top.members[member]
    a, b = top.joints[m.a], top.joints[m.b]
    n = math.dist(a, b)
    d = ((b[0] - a[0]) / n, (b[1] - a[1]) / n)
    out = [m.a, m.b]
    for start, direction in ((m.b, d), (m.a, (-d[0], -d[1]))):
        k = _onward(top, start, direction)
        while k is not None and k not in out:
            out.append(k)
            k = _onward(top, k, direction)
    return out


def along_slopes(top: Topology, marks: list[SlopeMark], spots: Sequence[Any],
                 got: list[dict[str, float]]) -> None:
    for mark in marks:
        joints = _line_joints(top, mark.member)
        base = next((j for j in joints if "x" in got[j] and "y" in got[j]), None)
        if base is None:
            continue
        for j in joints:
            if "x" in got[j] and "y" not in got[j]:
                got[j]["y"] = got[base]["y"] + mark.dy_dx * (got[j]["x"] - got[base]["x"])
