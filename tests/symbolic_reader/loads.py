"""Loads: where each acts (from the picture), its value and direction (from texts).

A force acts where its arrow meets the structure: at the arrow's end nearer to it
(a pushing arrow's tip, a pulling arrow's tail; an arrow laid beside a member has
its tip level with the place). A couple acts at its arc's centre; a row of arrows
stands on the member its arrows' lines meet, from its first to its last arrow.
Values come from the texts nearest to each glyph; a direction is an axis when the
arrow visibly is one, square or parallel to its member when it visibly is, and
otherwise needs its angle mark's text.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

from .geometry import (
    XY,
    axis_angle,
    box_segment,
    cross,
    dot,
    foot,
    line_hit,
    parallel,
    point_segment,
    square,
    sub,
    unit,
)
from .topology import JOIN, Topology
from .view import Drawing, Glyph, ReadError, Text

REACH = 2.5  # dimension-text cap heights: an arrow's end this close to the structure touches it
MARK_AT = 2.0  # px: an angle mark's vertex at an arrow's tail or a surface's end


@dataclass(frozen=True)
class Place:
    """Where a load acts: a joint, or a point on a member (page px)."""

    px: XY
    joint: int | None
    member: int | None


@dataclass
class Direction:
    """A direction read exactly: an axis angle, or relative to a member, or from a mark."""

    kind: str  # "world", "square", "along"
    degrees: float = 0.0  # for "world"
    sign: float = 1.0  # for square/along: which of the two senses (page geometry)
    seen: XY = (1.0, 0.0)  # the drawn direction (page), to pick senses


@dataclass
class Force:
    place: Place
    value: float
    direction: Direction
    glyph: Glyph | None = None


@dataclass
class Couple:
    place: Place
    value: float  # signed, CCW positive
    glyph: Glyph | None = None


@dataclass
class Row:
    member: int
    start: Place
    end: Place
    w_start: float
    w_end: float
    direction: Direction
    glyph: Glyph | None = None


@dataclass
class Loads:
    forces: list[Force] = field(default_factory=list)
    couples: list[Couple] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)

    def places(self) -> list[Place]:
        return ([f.place for f in self.forces] + [c.place for c in self.couples]
                + [p for r in self.rows for p in (r.start, r.end)])


def place_at(top: Topology, p: XY) -> Place:
    j = top.joint_at(p)
    if j is not None:
        return Place(top.joints[j], j, None)
    k = top.member_through(p)
    if k is None:
        raise ReadError(f"a load acts at {p}, on nothing drawn")
    a, b = top.segment(top.members[k])
    q, _ = foot(p, a, b)
    return Place(q, None, k)


def _assign(found: list[Text], glyphs: list[Glyph], distance) -> dict[int, list[Text]]:  # type: ignore[no-untyped-def]
    """Each text to the glyph nearest to it."""
    out: dict[int, list[Text]] = {i: [] for i in range(len(glyphs))}
    for t in found:
        if not glyphs:
            raise ReadError(f"the text {t.text!r} labels nothing drawn")
        best = min(range(len(glyphs)), key=lambda i: distance(t, glyphs[i]))
        out[best].append(t)
    return out


def _texts_of(d: Drawing, kind: str) -> list[Text]:
    return [t for t in d.texts if t.value is not None and t.value.kind == kind]


def _value(t: Text) -> float:
    assert t.value is not None
    return t.value.value


def _angle_marks(d: Drawing) -> list[tuple[Glyph, float]]:
    """Each angle mark with the degrees its text states."""
    marks = d.of("angle")
    found = _texts_of(d, "angle")

    def dist(t: Text, g: Glyph) -> float:
        v, ray, ref = g.pts["vertex"], g.pts["ray"], g.pts["ref"]
        return min(box_segment(t.box, v, ray), box_segment(t.box, v, ref))

    owners = _assign(found, marks, dist)
    out = []
    for i, g in enumerate(marks):
        if len(owners[i]) != 1:
            raise ReadError(f"an angle mark has {len(owners[i])} angle texts")
        out.append((g, _value(owners[i][0])))
    return out


def exact_direction(seen: XY, degrees: float) -> XY:
    """The direction at ``degrees`` to the horizontal in the drawn direction's quadrant."""
    r = math.radians(degrees)
    d = (math.copysign(math.cos(r), seen[0]), math.copysign(math.sin(r), seen[1]))
    if math.degrees(math.acos(max(-1.0, min(1.0, dot(unit(seen), d))))) > 5.0:
        raise ReadError(f"an angle mark says {degrees}° but the arrow is drawn otherwise")
    return d


def _marked(marks: list[tuple[Glyph, float]], at: XY) -> float | None:
    here = [deg for g, deg in marks if math.dist(g.pts["vertex"], at) <= MARK_AT]
    if len(here) > 1:
        raise ReadError(f"{len(here)} angle marks at one place")
    return here[0] if here else None


def _direction(top: Topology, seen: XY, member: int | None, tail: XY,
               marks: list[tuple[Glyph, float]]) -> Direction:
    exact = axis_angle(seen)
    if exact is not None:
        return Direction("world", exact, seen=seen)
    if member is not None:
        a, b = top.segment(top.members[member])
        axis = sub(b, a)
        if square(seen, axis):
            return Direction("square", sign=math.copysign(1.0, cross(axis, seen)), seen=seen)
        if parallel(seen, axis):
            return Direction("along", sign=math.copysign(1.0, dot(axis, seen)), seen=seen)
    deg = _marked(marks, tail)
    if deg is None:
        raise ReadError("a slanted load has no angle mark")
    d = exact_direction(seen, deg)
    return Direction("world", math.degrees(math.atan2(d[1], d[0])) % 360.0, seen=seen)


def _near_structure(top: Topology, p: XY) -> float:
    return min(point_segment(p, *top.segment(m)) for m in top.members)


def force_place(top: Topology, tail: XY, tip: XY, yard: float) -> Place:
    d = unit(sub(tip, tail))
    reach = REACH * yard
    # laid beside a member it is parallel to (not on it): the place is level with the tip;
    # but a head that touches another member nearer than that one acts where it touches
    nearest = _near_structure(top, tip)
    for m in top.members:
        a, b = top.segment(m)
        beside = point_segment(tip, a, b)
        if parallel(d, sub(b, a)) and JOIN < beside <= min(reach, nearest + JOIN) and (
                abs(beside - point_segment(tail, a, b)) <= JOIN):
            q, t = foot(tip, a, b)
            slack = JOIN / math.dist(a, b)
            if -slack <= t <= 1 + slack:
                return place_at(top, q)
    # an arrow acts where its head touches the structure; else where its tail starts
    d_tip, d_tail = _near_structure(top, tip), _near_structure(top, tail)
    end = tip if d_tip <= reach else tail
    if min(d_tip, d_tail) > reach:
        raise ReadError("a force arrow touches nothing")
    # a joint on the line of action next to that end
    for j, q in enumerate(top.joints):
        if abs(cross(d, sub(q, tail))) <= JOIN and math.dist(q, end) <= reach:
            return Place(q, j, None)
    # a member the line of action meets next to that end
    best: tuple[float, XY, int] | None = None
    for k, m in enumerate(top.members):
        a, b = top.segment(m)
        hit = line_hit(tail, d, a, b)
        if hit is None:
            continue
        q, _, t = hit
        slack = JOIN / math.dist(a, b)
        if -slack <= t <= 1 + slack and math.dist(q, end) <= reach and (
                best is None or math.dist(q, end) < best[0]):
            best = (math.dist(q, end), q, k)
    if best is not None:
        return place_at(top, best[1])
    raise ReadError("cannot tell where a force arrow acts")


def read_forces(d: Drawing, top: Topology, marks: list[tuple[Glyph, float]]) -> list[Force]:
    arrows = d.of("arrow")
    owners = _assign(_texts_of(d, "force"), arrows,
                     lambda t, g: box_segment(t.box, g.pts["tail"], g.pts["tip"]))
    out = []
    for i, g in enumerate(arrows):
        if len(owners[i]) != 1:
            raise ReadError(f"a force arrow has {len(owners[i])} value texts")
        tail, tip = g.pts["tail"], g.pts["tip"]
        place = force_place(top, tail, tip, d.yard)
        direction = _direction(top, unit(sub(tip, tail)), place.member, tail, marks)
        out.append(Force(place, _value(owners[i][0]), direction, g))
    return out


def read_couples(d: Drawing, top: Topology) -> list[Couple]:
    arcs = d.of("couple")

    def dist(t: Text, g: Glyph) -> float:
        c, r = g.pts["centre"], g.num["r"]
        inside = min(math.dist(c, q) for q in t.box)
        return max(0.0, inside - r)

    owners = _assign(_texts_of(d, "couple"), arcs, dist)
    out = []
    for i, g in enumerate(arcs):
        if len(owners[i]) != 1:
            raise ReadError(f"a couple has {len(owners[i])} value texts")
        c, tip, base = g.pts["centre"], g.pts["tip"], g.pts["head_base"]
        turning = cross(sub(tip, c), sub(tip, base))  # > 0: the head moves counter-clockwise
        if abs(turning) < 1e-9:
            raise ReadError("a couple's arrowhead shows no sense")
        value = _value(owners[i][0])
        out.append(Couple(place_at(top, c), value if turning > 0 else -value, g))
    return out


def _row_member(top: Topology, g: Glyph) -> tuple[int, list[XY]]:
    """The member the row stands on and the row's stations on it (in the row's order)."""
    tips, tails = g.paths["tips"], g.paths["tails"]
    dirs = [unit(sub(p, q)) for p, q in zip(tips, tails, strict=True) if math.dist(p, q) > 0.5]
    if not dirs:
        raise ReadError("a row of arrows has no arrows")
    d = dirs[0]
    best: tuple[float, int, list[XY]] | None = None
    for k, m in enumerate(top.members):
        a, b = top.segment(m)
        axial = parallel(d, sub(b, a))
        stations = []
        for tip, tail in zip(tips, tails, strict=True):
            mid = ((tip[0] + tail[0]) / 2, (tip[1] + tail[1]) / 2)
            if axial:
                q, t = foot(mid, a, b)
            else:
                hit = line_hit(tip, d, a, b)
                if hit is None:
                    break
                q, _, t = hit
            slack = JOIN / math.dist(a, b)
            if not -slack <= t <= 1 + slack:
                break
            stations.append(q)
        else:
            gap = max(math.dist(q, tip) for q, tip in zip(stations, tips, strict=True))
            if best is None or gap < best[0]:
                best = (gap, k, stations)
    if best is None:
        raise ReadError("a row of arrows stands on no member")
    return best[1], best[2]


def _profile(top: Topology, member: int, tips: tuple[XY, ...], tails: tuple[XY, ...],
             ) -> list[float]:
    """The intensity profile as drawn: how far each arrow's tail stands above the row's
    base (the tips' line); an arrow may stop short of the member where something else is
    drawn on it (a couple's arc), its tail still shows the intensity."""
    a, b = top.segment(top.members[member])
    base = min(point_segment(p, a, b) for p, q in zip(tips, tails, strict=True)
               if math.dist(p, q) > 0.5)
    return [max(0.0, _line_distance(q, a, b) - base) for q in tails]


def _line_distance(p: XY, a: XY, b: XY) -> float:
    return abs(cross(unit(sub(b, a)), sub(p, a)))


def read_rows(d: Drawing, top: Topology) -> list[Row]:
    rows = d.of("row")

    def dist(t: Text, g: Glyph) -> float:
        tails = g.paths["tails"]
        segs = list(itertools.pairwise(tails))
        segs += list(zip(tails, g.paths["tips"], strict=True))
        return min(box_segment(t.box, a, b) for a, b in segs)

    owners = _assign(_texts_of(d, "intensity"), rows, dist)
    out = []
    for i, g in enumerate(rows):
        member, stations = _row_member(top, g)
        tips, tails = g.paths["tips"], g.paths["tails"]
        lengths = _profile(top, member, tips, tails)
        found = owners[i]
        ends = (tails[0], tails[-1])
        if len(found) == 1:
            w = _value(found[0])
            if max(lengths) - min(lengths) <= 1.0:
                w0 = w1 = w
            elif lengths[0] <= 0.5 or lengths[-1] <= 0.5:
                w0, w1 = (0.0, w) if lengths[0] <= 0.5 else (w, 0.0)
            else:
                raise ReadError("a varying row has one intensity text")
        elif len(found) == 2:
            a, b = found
            if math.dist(a.centre, ends[0]) + math.dist(b.centre, ends[1]) <= (
                    math.dist(a.centre, ends[1]) + math.dist(b.centre, ends[0])):
                w0, w1 = _value(a), _value(b)
            else:
                w0, w1 = _value(b), _value(a)
        else:
            raise ReadError(f"a row of arrows has {len(found)} intensity texts")
        seen = next(unit(sub(p, q)) for p, q in zip(tips, tails, strict=True)
                    if math.dist(p, q) > 0.5)
        direction = _direction(top, seen, member, tails[0], [])
        out.append(Row(member, place_at(top, stations[0]), place_at(top, stations[-1]),
                       w0, w1, direction, g))
    return out


def read_loads(d: Drawing, top: Topology) -> Loads:
    marks = _angle_marks(d)
    return Loads(read_forces(d, top, marks), read_couples(d, top), read_rows(d, top))


def box_of(g: Glyph, pad: float = 0.0) -> tuple[float, float, float, float]:
    """The glyph's extent in page coordinates (what of the page it occupies)."""
    pts = list(g.pts.values()) + [p for path in g.paths.values() for p in path]
    grow = pad + max(g.num.get("head_width", 0.0) / 2, g.num.get("r", 0.0) if "centre" in g.pts
                     else 0.0)
    if "centre" in g.pts and "r" in g.num:
        c, r = g.pts["centre"], g.num["r"]
        pts += [(c[0] - r, c[1] - r), (c[0] + r, c[1] + r)]
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return (min(xs) - grow, min(ys) - grow, max(xs) + grow, max(ys) + grow)
