"""What a reader sees of each drawn thing: its drawn geometry, in delivered image pixels.

A layout item's *shapes* serve collision checks (a label's box, a member's capsule);
its *glyph* records the picture as a reader takes it in: where a member's ends are,
which support symbol stands where and which way its ground lies, where an arrow's
tail and tip are, which way a couple's arc turns. The legibility rules
(:mod:`.legibility`) and the readability proof in the tests read glyphs only, so a
glyph holds drawn facts and nothing the picture does not show (no element ids, no
model values, no scale).

Geometry is kept as named points and point paths (mapped with the item, so the
scanned tilt moves them too), lengths (scaled with the delivered size) and facts
that no similarity changes (a symbol's name, a turning sense, a swept angle). The
vocabulary, per ``type``:

* ``member``: ``ends`` (the two end points of the drawn segment), ``width``.
* ``hinge``: ``centre``, ``r``; fact ``place`` = ``joint`` (a circle on the joint:
  every member there released) or ``end`` (beside the joint on one member).
* ``support``: ``attach`` (the joint), ``ground`` (a point on the ground side),
  ``ground_line`` (the rolling surface, rails or wall), ``size`` (attach → ground line),
  ``hatch_len``, ``hatch_gap``; facts ``symbol``, ``set`` (the symbol convention),
  ``hatch_count``. Set ``a`` symbols: pin, roller, fixed, slider. Set ``b`` (link bars,
  :mod:`.link_supports`): ``link`` (one bar), ``two-links`` (two bars meeting at the
  joint), ``parallel-links`` (two parallel bars), ``wall``; their bars are the paths
  ``bar_joint`` and ``bar_ground`` (per bar, the centres of its joint-side circle — the
  joint's own hinge circle when it has one — and of its ground-side circle), with
  ``bar_r`` (their circles' radius) and fact ``bars`` (how many). A bar restrains the
  direction along it.
* ``arrow`` (a force): ``tail``, ``tip``, ``head``, ``head_width``.
* ``row`` (a distributed load): ``tips`` and ``tails`` of its arrows, one per
  station in order along the load (a zero-length arrow has tip = tail), ``head``.
* ``couple``: ``centre``, ``start`` (where the arc begins), ``tip`` and ``head_base``
  (the arrowhead), ``r``, ``head``, ``head_width``; facts ``sweep`` (degrees) and
  ``sense`` (``ccw``/``cw`` as seen on the page).
* ``angle`` (an angle mark): ``vertex``, ``ref`` (end of the dashed reference),
  ``ray`` (where the arc meets the marked direction), ``r``.
* ``chain`` (a dimension chain): ``line`` (its two ends), ``ticks`` (the stations,
  in order along the line), ``ext_outer``/``ext_inner`` (per tick, the two ends of its
  extension line; equal to the tick when it has none); fact ``axis`` (x or y). Which
  text belongs to which interval is not recorded: a reader associates texts by position.
* ``symmetry`` (exam: a centre line): ``line`` (its two ends), ``marks`` (the ends of the
  short strokes of the symmetry mark at both ends).
* ``level`` (exam: a level mark): ``tip`` (the triangle's tip on the level), ``ext`` (the
  level line, outer end first), ``mark`` (the triangle's corners). Its text ("+3.500")
  is associated by position, as a chain's are.
* ``slope`` (exam: a rise:run triangle): ``start`` and ``end`` (the hypotenuse, on its
  member), ``corner`` (the right angle); its two numbers are associated by position.
* ``break`` (a beam drawn in two rows, :mod:`..compose.rows`): ``at`` (the cut joint),
  ``end`` (where the member's run past the joint stops: right of ``at`` at the end of
  the upper row, left of it at the start of the lower row), ``line`` (the break line
  across it, with its Z kink).
* ``text``: ``size`` (font size in px) and ``cap`` (cap height in px).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .shapes import XY, PointMap, map_scale

Fact = str | float | int | bool


def _round(p: XY) -> list[float]:
    return [round(p[0], 2), round(p[1], 2)]


@dataclass(frozen=True)
class Glyph:
    type: str
    points: Mapping[str, XY] = field(default_factory=dict)
    paths: Mapping[str, tuple[XY, ...]] = field(default_factory=dict)
    lengths: Mapping[str, float] = field(default_factory=dict)
    facts: Mapping[str, Fact] = field(default_factory=dict)

    def mapped(self, f: PointMap) -> Glyph:
        k = map_scale(f)
        return Glyph(self.type, {n: f(p) for n, p in self.points.items()},
                     {n: tuple(f(p) for p in ps) for n, ps in self.paths.items()},
                     {n: v * k for n, v in self.lengths.items()}, dict(self.facts))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        out.update({n: _round(p) for n, p in self.points.items()})
        out.update({n: [_round(p) for p in ps] for n, ps in self.paths.items()})
        out.update({n: round(v, 2) for n, v in self.lengths.items()})
        out.update(self.facts)
        return out


@dataclass(frozen=True)
class Anchor:
    """Where in the model a drawn thing belongs, in image pixels: the renderer's own
    knowledge (the joint a support stands on, the place a load acts, the two ends of a
    distributed load) for its legibility checks. Not part of the picture: a reader of
    the drawing must find these places from the glyphs."""

    target: str  # "point:P3" or "link:L2"
    at: tuple[XY, ...]

    def mapped(self, f: PointMap) -> Anchor:
        return Anchor(self.target, tuple(f(p) for p in self.at))

    def to_json(self) -> dict[str, Any]:
        return {"target": self.target, "at": [_round(p) for p in self.at]}
