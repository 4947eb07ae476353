"""Coordinates, from the dimension chains only.

A chain is a line with ticks; each interval between two ticks carries one length
text (the length text nearest to the chain line, centred in the interval). Chains
along one axis share ticks where they meet (a far chain begins and ends where the
near one does), which ties their values together. A place takes the value of a
tick whose extension line runs to it, or along that tick's line to it in plain
sight from a place that has it (see the package docstring); a joint takes a
coordinate through a member visibly along that axis.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from .dims_types import Chain
from .geometry import XY, cross, dot, parallel, segments_cross, sub, unit
from .implied import on_chords
from .levels import read_levels
from .repeats import first_interval
from .slopes import along_slopes, read_slopes
from .symmetry import mirror, read_axis
from .topology import Topology
from .view import Drawing, Glyph, ReadError, Text

ON_LINE = 2.0  # px: a place this close to a tick's line is on it
SAME_TICK = 2.0  # px: ticks of two chains this close are one station


def _axis_of(g: Glyph) -> tuple[str, XY]:
    a, b = g.paths["line"]
    d = unit(sub(b, a))
    if parallel(d, (1.0, 0.0)):
        return "x", (1.0, 0.0)
    if parallel(d, (0.0, 1.0)):
        return "y", (0.0, 1.0)
    raise ReadError("a dimension chain is neither horizontal nor vertical")


def _chains(d: Drawing) -> list[Chain]:
    out = []
    for g in d.of("chain"):
        axis, along = _axis_of(g)
        ticks = list(zip(g.paths["ticks"], g.paths["ext_inner"], g.paths["ext_outer"],
                         strict=True))
        ticks.sort(key=lambda t: dot(t[0], along))
        out.append(Chain(axis, along, tuple(g.paths["line"]),  # type: ignore[arg-type]
                         [dot(t, along) for t, _, _ in ticks], [e for _, e, _ in ticks],
                         [None] * len(ticks), outer=[o for _, _, o in ticks]))
    return out


def _distance_to_line(p: XY, c: Chain) -> float | None:
    """Perpendicular distance from p to the chain's line, if p is beside its span."""
    s = dot(p, c.along)
    if not c.stations[0] <= s <= c.stations[-1]:
        return None
    a = c.line[0]
    return abs(cross(c.along, sub(p, a)))


def _lengths(d: Drawing, chains: list[Chain]) -> dict[tuple[int, int], float]:
    """(chain, interval) → the length its text states."""
    found: dict[tuple[int, int], list[Text]] = {}
    for t in d.texts:
        v = t.value
        if v is None or v.kind != "length":
            continue
        near = [(dist, k) for k, c in enumerate(chains)
                if (dist := _distance_to_line(t.centre, c)) is not None]
        if not near:
            raise ReadError(f"the dimension {t.text!r} is beside no chain")
        _, k = min(near)
        c = chains[k]
        j0 = first_interval(c.stations, dot(t.centre, c.along), v.count)
        for j in range(j0, j0 + v.count):
            found.setdefault((k, j), []).append(t)
    out = {}
    for k, c in enumerate(chains):
        for j in range(len(c.stations) - 1):
            here = found.get((k, j), [])
            if len(here) != 1:
                raise ReadError(f"an interval of a {c.axis} chain has {len(here)} texts")
            v = here[0].value
            assert v is not None
            out[(k, j)] = v.value
    return out


def _values(d: Drawing, chains: list[Chain], levels: list[Chain]) -> None:
    """Give every tick its coordinate: cumulative lengths, chains tied where ticks meet
    (and to the level marks, whose values are given)."""
    lengths = _lengths(d, chains)
    for axis in ("x", "y"):
        mine = sorted((k for k, c in enumerate(chains) if c.axis == axis),
                      key=lambda k: -len(chains[k].stations))
        known: list[tuple[float, float]] = [(c.stations[0], c.values[0])  # type: ignore[misc]
                                            for c in levels if c.axis == axis]
        if not mine:
            continue
        pending = list(mine)
        while pending:
            for k in pending:
                c = chains[k]
                offset = None
                if not known:
                    offset = 0.0
                else:
                    for i, s in enumerate(c.stations):
                        match = [v for px, v in known if abs(px - s) <= SAME_TICK]
                        if match:
                            rel = sum(lengths[(k, j)] for j in range(i))
                            offset = match[0] - rel
                            break
                if offset is None:
                    continue
                value = offset
                for i, s in enumerate(c.stations):
                    if i:
                        value += lengths[(k, i - 1)]
                    for px, v in known:
                        if abs(px - s) <= SAME_TICK and abs(v - value) > 1e-9:
                            raise ReadError(f"two {axis} chains disagree at a tick "
                                            f"({v} vs {value})")
                    c.values[i] = value
                    known.append((s, value))
                pending.remove(k)
                break
            else:
                raise ReadError(f"a {axis} chain shares no tick with the others")


def _passes(outer: XY, inner: XY, p: XY) -> bool:
    """Whether the drawn extension line outer → inner runs through the place p."""
    d = sub(inner, outer)
    n = math.hypot(*d)
    if n < 1.0:
        return False
    t = dot(sub(p, outer), d) / (n * n)
    return 0.0 < t < 1.0 and abs(cross(d, sub(p, outer))) / n <= ON_LINE


def _on_chain(c: Chain, p: XY) -> bool:
    return abs(cross(c.along, sub(p, c.line[0]))) < 1.0


def _clear(top: Topology, p: XY, q: XY, allowed: set[int]) -> bool:
    """No member crosses the sight line p–q except those of the places at its ends."""
    for k, m in enumerate(top.members):
        if k in allowed:
            continue
        a, b = top.segment(m)
        if segments_cross(p, q, a, b):
            return False
    return True


@dataclass(frozen=True)
class Spot:
    """A place the chains must locate: a joint, or a load's place on a member."""

    px: XY
    members: frozenset[int]  # the members that belong to it (meet there / carry it)
    cover: tuple[tuple[float, float, float, float], ...] = ()  # its own symbols' boxes


BRIDGE = 1.5  # dimension-text caps: how far short of its place an extension line may end


def _bare(p: XY, q: XY, boxes: tuple[tuple[float, float, float, float], ...]) -> float:
    """Length of p–q outside the boxes (an extension line may stop at its place's own
    support or load; the rest of the way must be short)."""
    n = math.dist(p, q)
    steps = max(1, math.ceil(n))
    bare = 0
    for k in range(steps):
        t = (k + 0.5) / steps
        x, y = p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t
        if not any(b[0] - 2 <= x <= b[2] + 2 and b[1] - 2 <= y <= b[3] + 2 for b in boxes):
            bare += 1
    return n * bare / steps


def _covers_at(spots: list[Spot], here: list[int]) -> tuple[tuple[float, float, float, float], ...]:
    """What is drawn at the first of ``here`` (nearest the tick): its own symbols and those
    of every other place on the same point (a couple and the start of a row of arrows at
    one point are one place to a reader, whichever the line reaches first)."""
    first = spots[here[0]].px
    return tuple(box for i in here if math.dist(spots[i].px, first) <= ON_LINE
                 for box in spots[i].cover)


def coordinates(d: Drawing, top: Topology, spots: list[Spot]) -> list[dict[str, float]]:
    """Per spot, the coordinates the chains give it ({"x": …, "y": …} as far as known)."""
    chains = _chains(d)
    levels = read_levels(d)
    _values(d, chains, levels)
    got: list[dict[str, float]] = [{} for _ in spots]
    for c in chains + levels:
        for s, inner, outer, value in zip(c.stations, c.inner, c.outer, c.values, strict=True):
            assert value is not None
            if not c.level and _on_chain(c, inner):
                continue  # no extension line: the tick points at nothing in particular
            here = [i for i, sp in enumerate(spots) if abs(dot(sp.px, c.along) - s) <= ON_LINE]
            for i in [i for i in here if _passes(outer, inner, spots[i].px)]:
                here.remove(i)  # the drawn line runs through it (across members, too)
                got[i].setdefault(c.axis, value)
                if abs(got[i][c.axis] - value) > 1e-9:
                    raise ReadError(f"two ticks give one place two {c.axis} coordinates")
            here.sort(key=lambda i: math.dist(spots[i].px, inner))
            prev, allowed = inner, set()
            if here and _bare(inner, spots[here[0]].px, _covers_at(spots, here)) > (
                    BRIDGE * d.yard):
                continue  # the line stops short of everything: it points at nothing
            for i in here:
                allowed = allowed | set(spots[i].members)
                if not _clear(top, prev, spots[i].px, allowed):
                    break
                got[i].setdefault(c.axis, value)
                if abs(got[i][c.axis] - value) > 1e-9:
                    raise ReadError(f"two ticks give one place two {c.axis} coordinates")
                prev, allowed = spots[i].px, set(spots[i].members)
    for axis in ("x", "y"):
        if not any(c.axis == axis for c in chains + levels):
            _level(spots, got, axis)
    axis = read_axis(d, chains)
    marks = read_slopes(d, top)
    while True:  # the deductions feed each other until nothing more follows
        before = sum(len(g) for g in got)
        _along_members(top, spots, got)
        if axis is not None:
            mirror(axis, spots, got)
        on_chords(top, spots, got)
        along_slopes(top, marks, spots, got)
        if sum(len(g) for g in got) == before:
            return got


def _level(spots: list[Spot], got: list[dict[str, float]], axis: str) -> None:
    """No chain for an axis: the drawing has no extent along it (every place level)."""
    coord = [sp.px[0] if axis == "x" else sp.px[1] for sp in spots]
    if max(coord) - min(coord) > ON_LINE:
        raise ReadError(f"places differ in {axis} but no {axis} chain dimensions them")
    for g in got:
        g[axis] = 0.0


def _along_members(top: Topology, spots: list[Spot], got: list[dict[str, float]]) -> None:
    """A member visibly vertical gives both ends one x; horizontal, one y."""
    index = {}
    for i, sp in enumerate(spots):
        j = top.joint_at(sp.px)
        if j is not None:
            index[j] = i
    pairs = []
    for m in top.members:
        a, b = top.segment(m)
        axis = "x" if parallel(sub(b, a), (0.0, 1.0)) else "y" if parallel(
            sub(b, a), (1.0, 0.0)) else None
        if axis and m.a in index and m.b in index:
            pairs.append((axis, index[m.a], index[m.b]))
    changed = True
    while changed:
        changed = False
        for axis, i, j in pairs:
            for src, dst in itertools.permutations((i, j)):
                if axis in got[src] and axis not in got[dst]:
                    got[dst][axis] = got[src][axis]
                    changed = True
