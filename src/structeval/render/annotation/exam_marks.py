"""The marks of exam dimensioning: the symmetry axis and level marks.

* The **symmetry axis** is a dash-dot centre line through the whole figure with the
  symmetry mark (two short parallel strokes across each end), drawn only when the
  structure, its supports and its loads are mirror images (:mod:`.exam`). Its
  corridor is reserved before labels are placed, so no text sits on it.
* A **level mark** gives one height above the datum: a small triangle (▽) whose tip
  sits on a horizontal level line, the level written above it in metres
  ("±0.000", "+3.500"), the line running in to the place it dimensions as an
  extension line does.
"""

from __future__ import annotations

from ..reading.value_text import level_text
from ..scene.fonts import text_size
from ..scene.glyphs import Glyph
from ..scene.scene import LAYER_THIN, Fill, Prim, Scene, Stroke
from ..scene.shapes import XY, Capsule, Shape
from .chains import OFFSET, OVERSHOOT, STOP_SHORT, depths, thick_hit, v_to_xy

AXIS_TAG = "symmetry-axis"
DASH, DOT, GAP = 14.0, 2.0, 3.5
MARK_HALF, MARK_GAP = 7.0, 3.0
BEYOND = 16.0  # px the axis runs past the figure
LEVEL_HALF, LEVEL_HIGH = 5.0, 8.0  # the triangle's half width and height
LEVEL_RUN = 18.0  # px of level line outside the triangle's tip


def reserve_axis(scene: Scene, x_world: float) -> None:
    x = scene.px(x_world, 0.0)[0]
    scene.layout.obstacles.reserve(Capsule((x, -1e5), (x, 1e5), 3.0), AXIS_TAG)


def draw_axis(scene: Scene, x_world: float) -> None:
    """The centre line at x = ``x_world`` across everything drawn, with its marks."""
    scene.layout.obstacles.release(AXIS_TAG)
    x = scene.px(x_world, 0.0)[0]
    _, y0, _, y1 = scene.layout.extent()
    top, bottom = (x, y0 - BEYOND), (x, y1 + BEYOND)
    w = scene.style.thin_width
    prims: list[tuple[Prim, int]] = []
    y = top[1]
    while y < bottom[1]:
        y_end = min(y + DASH, bottom[1])
        prims.append((Stroke(((x, y), (x, y_end)), w, "dim"), LAYER_THIN))
        dot = y_end + GAP
        if dot + DOT < bottom[1]:
            prims.append((Stroke(((x, dot), (x, dot + DOT)), w, "dim"), LAYER_THIN))
        y = dot + DOT + GAP
    marks: list[XY] = []
    for end, inward in ((top, 1.0), (bottom, -1.0)):
        for k in (0.0, 1.0):
            yy = end[1] + inward * (6.0 + k * MARK_GAP)
            a, b = (x - MARK_HALF, yy), (x + MARK_HALF, yy)
            prims.append((Stroke((a, b), w * 1.4, "dim"), LAYER_THIN))
            marks += [a, b]
    shapes: list[Shape] = [Capsule(top, bottom, w / 2 + 0.5)]
    shapes += [Capsule(marks[i], marks[i + 1], w) for i in range(0, len(marks), 2)]
    glyph = Glyph("symmetry", paths={"line": (top, bottom), "marks": tuple(marks)})
    scene.add("dimension", "axis", "dimension", "symmetry", prims, shapes, glyph=glyph)


def draw_levels(scene: Scene, axis, values: list[float], datum: float,  # type: ignore[no-untyped-def]
                pts: list[XY], targets: dict[float, XY],
                passes: dict[float, frozenset[int]]) -> None:
    """One level mark per height in ``values`` on the side ``axis`` faces."""
    if not values:
        return
    stations = [axis.coords(scene.px(*v_to_xy(axis, v)))[0] for v in values]
    o_line = axis.reach(scene.layout.extent()) + OFFSET
    depth = depths(scene, axis, stations, pts)
    for v, st in zip(values, stations, strict=True):
        if v in targets:
            depth[st] = axis.coords(targets[v])[1]
    others = frozenset(i for i, it in enumerate(scene.layout.items)
                       if it.kind in ("dimension", "member"))
    size = scene.style.sizes["dim"]
    w = scene.style.thin_width
    for v, a in zip(values, stations, strict=True):
        tip = axis.fig(a, o_line)
        start = axis.fig(a, o_line + LEVEL_RUN)
        d = depth.get(a, o_line - 10.0)
        room = o_line + LEVEL_RUN - d - STOP_SHORT
        hit = thick_hit(scene, axis, a, o_line - 1.0, o_line - 1.0 - d,
                         others | passes.get(v, frozenset()))
        stop = room if hit is None else min(room, LEVEL_RUN + hit - 2.0)
        end = axis.fig(a, o_line + LEVEL_RUN - max(stop, OVERSHOOT))
        up = -1.0  # figure px: above the line
        tri = (tip, (tip[0] - LEVEL_HALF, tip[1] + up * LEVEL_HIGH),
               (tip[0] + LEVEL_HALF, tip[1] + up * LEVEL_HIGH))
        prims: list[tuple[Prim, int]] = [(Stroke((start, end), w * 0.8, "dim"), LAYER_THIN),
                                         (Fill(tri, "paper", "dim", w), LAYER_THIN)]
        shapes: list[Shape] = [Capsule(start, end, w * 0.8),
                               Capsule(tri[1], tri[2], w), Capsule(tri[0], tri[1], w),
                               Capsule(tri[0], tri[2], w)]
        glyph = Glyph("level", points={"tip": tip},
                      paths={"ext": (start, end), "mark": tri})
        scene.add("dimension", axis.name, "dimension", "level", prims, shapes, glyph=glyph)
        text = level_text(v - datum)
        tw, th = text_size(text, size)
        side = axis.out[0]  # +1: the marks stand right of the figure, text further right
        x0 = tip[0] + LEVEL_HALF + 3.0 if side > 0 else tip[0] - LEVEL_HALF - 3.0 - tw
        y0 = tip[1] - 3.0 - th
        scene.add_text(axis.name, "dimension", "level-value", text, size,
                       (x0, y0, x0 + tw, y0 + th), "dim")
