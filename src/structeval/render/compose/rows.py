"""A long beam drawn in two rows, one above the other, cut at one joint.

Why: an API shrinks a drawing to its long-side limit, and a long beam with many short
intervals cannot be drawn small enough for that without its dimension texts losing
their room between the ticks. Cut in two, each row is half as long, so the same glyphs
reach the model about twice as large. The cut joint is drawn at the end of the upper
row and the start of the lower one, with a break mark and its letter in both, as a
draughtsman continues a long member on the next line of the sheet.

What is cut: a beam whose joints lie on one horizontal line, joined in order, at the
inner joint nearest its middle, preferring one with nothing of its own and never one
a couple acts at. What stands at
the cut joint (a support, a load) is drawn once, in the upper row; a hinge there is
drawn in both, as each row's member end is released.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...model.types import Model
from ..reading.value_text import ValueText
from ..scene.scene import Scene, absorb, drawn_box
from ..scene.shapes import Similarity

ROW_GAP = 48.0  # px of paper between the lower edge of the upper row and the lower row


@dataclass(frozen=True)
class Row:
    """What a row takes from the whole beam: its value labels (one parametric legend for
    both rows), its joint letters by point id, and where it is cut: the joint and the
    side the beam goes on (+1: right, the upper row; -1: left, the lower row)."""

    values: ValueText
    names: dict[str, str]
    cut: str
    outward: int


def _is_straight_beam(model: Model) -> bool:
    """Joints on one horizontal line, each link joining two neighbours in x order."""
    if len(model.points) < 3 or len({round(p.y, 9) for p in model.points}) != 1:
        return False
    order = {p.id: i for i, p in enumerate(sorted(model.points, key=lambda p: p.x))}
    pairs = sorted(tuple(sorted((order[lk.a], order[lk.b]))) for lk in model.links)
    return pairs == [(i, i + 1) for i in range(len(model.points) - 1)]


def cut_joints(model: Model) -> list[str]:
    """The joints a two-row drawing may cut the beam at, best first (none when it cannot
    be cut): inner joints with nothing of their own (no support, load or hinge at them)
    in the middle third, nearest the middle first, then every other inner joint by its
    distance from the middle; never one a couple acts at (its arc goes round the joint,
    across the break mark)."""
    if not _is_straight_beam(model):
        return []
    at_point = [ld for ld in model.loads if ld.target.type == "point"]
    turned = {ld.target.id for ld in at_point if ld.kind == "bendingMoment"}
    owned = {s.at for s in model.supports} | {ld.target.id for ld in at_point}
    owned |= {lk.a for lk in model.links if lk.hinge_a} | {lk.b for lk in model.links
                                                           if lk.hinge_b}
    xs = [p.x for p in model.points]
    lo, hi = min(xs), max(xs)
    middle, third = (lo + hi) / 2, (hi - lo) / 6
    inner = sorted((p for p in model.points if lo < p.x < hi and p.id not in turned),
                   key=lambda p: (abs(p.x - middle), p.x))
    free = [p for p in inner if p.id not in owned and abs(p.x - middle) <= third]
    return [p.id for p in free] + [p.id for p in inner if p not in free]


def halves(model: Model, cut: str) -> tuple[Model, Model]:
    """The beam left and right of the cut joint (which both keep), each with its own
    links and the supports and loads that belong to them; what stands at the cut joint
    itself (a support, a load) is drawn once, in the upper row."""
    at = model.point(cut).x
    out = []
    for keep in (lambda x: x <= at, lambda x: x >= at):
        pids = {p.id for p in model.points if keep(p.x)}
        links = tuple(lk for lk in model.links if lk.a in pids and lk.b in pids)
        lids = {lk.id for lk in links}
        out.append(Model(
            tuple(p for p in model.points if p.id in pids), links,
            tuple(s for s in model.supports if s.at in pids and (s.at != cut or not out)),
            tuple(ld for ld in model.loads
                  if (ld.target.id in lids if ld.target.type == "link"
                      else ld.target.id in pids and (ld.target.id != cut or not out)))))
    return out[0], out[1]


def stack(into: Scene, upper: Scene, lower: Scene) -> None:
    """The two rows into one scene: the upper where it was drawn, the lower under it,
    left edges aligned."""
    ux0, _, _, uy1 = drawn_box(upper)
    lx0, ly0, _, _ = drawn_box(lower)
    absorb(into, upper, Similarity.shift_zoom(0.0, 0.0, 1.0))
    absorb(into, lower, Similarity.shift_zoom(ux0 - lx0, uy1 + ROW_GAP - ly0, 1.0))


__all__ = ["ROW_GAP", "Row", "cut_joints", "halves", "stack"]
