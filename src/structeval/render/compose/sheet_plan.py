"""The plan view of a drawing sheet: grid lines with their bubbles, the spacings between
them, the columns and the secondary beams.

The plan is where a reader finds each frame's tributary width (the spacings of the
numbered grid lines) and where the secondary beams land; it is drawn at the same
scale as the elevations. Lettered grid lines run up the page (their bubbles on top),
numbered ones across it (bubbles on the left, grid line 1 at the bottom). The
spacings are written between the ticks of a chain below the plan (lettered lines)
and right of it (numbered lines), each text centred between its two grid lines.
"""

from __future__ import annotations

import itertools
from typing import Any

from ..annotation.grid_marks import bubble, bubble_radius, grid_line, sheet_text, view_title
from ..reading.value_text import fmt_number
from ..scene.fonts import text_size
from ..scene.glyphs import Glyph
from ..scene.scene import LAYER_MEMBER, LAYER_THIN, Fill, Prim, Scene, Stroke
from ..scene.shapes import XY, Box, Capsule
from ..scene.styles import Style

OVERRUN = 60.0  # px a grid line runs past the outermost crossing line
CHAIN_GAP = 46.0  # px from the grid's end to the spacing chain
COLUMN_HALF = 6.0  # px: half the side of a column's square


def plan_view(plan: dict[str, Any], style: Style, k: float, sizes: dict[str, float]) -> Scene:
    """The plan of ``plan`` (letters/x and numbers/y in metres, secondary beams) at ``k``
    px/m, in its own scene (design pixels, y down)."""
    scene = Scene(style, k)
    xs, ys = [float(v) for v in plan["x"]], [float(v) for v in plan["y"]]
    letters, numbers = [str(t) for t in plan["letters"]], [str(t) for t in plan["numbers"]]
    size = sizes["bubble"]
    r = bubble_radius(letters + numbers, size)
    left, right = scene.px(xs[0], 0)[0] - OVERRUN, scene.px(xs[-1], 0)[0] + OVERRUN
    top, bottom = scene.px(0, ys[-1])[1] - OVERRUN, scene.px(0, ys[0])[1] + OVERRUN
    for name, x in zip(letters, xs, strict=True):
        px = scene.px(x, 0)[0]
        grid_line(scene, (px, top), (px, bottom), name)
        bubble(scene, (px, top - r), name, size, r, "y")
    for name, y in zip(numbers, ys, strict=True):
        py = scene.px(0, y)[1]
        grid_line(scene, (left, py), (right, py), name)
        bubble(scene, (left - r, py), name, size, r, "x")
    for x in xs:
        for y in ys:
            cx, cy = scene.px(x, y)
            sq = ((cx - COLUMN_HALF, cy - COLUMN_HALF), (cx + COLUMN_HALF, cy - COLUMN_HALF),
                  (cx + COLUMN_HALF, cy + COLUMN_HALF), (cx - COLUMN_HALF, cy + COLUMN_HALF))
            scene.add("page", "column", "figure", "column", [(Fill(sq, "ink", "ink", 1.0),
                                                              LAYER_MEMBER)], [Box(
                (sq[0][0], sq[0][1], sq[2][0], sq[2][1]))])
    for sb in plan.get("secondary", []):
        _secondary(scene, sb, sizes["plan"])
    dim = sizes["plan"]
    _chain(scene, [scene.px(x, 0)[0] for x in xs], [b - a for a, b in itertools.pairwise(xs)],
           bottom + CHAIN_GAP, "x", dim)
    _chain(scene, [scene.px(0, y)[1] for y in ys], [b - a for a, b in itertools.pairwise(ys)],
           right + CHAIN_GAP, "y", dim)
    view_title(scene, str(plan["title"]), (left + right) / 2, bottom + CHAIN_GAP + 60.0,
               sizes["view-title"])
    return scene


def _secondary(scene: Scene, sb: dict[str, Any], size: float) -> None:
    """A secondary beam: a thick dashed line between two numbered grid lines, its name
    beside its middle."""
    a, b = scene.px(float(sb["x"]), float(sb["y0"])), scene.px(float(sb["x"]), float(sb["y1"]))
    w = scene.style.member_width
    glyph = Glyph("secondary", paths={"line": (a, b)})
    scene.add("page", str(sb["label"]), "figure", "secondary",
              [(Stroke((a, b), w, "ink", dash=18.0), LAYER_MEMBER)], [Capsule(a, b, w)],
              glyph=glyph)
    _, h = text_size(str(sb["label"]), size)
    sheet_text(scene, "secondary-label", str(sb["label"]), size,
               (a[0] + 10.0, (a[1] + b[1]) / 2 - h - 8.0))


def _chain(scene: Scene, stations: list[float], values: list[float], offset: float, axis: str,
           size: float) -> None:
    """A spacing chain: a line through ticks at ``stations`` (x along the page for
    ``axis`` x, else y), each interval's value centred between its ticks."""
    w = scene.style.thin_width

    def at(s: float, o: float) -> XY:
        return (s, o) if axis == "x" else (o, s)

    line = (at(stations[0] - 12.0, offset), at(stations[-1] + 12.0, offset))
    prims: list[tuple[Prim, int]] = [(Stroke(line, w, "dim"), LAYER_THIN)]
    ticks = []
    for s in stations:
        t0, t1 = at(s - 6.0, offset + 6.0), at(s + 6.0, offset - 6.0)
        prims.append((Stroke((t0, t1), w * 1.6, "dim"), LAYER_THIN))
        ticks.append(at(s, offset))
    glyph = Glyph("plan-chain", paths={"line": line, "ticks": tuple(ticks)}, facts={"axis": axis})
    scene.add("page", "plan", "figure", "plan-chain", prims,
              [Capsule(*line, w + 6.0)], glyph=glyph)
    for (s0, s1), v in zip(itertools.pairwise(stations), values, strict=True):
        text = fmt_number(v)
        _tw, th = text_size(text, size)
        mid = (s0 + s1) / 2
        if axis == "x":
            sheet_text(scene, "plan-dim", text, size, (mid, offset - 10.0 - th), align="centre")
        else:
            sheet_text(scene, "plan-dim", text, size, (offset + 12.0, mid - th / 2))
