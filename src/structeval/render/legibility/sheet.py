"""The legibility rules on a drawing sheet: every view checked as the figure it is.

A sheet holds several views, each inside its border (a ``view`` glyph). Each
elevation is a figure of its own, so every rule (:data:`.RULES`) runs on its items
alone (its joints are dimensioned by its own chains, not by a neighbour's); the rules
about texts and the sheet's own words (size, text overlaps, page texts) run on the
whole sheet, at its native size.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..scene.layout import LayoutItem
from ..scene.shapes import Rect
from .record import Record, Violation

SHEET_WIDE = ("size", "text-overlaps", "page-texts")
FIGURE_VIEW = "elevation"  # views named "elevation:<grid>" are figures


def view_rects(items: Sequence[LayoutItem]) -> dict[str, Rect]:
    """Each view's border box in delivered pixels, by the view's name."""
    return {str(it.glyph.facts["view"]): it.bbox for it in items
            if it.glyph is not None and it.glyph.type == "view"}


def in_view(item: LayoutItem, rect: Rect) -> bool:
    """Whether the item's centre lies inside the view's border."""
    x0, y0, x1, y1 = item.bbox
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    return rect[0] <= cx <= rect[2] and rect[1] <= cy <= rect[3]


def check_sheet(rec: Record, rules: dict[str, Callable[[Record], list[Violation]]],
                ) -> list[Violation]:
    """Every violation on the sheet: ``rules`` per elevation, the sheet-wide ones over all."""
    out = [v for name in SHEET_WIDE if name in rules for v in rules[name](rec)]
    for name, rect in sorted(view_rects(rec.items).items()):
        if not name.startswith(FIGURE_VIEW):
            continue
        figure = [it for it in rec.items if it.kind != "page" and in_view(it, rect)]
        view = Record(figure, rec.width, rec.height)
        out += [Violation(v.rule, f"{name}: {v.subject}", v.reason)
                for rule in rules.values() for v in rule(view)]
    return out
