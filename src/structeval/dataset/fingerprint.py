"""A canonical fingerprint of the physical problem, blind to ids, order and encoding.

Two files that draw the same picture (same members, releases, supports and
loads, wherever the origin is and however the JSON names or orders things, or
encodes a load's angle, flip and offset) get the same fingerprint, so the
generator can refuse to ship a problem twice.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from typing import Any

from ..model.semantics import (
    couple,
    distributed_extent,
    force_direction,
    link_axis,
    world_point_of_load,
)
from ..model.types import BendingMoment, DistributedLoad, Model, PointLoad, SupportKind

DIGITS = 6
Place = Callable[[float, float], tuple[float, float]]


def _r(value: float) -> float:
    out = round(value, DIGITS)
    return 0.0 if out == 0 else out


def fingerprint(model: Model) -> str:
    x0 = min(p.x for p in model.points)
    y0 = min(p.y for p in model.points)

    def at(x: float, y: float) -> tuple[float, float]:
        return _r(x - x0), _r(y - y0)

    def place(pid: str) -> tuple[float, float]:
        p = model.point(pid)
        return at(p.x, p.y)

    links = sorted([*sorted([(place(lk.a), lk.hinge_a), (place(lk.b), lk.hinge_b)]),
                    (_r(lk.E), _r(lk.A * 1e6), _r(lk.Iz * 1e9))] for lk in model.links)
    supports = sorted((place(s.at), s.kind.value, _support_angle(s.kind, s.angle_deg))
                      for s in model.supports)
    loads = sorted(_load_key(model, load, at) for load in model.loads)
    text = json.dumps([links, supports, loads], separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _support_angle(kind: SupportKind, angle: float) -> float:
    """Angles that change nothing (pin, fixed) are not part of the physics (FORMAT.md S1)."""
    if kind in (SupportKind.PIN, SupportKind.FIXED):
        return 0.0
    return _r(math.fmod(math.fmod(angle, 360.0) + 360.0, 360.0))


def _load_key(model: Model, load: object, at: Place) -> list[Any]:
    if isinstance(load, BendingMoment):
        return ["M", at(*world_point_of_load(model, load)), _r(couple(load))]
    if isinstance(load, PointLoad):
        dx, dy = force_direction(model, load)
        return ["F", at(*world_point_of_load(model, load)),
                [_r(load.value * dx), _r(load.value * dy)]]
    assert isinstance(load, DistributedLoad)
    dx, dy = force_direction(model, load)
    link = model.link(load.target.id)
    cx, cy, _ = link_axis(model, link)
    pa = model.point(link.a)
    s0, s1, _ = distributed_extent(model, load)
    ends = sorted([(at(pa.x + cx * s0, pa.y + cy * s0), _r(load.w_start)),
                   (at(pa.x + cx * s1, pa.y + cy * s1), _r(load.w_end))])
    return ["q", ends, [_r(dx), _r(dy)]]

