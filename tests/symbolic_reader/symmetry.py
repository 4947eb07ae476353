"""Symmetry: a dash-dot centre line with the symmetry mark, one half dimensioned.

The mark says the structure, its supports and its loads are mirror images about the
axis (the legibility rules hold the drawing to that). The axis is dimensioned: a
tick of an x chain stands on it, giving its x. A place on the axis has that x; a
place whose mirror image (reflected in the axis on the page) is a place with known
coordinates has the mirrored x and the same y.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from .dims_types import Chain
from .geometry import parallel, sub
from .view import Drawing, ReadError

ON_AXIS = 2.0  # px: a place this close to the axis is on it; a mirror image this close


def read_axis(d: Drawing, chains: list[Chain]) -> tuple[float, float] | None:
    """(page X of the axis, its x) or None when the drawing shows no symmetry mark."""
    marks = d.of("symmetry")
    if not marks:
        return None
    if len(marks) > 1:
        raise ReadError(f"{len(marks)} symmetry axes")
    a, b = marks[0].paths["line"]
    if not parallel(sub(b, a), (0.0, 1.0)):
        raise ReadError("the symmetry axis is not vertical")
    x_page = (a[0] + b[0]) / 2
    for c in chains:
        if c.axis != "x":
            continue
        for s, v in zip(c.stations, c.values, strict=True):
            if abs(s - x_page) <= ON_AXIS and v is not None:
                return x_page, v
    raise ReadError("the symmetry axis is not dimensioned (no x tick on it)")


def mirror(axis: tuple[float, float], spots: Sequence[Any], got: list[dict[str, float]],
           ) -> None:
    x_page, x_axis = axis
    for i, sp in enumerate(spots):
        if abs(sp.px[0] - x_page) <= ON_AXIS:
            got[i].setdefault("x", x_axis)
        image = (2 * x_page - sp.px[0], sp.px[1])
        partner = min(range(len(spots)), key=lambda j: math.dist(spots[j].px, image))
        if math.dist(spots[partner].px, image) > ON_AXIS:
            continue
        have = got[partner]
        if "x" in have:
            got[i].setdefault("x", 2 * x_axis - have["x"])
        if "y" in have:
            got[i].setdefault("y", have["y"])
