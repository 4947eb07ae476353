"""Two force arrows never share one line.

Two opposite forces at neighbouring joints, each laid beside the member between
them with its head at its own joint, put both tails in the same stretch of paper:
drawn on one line they read as a single double-headed arrow, and the picture no
longer says which value belongs to which head (found in review of ``truss-s21-0017``,
where 12 kN at N and 50 kN at O became one arrow). The same holds for two arrows
that follow each other on one line with less than an arrowhead of paper between
them, or that run side by side closer than an arrowhead is wide: a reader sees one
stroke. The rule refuses such pairs (:func:`clashes` names them): the figure draws
those two arrows shorter (``compose.figure._structure_and_loads``), and a layout that
still breaks the rule is crowded and is drawn again with more room
(``compose.figure.fit``).
"""

from __future__ import annotations

import itertools
import math

from ..scene.layout import LayoutItem
from ..scene.shapes import XY
from .record import Record, Violation

PARALLEL_DEG = 3.0  # arrows within this angle of each other can run together


def _axis(it: LayoutItem) -> tuple[XY, XY, float]:
    g = it.glyph
    assert g is not None
    tail, tip = g.points["tail"], g.points["tip"]
    n = math.hypot(tip[0] - tail[0], tip[1] - tail[1]) or 1.0
    return tail, ((tip[0] - tail[0]) / n, (tip[1] - tail[1]) / n), n


def run_together(a: LayoutItem, b: LayoutItem) -> str | None:
    """Why two force arrows read as one stroke (None when they do not): how far apart
    they lie across their common line, and how much of it they share or how little paper
    is left between them along it."""
    ga, gb = a.glyph, b.glyph
    assert ga is not None and gb is not None
    tail, u, n = _axis(a)
    _, v, _ = _axis(b)
    if abs(u[0] * v[1] - u[1] * v[0]) > math.sin(math.radians(PARALLEL_DEG)):
        return None
    ends = (gb.points["tail"], gb.points["tip"])
    across = max(abs((q[0] - tail[0]) * u[1] - (q[1] - tail[1]) * u[0]) for q in ends)
    if across >= max(ga.lengths["head_width"], gb.lengths["head_width"]):
        return None
    t0, t1 = sorted((q[0] - tail[0]) * u[0] + (q[1] - tail[1]) * u[1] for q in ends)
    shared = min(n, t1) - max(0.0, t0)
    if shared > 0:
        return f"they share {shared:.0f} px of one line ({across:.1f} px apart)"
    gap = -shared
    if gap < max(ga.lengths["head"], gb.lengths["head"]):
        return f"they follow each other on one line with {gap:.1f} px between them"
    return None


def clashes(rec: Record) -> list[tuple[LayoutItem, LayoutItem, str]]:
    """Every pair of force arrows that a reader would take for one arrow, and why."""
    found = []
    for a, b in itertools.combinations(rec.glyphs("arrow"), 2):
        why = run_together(a, b)
        if why is not None:
            found.append((a, b, why))
    return found


def arrow_lines(rec: Record) -> list[Violation]:
    """The rule: no two force arrows that a reader would take for one."""
    return [Violation("arrow-lines", f"forces {a.owner} and {b.owner}",
                      f"{why}: they read as one arrow, and which value belongs to which "
                      "head is lost") for a, b, why in clashes(rec)]
