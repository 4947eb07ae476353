"""Assemble structures on the 0.5 m drawing grid with the default section.

Every generated and hand-authored problem is built here, so the conventions a
reader of the drawing relies on hold everywhere: coordinates on the grid, one
point per place, ids in creation order (P1, L1, S1, LD1), E/A/Iz written
explicitly with the project's default section (the picture shows no section).
"""

from __future__ import annotations

import itertools
from dataclasses import replace

from ..dataset.grid_rules import GRID, on_grid
from ..model import DEFAULT_A, DEFAULT_E, DEFAULT_IZ
from ..model.types import Link, Load, Model, Point, Support, SupportKind

__all__ = ["GRID", "ModelBuilder", "merge_idle_points", "on_grid", "renumber",
           "renumber_loads"]


class ModelBuilder:
    """Mutable scratchpad producing an immutable :class:`Model`."""

    def __init__(self) -> None:
        self._points: list[Point] = []
        self._at: dict[tuple[float, float], str] = {}
        self._links: list[Link] = []
        self._supports: list[Support] = []

    def point(self, x: float, y: float) -> str:
        """Id of the point at (x, y), created on first use."""
        if not (on_grid(x) and on_grid(y)):
            raise ValueError(f"point ({x}, {y}) is off the {GRID} m grid")
        key = (round(x / GRID) * GRID + 0.0, round(y / GRID) * GRID + 0.0)
        pid = self._at.get(key)
        if pid is None:
            pid = f"P{len(self._points) + 1}"
            self._points.append(Point(pid, *key))
            self._at[key] = pid
        return pid

    def link(self, a: str, b: str, *, hinge_a: bool = False, hinge_b: bool = False) -> str:
        lid = f"L{len(self._links) + 1}"
        self._links.append(Link(lid, a, b, DEFAULT_E, DEFAULT_A, DEFAULT_IZ, hinge_a, hinge_b))
        return lid

    def bar(self, a: str, b: str) -> str:
        """A pin-jointed truss member: hinged at both ends."""
        return self.link(a, b, hinge_a=True, hinge_b=True)

    def polyline(self, xys: list[tuple[float, float]]) -> list[str]:
        """Rigidly joined links through the given places, in order."""
        ids = [self.point(x, y) for x, y in xys]
        return [self.link(p, q) for p, q in itertools.pairwise(ids)]

    def support(self, pid: str, kind: SupportKind | str, angle_deg: float = 0.0) -> str:
        sid = f"S{len(self._supports) + 1}"
        self._supports.append(Support(sid, pid, SupportKind(kind), float(angle_deg)))
        return sid

    def hinge_end_at(self, lid: str, pid: str) -> None:
        """Release the moment at the end of link ``lid`` that sits on point ``pid``."""
        for i, lk in enumerate(self._links):
            if lk.id == lid:
                if pid not in (lk.a, lk.b):
                    raise ValueError(f"link {lid} does not end at {pid}")
                self._links[i] = Link(lk.id, lk.a, lk.b, lk.E, lk.A, lk.Iz,
                                      lk.hinge_a or lk.a == pid, lk.hinge_b or lk.b == pid)
                return
        raise KeyError(lid)

    def links_at(self, pid: str) -> list[str]:
        return [lk.id for lk in self._links if pid in (lk.a, lk.b)]

    def build(self, loads: tuple[Load, ...] = ()) -> Model:
        return Model(tuple(self._points), tuple(self._links), tuple(self._supports), loads)


def renumber_loads(loads: list[Load]) -> tuple[Load, ...]:
    """Load ids LD1, LD2, … in list order (the generator builds loads before naming them)."""
    return tuple(replace(ld, id=f"LD{i}") for i, ld in enumerate(loads, start=1))


def merge_idle_points(model: Model) -> Model:
    """Join two collinear, rigidly connected, unloaded links through a point that carries
    nothing (no support, no load, no hinge): the generator cuts members at places loads
    may use, and a cut no load took would only add a letter and a dimension to the picture."""
    loaded_points = {ld.target.id for ld in model.loads if ld.target.type == "point"}
    loaded_links = {ld.target.id for ld in model.loads if ld.target.type == "link"}
    supported = {s.at for s in model.supports}
    links = list(model.links)
    points = list(model.points)
    changed = True
    while changed:
        changed = False
        for p in points:
            if p.id in supported or p.id in loaded_points:
                continue
            at = [lk for lk in links if p.id in (lk.a, lk.b)]
            if len(at) != 2 or any(lk.id in loaded_links for lk in at):
                continue
            (first, second), by_id = at, {q.id: q for q in points}
            far = [lk.b if lk.a == p.id else lk.a for lk in at]
            hinged_here = [lk.hinge_a if lk.a == p.id else lk.hinge_b for lk in at]
            u, v = by_id[far[0]], by_id[far[1]]
            cross = (p.x - u.x) * (v.y - u.y) - (p.y - u.y) * (v.x - u.x)
            same_section = (first.E, first.A, first.Iz) == (second.E, second.A, second.Iz)
            if any(hinged_here) or abs(cross) > 1e-9 or not same_section:
                continue
            far_hinges = [lk.hinge_b if lk.a == p.id else lk.hinge_a for lk in at]
            merged = Link(first.id, far[0], far[1], first.E, first.A, first.Iz, *far_hinges)
            links = [merged if lk.id == first.id else lk for lk in links if lk.id != second.id]
            points = [q for q in points if q.id != p.id]
            changed = True
            break
    return model.with_(points=tuple(points), links=tuple(links))


def renumber(model: Model) -> Model:
    """Ids P1…, L1…, S1…, LD1… in model order, so a merged model has no gaps."""
    pmap = {p.id: f"P{i}" for i, p in enumerate(model.points, start=1)}
    lmap = {lk.id: f"L{i}" for i, lk in enumerate(model.links, start=1)}
    points = tuple(replace(p, id=pmap[p.id]) for p in model.points)
    links = tuple(replace(lk, id=lmap[lk.id], a=pmap[lk.a], b=pmap[lk.b]) for lk in model.links)
    supports = tuple(replace(s, id=f"S{i}", at=pmap[s.at])
                     for i, s in enumerate(model.supports, start=1))
    loads = [replace(ld, target=replace(ld.target, id=(pmap if ld.target.type == "point"
                                                       else lmap)[ld.target.id]))
             for ld in model.loads]
    return Model(points, links, supports, renumber_loads(loads))
