"""The frame of a dimension chain and what its thin lines stop at, shared by the chains
(:mod:`.dimensions`) and the exam's level marks (:mod:`.exam_marks`).

Both draw extension lines outwards from the figure along one axis and stop them short
of the first symbol, text or arrowhead in the way; the geometry lives here, below both,
so neither reaches into the other.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..scene.scene import Scene
from ..scene.shapes import XY, Capsule, Rect

OFFSET = 24.0  # px from the drawing to the first chain
TICK = 4.5
OVERSHOOT = 4.0
HALO = 2.5
STOP_SHORT = 4.0  # px between an extension line's end and its place


@dataclass(frozen=True)
class Axis:
    """A chain's frame: ``along`` the chain, ``out`` away from the drawing (figure units)."""

    name: str
    along: XY
    out: XY

    def fig(self, a: float, o: float) -> XY:
        return (a * self.along[0] + o * self.out[0], a * self.along[1] + o * self.out[1])

    def coords(self, p: XY) -> tuple[float, float]:
        return (p[0] * self.along[0] + p[1] * self.along[1],
                p[0] * self.out[0] + p[1] * self.out[1])

    def reach(self, r: Rect) -> float:
        """How far out the rectangle extends."""
        return max(self.coords(c)[1] for c in ((r[0], r[1]), (r[2], r[3]), (r[0], r[3]),
                                               (r[2], r[1])))


def _heads(scene: Scene) -> list[tuple[int, Capsule]]:
    """The arrowheads of forces: a thin line may cross a force's shaft, never its head."""
    cached = scene.__dict__.get("_heads")
    if cached is not None and cached[0] == len(scene.layout.items):
        return cached[1]
    out = []
    for i, it in enumerate(scene.layout.items):
        g = it.glyph
        if g is not None and g.type == "arrow":
            tail, tip = g.points["tail"], g.points["tip"]
            n = math.dist(tail, tip)
            k = min(1.0, (g.lengths["head"] + 2.0) / n) if n > 0 else 1.0
            base = (tip[0] + (tail[0] - tip[0]) * k, tip[1] + (tail[1] - tip[1]) * k)
            out.append((i, Capsule(base, tip, g.lengths["head_width"] / 2 + 1.0)))
    scene.__dict__["_heads"] = (len(scene.layout.items), out)
    return out


def first_block(scene: Scene, origin: XY, direction: XY, room: float,
                ignore: frozenset[int]) -> float | None:
    """Distance to the first thing a thin line from ``origin`` must stop at: symbols,
    rows, couples, hinges, texts and arrowheads (not in ``ignore``); members, other
    dimensions and the shafts of forces may be crossed."""
    heads = _heads(scene)
    shafts = frozenset(i for i, _ in heads)
    return scene.layout.obstacles.first_hit(origin, direction, room, ignore | shafts,
                                            extra=[cap for i, cap in heads if i not in ignore])


def thick_hit(scene: Scene, axis: Axis, a: float, o: float, room: float,
               ignore: frozenset[int]) -> float | None:
    """First obstacle met by a band 2·HALO px wide running inwards from (a, o): a thin
    line must keep clear of labels beside it, not only of those straight ahead."""
    back = (-axis.out[0], -axis.out[1])
    hits = [t for da in (-HALO, 0.0, HALO)
            if (t := first_block(scene, axis.fig(a + da, o), back, room, ignore)) is not None]
    return min(hits) if hits else None


def depths(scene: Scene, axis: Axis, stations: list[float], pts: list[XY]) -> dict[float, float]:
    """Per station, how far out its outermost feature lies (where extension lines end)."""
    depth: dict[float, float] = {}
    for p in pts:
        a, o = axis.coords(scene.px(*p))
        for st in stations:
            if abs(st - a) < 1e-6:
                depth[st] = max(depth.get(st, -float("inf")), o)
    return depth


def v_to_xy(axis: Axis, v: float) -> XY:
    """A world point whose coordinate along the chain's axis is v."""
    return (v, 0.0) if axis.name == "x" else (0.0, v)
