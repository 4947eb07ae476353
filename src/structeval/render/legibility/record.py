"""The layout record as the legibility rules see it: items in delivered pixels, plus
the few derived facts several rules need (joints, the page's axes, glyph geometry).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from ..scene.layout import LayoutItem
from ..scene.shapes import XY, Rect, point_segment_distance, segment_rect_distance

point_segment = point_segment_distance
JOINT_TOL = 0.5  # px: member ends closer than this are one joint

Segment = tuple[XY, XY]


@dataclass(frozen=True)
class Violation:
    """One broken rule: which rule, which drawn thing, and why (in words a user reads)."""

    rule: str
    subject: str
    reason: str

    def __str__(self) -> str:
        return f"{self.rule}: {self.subject}: {self.reason}"


@dataclass
class Record:
    """A figure's layout record (``FigureLayout`` or ``RenderResult``) for the rules."""

    items: Sequence[LayoutItem]
    width: int
    height: int
    on_page: bool = True  # False: design pixels of a scene not yet placed on a canvas
    _cache: dict[str, object] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, result: object) -> Record:
        if isinstance(result, Record):
            return result
        width, height = result.size  # type: ignore[attr-defined]
        return cls(list(result.layout), int(width), int(height))  # type: ignore[attr-defined]

    def glyphs(self, gtype: str) -> list[LayoutItem]:
        return [it for it in self.items if it.glyph is not None and it.glyph.type == gtype]

    @cached_property
    def members(self) -> list[LayoutItem]:
        return self.glyphs("member")

    @cached_property
    def joints(self) -> list[XY]:
        """Joint positions: where letters are anchored (every joint of a figure is
        lettered); in a drawing without letters (a sheet's elevation, where grid lines
        name the places) the members' ends, each once."""
        lettered = [it.anchor.at[0] for it in self.items
                    if it.role == "letter" and it.anchor is not None]
        if lettered:
            return lettered
        ends: list[XY] = []
        for it in self.members:
            for p in it.glyph.paths["ends"]:  # type: ignore[union-attr]
                if all(math.dist(p, q) > JOINT_TOL for q in ends):
                    ends.append(p)
        return ends

    @cached_property
    def labels(self) -> list[LayoutItem]:
        return [it for it in self.items if it.kind == "label"]

    @cached_property
    def frame(self) -> tuple[XY, XY]:
        """Unit vectors of the page's x axis and of its y axis as drawn (y pointing up),
        from the dimension chains: the scanned tilt turns them together."""
        for it in self.glyphs("chain"):
            a, b = it.glyph.paths["line"]  # type: ignore[union-attr]
            u = _unit((b[0] - a[0], b[1] - a[1]))
            if it.glyph.facts["axis"] == "y":  # type: ignore[union-attr]
                u = (-u[1], u[0])  # along y runs downwards on the page; turn it onto x
            if u[0] < 0:
                u = (-u[0], -u[1])
            return u, (u[1], -u[0])
        return (1.0, 0.0), (0.0, -1.0)

    def member_segments(self, skip: Iterable[str] = ()) -> list[tuple[str, Segment]]:
        banned = set(skip)
        return [(it.owner, _ends(it)) for it in self.members if it.owner not in banned]


def _ends(item: LayoutItem) -> Segment:
    a, b = item.glyph.paths["ends"]  # type: ignore[union-attr]
    return a, b


def _unit(v: XY) -> XY:
    n = math.hypot(*v)
    return (v[0] / n, v[1] / n) if n > 0 else (1.0, 0.0)


def box_distance(box: Rect, segments: Iterable[Segment]) -> float:
    """Smallest gap between a text box and a glyph drawn as segments (0 when touching)."""
    return min((segment_rect_distance(a, b, box) for a, b in segments), default=math.inf)


def arc_points(centre: XY, r: float, start: XY, sweep: float, sense: str, n: int = 48,
               ) -> list[XY]:
    """Points along a drawn arc from ``start``, ``sweep`` degrees in its sense on the page."""
    a0 = math.atan2(-(start[1] - centre[1]), start[0] - centre[0])
    sign = 1.0 if sense == "ccw" else -1.0
    out = []
    for i in range(n + 1):
        a = a0 + sign * math.radians(sweep) * i / n
        out.append((centre[0] + r * math.cos(a), centre[1] - r * math.sin(a)))
    return out


def glyph_segments(item: LayoutItem) -> list[Segment]:
    """A glyph's drawn geometry as segments (what a text must be near, or keep off)."""
    g = item.glyph
    if g is None:
        return []
    if g.type == "member":
        return [_ends(item)]
    if g.type == "arrow":
        return [(g.points["tail"], g.points["tip"])]
    if g.type == "row":
        tails, tips = g.paths["tails"], g.paths["tips"]
        segs = list(zip(tails, tips, strict=True))
        return segs + list(itertools.pairwise(tails))
    if g.type == "couple":
        pts = arc_points(g.points["centre"], g.lengths["r"], g.points["start"],
                         float(g.facts["sweep"]), str(g.facts["sense"]))
        return [*itertools.pairwise(pts), (g.points["head_base"], g.points["tip"])]
    if g.type == "angle":
        v = g.points["vertex"]
        ray, ref = g.points["ray"], g.points["ref"]
        r = g.lengths["r"]
        a0 = math.atan2(-(ref[1] - v[1]), ref[0] - v[0])
        a1 = math.atan2(-(ray[1] - v[1]), ray[0] - v[0])
        d = (a1 - a0 + math.pi) % (2 * math.pi) - math.pi
        pts = [(v[0] + r * math.cos(a0 + d * i / 12), v[1] - r * math.sin(a0 + d * i / 12))
               for i in range(13)]
        return [(v, ref), (v, ray), *itertools.pairwise(pts)]
    if g.type == "chain":
        return [tuple(g.paths["line"])]  # type: ignore[list-item]
    return []
