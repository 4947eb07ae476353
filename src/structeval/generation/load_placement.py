"""Put textbook loads on a skeleton: every FrameCalc load kind, whole-number values.

Rules that keep the picture unambiguous: concentrated loads never share a place,
one distributed load per link, loads on inclined members sit where the drawing
can dimension them (grid points of the member), distributed loads on inclined
members act perpendicular to them (relative 90° or 270°, as FrameCalc cannot
express a load per horizontal projection), couples only where a rigid joint can
take them, and trusses are loaded at their joints only.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from ..model.types import (
    AngleMode,
    BendingMoment,
    DistributedLoad,
    Link,
    Load,
    Model,
    OffsetMode,
    PointLoad,
    Position,
    SupportKind,
    Target,
)
from .builder import GRID, renumber_loads
from .families.common import Skeleton

FORCES = (5, 8, 10, 12, 15, 20, 25, 30, 40, 50)  # kN
INTENSITIES = (2, 3, 4, 5, 6, 8, 10, 12, 15, 20)  # kN/m
COUPLES = (5, 10, 15, 20, 25, 30, 40, 50, 60)  # kN·m
SLANTED = (225, 240, 300, 315, 210, 330, 45, 135, 60, 120)  # degrees, mostly downward
DOWN = 270.0

#: (min, max) number of loads per level
COUNTS = {1: (1, 2), 2: (1, 3), 3: (2, 3), 4: (2, 4), 5: (3, 6)}
#: load kind → weight at levels 1..5 (beams and frames; trusses take joint forces only)
KIND_WEIGHTS = {
    "force_at_point": (3, 3, 3, 3, 3),
    "force_on_link": (3, 3, 3, 3, 3),
    "uniform": (3, 3, 3, 3, 3),
    "varying": (0, 1, 2, 3, 4),
    "partial": (0, 1, 1, 2, 3),
    "couple_at_point": (0, 1, 2, 2, 3),
    "couple_on_link": (0, 1, 1, 2, 3),
}


def _orientation(model: Model, link: Link) -> str:
    pa, pb = model.point(link.a), model.point(link.b)
    if pa.y == pb.y:
        return "horizontal"
    return "vertical" if pa.x == pb.x else "inclined"


def grid_stations(model: Model, link: Link) -> list[tuple[float, Position]]:
    """Interior places of a link that lie on the drawing grid, as (s, FrameCalc position).

    Axis-aligned links use metres; inclined ones a whole percentage, so the JSON
    stays exact and the drawing can dimension the place by its x and y.
    """
    pa, pb = model.point(link.a), model.point(link.b)
    dxh, dyh = round((pb.x - pa.x) / GRID), round((pb.y - pa.y) / GRID)
    length = math.hypot(pb.x - pa.x, pb.y - pa.y)
    if dxh == 0 or dyh == 0:
        steps = abs(dxh) + abs(dyh)
        return [(k * GRID, Position("A", OffsetMode.METRES, k * GRID)) for k in range(1, steps)]
    g = math.gcd(abs(dxh), abs(dyh))
    out = []
    for k in range(1, g):
        percent = 100 * k / g
        if float(percent).is_integer():
            out.append((length * k / g, Position("A", OffsetMode.PERCENT, percent)))
    return out


class LoadPlacer:
    """Adds loads one at a time, refusing placements that would confuse the picture."""

    def __init__(self, rng: random.Random, skeleton: Skeleton, truss: bool, level: int):
        self.rng, self.model, self.truss, self.level = rng, skeleton.model, truss, level
        self.joints = skeleton.joints
        self.loads: list[Load] = []
        self.taken: set[tuple[float, float]] = set()
        self.distributed_links: set[str] = set()
        supported = {s.at for s in self.model.supports}
        self.free_points = [p.id for p in self.model.points if p.id not in supported]
        self.rotation_held = {s.at for s in self.model.supports
                              if s.kind in (SupportKind.FIXED, SupportKind.SLIDER)}

    # -- places ---------------------------------------------------------------------------
    def _where(self, link: Link, s: float) -> tuple[float, float]:
        pa, pb = self.model.point(link.a), self.model.point(link.b)
        length = math.hypot(pb.x - pa.x, pb.y - pa.y)
        t = s / length
        return (round(pa.x + t * (pb.x - pa.x), 6), round(pa.y + t * (pb.y - pa.y), 6))

    def _free_point(self, candidates: list[str]) -> str | None:
        options = [pid for pid in candidates
                   if (self.model.point(pid).x, self.model.point(pid).y) not in self.taken]
        return self.rng.choice(options) if options else None

    def _claim_point(self, pid: str) -> None:
        p = self.model.point(pid)
        self.taken.add((p.x, p.y))

    def _link_station(self, links: list[Link]) -> tuple[Link, Position] | None:
        options = [(lk, pos) for lk in links for s, pos in grid_stations(self.model, lk)
                   if self._where(lk, s) not in self.taken]
        if not options:
            return None
        link, pos = self.rng.choice(options)
        s = pos.s_on(math.hypot(*self._delta(link)))
        self.taken.add(self._where(link, s))
        return link, pos

    def _delta(self, link: Link) -> tuple[float, float]:
        pa, pb = self.model.point(link.a), self.model.point(link.b)
        return pb.x - pa.x, pb.y - pa.y

    # -- directions -----------------------------------------------------------------------
    def _force_angle(self, orientation: str | None) -> float:
        r = self.rng.random()
        slanted_ok = self.level >= 3 or (self.truss and self.level >= 2)
        if orientation == "vertical":
            return self.rng.choice((0.0, 180.0))
        if slanted_ok and r < 0.2:
            return float(self.rng.choice(SLANTED))
        sideways = (self.truss and self.level >= 2) or (orientation is None and not self.truss)
        if sideways and r > 0.85:
            return self.rng.choice((0.0, 180.0))
        return DOWN

    # -- kinds ----------------------------------------------------------------------------
    def force_at_point(self) -> bool:
        pid = self._free_point(list(self.joints) or self.free_points)
        if pid is None:
            return False
        self._claim_point(pid)
        at_beam_only = all(_orientation(self.model, lk) == "horizontal"
                           for lk in self.model.links if pid in (lk.a, lk.b))
        angle = self._force_angle("horizontal" if at_beam_only and not self.truss else None)
        self.loads.append(PointLoad("", Target("point", pid), self.rng.choice(FORCES), angle,
                                    AngleMode.WORLD, 1))
        return True

    def force_on_link(self) -> bool:
        found = self._link_station(list(self.model.links))
        if found is None:
            return False
        link, pos = found
        orientation = _orientation(self.model, link)
        angle = DOWN if orientation == "inclined" else self._force_angle(orientation)
        self.loads.append(PointLoad("", Target("link", link.id), self.rng.choice(FORCES), angle,
                                    AngleMode.WORLD, 1, pos))
        return True

    def _distributed(self, shape: str) -> bool:
        links = [lk for lk in self.model.links if lk.id not in self.distributed_links]
        if shape == "partial":
            links = [lk for lk in links if _orientation(self.model, lk) != "inclined"
                     and math.hypot(*self._delta(lk)) >= 2.0]
        if not links:
            return False
        link = self.rng.choice(links)
        self.distributed_links.add(link.id)
        orientation = _orientation(self.model, link)
        w0 = w1 = float(self.rng.choice(INTENSITIES))
        if shape == "varying":
            w0, w1 = self.rng.sample((0, *INTENSITIES), 2)
            if w0 == 0 and w1 == 0:
                w1 = float(INTENSITIES[0])
        start = end = 0.0
        if shape == "partial":
            length = math.hypot(*self._delta(link))
            cuts = [k * GRID for k in range(0, round(length / GRID) - 1)]
            while True:
                start, end = self.rng.choice(cuts), self.rng.choice(cuts)
                if length - start - end >= 1.0 and (start or end):
                    break
        if orientation == "inclined":
            angle, flip = self.rng.choice(((90.0, -1), (270.0, 1), (90.0, 1)))
            mode = AngleMode.RELATIVE
        else:
            angle = DOWN if orientation == "horizontal" else self.rng.choice((0.0, 180.0))
            mode, flip = AngleMode.WORLD, 1
        self.loads.append(DistributedLoad("", Target("link", link.id), float(w0), float(w1),
                                          start, end, angle, mode, flip))
        return True

    def uniform(self) -> bool:
        return self._distributed("uniform")

    def varying(self) -> bool:
        return self._distributed("varying")

    def partial(self) -> bool:
        return self._distributed("partial")

    def couple_at_point(self) -> bool:
        hinged = {lk.a for lk in self.model.links if lk.hinge_a}
        hinged |= {lk.b for lk in self.model.links if lk.hinge_b}
        pid = self._free_point([p for p in self.free_points if p not in hinged
                                and p not in self.rotation_held])
        if pid is None:
            return False
        self._claim_point(pid)
        self.loads.append(BendingMoment("", Target("point", pid), self.rng.choice(COUPLES),
                                        self.rng.choice((1, -1))))
        return True

    def couple_on_link(self) -> bool:
        found = self._link_station(list(self.model.links))
        if found is None:
            return False
        link, pos = found
        self.loads.append(BendingMoment("", Target("link", link.id), self.rng.choice(COUPLES),
                                        self.rng.choice((1, -1)), pos))
        return True


def add_loads(rng: random.Random, skeleton: Skeleton, *, truss: bool, level: int) -> Model:
    """The skeleton with loads whose number and kinds grow with ``level`` (the number
    the skeleton asks for, when it does)."""
    placer = LoadPlacer(rng, skeleton, truss, level)
    wanted = rng.randint(*(skeleton.load_count or COUNTS[level]))
    kinds = sorted(KIND_WEIGHTS)
    weights = [KIND_WEIGHTS[k][level - 1] for k in kinds]
    tries = 0
    while len(placer.loads) < wanted and tries < 6 * wanted:
        tries += 1
        kind = "force_at_point" if truss else rng.choices(kinds, weights=weights)[0]
        place: Callable[[], bool] = getattr(placer, kind)
        place()
    return skeleton.model.with_(loads=renumber_loads(placer.loads))
