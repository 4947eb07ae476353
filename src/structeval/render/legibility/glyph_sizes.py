"""Glyphs large enough to read in the delivered pixels.

Judged on the record at the delivery profile (:mod:`.delivery`), these are the sizes
below which the four misses of a frontier reader on wide drawings began: a text whose
capitals are a few pixels high, an arrowhead or a couple's head too short to show its
sense, a hinge circle that closes up into a dot. Each minimum is a little under the
size the renderer designs the glyph at, so a drawing delivered at its design size (or
larger) keeps them all and one shrunk by an API to well below it does not.
"""

from __future__ import annotations

import math

from .record import Record, Violation

MIN_TEXT_CAP = 8.0  # px: capital height of any text (the dimension texts are designed at 9.7)
MIN_ARROW_HEAD = 8.0  # px: a force's arrowhead (designed at 10)
MIN_ROW_HEAD = 7.0  # px: the arrowheads of a distributed load (designed at 9)
MIN_COUPLE_R = 20.0  # px: a couple's arc radius (designed at 27)
MIN_COUPLE_HEAD = 11.0  # px: a couple's arrowhead (designed at 15)
MIN_HINGE_R = 4.5  # px: a hinge circle's radius (designed at 5.5)

#: glyph type → [(length name, least px, what it is)]
MINIMUMS: dict[str, list[tuple[str, float, str]]] = {
    "text": [("cap", MIN_TEXT_CAP, "capital height")],
    "arrow": [("head", MIN_ARROW_HEAD, "arrowhead")],
    "row": [("head", MIN_ROW_HEAD, "arrowheads")],
    "couple": [("r", MIN_COUPLE_R, "arc radius"), ("head", MIN_COUPLE_HEAD, "arrowhead")],
    "hinge": [("r", MIN_HINGE_R, "circle radius")],
}


def glyph_sizes(rec: Record) -> list[Violation]:
    """Every text and load or hinge glyph drawn below its least delivered size, and every
    distributed load none of whose arrows is longer than its head (it shows no load)."""
    out = []
    for it in rec.items:
        g = it.glyph
        if g is None or g.type not in MINIMUMS:
            continue
        if g.type == "row":
            longest = max((math.dist(a, b) for a, b in zip(g.paths["tails"], g.paths["tips"],
                                                           strict=True)), default=0.0)
            if longest <= g.lengths.get("head", 0.0):
                out.append(Violation("glyph-sizes", f"row {it.owner}", f"its longest arrow is "
                                     f"{longest:.1f} px: no arrow shows the load"))
        who = f"text {it.text!r} ({it.owner})" if g.type == "text" else f"{g.type} {it.owner}"
        for name, least, what in MINIMUMS[g.type]:
            size = g.lengths.get(name)
            if size is not None and size < least:
                out.append(Violation("glyph-sizes", who, f"its {what} is {size:.1f} px at "
                                     f"{rec.width}×{rec.height}, less than {least:g} px"))
    return out
