"""Legibility rules: checks over a figure's layout record, each returning violations.

A benchmark item is fair only if a careful reader can take everything it needs
from the picture. These rules state what that means for our drawings, in
delivered pixels, so that the generator, ``--debug``-style tools and the tests can
all ask the same question of any figure (``check(layout_model(...))`` costs no
pixels). The readability proof in the tests then shows that a reader following
these facts rebuilds every task exactly.

Rules (see each module): ``size`` (long side ≥ 1,600 px), ``couples``, ``supports``
(:mod:`.symbols`), ``texts`` and ``dimensions`` (:mod:`.texts`), ``coordinates`` and
``load-positions``, ``arrows`` (:mod:`.positions`), ``arrow-lines`` (:mod:`.arrow_lines`:
no two force arrows on one line), ``page-texts`` (:mod:`.page`: the
words of an exam page around the figure), ``legend`` (:mod:`.legend`: the parametric
legend and the unit note), ``symmetry``, ``levels`` and ``slopes`` (:mod:`.exam`),
``glyph-sizes`` (:mod:`.glyph_sizes`: texts, arrowheads, arcs and circles large enough)
and ``hinges`` (:mod:`.hinges`: the two hinge drawings told apart).

``check(..., profile=1568)`` judges a figure as a model receives it: every rule but
``size`` (which is about the stored image) on the record scaled to the delivery
profile (:mod:`.delivery`). A drawing sheet is read at its native resolution (the
harness sends it whole, in tiles or through a zoom tool), so it is judged there.
"""

from __future__ import annotations

from collections.abc import Callable

from .arrow_lines import arrow_lines
from .delivery import DELIVERY_LONG_SIDE, PROFILES, SMALL_LONG_SIDE, at_profile
from .exam import levels, slopes, symmetry
from .glyph_sizes import glyph_sizes
from .hinges import hinges
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
    "arrow-lines": arrow_lines, "page-texts": page_texts,
    "legend": legend, "symmetry": symmetry, "levels": levels, "slopes": slopes,
    "glyph-sizes": glyph_sizes, "hinges": hinges,
}


def check(result: object, rules: dict[str, Rule] | None = None, profile: int | None = None,
          ) -> list[Violation]:
    """Every violation of ``rules`` (default: all) in a figure's layout record
    (a ``FigureLayout``, a ``RenderResult`` or a :class:`Record`), judged at the delivery
    ``profile`` (the long side in px the image is shrunk to; None: the stored size); a
    drawing sheet (style ``sheet``) is checked view by view at its native size
    (:mod:`.sheet`)."""
    rec = Record.of(result)
    chosen = rules or RULES
    if getattr(result, "style", None) == "sheet":
        return check_sheet(rec, chosen)
    seen = at_profile(rec, profile)
    return [v for name, rule in chosen.items() for v in rule(rec if name == "size" else seen)]


__all__ = ["DELIVERY_LONG_SIDE", "MIN_LONG_SIDE", "PROFILES", "RULES", "SMALL_LONG_SIDE",
           "Record", "Violation", "at_profile", "check", "view_rects"]
