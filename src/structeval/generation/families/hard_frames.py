"""Large plane frames: multi-bay multi-storey buildings and multi-span pitched portals.

Drawn the way design drawings are: equal bays, repeated storey heights and one roof
pitch, so a 40-member frame has few distinct coordinates. Variety comes from what
real frames have — set-backs, cantilevered floor beams, pinned beam ends, knee
braces, single diagonal bracing, pitched rafters, crown hinges, a mezzanine floor —
never from crowded geometry: every member is ≥ 1 m long and every joint the drawing
shows is a FrameCalc point (braces end at joints, nothing crosses).
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field

from ...model.types import SupportKind
from ..builder import GRID, ModelBuilder, on_grid
from .common import Skeleton, grid

PIN, ROLLER, FIXED = SupportKind.PIN, SupportKind.ROLLER, SupportKind.FIXED

#: (bays lo, hi, storeys lo, hi) per level
BUILDING_SIZES = {1: (2, 2, 2, 2), 2: (2, 2, 2, 2), 3: (2, 2, 2, 3), 4: (2, 3, 2, 3),
                  5: (3, 5, 3, 5)}
#: pitched bays (lo, hi) per level
PITCHED_BAYS = {1: (1, 1), 2: (1, 2), 3: (2, 2), 4: (2, 3), 5: (2, 4)}
LOADS = {1: (3, 4), 2: (4, 5), 3: (4, 6), 4: (5, 9), 5: (6, 12)}


@dataclass
class _Beams:
    """Horizontal members of one level, cut where knee braces or loads need a joint."""

    cuts: dict[tuple[float, float], set[float]] = field(default_factory=dict)

    def cut(self, y: float, x0: float, x: float) -> None:
        self.cuts.setdefault((y, x0), set()).add(x)


def _cumulative(start: float, steps: list[float]) -> list[float]:
    out = [start]
    for s in steps:
        out.append(out[-1] + s)
    return out


def _setbacks(rng: random.Random, bays: int, storeys: int) -> list[tuple[int, int]]:
    """Active bay range [lo, hi) of every storey: never wider than the storey below."""
    ranges = [(0, bays)] * storeys
    if storeys < 2 or bays < 2 or rng.random() >= 0.5:
        return ranges
    for _ in range(rng.choice((1, 1, 2))):
        start = rng.randint(1, storeys - 1)
        side = rng.choice(("left", "right", "both"))
        for s in range(start, storeys):
            lo, hi = ranges[s]
            if side in ("left", "both") and hi - lo > 1:
                lo += 1
            if side in ("right", "both") and hi - lo > 1:
                hi -= 1
            ranges[s] = (lo, hi)
    return ranges


def building_frame(rng: random.Random, level: int) -> Skeleton:
    """Multi-bay, multi-storey building frame."""
    b_lo, b_hi, s_lo, s_hi = BUILDING_SIZES[level]
    bays, storeys = rng.randint(b_lo, b_hi), rng.randint(s_lo, s_hi)
    width = grid(rng, 3, 6)
    widths = [width] * bays
    if bays >= 3 and rng.random() < 0.25:
        widths[bays // 2] = grid(rng, 3, 7)
    height = grid(rng, 3, 4)
    heights = [height] * storeys
    if rng.random() < 0.4:
        heights[0] = height + rng.choice((0.5, 1.0))
    xs, ys = _cumulative(0.0, widths), _cumulative(0.0, heights)
    ranges = _setbacks(rng, bays, storeys)
    b = ModelBuilder()
    beams = _Beams()
    # knee braces at the top corners of the top storey (pin-ended bars)
    braces: list[tuple[tuple[float, float], tuple[float, float]]] = []
    braced_panels: set[tuple[int, int]] = set()
    top = storeys - 1
    if rng.random() < 0.3:
        drop = grid(rng, 1, max(1.0, heights[top] - 2))
        reach = grid(rng, 1, max(1.0, min(widths) / 2 - 0.5))
        lo, hi = ranges[top]
        for col, sign in ((lo, 1), (hi, -1)):
            bay = col if sign > 0 else col - 1
            braces.append(((xs[col], ys[top + 1] - drop), (xs[col] + sign * reach, ys[top + 1])))
            beams.cut(ys[top + 1], xs[bay], xs[col] + sign * reach)
            braced_panels.add((top, bay))
    # single diagonals in a few panels
    diagonals = []
    if rng.random() < 0.3:
        panels = [(s, i) for s in range(storeys) for i in range(*ranges[s])
                  if (s, i) not in braced_panels]
        for s, i in rng.sample(panels, min(len(panels), rng.randint(1, 2))):
            rising = rng.random() < 0.5
            diagonals.append(((xs[i], ys[s + (0 if rising else 1)]),
                              (xs[i + 1], ys[s + (1 if rising else 0)])))
    knees = {p for p, _ in braces}
    for s, (lo, hi) in enumerate(ranges):
        for col in range(lo, hi + 1):
            x = xs[col]
            stops = sorted({ys[s], ys[s + 1]} | {y for (kx, y) in knees
                                                 if kx == x and ys[s] < y < ys[s + 1]})
            for y0, y1 in itertools.pairwise(stops):
                b.link(b.point(x, y0), b.point(x, y1))
    hinged = 0
    cantilevers: list[tuple[float, float, float]] = []
    for s, (lo, hi) in enumerate(ranges):
        y = ys[s + 1]
        for i in range(lo, hi):
            cuts = beams.cuts.get((y, xs[i]), set())
            if rng.random() < 0.25:
                inner = [xs[i] + k * GRID for k in range(2, round(widths[i] / GRID) - 1)]
                cuts = cuts | {rng.choice(inner)}
            stations = sorted({xs[i], xs[i + 1]} | cuts)
            links = [b.link(b.point(x0, y), b.point(x1, y)) for x0, x1 in
                     itertools.pairwise(stations)]
            if level >= 3 and rng.random() < 0.15:
                end = rng.randrange(2)
                b.hinge_end_at(links[-1] if end else links[0],
                               b.point(xs[i + 1] if end else xs[i], y))
                hinged += 1
        if rng.random() < 0.25:
            side = rng.randrange(2)
            reach = grid(rng, 1, 2.5)
            x0 = xs[hi] if side else xs[lo]
            cantilevers.append((x0, y, reach if side else -reach))
    for x0, y, dx in cantilevers:
        b.link(b.point(x0, y), b.point(x0 + dx, y))
    for p, q in braces + diagonals:
        b.bar(b.point(*p), b.point(*q))
    roof = _pitched_roof(rng, b, xs, ys[-1], ranges[top]) if rng.random() < 0.3 else None
    base = FIXED if rng.random() < 0.7 else PIN
    for col in range(ranges[0][0], ranges[0][1] + 1):
        b.support(b.point(xs[col], 0.0), base)
    params = {"bays": widths, "storeys": heights, "setbacks": [list(r) for r in ranges],
              "knee_braces": len(braces), "diagonals": len(diagonals),
              "pinned_beam_ends": hinged, "cantilevers": len(cantilevers),
              "roof_rise": roof, "bases": base.value}
    return Skeleton(b.build(), "building_frame", params, load_count=LOADS[level])


def _pitched_roof(rng: random.Random, b: ModelBuilder, xs: list[float], y: float,
                  active: tuple[int, int]) -> float | None:
    """A gable of two rafters over the top storey, its top beam acting as the tie."""
    x0, x1 = xs[active[0]], xs[active[1]]
    mid = (x0 + x1) / 2
    if not on_grid(mid):
        return None
    rise = grid(rng, 1, 2.5)
    ridge = b.point(mid, y + rise)
    b.link(b.point(x0, y), ridge)
    b.link(b.point(x1, y), ridge)
    return rise


def _rafter_station(half: float, rise: float, rng: random.Random) -> float | None:
    """A horizontal distance r from the eave at which the rafter passes a grid point,
    ≥ 1 m from both rafter ends (a joint for a knee brace or a purlin)."""
    options = [k * GRID for k in range(2, round(half / GRID) - 1)
               if on_grid(rise * k * GRID / half)]
    return rng.choice(options) if options else None


def pitched_frame(rng: random.Random, level: int) -> Skeleton:
    """Multi-span portal frame with a duopitch roof per span (an industrial shed)."""
    lo, hi = PITCHED_BAYS[level]
    bays = rng.randint(lo, hi)
    span = float(rng.choice((8, 10, 12, 16)) if bays <= 2 else rng.choice((8, 10, 12)))
    eave, rise = grid(rng, 3, 6), grid(rng, 1, 3)
    half = span / 2
    crown_hinges = rng.random() < 0.4
    knee = rng.random() < 0.5
    purlins = rng.random() < 0.5
    drop = grid(rng, 1, min(2.0, eave - 1.5)) if knee else 0.0
    reach = _rafter_station(half, rise, rng) if knee else None
    if reach is None:
        knee, drop = False, 0.0
    station = _rafter_station(half, rise, rng) if purlins else None
    if station is not None and reach is not None and 0 < abs(station - reach) < 1.0:
        station = None  # two rafter joints closer than 1 m
    # a mezzanine floor below the knee braces, ≥ 1 m clear of every column joint
    top = eave - drop - 1.0
    mezzanine = grid(rng, 2.5, top) if level >= 3 and top >= 2.5 and rng.random() < 0.35 \
        else None
    b = ModelBuilder()
    xs = [i * span for i in range(bays + 1)]
    for x in xs:
        stops = {0.0, eave}
        if knee:
            stops.add(eave - drop)
        if mezzanine is not None:
            stops.add(mezzanine)
        for y0, y1 in itertools.pairwise(sorted(stops)):
            b.link(b.point(x, y0), b.point(x, y1))
    for i in range(bays):
        ridge = (xs[i] + half, eave + rise)
        for x_eave, sign in ((xs[i], 1), (xs[i + 1], -1)):
            along = {0.0, half}
            if knee and reach is not None:
                along.add(reach)
            if station is not None:
                along.add(station)
            pts = [(x_eave + sign * r, eave + rise * r / half) for r in sorted(along)]
            links = [b.link(b.point(*p), b.point(*q)) for p, q in itertools.pairwise(pts)]
            if crown_hinges and sign > 0:
                b.hinge_end_at(links[-1], b.point(*ridge))
            if knee and reach is not None:
                b.bar(b.point(x_eave, eave - drop),
                      b.point(x_eave + sign * reach, eave + rise * reach / half))
        if mezzanine is not None:
            b.link(b.point(xs[i], mezzanine), b.point(xs[i + 1], mezzanine))
    bases = rng.choice(("pin", "fixed", "fixed", "pin_slanted_roller"))
    for j, x in enumerate(xs):
        foot = b.point(x, 0.0)
        if bases == "pin_slanted_roller" and j == len(xs) - 1:
            b.support(foot, ROLLER, rng.choice((30.0, 45.0, 330.0, 315.0)))
        else:
            b.support(foot, FIXED if bases == "fixed" else PIN)
    params = {"bays": bays, "span": span, "eave": eave, "rise": rise,
              "crown_hinges": crown_hinges, "knee_braces": knee, "brace_drop": drop,
              "brace_reach": reach, "purlin_station": station, "mezzanine": mezzanine,
              "bases": bases}
    return Skeleton(b.build(), "pitched_frame", params, load_count=LOADS[level])


#: name → (template, weight at levels 1..5)
HARD_FRAME_FAMILIES = {
    "building_frame": (building_frame, (0, 0, 0, 2, 2)),
    "pitched_frame": (pitched_frame, (0, 0, 0, 1, 1)),
}
