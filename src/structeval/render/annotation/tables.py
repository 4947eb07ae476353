"""Ruled tables of a drawing sheet: the load table and the title block.

A table is a grid of cells, each cell one line of text (a layout item of kind
``page``), with rules between rows and columns. Columns are as wide as their widest
cell, so a reader finds a cell's column from the column's header straight above it
and its row from the cells beside it.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..scene.fonts import text_size
from ..scene.scene import Scene
from ..scene.shapes import Rect
from .grid_marks import rule, sheet_text

PAD_X, PAD_Y = 12.0, 8.0  # px inside a cell around its text


def table_size(rows: Sequence[Sequence[str]], size: float) -> tuple[list[float], float]:
    """Column widths and the row height of a table of ``rows`` (the first is the header)."""
    columns = max(len(r) for r in rows)
    widths = [max((text_size(r[c], size)[0] for r in rows if c < len(r) and r[c]), default=0.0)
              + 2 * PAD_X for c in range(columns)]
    height = max(text_size("Hg", size)[1], max(text_size(c, size)[1] for r in rows for c in r if c))
    return widths, height + 2 * PAD_Y


def draw_table(scene: Scene, left: float, top: float, rows: Sequence[Sequence[str]],
               size: float, *, role: str = "cell", min_widths: Sequence[float] = ()) -> Rect:
    """The table with its top-left at (``left``, ``top``); returns its box."""
    widths, pitch = table_size(rows, size)
    widths = [max(w, m) for w, m in zip(widths, [*min_widths, *[0.0] * len(widths)], strict=False)]
    right = left + sum(widths)
    bottom = top + pitch * len(rows)
    w = scene.style.line_width
    for i in range(len(rows) + 1):
        y = top + i * pitch
        rule(scene, (left, y), (right, y), w * (1.4 if i in (0, 1, len(rows)) else 0.8))
    x = left
    for c, width in enumerate([0.0, *widths]):
        x += width
        rule(scene, (x, top), (x, bottom), w * (1.4 if c in (0, len(widths)) else 0.8))
    for i, row in enumerate(rows):
        x = left
        for c, text in enumerate(row):
            if text:
                sheet_text(scene, "header" if i == 0 else role, text, size,
                           (x + PAD_X, top + i * pitch + PAD_Y))
            x += widths[c]
    return (left, top, right, bottom)
