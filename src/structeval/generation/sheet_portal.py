"""Portal sheds with roof trusses for drawing sheets: the shed, its frames and their loads.

A shed sheet shows a single-storey hall of one or two bays. The lettered grid lines
are the column lines across the hall, the numbered ones the frames along it. Each
frame is a row of columns (2EI, fixed or pinned at the base) carrying a pitched,
pin-jointed roof truss in every bay: a bottom chord at the eaves, a top chord rising
from the column heads to the ridge, a post at every panel point and one diagonal per
panel (Pratt, Howe or Warren). The column runs on to the top chord (the truss's end
post), so the truss and the columns form a portal.

What a frame carries under a load case follows from the sheet: the roof loads on plan
(kN/m², load table) reach the truss through purlins at its top-chord panel points,
each purlin carrying the roof over half the distance to its neighbours on plan and
the frame's tributary width (half the distance to each neighbouring frame, plan);
the wind acts where drawn on each elevation. This module builds it as plain numbers;
:mod:`.sheets` writes the words.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

from ..model import DEFAULT_IZ, parse_model
from ..model.types import Model
from .sheet_grid import NumberedLines, running_sum
from .sheet_storey import COLUMN_IZ

BAYS = (12.0, 18.0)  # m between column lines: 4 or 6 panels of 3 m
PANEL = 3.0  # m, on plan
EAVES = (4.5, 5.0, 6.0)  # m, column height to the bottom chord
DEPTH = (1.0, 1.5)  # m, the truss's depth at the column
RISE = 1.0  # m: the top chord rises this much per panel (a 1:3 roof)
FRAME_SPACINGS = (5.0, 6.0, 7.5)  # m between the numbered frames
PATTERNS = ("pratt", "howe", "warren")


@dataclass(frozen=True)
class Variant:
    """What sets one frame of the shed apart: its column bases, its truss pattern and
    whether the wind acts on it from the left or the right."""

    base: str  # "fixed" or "pin"
    pattern: str
    wind_from: str  # "left" or "right"


@dataclass(frozen=True)
class RoofLoads:
    dead: float  # kN/m² on plan: sheeting and purlins
    services: float  # kN/m² on plan: services hung from the trusses
    snow: float  # kN/m² on plan
    wind: float  # kN/m² on the walls, applied at the column heads (drawn)


#: the load cases of every shed sheet (refs as printed in the load table): snow leading
#: with the wind accompanying (0.6 × 1.5), then the wind leading. Gravity alone would
#: barely bend a portal whose trusses are pin-connected, so each case has wind.
CASES: dict[str, dict[str, float]] = {
    "1": {"G1": 1.35, "G2": 1.35, "S": 1.5, "W": 0.9},
    "2": {"G1": 1.0, "G2": 1.0, "W": 1.5},
}


@dataclass(frozen=True)
class Shed(NumberedLines):
    letters: tuple[str, ...]
    bays: tuple[float, ...]
    numbers: tuple[str, ...]
    spacings: tuple[float, ...]
    eaves: float
    depth: float
    loads: RoofLoads
    variants: dict[int, Variant]

    @property
    def xs(self) -> list[float]:
        return running_sum(self.bays)


    def top_chord(self) -> list[tuple[float, float]]:
        """(x, y) of every top-chord panel point, left to right over every bay."""
        out: list[tuple[float, float]] = []
        for x0, bay in zip(self.xs, self.bays, strict=False):
            n = round(bay / PANEL)
            for i in range(0 if not out else 1, n + 1):
                out.append((round(x0 + i * PANEL, 6),
                            round(self.eaves + self.depth + RISE * min(i, n - i), 6)))
        return out

    def heights(self) -> list[float]:
        """Every height a frame has a joint at (the elevation's dimensioned levels)."""
        return sorted({0.0, self.eaves, *(y for _, y in self.top_chord())})

    def wind_at(self, j: int) -> float:
        """kN at the column head of frame ``j``: pressure × tributary width × half the
        eaves height (the other half goes straight to the base)."""
        return round(self.loads.wind * self.tributary(j) * self.eaves / 2, 1)


def sample_shed(rng: random.Random) -> Shed:
    nb = rng.randint(1, 2)
    bays = tuple(rng.choice(BAYS) for _ in range(nb))
    nf = rng.randint(3, 6)
    spacings = tuple(rng.choice(FRAME_SPACINGS) for _ in range(nf - 1))
    loads = RoofLoads(rng.choice((0.3, 0.4, 0.5)), rng.choice((0.1, 0.15, 0.25)),
                      rng.choice((0.6, 0.8, 1.0, 1.2)), rng.choice((0.6, 0.8, 1.0)))
    shown = sorted(rng.sample(range(nf), rng.randint(2, min(4 if nb == 1 else 3, nf))))
    variants: dict[int, Variant] = {}
    for j in shown:
        while True:
            v = Variant(rng.choice(("fixed", "pin")), rng.choice(PATTERNS),
                        rng.choice(("left", "right")))
            if all((v.base, v.pattern) != (o.base, o.pattern) for o in variants.values()):
                variants[j] = v
                break
    return Shed(tuple(chr(ord("A") + i) for i in range(nb + 1)), bays,
                tuple(str(j + 1) for j in range(nf)), spacings, rng.choice(EAVES),
                rng.choice(DEPTH), loads, variants)


def shed_document(s: Shed, j: int, case: str | None) -> dict:  # type: ignore[type-arg]
    """The FrameCalc document of the frame on numbered grid line ``j`` with the loads of
    ``case`` (None: only the wind drawn on its elevation, unfactored)."""
    v = s.variants[j]
    points: list[dict] = []  # type: ignore[type-arg]
    pid: dict[tuple[float, float], str] = {}

    def point(x: float, y: float) -> str:
        key = (round(x, 6), round(y, 6))
        if key not in pid:
            pid[key] = f"P{len(points) + 1}"
            points.append({"id": pid[key], "x": key[0], "y": key[1]})
        return pid[key]

    links: list[dict] = []  # type: ignore[type-arg]

    def link(a: str, b: str, pinned: bool, iz: float = 1.0) -> None:
        end = "hinge" if pinned else "rigid"
        out = {"id": f"L{len(links) + 1}", "a": a, "b": b, "endA": end, "endB": end}
        if iz != 1.0:
            out["Iz"] = iz * DEFAULT_IZ
        links.append(out)

    h, top = s.eaves, dict(s.top_chord())
    bases = [point(x, 0.0) for x in s.xs]
    for x in s.xs:  # columns, running on to the top chord as the trusses' end posts
        link(point(x, 0.0), point(x, h), False, COLUMN_IZ)
        link(point(x, h), point(x, top[x]), False, COLUMN_IZ)
    for x0, bay in zip(s.xs, s.bays, strict=False):
        n = round(bay / PANEL)
        xs = [round(x0 + i * PANEL, 6) for i in range(n + 1)]
        for i, (a, b) in enumerate(itertools.pairwise(xs)):
            link(point(a, h), point(b, h), True)  # bottom chord
            link(point(a, top[a]), point(b, top[b]), True)  # top chord
            if i > 0:
                link(point(a, h), point(a, top[a]), True)  # post
            left_half = i < n // 2
            down_in = {"pratt": left_half, "howe": not left_half,
                       "warren": i % 2 == 0}[v.pattern]
            if down_in:  # from the top at the panel's left end down to its right end
                link(point(a, top[a]), point(b, h), True)
            else:
                link(point(a, h), point(b, top[b]), True)
    supports = [{"id": f"S{i + 1}", "at": {"type": "point", "id": p}, "kind": v.base,
                 "angleDeg": 0} for i, p in enumerate(bases)]
    loads: list[dict] = []  # type: ignore[type-arg]

    def add(load: dict) -> None:  # type: ignore[type-arg]
        loads.append({"id": f"LD{len(loads) + 1}", **load})

    factors = CASES[case] if case is not None else {"W": 1.0}
    if "W" in factors:
        x = s.xs[0] if v.wind_from == "left" else s.xs[-1]
        add({"kind": "pointLoad", "at": {"type": "point", "id": point(x, h)},
             "value": round(factors["W"] * s.wind_at(j), 6),
             "angleDeg": 0 if v.wind_from == "left" else 180, "angleMode": "world",
             "flip": 1})
    if case is not None:
        q = sum(factors.get(ref, 0.0) * value for ref, value in (
            ("G1", s.loads.dead), ("G2", s.loads.services), ("S", s.loads.snow)))
        q *= s.tributary(j)
        chord = s.top_chord()
        for k, (x, y) in enumerate(chord):
            left = x - chord[k - 1][0] if k > 0 else 0.0
            right = chord[k + 1][0] - x if k + 1 < len(chord) else 0.0
            add({"kind": "pointLoad", "at": {"type": "point", "id": point(x, y)},
                 "value": round(q * (left + right) / 2, 6), "angleDeg": 270,
                 "angleMode": "world", "flip": 1})
    return {"points": points, "links": links, "supports": supports, "loads": loads}


def shed_model(s: Shed, j: int, case: str | None) -> Model:
    return parse_model(shed_document(s, j, case))
