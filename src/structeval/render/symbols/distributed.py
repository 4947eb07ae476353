"""Distributed loads as rows of arrows whose lengths follow the intensity.

Arrow tips touch the member and tails lie on the side the load comes from; a
second load on the same stretch and side is stacked beyond the first instead of
being drawn over it, and concentrated loads there get arrows long enough to
clear the rows (``Occupancy``).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

from ...model.semantics import distributed_extent, force_direction, link_axis
from ...model.types import DistributedLoad, Model
from ..scene.glyphs import Anchor, Glyph
from ..scene.scene import LAYER_LOAD, Prim, Scene, Stroke, along
from ..scene.shapes import XY, Shape, point_segment_distance, polyline_capsules
from .arrows import LabelRequest, arrow

ROW_HEIGHT = 34.0  # px of the largest intensity
SPACING = 24.0  # px between arrows
STACK_GAP = 6.0
ROW_HEAD = 9.0


@dataclass
class Occupancy:
    """How far drawn rows reach out from each link, per stretch and side."""

    rows: dict[str, list[tuple[float, float, XY, float]]] = field(default_factory=dict)

    def add(self, link_id: str, s0: float, s1: float, side: XY, reach: float) -> None:
        self.rows.setdefault(link_id, []).append((s0, s1, side, reach))

    def reach(self, link_id: str, s0: float, s1: float, side: XY, eps: float = 1e-9) -> float:
        best = 0.0
        for a, b, d, r in self.rows.get(link_id, []):
            if a <= s1 + eps and s0 <= b + eps and d[0] * side[0] + d[1] * side[1] > 0.7:
                best = max(best, r)
        return best


def _figure_dir(v: tuple[float, float]) -> XY:
    return (v[0], -v[1])


def draw_distributed(scene: Scene, model: Model, load: DistributedLoad, occ: Occupancy,
                     member_gap: float, keep_clear: list[tuple[XY, float]] = ()
                     ) -> list[LabelRequest]:
    """The row; ``keep_clear`` are discs (centre, radius) drawn later on the member (the
    couples' arcs): a row over one is stacked beyond it rather than drawn through it."""
    link = model.link(load.target.id)
    ex, ey, _ = link_axis(model, link)
    e = _figure_dir((ex, ey))
    s0, s1, _ = distributed_extent(model, load)
    d = _figure_dir(force_direction(model, load))
    pa = model.point(link.a)
    a0 = scene.px(pa.x, pa.y)
    length_px = (s1 - s0) * scene.k
    count = max(2, round(length_px / SPACING))
    stations = [s0 + (s1 - s0) * i / count for i in range(count + 1)]
    ws = [load.w_start + (load.w_end - load.w_start) * i / count for i in range(count + 1)]
    wmax = max(abs(load.w_start), abs(load.w_end))
    dominant = 1.0 if (load.w_start + load.w_end) >= 0 else -1.0
    side = (-d[0] * dominant, -d[1] * dominant)  # where the tails are
    axial = abs(d[0] * e[1] - d[1] * e[0]) < 0.25
    if axial:  # a load along the member: a row of short arrows beside it
        nrm = (-e[1], e[0])
        side = nrm if nrm[0] * side[0] + nrm[1] * side[1] >= 0 else (-nrm[0], -nrm[1])
    base = member_gap + occ.reach(link.id, s0, s1, side) + (STACK_GAP if occ.reach(
        link.id, s0, s1, side) else 0.0)
    def arrows(base: float) -> list[tuple[XY, XY]]:
        out = []
        for s, w in zip(stations, ws, strict=True):
            q = along(a0, e, s * scene.k)
            sign = 1.0 if w >= 0 else -1.0
            a = (d[0] * sign, d[1] * sign)
            if axial:
                mid = along(q, side, base + 8.0)
                out.append((along(mid, a, -7.0), along(mid, a, 7.0)))
            else:
                tip = along(q, side, base) if sign == dominant else along(q, a, -member_gap)
                h = ROW_HEIGHT * abs(w) / wmax if wmax > 0 else 0.0
                out.append((along(tip, a, -h), tip))
        return out

    pairs = full = arrows(base)
    near = [(c, r) for c, r in keep_clear
            if any(point_segment_distance(c, t, p) < r for t, p in pairs)]
    if near and not axial:
        tails_line = [t for t, _ in pairs]
        if any(point_segment_distance(c, a, b) < r for c, r in near
               for a, b in itertools.pairwise(tails_line)):
            # the couple's arc would cross the row's top line: stack the row beyond it
            base = max(base, max(r for _, r in near) + STACK_GAP)
            pairs = arrows(base)
        else:  # arrows stop where the arc begins; the row's top line still shows it all
            pairs = [(t, _stop_at_discs(t, p, near)) for t, p in pairs]
    full = arrows(base)
    prims: list[tuple[Prim, int]] = []
    shapes: list[Shape] = []
    tails: list[XY] = []
    tips: list[XY] = []
    width = scene.style.line_width
    for (tail, tip), (_, whole) in zip(pairs, full, strict=True):
        length = math.hypot(tip[0] - tail[0], tip[1] - tail[1])
        if length > (1.0 if tip == whole else ROW_HEAD + 1.0):
            ap, ash = arrow(tail, tip, width, head_len=ROW_HEAD)
            prims += ap
            shapes += ash
        else:
            tip = tail
        tails.append(tail)
        tips.append(tip)
    if not axial:
        prims.append((Stroke(tuple(tails), width, "load"), LAYER_LOAD))
        shapes += polyline_capsules(tails, width / 2 + 0.5)
        outer = base + ROW_HEIGHT
    else:
        outer = base + 16.0
    occ.add(link.id, s0, s1, side, outer)
    ends = tuple(along(a0, e, s * scene.k) for s in (s0, s1))
    glyph = Glyph("row", paths={"tips": tuple(tips), "tails": tuple(tails)},
                  lengths={"head": ROW_HEAD})
    scene.add("load", load.id, "load", "row", prims, shapes, glyph=glyph,
              anchor=Anchor(f"link:{link.id}", ends))
    return _labels(scene, load, tails, side, e)


def _stop_at_discs(tail: XY, tip: XY, discs: list[tuple[XY, float]]) -> XY:
    """Where the arrow tail→tip first enters one of the discs (the tip if it does not)."""
    dx, dy = tip[0] - tail[0], tip[1] - tail[1]
    best = 1.0
    for (cx, cy), r in discs:
        fx, fy = tail[0] - cx, tail[1] - cy
        a, b, c = dx * dx + dy * dy, 2 * (fx * dx + fy * dy), fx * fx + fy * fy - r * r
        disc = b * b - 4 * a * c
        if a > 0 and disc >= 0:
            t = (-b - math.sqrt(disc)) / (2 * a)
            if 0 <= t < best:
                best = t
    return (tail[0] + dx * best, tail[1] + dy * best)


def _labels(scene: Scene, load: DistributedLoad, tails: list[XY], side: XY, e: XY,
            ) -> list[LabelRequest]:
    if load.w_start == load.w_end:
        mid = tails[len(tails) // 2]
        return [LabelRequest(scene.values.intensity(load.w_start), "load", load.id, "load",
                             "value", mid, side)]
    out = []
    for value, at, sense, role in ((load.w_start, tails[0], -1.0, "value-start"),
                                   (load.w_end, tails[-1], 1.0, "value-end")):
        if value == 0:
            continue
        prefer = (side[0] + 0.5 * sense * e[0], side[1] + 0.5 * sense * e[1])
        out.append(LabelRequest(scene.values.intensity(value), "load", load.id, "load",
                                role, at, prefer))
    return out
