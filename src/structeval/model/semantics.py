"""What a load means physically (FORMAT.md §5): direction in world axes and place on its link.

Every consumer (FE compiler, renderer, scorer, generator) asks here, so the
sign and angle rules exist exactly once.
"""

from __future__ import annotations

import math

from .types import AngleMode, BendingMoment, DistributedLoad, Link, Load, Model, PointLoad

_ON_AXES = {0.0: (1.0, 0.0), 90.0: (0.0, 1.0), 180.0: (-1.0, 0.0), 270.0: (0.0, -1.0)}


def unit(angle_deg: float) -> tuple[float, float]:
    """û(θ) with exact values on the axes, so 90° is (0, 1) and not (6e-17, 1)."""
    exact = _ON_AXES.get(angle_deg)  # the common case: already one of them
    if exact is not None:
        return exact
    a = math.fmod(angle_deg, 360.0)
    if a < 0:
        a += 360.0
    exact = _ON_AXES.get(a)
    if exact is not None:
        return exact
    r = math.radians(a)
    return math.cos(r), math.sin(r)


def link_axis(model: Model, link: Link) -> tuple[float, float, float]:
    """(e_x, e_y components of the unit axis A→B, length)."""
    pa, pb = model.point(link.a), model.point(link.b)
    return axis_between(pa.x, pa.y, pb.x, pb.y)


def axis_between(xa: float, ya: float, xb: float, yb: float) -> tuple[float, float, float]:
    """:func:`link_axis` of a link from (xa, ya) to (xb, yb), for callers that hold
    coordinates rather than a model (the kernel input compiled from columns)."""
    dx, dy = xb - xa, yb - ya
    length = math.hypot(dx, dy)
    return dx / length, dy / length, length


def force_direction(model: Model, load: PointLoad | DistributedLoad) -> tuple[float, float]:
    """World unit vector of the force including ``flip`` (D1–D3)."""
    if load.target.type == "link" and load.angle_mode is AngleMode.RELATIVE:
        cx, cy, _ = link_axis(model, model.link(load.target.id))
        return direction_on_axis(load, cx, cy)
    return direction_on_axis(load, 1.0, 0.0)


def direction_on_axis(load: PointLoad | DistributedLoad, cx: float, cy: float,
                      ) -> tuple[float, float]:
    """:func:`force_direction` given the unit axis (cx, cy) of the load's link (any axis
    for a load on a point or at a world angle: it is then not used)."""
    return turned(load.angle_deg,
                  load.target.type == "link" and load.angle_mode is AngleMode.RELATIVE,
                  load.flip, cx, cy)


def turned(angle_deg: float, relative: bool, flip: int, cx: float, cy: float,
           ) -> tuple[float, float]:
    """:func:`direction_on_axis` from the fields: ``relative`` when the angle is measured
    from the axis (cx, cy) of the load's link rather than from the world's x axis."""
    ux, uy = unit(angle_deg)
    if relative:
        ux, uy = cx * ux - cy * uy, cy * ux + cx * uy
    return flip * ux, flip * uy


def position_on_link(model: Model, load: PointLoad | BendingMoment) -> float:
    """s (metres from end A) of a concentrated load on a link, clamped into [0, L] (P1/P2)."""
    assert load.position is not None and load.target.type == "link"
    _, _, length = link_axis(model, model.link(load.target.id))
    return position_along(load, length)


def position_along(load: PointLoad | BendingMoment, length: float) -> float:
    """:func:`position_on_link` given the length of the load's link."""
    assert load.position is not None
    return min(max(load.position.s_on(length), 0.0), length)


def distributed_extent(model: Model, load: DistributedLoad) -> tuple[float, float, float]:
    """(s_start, s_end, link length) of a distributed load (W2)."""
    _, _, length = link_axis(model, model.link(load.target.id))
    return load.from_start, length - load.from_end, length


def couple(load: BendingMoment) -> float:
    """Signed couple, CCW positive (C1)."""
    return load.flip * load.value


def world_point_of_load(model: Model, load: Load) -> tuple[float, float]:
    """Where a concentrated load acts in world coordinates (middle of a distributed one)."""
    if load.target.type == "point":
        p = model.point(load.target.id)
        return p.x, p.y
    link = model.link(load.target.id)
    cx, cy, _ = link_axis(model, link)
    if isinstance(load, DistributedLoad):
        s0, s1, _ = distributed_extent(model, load)
        s = 0.5 * (s0 + s1)
    else:
        s = position_on_link(model, load)
    pa = model.point(link.a)
    return pa.x + cx * s, pa.y + cy * s


def member_places(model: Model, load: Load) -> list[tuple[float, float]]:
    """World places a drawing must show for a load on a link: where a concentrated load
    acts, or both ends of a distributed one ([] for a load on a point)."""
    if load.target.type != "link":
        return []
    link = model.link(load.target.id)
    cx, cy, _ = link_axis(model, link)
    pa = model.point(link.a)
    if isinstance(load, DistributedLoad):
        s0, s1, _ = distributed_extent(model, load)
        stations = [s0, s1]
    else:
        stations = [position_on_link(model, load)]
    return [(pa.x + cx * s, pa.y + cy * s) for s in stations]
