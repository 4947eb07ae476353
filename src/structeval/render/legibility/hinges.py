"""Hinge circles that say which member ends they release.

One convention, drawn and stated in the prompt: a circle centred on a joint releases
every member end there; a circle on one member, clear of the joint by at least its own
diameter, releases that member's end only. A released-end circle nearer the joint than
that reads as the joint's own circle, and two circles that touch cannot be counted —
the two misreadings a frontier reader made of our earlier drawings.
"""

from __future__ import annotations

import itertools
import math

from .record import Record, Violation

TOUCH_GAP = 1.0  # px of paper at least between two hinge circles
CLEAR_TOL = 0.25  # px of round-off allowed on the clearance from the joint


def hinges(rec: Record) -> list[Violation]:
    """Released-end circles clear of their joint by a diameter; no two circles touching."""
    out = []
    circles = rec.glyphs("hinge")
    for it in circles:
        g = it.glyph
        assert g is not None
        if g.facts.get("place") != "end" or it.anchor is None:
            continue
        r = g.lengths["r"]
        clear = math.dist(g.points["centre"], it.anchor.at[0]) - r
        if clear < 2 * r - CLEAR_TOL:
            out.append(Violation("hinges", f"released end of {it.owner}",
                                 f"its circle is {clear:.1f} px from the joint, less than its "
                                 f"diameter ({2 * r:.1f} px): it reads as the joint's hinge"))
    for a, b in itertools.combinations(circles, 2):
        ga, gb = a.glyph, b.glyph
        assert ga is not None and gb is not None
        apart = math.dist(ga.points["centre"], gb.points["centre"])
        gap = apart - ga.lengths["r"] - gb.lengths["r"]
        if gap < TOUCH_GAP:
            out.append(Violation("hinges", f"hinge circles of {a.owner} and {b.owner}",
                                 f"they are {gap:.1f} px apart and run together"))
    return out
