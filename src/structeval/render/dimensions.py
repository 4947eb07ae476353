"""Dimension chains: every distinct x and y a reader needs to rebuild the model.

Joints, loads on members and the edges of partial distributed loads all get a
tick, so no position has to be guessed from the picture. Chains sit outside
everything already drawn; extension lines run from a chain towards the feature
and stop short of the first thing in the way, as on an engineering drawing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..model.semantics import distributed_extent, link_axis, world_point_of_load
from ..model.types import DistributedLoad, Model
from .arrows import fmt_number
from .fonts import text_size
from .placement import place_label
from .scene import LAYER_THIN, Prim, Scene, Stroke
from .shapes import XY, Capsule, Rect, Shape

OFFSET = 24.0  # px from the drawing to the first chain
TOTAL_OFFSET = 16.0
TICK = 4.5
OVERSHOOT = 4.0
HALO = 2.5


def features(model: Model) -> list[tuple[float, float]]:
    """World (x, y) of every joint, concentrated load on a member and distributed-load edge."""
    out = [(p.x, p.y) for p in model.points]
    for load in model.loads:
        if load.target.type != "link":
            continue
        if isinstance(load, DistributedLoad):
            link = model.link(load.target.id)
            ex, ey, _ = link_axis(model, link)
            pa = model.point(link.a)
            s0, s1, _ = distributed_extent(model, load)
            out += [(pa.x + ex * s, pa.y + ey * s) for s in (s0, s1)]
        else:
            out.append(world_point_of_load(model, load))
    return out


def distinct(values: list[float], tol: float) -> list[float]:
    out: list[float] = []
    for v in sorted(values):
        if not out or v - out[-1] > tol:
            out.append(v)
    return out


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


def _line(scene: Scene, axis: Axis, stations: list[float], depth: dict[float, float],
          o_line: float, role: str) -> None:
    """Chain line, ticks and extension lines (which stop before the first obstacle)."""
    w = scene.style.thin_width
    prims: list[tuple[Prim, int]] = []
    a0, a1 = axis.fig(stations[0], o_line), axis.fig(stations[-1], o_line)
    prims.append((Stroke((a0, a1), w, "dim"), LAYER_THIN))
    shapes: list[Shape] = [Capsule(a0, a1, w)]
    # an extension line may cross members and other chains, but stops at symbols and loads
    others = frozenset(i for i, it in enumerate(scene.layout.items)
                       if it.kind in ("dimension", "member"))
    for a in stations:
        t0, t1 = axis.fig(a - TICK, o_line + TICK), axis.fig(a + TICK, o_line - TICK)
        prims.append((Stroke((t0, t1), w * 1.4, "dim"), LAYER_THIN))
        shapes.append(Capsule(t0, t1, w))
        start = axis.fig(a, o_line + OVERSHOOT)
        room = o_line + OVERSHOOT - depth[a] - 4.0
        hit = _thick_hit(scene, axis, a, o_line - 1.0, o_line - 1.0 - depth[a], others)
        stop = room if hit is None else OVERSHOOT + hit - 2.0
        end = axis.fig(a, o_line + OVERSHOOT - stop)
        if stop > OVERSHOOT + 1.0:
            prims.append((Stroke((start, end), w * 0.8, "dim"), LAYER_THIN))
            shapes.append(Capsule(start, end, w * 0.8))
    scene.add("dimension", axis.name, "dimension", role, prims, shapes)


def _thick_hit(scene: Scene, axis: Axis, a: float, o: float, room: float,
               ignore: frozenset[int]) -> float | None:
    """First obstacle met by a band 2·HALO px wide running inwards from (a, o): a thin
    line must keep clear of labels beside it, not only of those straight ahead."""
    back = (-axis.out[0], -axis.out[1])
    hits = [t for da in (-HALO, 0.0, HALO)
            if (t := scene.layout.obstacles.first_hit(axis.fig(a + da, o), back, room, ignore))
            is not None]
    return min(hits) if hits else None


def _texts(scene: Scene, axis: Axis, stations: list[float], values: list[float],
           o_line: float, role: str, candidates: Callable[..., list[Rect]]) -> None:
    size = scene.style.sizes["dim"]
    for i in range(len(stations) - 1):
        text = f"{fmt_number(abs(values[i + 1] - values[i]))} m"
        w, h = text_size(text, size)
        mid = (stations[i] + stations[i + 1]) / 2
        place_label(scene, text, size, axis.name, "dimension", role,
                    candidates=candidates(axis, mid, o_line, w, h), colour_role="dim")


def _beside_horizontal(axis: Axis, mid: float, o: float, w: float, h: float) -> list[Rect]:
    """Above the line (the drafting convention), else below, else a row further out."""
    y = axis.fig(mid, o)[1]
    rows = [y - 3.0 - h, y + 5.0, y + 8.0 + h, y - 7.0 - 2 * h, y + 11.0 + 2 * h,
            y - 11.0 - 3 * h]
    return [(mid - w / 2 + dx, r, mid + w / 2 + dx, r + h) for r in rows
            for dx in (0.0, -w / 2, w / 2, -w, w)]


def _beside_vertical(axis: Axis, mid: float, o: float, w: float, h: float) -> list[Rect]:
    """Outside the line, centred on the stretch, else staggered further out."""
    out = []
    for gap in (5.0, 12.0 + w, 19.0 + 2 * w):
        for da in (0.0, -h, h):
            x0, y0 = axis.fig(mid - h / 2 + da, o + gap)
            x1, _ = axis.fig(mid, o + gap + w)
            out.append((min(x0, x1), y0, min(x0, x1) + w, y0 + h))
    return out


def _depths(scene: Scene, axis: Axis, stations: list[float], pts: list[XY]) -> dict[float, float]:
    """Per station, how far out its outermost feature lies (where extension lines end)."""
    depth: dict[float, float] = {}
    for p in pts:
        a, o = axis.coords(scene.px(*p))
        for st in stations:
            if abs(st - a) < 1e-6:
                depth[st] = max(depth.get(st, -float("inf")), o)
    return depth


def _visible(scene: Scene, axis: Axis, a: float, depth: float) -> bool:
    """Whether a line from outside reaches the feature without crossing a member."""
    o_line = axis.reach(scene.layout.extent()) + OFFSET
    others = frozenset(i for i, it in enumerate(scene.layout.items) if it.kind != "member")
    room = o_line - depth
    hit = scene.layout.obstacles.first_hit(axis.fig(a, o_line), (-axis.out[0], -axis.out[1]),
                                           room, others)
    return hit is None or hit >= room - (scene.style.member_width / 2 + 3.0)


def _chain(scene: Scene, axis: Axis, values: list[float], pts: list[XY],
           candidates: Callable[..., list[Rect]], total: bool) -> None:
    """One chain; the near one (``total``) also gets the overall dimension beyond it."""
    stations = [axis.coords(scene.px(*v_to_xy(axis, v)))[0] for v in values]
    o_line = axis.reach(scene.layout.extent()) + OFFSET
    depth = _depths(scene, axis, stations, pts)
    depth = {st: depth.get(st, o_line - 10.0) for st in stations}
    _line(scene, axis, stations, depth, o_line, "chain" if total else "far-chain")
    _texts(scene, axis, stations, values, o_line, "value" if total else "far-value", candidates)
    if total and len(values) > 2:
        o_total = axis.reach(scene.layout.extent()) + TOTAL_OFFSET
        ends = [stations[0], stations[-1]]
        _line(scene, axis, ends, {a: o_line for a in ends}, o_total, "total")
        _texts(scene, axis, ends, [values[0], values[-1]], o_total, "total-value", candidates)


def v_to_xy(axis: Axis, v: float) -> XY:
    """A world point whose coordinate along the chain's axis is v."""
    return (v, 0.0) if axis.name == "x" else (0.0, v)


def _chains(scene: Scene, near: Axis, far: Axis, values: list[float], pts: list[XY],
            candidates: Callable[..., list[Rect]]) -> None:
    """Dimension from the near side what can be seen from there; what only the far side
    sees gets a chain of its own there (e.g. the top chord of a Warren truss)."""
    stations = [near.coords(scene.px(*v_to_xy(near, v)))[0] for v in values]
    d_near, d_far = _depths(scene, near, stations, pts), _depths(scene, far, stations, pts)
    far_only = {v for v, st in zip(values, stations, strict=True)
                if not _visible(scene, near, st, d_near[st])
                and _visible(scene, far, st, d_far[st])}
    near_values = [v for v in values if v not in far_only or v in (values[0], values[-1])]
    _chain(scene, near, near_values, pts, candidates, total=True)
    if far_only - {values[0], values[-1]}:
        far_values = [v for v in values if v in far_only or v in (values[0], values[-1])]
        _chain(scene, far, far_values, pts, candidates, total=False)


def draw_dimensions(scene: Scene, model: Model) -> None:
    pts = features(model)
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts]
    tol = 1e-6 * max(max(xs) - min(xs), max(ys) - min(ys), 1e-9)
    dx, dy = distinct(xs, tol), distinct(ys, tol)
    snapped = [(min(dx, key=lambda v, x=x: abs(v - x)), min(dy, key=lambda v, y=y: abs(v - y)))
               for x, y in pts]
    if len(dx) > 1:
        _chains(scene, Axis("x", (1.0, 0.0), (0.0, 1.0)), Axis("x", (1.0, 0.0), (0.0, -1.0)),
                dx, snapped, _beside_horizontal)
    if len(dy) > 1:
        values = list(reversed(dy))
        right, left = Axis("y", (0.0, 1.0), (1.0, 0.0)), Axis("y", (0.0, 1.0), (-1.0, 0.0))
        near, far = (right, left) if _seen(scene, right, values, snapped) >= _seen(
            scene, left, values, snapped) else (left, right)
        _chains(scene, near, far, values, snapped, _beside_vertical)


def _seen(scene: Scene, axis: Axis, values: list[float], pts: list[XY]) -> int:
    """How many of the stations a chain on this side would reach without crossing members."""
    stations = [axis.coords(scene.px(*v_to_xy(axis, v)))[0] for v in values]
    depth = _depths(scene, axis, stations, pts)
    return sum(1 for st in stations if _visible(scene, axis, st, depth[st]))
