"""Legibility rules: checks over a figure's layout record, each returning violations.

A benchmark item is fair only if a careful reader can take everything it needs
from the picture. These rules state what that means for our drawings, in
delivered pixels, so that the generator, ``--debug``-style tools and the tests can
all ask the same question of any figure (``check(layout_model(...))`` costs no
pixels). The readability proof in the tests then shows that a reader following
these facts rebuilds every task exactly.

Rules (see each module): ``size`` (long side ≥ 1,600 px), ``couples``, ``supports``
(:mod:`.symbols`), ``texts`` and ``dimensions`` (:mod:`.texts`), ``coordinates`` and
``load-positions``, ``arrows`` (:mod:`.positions`), ``page-texts`` (:mod:`.page`: the
words of an exam page around the figure), ``legend`` (:mod:`.legend`: the parametric
legend and the unit note), ``symmetry``, ``levels`` and ``slopes`` (:mod:`.exam`).
"""

from __future__ import annotations

from collections.abc import Callable

from .exam import levels, slopes, symmetry
from .legend import legend
from .page import page_texts
from .positions import arrows_point, coordinates, load_positions
from .record import Record, Violation
from .sheet import check_sheet, view_rects
from .symbols import couples, supports
from .texts import association, dimension_texts, overlaps

MIN_LONG_SIDE = 1600


def size(rec: Record) -> list[Violation]:
    long_side = max(rec.width, rec.height)
    if long_side < MIN_LONG_SIDE:
        return [Violation("size", "image", f"{rec.width}×{rec.height} px: the long side is "
                          f"under {MIN_LONG_SIDE} px")]
    return []


Rule = Callable[[Record], list[Violation]]
RULES: dict[str, Rule] = {
    "size": size, "couples": couples, "supports": supports, "text-overlaps": overlaps,
    "text-association": association, "dimensions": dimension_texts,
    "coordinates": coordinates, "load-positions": load_positions, "arrows": arrows_point,
    "page-texts": page_texts,
    "legend": legend, "symmetry": symmetry, "levels": levels, "slopes": slopes,
}


def check(result: object, rules: dict[str, Rule] | None = None) -> list[Violation]:
    """Every violation of ``rules`` (default: all) in a figure's layout record
    (a ``FigureLayout``, a ``RenderResult`` or a :class:`Record`); a drawing sheet (style
    ``sheet``) is checked view by view (:mod:`.sheet`)."""
    rec = Record.of(result)
    if getattr(result, "style", None) == "sheet":
        return check_sheet(rec, rules or RULES)
    return [v for rule in (rules or RULES).values() for v in rule(rec)]


__all__ = ["MIN_LONG_SIDE", "RULES", "Record", "Violation", "check", "view_rects"]
