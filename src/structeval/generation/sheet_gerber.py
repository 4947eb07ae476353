"""Gerber bridges for drawing sheets: the deck, its girders and their loads.

A bridge sheet shows a deck carried by parallel girders. The lettered grid lines are
the bearing lines (abutments and piers) along the bridge, the numbered ones the
girders across it. Each girder is a continuous beam over the bearing lines with
Gerber hinges in some spans (where they sit is what sets one girder apart from
another, with the axle loads drawn on its elevation). What a girder carries under a
load case follows from three places on the sheet, as on a building sheet: the
elevation (spans, hinges, bearings, the axle loads drawn on it), the plan (girder
spacings, cross girders) and the load table (area loads, the parapet line load on
the edge girders, the cross girders' line loads, each case's factors). A girder
carries the deck over half the distance to each neighbouring girder; a cross girder
is simply supported between two girders at mid-span and hands half of its load to
each. This module builds it all as plain numbers; :mod:`.sheets` writes the words.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

from ..model import parse_model
from ..model.types import Model
from .sheet_grid import NumberedLines, running_sum

SPANS = (12.0, 14.0, 15.0, 16.0, 18.0, 20.0)  # m, between bearing lines
GIRDER_SPACINGS = (2.5, 3.0, 3.5)  # m, between girders
HINGE_SHARE = (0.2, 0.25)  # of the span: a Gerber hinge's distance from its pier
GRID = 0.5  # m: hinges and axles sit on this grid
AXLE_CLEAR = 2.5  # m: an axle load stays this far from every joint and other axle
GIRDER_LINE = "girder"


@dataclass(frozen=True)
class Girder:
    """One girder's own features: the bearing line with the fixed (pinned) bearing,
    the hinges (span index, distance from that span's left bearing) and the axle loads
    drawn on its elevation (distance from the first bearing, kN)."""

    pin: int
    hinges: tuple[tuple[int, float], ...]
    axles: tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class CrossGirder:
    """A cross girder between girders ``span`` and ``span + 1`` at mid-span of bridge
    span ``bay``, carrying ``load`` kN/m and handing half of it to each girder."""

    label: str
    bay: int
    span: int
    load: float


@dataclass(frozen=True)
class DeckLoads:
    deck: float  # kN/m², slab self-weight
    surfacing: float  # kN/m²
    traffic: float  # kN/m², uniform traffic load
    parapet: float  # kN/m on each edge girder


#: the load cases of every bridge sheet (refs as printed in the load table)
CASES: dict[str, dict[str, float]] = {
    "1": {"G1": 1.35, "G2": 1.35, "Q1": 1.5, "P": 1.35, "XG": 1.35, "T": 1.5},
    "2": {"G1": 1.0, "G2": 1.0, "P": 1.0, "XG": 1.0, "T": 1.0},
}


@dataclass(frozen=True)
class Bridge(NumberedLines):
    letters: tuple[str, ...]
    spans: tuple[float, ...]
    numbers: tuple[str, ...]
    spacings: tuple[float, ...]
    loads: DeckLoads
    cross: tuple[CrossGirder, ...]
    girders: dict[int, Girder]  # numbered grid line index → its girder (drawn ones only)

    @property
    def xs(self) -> list[float]:
        return running_sum(self.spans)



def _snap(v: float) -> float:
    return round(round(v / GRID) * GRID, 6)


def _hinges(rng: random.Random, spans: tuple[float, ...]) -> tuple[tuple[int, float], ...]:
    """Gerber hinges: at most one per span and ``n - 1`` in all (the girder over ``n``
    spans on one fixed and ``n`` sliding bearings is ``n - 1`` times indeterminate),
    never two in neighbouring spans' facing ends, so the girder stays a structure."""
    n = len(spans)
    out = []
    for s in sorted(rng.sample(range(n), rng.randint(1, n - 1))):
        side = rng.choice(("left", "right")) if 0 < s < n - 1 else (
            "right" if s == 0 else "left")
        a = _snap(rng.choice(HINGE_SHARE) * spans[s])
        out.append((s, a if side == "left" else round(spans[s] - a, 6)))
    return tuple(out)


def _joints(b: Bridge, g: Girder) -> list[float]:
    xs = b.xs
    return sorted({*xs, *(round(xs[s] + a, 6) for s, a in g.hinges)})


def _axles(rng: random.Random, b: Bridge, g: Girder) -> tuple[tuple[float, float], ...]:
    """One or two axle loads on the 0.5 m grid, clear of every joint and of each other
    (so each has a dimension of its own)."""
    joints = _joints(b, g)
    spots = [x for x in (i * GRID for i in range(int(joints[-1] / GRID) + 1))
             if all(abs(x - j) >= AXLE_CLEAR for j in joints)]
    out: list[tuple[float, float]] = []
    for _ in range(rng.randint(1, 2)):
        free = [x for x in spots if all(abs(x - a) >= AXLE_CLEAR for a, _ in out)]
        if free:
            out.append((round(rng.choice(free), 6), float(rng.choice((60, 80, 100, 120, 150)))))
    return tuple(sorted(out))


def sample_bridge(rng: random.Random) -> Bridge:
    """A bridge of 3-5 spans and 3-6 girders, 2-4 of them drawn in elevation."""
    spans = tuple(rng.choice(SPANS) for _ in range(rng.randint(3, 5)))
    ng = rng.randint(3, 6)
    spacings = tuple(rng.choice(GIRDER_SPACINGS) for _ in range(ng - 1))
    loads = DeckLoads(rng.choice((5.0, 6.0, 6.5, 7.5)), rng.choice((1.5, 2.0, 2.5)),
                      rng.choice((4.0, 5.0, 9.0)), rng.choice((1.0, 1.5, 2.0)))
    cross = []
    for k in range(rng.randint(0, 2)):
        span, bay = rng.randrange(ng - 1), rng.randrange(len(spans))
        if all((c.span, c.bay) != (span, bay) for c in cross):
            cross.append(CrossGirder(f"XG{k + 1}", bay, span, float(rng.choice((4, 6, 8)))))
    bridge = Bridge(tuple(chr(ord("A") + i) for i in range(len(spans) + 1)), spans,
                    tuple(str(j + 1) for j in range(ng)), spacings, loads, tuple(cross), {})
    for j in sorted(rng.sample(range(ng), rng.randint(2, min(4, ng)))):
        while True:
            g = Girder(rng.randrange(len(spans) + 1), _hinges(rng, spans), ())
            if all(g.hinges != o.hinges for o in bridge.girders.values()):
                bridge.girders[j] = Girder(g.pin, g.hinges, _axles(rng, bridge, g))
                break
    return bridge


def girder_document(b: Bridge, j: int, case: str | None) -> dict:  # type: ignore[type-arg]
    """The FrameCalc document of the girder on numbered grid line ``j``: its spans,
    hinges and bearings, with the loads of ``case`` (None: only the axle loads drawn
    on its elevation, unfactored)."""
    g = b.girders[j]
    xs = b.xs
    joints = _joints(b, g)
    points = [{"id": f"P{i + 1}", "x": x, "y": 0.0} for i, x in enumerate(joints)]
    pid = {x: p["id"] for x, p in zip(joints, points, strict=True)}
    hinge_at = {round(xs[s] + a, 6) for s, a in g.hinges}
    links = [{"id": f"L{i + 1}", "a": pid[x0], "b": pid[x1], "endA": "rigid",
              "endB": "hinge" if x1 in hinge_at else "rigid"}
             for i, (x0, x1) in enumerate(itertools.pairwise(joints))]
    supports = [{"id": f"S{i + 1}", "at": {"type": "point", "id": pid[x]},
                 "kind": "pin" if i == g.pin else "roller", "angleDeg": 0}
                for i, x in enumerate(xs)]
    loads: list[dict] = []  # type: ignore[type-arg]

    def add(load: dict) -> None:  # type: ignore[type-arg]
        loads.append({"id": f"LD{len(loads) + 1}", **load})

    def on(x: float) -> tuple[str, float]:
        i = max(k for k, x0 in enumerate(joints[:-1]) if x0 <= x)
        return links[i]["id"], round(x - joints[i], 6)

    factors = CASES[case] if case is not None else {"T": 1.0}
    if "T" in factors:
        for x, p in g.axles:
            lid, off = on(x)
            add({"kind": "pointLoad", "at": {"type": "link", "id": lid}, "refEnd": "A",
                 "offsetMode": "m", "offset": off, "value": round(factors["T"] * p, 6),
                 "angleDeg": 270, "angleMode": "world", "flip": 1})
    if case is not None:
        w = girder_line_load(b, j, factors)
        for link in links:
            add({"kind": "distributedLoad", "at": {"type": "link", "id": link["id"]},
                 "wStart": w, "wEnd": w, "fromStart": 0, "fromEnd": 0, "angleDeg": 270,
                 "angleMode": "world", "flip": 1})
        for c in b.cross:
            if j in (c.span, c.span + 1) and "XG" in factors:
                lid, off = on(round((xs[c.bay] + xs[c.bay + 1]) / 2, 6))
                add({"kind": "pointLoad", "at": {"type": "link", "id": lid}, "refEnd": "A",
                     "offsetMode": "m", "offset": off,
                     "value": round(factors["XG"] * c.load * b.spacings[c.span] / 2, 6),
                     "angleDeg": 270, "angleMode": "world", "flip": 1})
    return {"points": points, "links": links, "supports": supports, "loads": loads}


def girder_line_load(b: Bridge, j: int, factors: dict[str, float]) -> float:
    """kN/m on girder ``j``: the deck's area loads × its tributary width, plus the
    parapet line load on an edge girder, each with its case factor."""
    ld = b.loads
    area = {"G1": ld.deck, "G2": ld.surfacing, "Q1": ld.traffic}
    w = sum(factors.get(ref, 0.0) * v for ref, v in area.items()) * b.tributary(j)
    if b.is_edge(j):
        w += factors.get("P", 0.0) * ld.parapet
    return round(w, 6)


def girder_model(b: Bridge, j: int, case: str | None) -> Model:
    return parse_model(girder_document(b, j, case))
