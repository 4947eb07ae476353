"""Point loads, couples and the order loads are drawn in.

Directions and positions come only from :mod:`structeval.model.semantics`, so the
picture shows exactly the force the solver applies. An arrow normally points at
the structure from outside; when that side is taken (the member continues
there, or a support), it starts at the joint and points away instead — the same
force, drawn where it can be seen.
"""

from __future__ import annotations

import math

from ..model.semantics import couple, force_direction, link_axis, position_on_link, unit
from ..model.semantics import world_point_of_load as world_point
from ..model.types import BendingMoment, DistributedLoad, Model, PointLoad
from .arrows import LabelRequest, angle_mark, arc_points, arrow, fmt_number, visual_deg
from .distributed import Occupancy, draw_distributed
from .members import HINGE_R, directions_at, joint_hinged
from .placement import free_direction
from .scene import LAYER_LOAD, Prim, Scene, Stroke, along
from .shapes import XY, Box, Capsule

ARROW_LEN = 52.0
MOMENT_R = 17.0
SIDE_OFFSET = 14.0
MOMENT_SWEEP = 270.0


def _tip_gap(scene: Scene, model: Model, load: PointLoad | BendingMoment) -> float:
    if load.target.type == "point" and joint_hinged(model, load.target.id):
        return HINGE_R + 2.0
    return scene.style.member_width / 2 + 1.5


def _row_reach(model: Model, occ: Occupancy, load: PointLoad, side: XY) -> float:
    """How far distributed rows already reach out where the arrow comes from."""
    if load.target.type == "link":
        s = position_on_link(model, load)
        return occ.reach(load.target.id, s, s, side)
    best = 0.0
    for lk in model.links:
        if load.target.id in (lk.a, lk.b):
            s = 0.0 if lk.a == load.target.id else link_axis(model, lk)[2]
            best = max(best, occ.reach(lk.id, s, s, side))
    return best


def _occupied_around(scene: Scene, model: Model, load: PointLoad | BendingMoment) -> list[XY]:
    if load.target.type == "point":
        return directions_at(scene, model, load.target.id)
    ex, ey, _ = link_axis(model, model.link(load.target.id))
    return [(ex, -ey), (-ex, ey)]


def draw_point_load(scene: Scene, model: Model, load: PointLoad, occ: Occupancy,
                    ) -> list[LabelRequest]:
    dx, dy = force_direction(model, load)
    sign = -1.0 if load.value < 0 else 1.0
    a = (dx * sign, -dy * sign)  # figure axes
    at = scene.px(*world_point(model, load))
    gap = _tip_gap(scene, model, load)
    reach = _row_reach(model, occ, load, (-a[0], -a[1]))
    length = ARROW_LEN + reach
    push_tip = along(at, a, -gap)
    # rows on the load's own member(s) may be crossed by the first option only: its arrow
    # was lengthened to reach past them
    mine = {load.target.id} if load.target.type == "link" else {
        lk.id for lk in model.links if load.target.id in (lk.a, lk.b)}
    on_link = {ld.id: ld.target.id for ld in model.loads if ld.target.type == "link"}
    own_rows = frozenset(i for i, it in enumerate(scene.layout.items)
                         if it.role == "row" and on_link.get(it.owner) in mine)
    options = [("push", along(push_tip, a, -length), push_tip, own_rows),
               ("pull", along(at, a, gap), along(at, a, gap + ARROW_LEN), frozenset())]
    for side in (1.0, -1.0):  # along a member: beside it, the tip level with the point
        beside = (at[0] - a[1] * side * SIDE_OFFSET, at[1] + a[0] * side * SIDE_OFFSET)
        options.append(("push", along(beside, a, -ARROW_LEN), beside, frozenset()))
    mode, tail, tip, _ = min(options, key=lambda o: _arrow_hits(scene, o[1], o[2], o[0], o[3]))
    prims, shapes = arrow(tail, tip, scene.style.line_width)
    scene.add("load", load.id, "load", "arrow", prims, shapes)
    far, outward = (tail, (-a[0], -a[1])) if mode == "push" else (tip, a)
    requests = [LabelRequest(f"{fmt_number(abs(load.value))} kN", "load", load.id, "load",
                             "value", far, outward)]
    requests += _angle_mark(scene, model, load, tail, tip, a)
    return requests


def _arrow_hits(scene: Scene, tail: XY, tip: XY, mode: str, rows: frozenset[int]) -> int:
    """How many px of an arrow would run over drawn things (``rows`` aside): an arrow
    lying along a member is worse than one crossing a diagonal. The part next to the
    joint is not counted (it touches the structure by design)."""
    d = (tip[0] - tail[0], tip[1] - tail[1])
    n = math.hypot(*d)
    u = (d[0] / n, d[1] / n)
    a, b = (tail, along(tip, u, -8.0)) if mode == "push" else (along(tail, u, 8.0), tip)
    if not scene.layout.obstacles.shape_hits(Capsule(a, b, 3.0), 1.0, rows):
        return 0
    length = math.hypot(b[0] - a[0], b[1] - a[1])
    steps = max(1, math.ceil(length / 3.0))
    blocked = 0
    for i in range(steps + 1):
        p = along(a, u, length * i / steps)
        if scene.layout.obstacles.hits((p[0] - 3.0, p[1] - 3.0, p[0] + 3.0, p[1] + 3.0), 1.0,
                                       rows):
            blocked += 1
    return blocked


def _angle_mark(scene: Scene, model: Model, load: PointLoad, tail: XY, tip: XY, a: XY,
                ) -> list[LabelRequest]:
    """For a force not along an axis (nor square to its member), mark its angle to the
    horizontal at the tail: the reader needs it to rebuild the load."""
    deg = math.degrees(math.atan2(abs(a[1]), abs(a[0])))
    if min(deg, 90 - deg) < 0.05:
        return []
    if load.target.type == "link":
        ex, ey, _ = link_axis(model, model.link(load.target.id))
        if abs(ex * a[0] - ey * a[1]) < 1e-6 and abs(ey) > 1e-9:  # square to an inclined member
            return []
    shaft = (tip[0] - tail[0], tip[1] - tail[1])
    return [angle_mark(scene, load.id, "load", tail, shaft, deg, "load")]


def draw_moment(scene: Scene, model: Model, load: BendingMoment) -> list[LabelRequest]:
    centre = scene.px(*world_point(model, load))
    gap_dir = free_direction(_occupied_around(scene, model, load))
    gap = visual_deg(gap_dir)
    ccw = couple(load) >= 0
    half_gap = (360.0 - MOMENT_SWEEP) / 2
    start = gap + half_gap if ccw else gap - half_gap
    end = start + MOMENT_SWEEP if ccw else start - MOMENT_SWEEP
    head_deg = math.degrees(9.0 / MOMENT_R) * (1 if ccw else -1)
    pts = arc_points(centre, MOMENT_R, start, end - head_deg)
    tip = arc_points(centre, MOMENT_R, end, end)[0]
    tx, ty = unit(end + (90.0 if ccw else -90.0))
    head_tail = along(tip, (tx, -ty), -9.0)
    w = scene.style.line_width
    head_prims, _ = arrow(head_tail, tip, w, head_len=9.0)
    prims: list[tuple[Prim, int]] = [(Stroke(tuple(pts), w, "load"), LAYER_LOAD), *head_prims]
    r = MOMENT_R + 5.0
    box = Box((centre[0] - r, centre[1] - r, centre[0] + r, centre[1] + r))
    scene.add("load", load.id, "load", "arc", prims, [box])
    value = f"{fmt_number(abs(load.value))} kN·m"
    return [LabelRequest(value, "load", load.id, "load", "value", centre, gap_dir,
                         first_gap=MOMENT_R + 6.0)]


def draw_loads(scene: Scene, model: Model) -> list[LabelRequest]:
    """Rows first (they decide how long the other arrows must be), then forces, then couples."""
    occ = Occupancy()
    requests: list[LabelRequest] = []
    gap = scene.style.member_width / 2 + 1.5
    for load in model.loads:
        if isinstance(load, DistributedLoad):
            requests += draw_distributed(scene, model, load, occ, gap)
    for load in model.loads:
        if isinstance(load, PointLoad):
            requests += draw_point_load(scene, model, load, occ)
    for load in model.loads:
        if isinstance(load, BendingMoment):
            requests += draw_moment(scene, model, load)
    return requests
