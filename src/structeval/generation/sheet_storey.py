"""Multi-storey buildings for drawing sheets: the building, its frames and their loads.

A sheet shows one building: a plan with grid lines (lettered along the frames,
numbered across them), several frame elevations and a load table. The frames stand
on the numbered grid lines; slabs span one way between them, so the frame on grid
line *j* carries every area load over its tributary width, half the distance to
each neighbouring grid line (an edge frame has one neighbour: half the width of an
interior one). What a frame carries under a load case therefore follows from three
places on the sheet: the elevation (geometry, supports, hinges, the wind loads
drawn on it), the plan (spacings, secondary beams) and the load table (intensities
and the factors of each case). This module builds all of it as plain numbers; the
sheet's words and layout are made in :mod:`.sheets`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..model import DEFAULT_IZ, parse_model
from ..model.types import Model
from .sheet_grid import NumberedLines, running_sum

BAYS = (4.8, 5.4, 6.0, 6.6, 7.2, 7.5, 8.0)  # m, along the lettered grid
GROUND = (3.6, 4.2, 4.5)  # m, the ground storey
STOREY = (3.0, 3.3, 3.6)  # m, every storey above
SPACINGS = (4.5, 5.0, 6.0, 7.5)  # m, between the numbered grid lines
COLUMN_IZ = 2.0  # columns are 2EI (stated in the notes)
MIN_MEMBERS, MAX_MEMBERS = 30, 250


@dataclass(frozen=True)
class Variant:
    """What sets one frame of the building apart from the others: its base supports,
    the bay braced by pin-ended diagonals, the bay whose beams are pin-ended."""

    base: str  # "fixed" or "pin"
    brace_bay: int | None
    pinned_bay: int | None


@dataclass(frozen=True)
class SecondaryBeam:
    """A roof beam spanning between numbered grid lines ``span`` and ``span + 1`` at
    mid-bay of bay ``bay``; it carries ``load`` kN/m and hands half of it to each end."""

    label: str
    bay: int
    span: int
    load: float


@dataclass(frozen=True)
class AreaLoads:
    """The load table's values (kN/m², kN/m) and each case's factors."""

    floor_dead: float
    floor_imposed: float
    roof_dead: float
    snow: float
    facade: float  # kN/m on the beams of the edge frames, every level
    wind: float  # kN/m² on the façade, applied as point loads at the levels (drawn)
    factors: dict[str, dict[str, float]]  # case → ref → factor (absent: not in the case)


#: the load cases of every sheet (refs as printed in the load table)
CASES: dict[str, dict[str, float]] = {
    "1": {"G1": 1.35, "Q1": 1.5, "G2": 1.35, "S": 1.5, "F": 1.35, "SB": 1.35},
    "2": {"G1": 1.0, "Q1": 0.5, "G2": 1.0, "F": 1.0, "SB": 1.0, "W": 1.5},
}


@dataclass(frozen=True)
class Building(NumberedLines):
    """The building a sheet draws: lettered grid lines along the frames (``letters``,
    ``bays`` between them), numbered frames across (``numbers``, ``spacings``), storey
    heights, the area loads and the secondary beams. One record, so the plan, the
    elevations and the derived member loads all come from the same numbers."""

    letters: tuple[str, ...]
    bays: tuple[float, ...]
    numbers: tuple[str, ...]
    spacings: tuple[float, ...]
    storeys: tuple[float, ...]
    loads: AreaLoads
    secondary: tuple[SecondaryBeam, ...]
    variants: dict[int, Variant]  # numbered grid line index → its frame (drawn frames only)

    @property
    def xs(self) -> list[float]:
        return running_sum(self.bays)

    @property
    def levels(self) -> list[float]:
        return running_sum(self.storeys)

    def wind_at(self, j: int, level: int) -> float:
        """kN at a floor level of frame ``j``: pressure × tributary width × the storey
        heights half above and half below (the roof takes half its storey)."""
        above = self.storeys[level] if level < len(self.storeys) else 0.0
        height = (self.storeys[level - 1] + above) / 2
        return round(self.loads.wind * self.tributary(j) * height, 1)


def sample_building(rng: random.Random) -> Building:
    """A building whose frames have 30-250 members (3-12 storeys, 2-8 bays)."""
    while True:
        nb, ns = rng.randint(2, 8), rng.randint(3, 12)
        if ns * (2 * nb + 1) >= MIN_MEMBERS and ns * (2 * nb + 2) <= MAX_MEMBERS:
            break
    bays = tuple(rng.choice(BAYS) for _ in range(nb))
    storeys = (rng.choice(GROUND), *(rng.choice(STOREY) for _ in range(ns - 1)))
    nf = rng.randint(3, 6)
    spacings = tuple(rng.choice(SPACINGS) for _ in range(nf - 1))
    loads = AreaLoads(rng.choice((3.5, 4.0, 4.5, 5.0, 5.5)), rng.choice((2.0, 2.5, 3.0, 4.0, 5.0)),
                      rng.choice((1.0, 1.5, 2.0)), rng.choice((0.6, 0.8, 1.0, 1.2)),
                      rng.choice((3.0, 4.0, 5.0, 6.0)), rng.choice((0.6, 0.8, 1.0)), CASES)
    secondary = []
    for k in range(rng.randint(0, 2)):
        span, bay = rng.randrange(nf - 1), rng.randrange(nb)
        if all((s.span, s.bay) != (span, bay) for s in secondary):
            secondary.append(SecondaryBeam(f"SB{k + 1}", bay, span,
                                           float(rng.choice((6, 8, 10, 12)))))
    shown = _drawn_frames(rng, nf, nb, ns)
    variants: dict[int, Variant] = {}
    for j in shown:
        while True:
            brace = rng.choice([None, *range(nb)])
            pinned = rng.choice([None, *(b for b in range(nb) if b != brace)])
            v = Variant(rng.choice(("fixed", "pin")), brace, pinned)
            if v not in variants.values():
                variants[j] = v
                break
    return Building(tuple(chr(ord("A") + i) for i in range(nb + 1)), bays,
                    tuple(str(j + 1) for j in range(nf)), spacings, storeys, loads,
                    tuple(secondary), variants)


def _drawn_frames(rng: random.Random, nf: int, nb: int, ns: int) -> list[int]:
    """Which numbered grid lines get an elevation: 2-5, fewer for big frames so the sheet
    stays within 8,000 px at a legible scale."""
    size = nb * ns
    most = 5 if size <= 15 else 4 if size <= 30 else 3 if size <= 48 else 2
    return sorted(rng.sample(range(nf), rng.randint(2, min(most, nf))))


def frame_document(b: Building, j: int, case: str | None) -> dict:  # type: ignore[type-arg]
    """The FrameCalc document of the frame on numbered grid line ``j``: geometry, supports
    and hinges, with the loads of ``case`` (None: only the loads drawn on its elevation,
    the wind at the levels, unfactored)."""
    v = b.variants[j]
    xs, levels = b.xs, b.levels
    pid = {}
    points = []
    for lv, y in enumerate(levels):
        for i, x in enumerate(xs):
            pid[i, lv] = f"P{len(points) + 1}"
            points.append({"id": pid[i, lv], "x": x, "y": y})
    links: list[dict] = []  # type: ignore[type-arg]

    def link(a: str, bb: str, end_a: str = "rigid", end_b: str = "rigid", iz: float = 1.0) -> str:
        lid = f"L{len(links) + 1}"
        out = {"id": lid, "a": a, "b": bb, "endA": end_a, "endB": end_b}
        if iz != 1.0:
            out["Iz"] = iz * DEFAULT_IZ
        links.append(out)
        return lid

    for lv in range(len(levels) - 1):
        for i in range(len(xs)):
            link(pid[i, lv], pid[i, lv + 1], iz=COLUMN_IZ)
    beams: dict[tuple[int, int], str] = {}
    for lv in range(1, len(levels)):
        for i in range(len(xs) - 1):
            end = "hinge" if v.pinned_bay == i else "rigid"
            beams[i, lv] = link(pid[i, lv], pid[i + 1, lv], end, end)
    if v.brace_bay is not None:
        for lv in range(len(levels) - 1):
            link(pid[v.brace_bay, lv], pid[v.brace_bay + 1, lv + 1], "hinge", "hinge")
    supports = [{"id": f"S{i + 1}", "at": {"type": "point", "id": pid[i, 0]}, "kind": v.base,
                 "angleDeg": 0} for i in range(len(xs))]
    loads: list[dict] = []  # type: ignore[type-arg]

    def add(load: dict) -> None:  # type: ignore[type-arg]
        loads.append({"id": f"LD{len(loads) + 1}", **load})

    factors = b.loads.factors[case] if case is not None else {"W": 1.0}
    if "W" in factors:
        for lv in range(1, len(levels)):
            add({"kind": "pointLoad", "at": {"type": "point", "id": pid[0, lv]},
                 "value": round(factors["W"] * b.wind_at(j, lv), 6), "angleDeg": 0,
                 "angleMode": "world", "flip": 1})
    if case is not None:
        for (_, lv), lid in beams.items():
            w = beam_line_load(b, j, lv == len(levels) - 1, factors)
            add({"kind": "distributedLoad", "at": {"type": "link", "id": lid}, "wStart": w,
                 "wEnd": w, "fromStart": 0, "fromEnd": 0, "angleDeg": 270, "angleMode": "world",
                 "flip": 1})
        for sb in b.secondary:
            if j in (sb.span, sb.span + 1) and "SB" in factors:
                p = factors["SB"] * sb.load * b.spacings[sb.span] / 2
                roof = beams[sb.bay, len(levels) - 1]
                add({"kind": "pointLoad", "at": {"type": "link", "id": roof},
                     "refEnd": "A", "offsetMode": "m", "offset": b.bays[sb.bay] / 2,
                     "value": round(p, 6), "angleDeg": 270, "angleMode": "world", "flip": 1})
    return {"points": points, "links": links, "supports": supports, "loads": loads}


def beam_line_load(b: Building, j: int, roof: bool, factors: dict[str, float]) -> float:
    """kN/m on a beam of frame ``j``: the area loads of its level × the tributary width,
    plus the façade line load on an edge frame, each with its case factor."""
    area = {"G2": b.loads.roof_dead, "S": b.loads.snow} if roof else {
        "G1": b.loads.floor_dead, "Q1": b.loads.floor_imposed}
    w = sum(factors.get(ref, 0.0) * value for ref, value in area.items()) * b.tributary(j)
    if b.is_edge(j):
        w += factors.get("F", 0.0) * b.loads.facade
    return round(w, 6)


def frame_model(b: Building, j: int, case: str | None) -> Model:
    return parse_model(frame_document(b, j, case))
