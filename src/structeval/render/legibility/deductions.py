"""Coordinates an expert deduces from what is drawn, beyond the extension lines.

* **Symmetry**: with a symmetry axis drawn, a place whose mirror image in the axis is
  a place with a known coordinate has it too (x mirrored, y the same); a place on
  the axis has the axis's x (the ``symmetry`` rule of :mod:`.exam` requires a tick
  on the axis and a mirror-symmetric picture).
* **Slopes**: a rise:run triangle on a member gives, along the straight run through it,
  the y of every joint whose x is known once one joint of the run is known in both.
* **Straight chords**: a joint on a straight run of members (the members at it in
  line, the run going straight on through it) between two joints whose x and y are
  both known has its y from its x (and its x from its y).

Applied with the along-member rule until nothing more follows, as the reader of
the tests does.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..scene.shapes import XY
from .record import Record

ON = 2.0  # px: a mirror image this close to a place is that place
STRAIGHT = math.cos(math.radians(0.5))


def reflect(p: XY, a: XY, b: XY) -> XY:
    d = (b[0] - a[0], b[1] - a[1])
    n2 = d[0] ** 2 + d[1] ** 2
    t = ((p[0] - a[0]) * d[0] + (p[1] - a[1]) * d[1]) / n2
    foot = (a[0] + t * d[0], a[1] + t * d[1])
    return (2 * foot[0] - p[0], 2 * foot[1] - p[1])


def _symmetry(rec: Record, places: Any, got: dict[str, set[int]]) -> bool:
    added = False
    for it in rec.glyphs("symmetry"):
        a, b = it.glyph.paths["line"]  # type: ignore[union-attr]
        pts = places.points
        for i, p in enumerate(pts):
            image = reflect(p, a, b)
            if math.dist(image, p) <= ON and i not in got["x"]:
                got["x"].add(i)
                added = True
            j = min(range(len(pts)), key=lambda k: math.dist(pts[k], image))
            if math.dist(pts[j], image) > ON:
                continue
            for name in ("x", "y"):
                if j in got[name] and i not in got[name]:
                    got[name].add(i)
                    added = True
    return added


def _unit(a: XY, b: XY) -> XY:
    n = math.dist(a, b)
    return ((b[0] - a[0]) / n, (b[1] - a[1]) / n)


def _adjacency(places: Any) -> dict[int, list[int]]:
    """Place index → the places joined to it by a member (joints only)."""
    pts = places.points
    near: dict[int, list[int]] = {}
    for _, (a, b) in places.members:
        ia = min(range(len(pts)), key=lambda k: math.dist(pts[k], a))
        ib = min(range(len(pts)), key=lambda k: math.dist(pts[k], b))
        if math.dist(pts[ia], a) < 1.0 and math.dist(pts[ib], b) < 1.0:
            near.setdefault(ia, []).append(ib)
            near.setdefault(ib, []).append(ia)
    return near


def _onward(pts: list[XY], near: dict[int, list[int]], j: int, d: XY) -> int | None:
    """The joint straight on from ``j`` in direction d along a member, if exactly one."""
    ahead = [k for k in near.get(j, []) if _dot(_unit(pts[j], pts[k]), d) >= STRAIGHT]
    return ahead[0] if len(ahead) == 1 else None


def _slopes(rec: Record, places: Any, got: dict[str, set[int]]) -> bool:
    """A slope triangle on a member: along the straight run through it, a joint with a
    known x has its y when some joint of the run has both."""
    pts, near, added = places.points, _adjacency(places), False
    for it in rec.glyphs("slope"):
        g = it.glyph
        assert g is not None
        s, e = g.points["start"], g.points["end"]
        host = [(a, b) for _, (a, b) in places.members
                if _seg(s, a, b) <= 1.0 and _seg(e, a, b) <= 1.0]
        if len(host) != 1:
            continue
        a, b = host[0]
        ia = min(range(len(pts)), key=lambda k: math.dist(pts[k], a))
        ib = min(range(len(pts)), key=lambda k: math.dist(pts[k], b))
        line = [ia, ib]
        for start, d in ((ib, _unit(a, b)), (ia, _unit(b, a))):
            k = _onward(pts, near, start, d)
            while k is not None and k not in line:
                line.append(k)
                k = _onward(pts, near, k, d)
        if any(j in got["x"] and j in got["y"] for j in line):
            for j in line:
                if j in got["x"] and j not in got["y"]:
                    got["y"].add(j)
                    added = True
    return added


def _seg(p: XY, a: XY, b: XY) -> float:
    d = (b[0] - a[0], b[1] - a[1])
    n2 = d[0] ** 2 + d[1] ** 2
    t = max(0.0, min(1.0, ((p[0] - a[0]) * d[0] + (p[1] - a[1]) * d[1]) / n2))
    return math.dist(p, (a[0] + t * d[0], a[1] + t * d[1]))


def _chords(rec: Record, places: Any, got: dict[str, set[int]]) -> bool:
    pts = places.points
    near = _adjacency(places)

    def onward(j: int, d: XY) -> int | None:
        return _onward(pts, near, j, d)

    def end(j: int, d: XY) -> int | None:
        seen, k = {j}, onward(j, d)
        while k is not None and k not in seen:
            if k in got["x"] and k in got["y"]:
                return k
            seen.add(k)
            k = onward(k, d)
        return None

    added = False
    for j in near:
        has = [name for name in ("x", "y") if j in got[name]]
        if len(has) != 1:
            continue
        along = rec.frame[0] if has[0] == "y" else rec.frame[1]
        for k in near[j]:
            d = _unit(pts[j], pts[k])
            if abs(_dot(d, along)) >= STRAIGHT:
                continue  # along the known axis, a chord fixes nothing of the other
            back = (-d[0], -d[1])
            if end(j, d) is not None and end(j, back) is not None:
                got["y" if has[0] == "x" else "x"].add(j)
                added = True
                break
    return added


def _dot(a: XY, b: XY) -> float:
    return a[0] * b[0] + a[1] * b[1]


def deduce(rec: Record, places: Any, got: dict[str, set[int]],
           along: Callable[[], bool]) -> None:
    while True:
        added = along()
        added |= _symmetry(rec, places, got)
        added |= _chords(rec, places, got)
        added |= _slopes(rec, places, got)
        if not added:
            return
