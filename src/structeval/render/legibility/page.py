"""The page around a figure (the exam-page style): its words keep clear of the figure.

A problem statement that runs into the drawing, or a page number printed over a
dimension, would make the figure's own texts ambiguous. Each text of the page
(kind ``page``) must be on the sheet and touch neither another page text nor
anything of the figure. (The figure's labels keep off the page texts through the
``texts`` rule, which treats every non-label item as graphics.)
"""

from __future__ import annotations

from ..scene.shapes import touches
from .record import Record, Violation


def page_texts(rec: Record) -> list[Violation]:
    out = []
    words = [it for it in rec.items if it.kind == "page" and it.text]
    figure = [it for it in rec.items if it.kind != "page"]
    for i, it in enumerate(words):
        who = f"page text {it.text!r}"
        x0, y0, x1, y1 = it.bbox
        if rec.on_page and (x0 < 0 or y0 < 0 or x1 > rec.width or y1 > rec.height):
            out.append(Violation("page", who, f"outside the {rec.width}×{rec.height} page"))
        for other in words[i + 1:]:
            if any(touches(a, b, 0.0) for a in it.shapes for b in other.shapes):
                out.append(Violation("page", who, f"overlaps page text {other.text!r}"))
        for g in figure:
            if any(touches(a, b, 0.0) for a in it.shapes for b in g.shapes):
                out.append(Violation("page", who, f"overlaps the figure's {g.kind} {g.owner} "
                                     f"({g.role})"))
    return out
