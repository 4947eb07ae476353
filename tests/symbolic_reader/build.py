"""The reader's one entry point: a layout record and the notes in, FrameCalc JSON out."""

from __future__ import annotations

import math
from typing import Any

from . import texts
from .continued import read_continued
from .dims import Spot, coordinates
from .loads import (
    Direction,
    Loads,
    Place,
    _angle_marks,
    box_of,
    read_couples,
    read_forces,
    read_rows,
)
from .supports import read_supports
from .topology import Topology, read_hinges, read_topology, released_joint
from .view import ReadError, drawing, reader_view

__all__ = ["ReadError", "read_drawing"]

def read_drawing(record: dict[str, Any], notes: str = "") -> dict[str, Any]:
    """The FrameCalc model a careful reader writes down from the drawing (see the package
    docstring for what it may look at). Raises :class:`ReadError` naming what is missing.
    A beam drawn in two rows (break marks) is read row by row (:mod:`.continued`)."""
    d = drawing(reader_view(record))
    pinned = any(texts.states(t, "pin-jointed") for t in (notes, _figure_words(d)))
    if d.of("break"):
        return read_continued(d, lambda row: _read(row, pinned))
    return _read(d, pinned)[0]


def _read(d, pinned: bool) -> tuple[dict[str, Any], Topology]:  # type: ignore[no-untyped-def]
    """One figure's model, and the joints its topology found (by page position)."""
    top = read_topology(d)
    read_hinges(d, top, pinned)
    marks = _angle_marks(d)
    loads = Loads(read_forces(d, top, marks), read_couples(d, top), read_rows(d, top))
    supports = read_supports(d, top, marks)
    covers = _covers(d, top, loads, supports)
    spots = [Spot(p, frozenset(top.members_at(j)), tuple(covers.get(("joint", j), [])))
             for j, p in enumerate(top.joints)]
    load_spot: dict[int, int] = {}
    for place in loads.places():
        if place.joint is None and id(place) not in load_spot:
            load_spot[id(place)] = len(spots)
            spots.append(Spot(place.px, frozenset({place.member}),  # type: ignore[arg-type]
                              tuple(covers.get(("place", id(place)), []))))
    got = coordinates(d, top, spots)
    world = _joint_coordinates(top, got)
    for place in loads.places():
        if place.joint is None:
            _check_on_member(top, world, place, got[load_spot[id(place)]])
    return _model(top, world, supports, loads, got, load_spot), top


Box = tuple[float, float, float, float]


def _figure_words(d) -> str:  # type: ignore[no-untyped-def]
    """The words printed on the figure (its notes block), read top to bottom, left to
    right, as one text."""
    words = [t for t in d.texts if texts.is_word(t.text)]
    words.sort(key=lambda t: (-round(t.centre[1]), t.centre[0]))
    return texts.run_together([t.text for t in words])


def _covers(d, top: Topology, loads: Loads, supports: list) -> dict[tuple[str, int], list[Box]]:  # type: ignore[no-untyped-def, type-arg]
    """What is drawn for each place (its supports, hinges, loads and their angle marks): an
    extension line may stop at these before reaching the place."""
    out: dict[tuple[str, int], list[Box]] = {}

    def key(place: Place) -> tuple[str, int]:
        return ("joint", place.joint) if place.joint is not None else ("place", id(place))

    for s in supports:
        out.setdefault(("joint", s.joint), []).append(box_of(s.glyph, 2.0))
    for g in d.of("hinge"):
        j = top.joint_at(g.pts["centre"], 1.5 * g.num["r"] + 2.0)  # on it or touching it
        if j is None:  # a released end's circle, on its member: the nearer end's joint
            j = released_joint(top, g.pts["centre"])
        if j is not None:
            out.setdefault(("joint", j), []).append(box_of(g, 1.0))
    for f in loads.forces:
        out.setdefault(key(f.place), []).append(box_of(f.glyph, 1.0))
    for c in loads.couples:
        out.setdefault(key(c.place), []).append(box_of(c.glyph, 1.0))
    for r in loads.rows:
        for place in (r.start, r.end):
            out.setdefault(key(place), []).append(box_of(r.glyph, 1.0))
    tails = {key(f.place): f.glyph.pts["tail"] for f in loads.forces}
    grounds = {("joint", s.joint): s.glyph.paths.get("ground_line", ()) for s in supports}
    for g in d.of("angle"):
        v = g.pts["vertex"]
        for k, at in [*tails.items(), *((k, e) for k, ends in grounds.items() for e in ends)]:
            if math.dist(v, at) <= 2.0:
                out.setdefault(k, []).append(box_of(g, 1.0))
    return out


def _joint_coordinates(top: Topology, got: list[dict[str, float]]) -> list[tuple[float, float]]:
    out = []
    for j in range(len(top.joints)):
        have = got[j]
        if "x" not in have or "y" not in have:
            missing = [a for a in ("x", "y") if a not in have]
            raise ReadError(f"joint at {top.joints[j]}: its {' and '.join(missing)} is not "
                            "dimensioned")
        out.append((have["x"], have["y"]))
    return out


def _check_on_member(top: Topology, world: list[tuple[float, float]], place: Place,
                     have: dict[str, float]) -> None:
    m = top.members[place.member]  # type: ignore[index]
    (xa, ya), (xb, yb) = world[m.a], world[m.b]
    if not have:
        raise ReadError(f"a load's place at {place.px} on a member is not dimensioned")
    if "x" in have and abs(xb - xa) < 1e-12 and "y" not in have:
        raise ReadError("a load on a vertical member is dimensioned only by its x")
    if "y" in have and abs(yb - ya) < 1e-12 and "x" not in have:
        raise ReadError("a load on a horizontal member is dimensioned only by its y")


def _offset(top: Topology, world: list[tuple[float, float]], place: Place,
            have: dict[str, float]) -> float:
    """Metres from the member's first end to the place, from the place's coordinates."""
    m = top.members[place.member]  # type: ignore[index]
    (xa, ya), (xb, yb) = world[m.a], world[m.b]
    length = math.hypot(xb - xa, yb - ya)
    if "x" in have and abs(xb - xa) > 1e-12:
        t = (have["x"] - xa) / (xb - xa)
    else:
        t = (have["y"] - ya) / (yb - ya)
    return t * length


def _angle(top: Topology, world: list[tuple[float, float]], member: int | None,
           direction: Direction) -> float:
    if direction.kind == "world":
        return direction.degrees
    m = top.members[member]  # type: ignore[index]
    (xa, ya), (xb, yb) = world[m.a], world[m.b]
    axis = math.degrees(math.atan2(yb - ya, xb - xa))
    if direction.kind == "along":
        return (axis + (0.0 if direction.sign > 0 else 180.0)) % 360.0
    return (axis + (90.0 if direction.sign > 0 else -90.0)) % 360.0


def _model(top: Topology, world: list[tuple[float, float]], supports: list,  # type: ignore[type-arg]
           loads: Loads, got: list[dict[str, float]], load_spot: dict[int, int],
           ) -> dict[str, Any]:
    points = [{"id": f"P{j + 1}", "x": x, "y": y} for j, (x, y) in enumerate(world)]
    links = [{"id": f"L{k + 1}", "a": f"P{m.a + 1}", "b": f"P{m.b + 1}",
              "endA": "hinge" if m.hinge_a else "rigid", "endB": "hinge" if m.hinge_b else "rigid"}
             for k, m in enumerate(top.members)]
    sups = [{"id": f"S{i + 1}", "at": {"type": "point", "id": f"P{s.joint + 1}"}, "kind": s.kind,
             "angleDeg": s.angle} for i, s in enumerate(supports)]
    out_loads: list[dict[str, Any]] = []

    def at(place: Place) -> dict[str, Any]:
        if place.joint is not None:
            return {"at": {"type": "point", "id": f"P{place.joint + 1}"}}
        off = _offset(top, world, place, got[load_spot[id(place)]])
        return {"at": {"type": "link", "id": f"L{place.member + 1}"}, "refEnd": "A",  # type: ignore[operator]
                "offsetMode": "m", "offset": off}

    for f in loads.forces:
        member = f.place.member if f.place.member is not None else None
        out_loads.append({"id": f"LD{len(out_loads) + 1}", "kind": "pointLoad", **at(f.place),
                          "value": f.value, "angleDeg": _angle(top, world, member, f.direction),
                          "angleMode": "world", "flip": 1})
    for c in loads.couples:
        out_loads.append({"id": f"LD{len(out_loads) + 1}", "kind": "bendingMoment",
                          **at(c.place), "value": abs(c.value), "flip": 1 if c.value > 0 else -1})
    for r in loads.rows:
        m = top.members[r.member]
        (xa, ya), (xb, yb) = world[m.a], world[m.b]
        length = math.hypot(xb - xa, yb - ya)
        s0, s1 = (_position(top, world, p, got, load_spot, r.member) for p in (r.start, r.end))
        w0, w1 = (r.w_start, r.w_end) if s0 <= s1 else (r.w_end, r.w_start)
        s0, s1 = min(s0, s1), max(s0, s1)
        out_loads.append({"id": f"LD{len(out_loads) + 1}", "kind": "distributedLoad",
                          "at": {"type": "link", "id": f"L{r.member + 1}"}, "wStart": w0,
                          "wEnd": w1, "fromStart": s0, "fromEnd": length - s1,
                          "angleDeg": _angle(top, world, r.member, r.direction),
                          "angleMode": "world", "flip": 1})
    return {"points": points, "links": links, "supports": sups, "loads": out_loads}


def _position(top: Topology, world: list[tuple[float, float]], place: Place,
              got: list[dict[str, float]], load_spot: dict[int, int], member: int) -> float:
    xa, ya = world[top.members[member].a]
    if place.joint is not None:
        x, y = world[place.joint]
        return math.hypot(x - xa, y - ya)
    return _offset(top, world, place, got[load_spot[id(place)]])
