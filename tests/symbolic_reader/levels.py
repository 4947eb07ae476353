"""Level marks: heights above a datum ("▽ +3.500"), instead of a vertical chain.

A level mark is a small triangle whose tip stands on a horizontal level line; the
level text nearest to it states the height in metres above the datum (±0.000).
Its level line is an extension line: the places it runs to (and those in plain
sight along it) take that height. A chain's tick at the same height is tied to it.
"""

from __future__ import annotations

from .dims_types import Chain
from .geometry import box_segment, dot
from .view import Drawing, Glyph, ReadError, Text


def _distance(t: Text, g: Glyph) -> float:
    a, b = g.paths["ext"]
    tri = g.paths["mark"]
    return min([box_segment(t.box, a, b)]
               + [box_segment(t.box, tri[i], tri[(i + 1) % 3]) for i in range(3)])


def read_levels(d: Drawing) -> list[Chain]:
    """Each level mark as a one-station y "chain" whose value is fixed by its text."""
    marks = d.of("level")
    found = [t for t in d.texts if t.value is not None and t.value.kind == "level"]
    owners: dict[int, list[Text]] = {i: [] for i in range(len(marks))}
    for t in found:
        if not marks:
            raise ReadError(f"the level {t.text!r} stands at no level mark")
        owners[min(range(len(marks)), key=lambda i: _distance(t, marks[i]))].append(t)
    out = []
    along = (0.0, 1.0)
    for i, g in enumerate(marks):
        if len(owners[i]) != 1:
            raise ReadError(f"a level mark has {len(owners[i])} level texts")
        value = owners[i][0].value
        assert value is not None
        start, end = g.paths["ext"]
        out.append(Chain("y", along, (start, end), [dot(g.pts["tip"], along)], [end],
                         [value.value], level=True, outer=[start]))
    return out
