"""The marks a drawing sheet shares between its views: words of the sheet, axis bubbles,
level marks and the border of a view.

A sheet's own words (view titles, bubble letters, level values, table cells) are
layout items of kind ``page``, as an exam page's are: a reader tells them from the
figure's labels (a dimension value, a load value) by what they are, and the symbolic
reader of an elevation reads only the figure's. Each carries a glyph, so the
visibility proof can find every text and a reader can find every bubble, level mark
and view border without the renderer's ids.
"""

from __future__ import annotations

from ..scene.fonts import cap_height, text_size
from ..scene.glyphs import Glyph
from ..scene.scene import LAYER_TEXT, LAYER_THIN, Disc, Fill, Prim, Scene, Stroke, Text, prim_bbox
from ..scene.shapes import XY, Box, Capsule, Rect

BUBBLE_PAD = 1.45  # a bubble's radius against its text's half-diagonal height
LEVEL_HALF, LEVEL_HIGH = 7.0, 10.0  # px: the level triangle's half width and height


def sheet_text(scene: Scene, role: str, text: str, size: float, at: XY, *,
               align: str = "left", owner: str = "sheet") -> Rect:
    """A word of the sheet with its top-left (``align="left"``), top-centre ("centre") or
    top-right ("right") at ``at``; returns its box (what the reader and OCR see)."""
    w, _ = text_size(text, size)
    x = at[0] - {"left": 0.0, "centre": w / 2, "right": w}[align]
    prim = Text(x, at[1], text, size, "text")
    box = prim_bbox(prim)
    glyph = Glyph("text", lengths={"size": size, "cap": cap_height(size)})
    scene.add("page", owner, "figure", role, [(prim, LAYER_TEXT)], [Box(box)], text=text,
              glyph=glyph)
    return box


def centred_text(scene: Scene, role: str, text: str, size: float, centre: XY,
                 owner: str = "sheet") -> Rect:
    """A word centred on ``centre`` (both ways), as in a bubble or a table cell."""
    _, h = text_size(text, size)
    return sheet_text(scene, role, text, size, (centre[0], centre[1] - h / 2), align="centre",
                      owner=owner)


def bubble_radius(labels: list[str], size: float) -> float:
    """One radius for every bubble of a sheet: the widest label fits with room."""
    widest = max(max(text_size(t, size)) for t in labels)
    return BUBBLE_PAD * widest / 2 + 6.0


def bubble(scene: Scene, centre: XY, label: str, size: float, r: float, axis: str) -> None:
    """An axis bubble: a circle on the end of grid line ``label`` with its name inside;
    ``axis`` is the direction the grid line runs on the page (x or y)."""
    w = scene.style.line_width
    glyph = Glyph("bubble", points={"centre": centre}, lengths={"r": r}, facts={"axis": axis})
    scene.add("page", f"grid:{label}", "figure", "bubble",
              [(Disc(centre, r, "paper", "ink", w), LAYER_THIN)],
              [Capsule(centre, centre, r + w / 2)], glyph=glyph)
    centred_text(scene, "bubble-label", label, size, centre, owner=f"grid:{label}")


def grid_line(scene: Scene, a: XY, b: XY, label: str) -> None:
    """A grid line (chain-dotted, thin) from ``a`` to ``b``."""
    w = scene.style.thin_width
    glyph = Glyph("grid-line", paths={"line": (a, b)}, facts={"grid": label})
    scene.add("page", f"grid:{label}", "figure", "grid-line",
              [(Stroke((a, b), w, "faint", dash=14.0), LAYER_THIN)], [Capsule(a, b, w)],
              glyph=glyph)


def level_mark(scene: Scene, tip: XY, text: str, size: float) -> Rect:
    """A level mark: an open triangle standing on its tip on the level, a short level
    line to its right and the level's value above it."""
    w = scene.style.line_width
    tri = (tip, (tip[0] - LEVEL_HALF, tip[1] - LEVEL_HIGH),
           (tip[0] + LEVEL_HALF, tip[1] - LEVEL_HIGH))
    run = (tip[0] - LEVEL_HALF - 4.0, tip[1]), (tip[0] + LEVEL_HALF + 60.0, tip[1])
    prims: list[tuple[Prim, int]] = [(Fill(tri, "paper", "ink", w), LAYER_THIN),
                                     (Stroke(run, w * 0.8, "ink"), LAYER_THIN)]
    glyph = Glyph("level-mark", points={"tip": tip}, paths={"ext": run, "mark": tri})
    scene.add("page", "level", "figure", "level", prims,
              [Capsule(*run, w), Capsule(tri[1], tri[2], w)], glyph=glyph)
    _, h = text_size(text, size)
    return sheet_text(scene, "level-value", text, size,
                      (tip[0] + LEVEL_HALF + 4.0, tip[1] - LEVEL_HIGH - 4.0 - h))


def rule(scene: Scene, a: XY, b: XY, width: float, role: str = "rule") -> None:
    """A straight line of the sheet (a table rule, an underline)."""
    scene.add("page", "sheet", "figure", role, [(Stroke((a, b), width, "ink"), LAYER_THIN)],
              [Capsule(a, b, width / 2 + 0.5)])


def view_border(scene: Scene, rect: Rect, name: str) -> None:
    """The frame around one view of the sheet: what says which marks belong together."""
    x0, y0, x1, y1 = rect
    corners = ((x0, y0), (x1, y0), (x1, y1), (x0, y1))
    w = scene.style.line_width
    glyph = Glyph("view", paths={"outline": corners}, facts={"view": name})
    scene.add("page", f"view:{name}", "figure", "view-border",
              [(Stroke(corners, w, "ink", closed=True), LAYER_THIN)],
              [Capsule(corners[i], corners[(i + 1) % 4], w) for i in range(4)], glyph=glyph)


def view_title(scene: Scene, text: str, centre_x: float, top: float, size: float) -> float:
    """A view's title, underlined, centred on ``centre_x``; returns its bottom."""
    x0, _, x1, y1 = sheet_text(scene, "view-title", text, size, (centre_x, top), align="centre")
    rule(scene, (x0, y1 + 6.0), (x1, y1 + 6.0), scene.style.line_width * 1.4, "underline")
    return y1 + 8.0
