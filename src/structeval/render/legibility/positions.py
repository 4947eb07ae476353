"""Every coordinate and every load position can be read from the dimension chains.

A tick dimensions a place when an extension line runs from it to that place, or to
a place in plain sight of it along the same line (nothing drawn between but the
two places' own symbols). A joint may also take a coordinate from a joint that has
it through a member visibly along that axis. A concentrated load sits at a
lettered joint or at a dimensioned place on its member; a distributed load's ends
are joints or dimensioned places.
"""

from __future__ import annotations

import math

from ..scene.glyphs import Anchor
from ..scene.layout import LayoutItem
from ..scene.shapes import XY, Box, Capsule, Shape, touches
from .deductions import deduce
from .record import Record, Violation, point_segment

PLACE_TOL = 1.0  # px: a place on a tick's line (the record is exact; this is round-off)
AXIS_TOL_DEG = 0.5  # a member this close to an axis is visibly along it
TRIM = 4.0  # px at a place's end of a line of sight that may touch what is drawn there
BRIDGE_CAPS = 1.5  # an extension line stops at most this many text caps short of its place
# (not counting its place's own symbols in between)


def _dot(a: XY, b: XY) -> float:
    return a[0] * b[0] + a[1] * b[1]


def _crosses(p: XY, q: XY, a: XY, b: XY) -> bool:
    """Whether segment a–b crosses p–q away from p and q."""
    def orient(o: XY, s: XY, t: XY) -> float:
        return (s[0] - o[0]) * (t[1] - o[1]) - (s[1] - o[1]) * (t[0] - o[0])

    if min(point_segment(a, p, q), point_segment(b, p, q)) < 1.0 and min(
            math.dist(a, p), math.dist(a, q), math.dist(b, p), math.dist(b, q)) < 1.5:
        return False  # the member ends at one of the two places
    o1, o2, o3, o4 = orient(p, q, a), orient(p, q, b), orient(a, b, p), orient(a, b, q)
    return o1 * o2 < 0 and o3 * o4 < 0


class Places:
    """The places a reader must locate and what is drawn for each."""

    def __init__(self, rec: Record):
        self.rec = rec
        self.members = rec.member_segments()
        pts: list[XY] = list(rec.joints)
        self.kinds: list[str] = ["joint"] * len(pts)
        self.on_member: list[str | None] = [None] * len(pts)
        for it in rec.items:
            if it.kind != "load" or it.anchor is None or it.role == "angle":
                continue
            if not it.anchor.target.startswith("link:"):
                continue
            for q in it.anchor.at:
                if not any(math.dist(q, j) < PLACE_TOL for j in pts):
                    pts.append(q)
                    self.kinds.append("load")
                    self.on_member.append(it.anchor.target.split(":", 1)[1])
        self.points = pts

    def incident(self, i: int) -> set[str]:
        p = self.points[i]
        out = {owner for owner, (a, b) in self.members
               if math.dist(a, p) < PLACE_TOL or math.dist(b, p) < PLACE_TOL}
        if self.on_member[i]:
            out.add(str(self.on_member[i]))
        return out

    def own_items(self, i: int) -> list[LayoutItem]:
        p = self.points[i]
        return [it for it in self.rec.items if it.anchor is not None
                and any(math.dist(q, p) < PLACE_TOL for q in it.anchor.at)]


def _clear(rec: Record, places: Places, p: XY, q: XY, i: int, j: int | None) -> bool:
    """Nothing between p and q but members of the two places and their own symbols."""
    allowed = places.incident(i) | (places.incident(j) if j is not None else set())
    for owner, (a, b) in places.members:
        if owner not in allowed and _crosses(p, q, a, b):
            return False
    if math.dist(p, q) < 2.0:
        return True
    own = {id(it) for it in places.own_items(i)}
    if j is not None:
        own |= {id(it) for it in places.own_items(j)}
    n = math.dist(p, q)
    trim = min(TRIM, n / 2) / n  # what touches a place itself is not between the two
    gap = Capsule((p[0] + (q[0] - p[0]) * (trim if j is not None else 0.0),
                   p[1] + (q[1] - p[1]) * (trim if j is not None else 0.0)),
                  (q[0] + (p[0] - q[0]) * trim, q[1] + (p[1] - q[1]) * trim), 0.5)
    for it in rec.items:
        if it.kind in ("member", "dimension", "label") or id(it) in own:
            continue
        if any(touches(gap, s, 0.0) for s in _stops(it)):
            return False
    if j is None:  # from a line's end to its place: bridged by the place's own things only
        shapes: list[Shape] = [Box(it.bbox) for it in places.own_items(i)]
        if _uncovered(p, q, shapes) > BRIDGE_CAPS * yardstick(rec):
            return False
    return True


def _uncovered(p: XY, q: XY, shapes: list[Shape], step: float = 1.0) -> float:
    """Length of p–q not within a couple of px of any of ``shapes``."""
    n = math.dist(p, q)
    count = max(1, math.ceil(n / step))
    bare = 0
    for k in range(count):
        t = (k + 0.5) / count
        x, y = p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t
        if not any(s.hits((x - 0.5, y - 0.5, x + 0.5, y + 0.5), 2.0) for s in shapes):
            bare += 1
    return n * bare / count


def _stops(item: LayoutItem) -> list[Shape]:
    """What of an item a line of sight cannot pass: all of it, except that a force's shaft
    may be crossed (only its head is in the way)."""
    g = item.glyph
    if g is None or g.type != "arrow":
        return list(item.shapes)
    tail, tip = g.points["tail"], g.points["tip"]
    n = math.dist(tail, tip)
    k = min(1.0, g.lengths["head"] / n) if n > 0 else 1.0
    base = (tip[0] + (tail[0] - tip[0]) * k, tip[1] + (tail[1] - tip[1]) * k)
    return [Capsule(base, tip, g.lengths["head_width"] / 2)]


def reached(rec: Record, places: Places) -> dict[str, set[int]]:
    """Axis → the places some tick's extension line reaches (directly or along its row)."""
    out: dict[str, set[int]] = {"x": set(), "y": set()}
    for axis, along, tick, inner, outer in _ticks(rec):
        if True:
            station = _dot(tick, along)
            here = [i for i, p in enumerate(places.points)
                    if abs(_dot(p, along) - station) <= PLACE_TOL]
            through = [i for i in here if _passes(outer, inner, places.points[i])]
            out[axis] |= set(through)  # the drawn line runs through them
            here = [i for i in here if i not in through]
            here.sort(key=lambda i: math.dist(places.points[i], inner))
            prev: XY = inner
            prev_i: int | None = None
            for i in here:
                p = places.points[i]
                if prev_i is None and not _clear(rec, places, prev, p, i, None):
                    break
                if prev_i is not None and not _clear(rec, places, prev, p, prev_i, i):
                    break
                out[axis].add(i)
                prev, prev_i = p, i
    return out


def _ticks(rec: Record) -> list[tuple[str, XY, XY, XY, XY]]:
    """(axis, chain direction, tick, extension line's inner and outer end) of every tick
    with an extension line, and of every level mark (its level line is one)."""
    out = []
    _u, v = rec.frame
    for chain in rec.glyphs("chain"):
        g = chain.glyph
        assert g is not None
        a, b = g.paths["line"]
        along = ((b[0] - a[0]) / math.dist(a, b), (b[1] - a[1]) / math.dist(a, b))
        for tick, inner, outer in zip(g.paths["ticks"], g.paths["ext_inner"],
                                      g.paths["ext_outer"], strict=True):
            if math.dist(tick, inner) >= 1.0:  # else it points at nothing in particular
                out.append((str(g.facts["axis"]), along, tick, inner, outer))
    for mark in rec.glyphs("level"):
        g = mark.glyph
        assert g is not None
        outer, inner = g.paths["ext"]
        out.append(("y", v, g.points["tip"], inner, outer))
    return out


def _passes(outer: XY, inner: XY, p: XY) -> bool:
    """Whether the drawn extension line outer → inner runs through the place p."""
    d = (inner[0] - outer[0], inner[1] - outer[1])
    n = math.hypot(*d)
    if n < 1.0:
        return False
    t = ((p[0] - outer[0]) * d[0] + (p[1] - outer[1]) * d[1]) / (n * n)
    return 0.0 < t < 1.0 and point_segment(p, outer, inner) <= PLACE_TOL


def _along_axis(a: XY, b: XY, axis_dir: XY) -> bool:
    d = (b[0] - a[0], b[1] - a[1])
    n = math.hypot(*d)
    return n > 0 and abs(_dot(d, axis_dir)) / n >= math.cos(math.radians(AXIS_TOL_DEG))


def known(rec: Record, places: Places) -> dict[str, set[int]]:
    """Reached places plus joints that share a coordinate through a member along the axis."""
    got = reached(rec, places)
    u, v = rec.frame
    for name, direction in (("x", v), ("y", u)):  # vertical members carry x, horizontal y
        links = []
        for _, (a, b) in places.members:
            if _along_axis(a, b, direction):
                ia = _index(places.points, a)
                ib = _index(places.points, b)
                if ia is not None and ib is not None:
                    links.append((ia, ib))
        changed = True
        while changed:
            changed = False
            for ia, ib in links:
                if (ia in got[name]) != (ib in got[name]):
                    got[name] |= {ia, ib}
                    changed = True
    deduce(rec, places, got, lambda: known_along(rec, places, got))
    return got


def known_along(rec: Record, places: Places, got: dict[str, set[int]]) -> bool:
    """One pass of "a member along an axis carries that coordinate"; True if it added."""
    u, v = rec.frame
    added = False
    for name, direction in (("x", v), ("y", u)):
        for _, (a, b) in places.members:
            if _along_axis(a, b, direction):
                ia, ib = _index(places.points, a), _index(places.points, b)
                if ia is not None and ib is not None and (ia in got[name]) != (ib in got[name]):
                    got[name] |= {ia, ib}
                    added = True
    return added


def _index(points: list[XY], p: XY) -> int | None:
    for i, q in enumerate(points):
        if math.dist(p, q) < PLACE_TOL:
            return i
    return None


def _axes_needed(rec: Record) -> set[str]:
    return {str(it.glyph.facts["axis"]) for it in rec.glyphs("chain")}  # type: ignore[union-attr]


def coordinates(rec: Record) -> list[Violation]:
    """Every joint's x and y follow from the chains (a figure with no extent along an
    axis has no chain for it, and needs none)."""
    places = Places(rec)
    got = known(rec, places)
    axes = _axes_needed(rec)
    out = []
    letters = {_index(places.points, it.anchor.at[0]): it.text for it in rec.items
               if it.role == "letter" and it.anchor is not None}
    for i, kind in enumerate(places.kinds):
        if kind != "joint":
            continue
        for name in sorted(axes):
            if i not in got[name]:
                out.append(Violation("coordinates", f"joint {letters.get(i, '?')}",
                                     f"its {name} is on no extension line of a {name} chain"))
    return out


def _member_dir(rec: Record, owner: str) -> XY | None:
    for o, (a, b) in rec.member_segments():
        if o == owner:
            return (b[0] - a[0], b[1] - a[1])
    return None


def load_positions(rec: Record) -> list[Violation]:
    """Concentrated loads at lettered joints or dimensioned places; distributed loads'
    ends at joints or dimensioned places."""
    places = Places(rec)
    got = known(rec, places)
    u, v = rec.frame
    out = []
    for it in rec.items:
        if it.kind != "load" or it.anchor is None or it.role == "angle":
            continue
        anchor: Anchor = it.anchor
        for q in anchor.at:
            i = _index(places.points, q)
            if i is None:
                out.append(Violation("load-positions", f"{it.role} of {it.owner}",
                                     "acts at no place of the drawing"))
                continue
            if places.kinds[i] == "joint":
                if anchor.target.startswith("point:") and not _lettered(rec, q):
                    out.append(Violation("load-positions", f"{it.role} of {it.owner}",
                                         "acts at a joint without a letter"))
                continue
            d = _member_dir(rec, anchor.target.split(":", 1)[1])
            need = _needed_axes(d, u, v)
            if not any(i in got[name] for name in need):
                out.append(Violation("load-positions", f"{it.role} of {it.owner}",
                                     "its position on the member is on no extension line "
                                     f"of a {' or '.join(sorted(need))} chain"))
    return out


def _needed_axes(d: XY | None, u: XY, v: XY) -> set[str]:
    if d is None:
        return {"x", "y"}
    n = math.hypot(*d)
    if abs(_dot(d, v)) / n < math.sin(math.radians(AXIS_TOL_DEG)):
        return {"x"}
    if abs(_dot(d, u)) / n < math.sin(math.radians(AXIS_TOL_DEG)):
        return {"y"}
    return {"x", "y"}


def _lettered(rec: Record, p: XY) -> bool:
    return any(math.dist(j, p) < PLACE_TOL for j in rec.joints)



LEVEL_TOL = 1.5  # px: an arrow laid beside a member has its tip this level with the place
PUSH_CAPS = 2.2  # a pushing arrow's tip within this many dimension-text caps of its place
PULL_CAPS = 2.8  # a pulling arrow's tip at least this many caps from every member


def _near_structure(rec: Record, p: XY) -> float:
    return min((point_segment(p, a, b) for _, (a, b) in rec.member_segments()),
               default=math.inf)


def _parallel_gap(rec: Record, d: XY, at: XY, tip: XY) -> float:
    """How far the tip of an arrow is from the nearest member through its place (ending
    at it or passing through it) that the arrow runs parallel to; infinite when there is
    none, i.e. when the arrow cannot be laid beside a member."""
    gaps = [point_segment(tip, a, b) for _, (a, b) in rec.member_segments()
            if point_segment(at, a, b) < PLACE_TOL
            and abs(d[0] * (b[1] - a[1]) - d[1] * (b[0] - a[0]))
            < 1e-6 * math.hypot(*d) * math.hypot(b[0] - a[0], b[1] - a[1])]
    return min(gaps, default=math.inf)


def yardstick(rec: Record) -> float:
    """The cap height of the dimension texts: the scale a reader judges "touching" by."""
    caps = sorted(it.glyph.lengths["cap"] for it in rec.labels
                  if it.glyph is not None and it.owner_type == "dimension")
    caps = caps or sorted(it.glyph.lengths["cap"] for it in rec.labels if it.glyph is not None)
    return caps[len(caps) // 2] if caps else 10.0


def arrows_point(rec: Record) -> list[Violation]:
    """A force arrow shows its place: its line of action runs through it (or, laid beside
    a member it is parallel to, its tip is level with it). A pushing arrow's tip is next
    to the place; a pulling arrow starts at it and its tip is clearly off the structure
    (a reader takes an arrow's head touching the structure for the place)."""
    out = []
    yard = yardstick(rec)
    for it in rec.glyphs("arrow"):
        g, anchor = it.glyph, it.anchor
        if g is None or anchor is None:
            continue
        tail, tip, at = g.points["tail"], g.points["tip"], anchor.at[0]
        d = (tip[0] - tail[0], tip[1] - tail[1])
        n = math.hypot(*d)
        off = abs(d[0] * (at[1] - tail[1]) - d[1] * (at[0] - tail[0])) / n
        who = f"force {it.owner}"
        pushing = math.dist(tip, at) <= math.dist(tail, at)
        gap = _parallel_gap(rec, d, at, tip) if off > PLACE_TOL else math.inf
        beside = gap < math.inf
        if off > PLACE_TOL and not (pushing and beside):
            out.append(Violation("arrows", who, f"its line of action misses its place by "
                                 f"{off:.1f} px"))
        level = abs(d[0] * (at[0] - tip[0]) + d[1] * (at[1] - tip[1])) / n
        if off > PLACE_TOL and pushing and beside:
            if level > LEVEL_TOL:
                out.append(Violation("arrows", who, f"laid beside a member, its tip is "
                                     f"{level:.1f} px off its place's level: a reader takes "
                                     "the level for the place"))
            if _near_structure(rec, tip) < gap - PLACE_TOL:
                out.append(Violation("arrows", who, "laid beside a member, its tip is nearer "
                                     "another member: a reader takes that one for the place"))
        near = tip if pushing else tail
        if math.dist(near, at) > PUSH_CAPS * yard:
            out.append(Violation("arrows", who, f"its arrow ends {math.dist(near, at):.0f} px "
                                 "from its place"))
        if not pushing and _near_structure(rec, tip) < PULL_CAPS * yard:
            out.append(Violation("arrows", who, "it starts at its place but its head touches "
                                 "the structure: a reader takes the head's end for the place"))
    return out
