"""Plane geometry on page coordinates (X right, Y up)."""

from __future__ import annotations

import math
from collections.abc import Iterable

XY = tuple[float, float]
AXIS_DEG = 0.5  # within this of an axis (or of a member's direction) is "visibly" so


def sub(a: XY, b: XY) -> XY:
    return (a[0] - b[0], a[1] - b[1])


def dot(a: XY, b: XY) -> float:
    return a[0] * b[0] + a[1] * b[1]


def cross(a: XY, b: XY) -> float:
    return a[0] * b[1] - a[1] * b[0]


def unit(v: XY) -> XY:
    n = math.hypot(*v)
    return (v[0] / n, v[1] / n)


def angle_between(a: XY, b: XY) -> float:
    """Degrees between two directions, ignoring their sense (0…90)."""
    c = abs(dot(unit(a), unit(b)))
    return math.degrees(math.acos(min(1.0, c)))


def parallel(a: XY, b: XY) -> bool:
    return angle_between(a, b) <= AXIS_DEG


def square(a: XY, b: XY) -> bool:
    return angle_between(a, b) >= 90.0 - AXIS_DEG


def point_segment(p: XY, a: XY, b: XY) -> float:
    d = sub(b, a)
    den = dot(d, d)
    t = 0.0 if den == 0 else max(0.0, min(1.0, dot(sub(p, a), d) / den))
    return math.hypot(p[0] - a[0] - t * d[0], p[1] - a[1] - t * d[1])


def foot(p: XY, a: XY, b: XY) -> tuple[XY, float]:
    """The nearest point of the line a–b to p, and its parameter t (0 at a, 1 at b)."""
    d = sub(b, a)
    t = dot(sub(p, a), d) / dot(d, d)
    return (a[0] + t * d[0], a[1] + t * d[1]), t


def line_hit(p: XY, d: XY, a: XY, b: XY) -> tuple[XY, float, float] | None:
    """Where the line p + s·d meets the line a–b: (point, s, t on a–b); None if parallel."""
    e = sub(b, a)
    den = cross(d, e)
    if abs(den) < 1e-12 * math.hypot(*d) * math.hypot(*e):
        return None
    w = sub(a, p)
    s = cross(w, e) / den
    t = cross(w, d) / den
    return (p[0] + s * d[0], p[1] + s * d[1]), s, t


def segments_cross(p: XY, q: XY, a: XY, b: XY) -> bool:
    o1, o2 = cross(sub(q, p), sub(a, p)), cross(sub(q, p), sub(b, p))
    o3, o4 = cross(sub(b, a), sub(p, a)), cross(sub(b, a), sub(q, a))
    return o1 * o2 < 0 and o3 * o4 < 0


def box_segment(box: Iterable[XY], a: XY, b: XY) -> float:
    """Distance between a text box (its corners) and a segment; 0 when they touch."""
    corners = list(box)
    if _inside(a, corners) or _inside(b, corners):
        return 0.0
    edges = list(zip(corners, corners[1:] + corners[:1], strict=True))
    if any(segments_cross(c, d, a, b) for c, d in edges):
        return 0.0
    return min([point_segment(c, a, b) for c in corners]
               + [point_segment(a, c, d) for c, d in edges]
               + [point_segment(b, c, d) for c, d in edges])


def _inside(p: XY, poly: list[XY]) -> bool:
    signs = [cross(sub(b, a), sub(p, a)) for a, b in zip(poly, poly[1:] + poly[:1], strict=True)]
    return all(s >= 0 for s in signs) or all(s <= 0 for s in signs)


def world_angle(d: XY) -> float:
    """Degrees CCW from +X of a page direction (page Y is up, as the model's y)."""
    return math.degrees(math.atan2(d[1], d[0])) % 360.0


def axis_angle(d: XY) -> float | None:
    """0, 90, 180 or 270 when the direction is visibly along an axis, else None."""
    a = world_angle(d)
    for exact in (0.0, 90.0, 180.0, 270.0, 360.0):
        if abs(a - exact) <= AXIS_DEG:
            return exact % 360.0
    return None
