"""Collision shapes of drawn things, in image pixels (x right, y down).

Labels must not touch members or symbols, and an inclined member's bounding box
covers a whole triangle of free space, so long thin things are kept as capsules
(a segment with a half-width) and only compact things as boxes. The same shapes
answer "where does a ray first meet something", which places extension lines.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

Rect = tuple[float, float, float, float]  # x0, y0, x1, y1 with x0 <= x1, y0 <= y1
XY = tuple[float, float]
PointMap = Callable[[XY], XY]


@dataclass(frozen=True)
class Similarity:
    """p ↦ zoom·R·p + t: how a figure goes from design pixels to the delivered image.

    Moving onto the canvas, enlarging to the delivered size and the scanned tilt are
    all of this kind, so lengths (a hinge's radius, a capsule's half-width) scale by
    one factor and angles between drawn things survive, which is what lets the layout
    record describe the delivered picture exactly.
    """

    a: float = 1.0  # [[a, b], [c, d]] · p + (tx, ty)
    b: float = 0.0
    c: float = 0.0
    d: float = 1.0
    tx: float = 0.0
    ty: float = 0.0

    @classmethod
    def shift_zoom(cls, dx: float, dy: float, zoom: float) -> Similarity:
        """(p + (dx, dy)) · zoom."""
        return cls(zoom, 0.0, 0.0, zoom, dx * zoom, dy * zoom)

    @classmethod
    def turn(cls, centre: XY, degrees: float) -> Similarity:
        """Counter-clockwise on screen (y down) about ``centre``, as ``Image.rotate`` turns."""
        co, si = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
        cx, cy = centre
        return cls(co, si, -si, co, cx - co * cx - si * cy, cy + si * cx - co * cy)

    @property
    def scale(self) -> float:
        return math.sqrt(abs(self.a * self.d - self.b * self.c))

    def __call__(self, p: XY) -> XY:
        return (self.a * p[0] + self.b * p[1] + self.tx, self.c * p[0] + self.d * p[1] + self.ty)

    def then(self, after: Similarity) -> Similarity:
        """``after ∘ self``."""
        return Similarity(after.a * self.a + after.b * self.c, after.a * self.b + after.b * self.d,
                          after.c * self.a + after.d * self.c, after.c * self.b + after.d * self.d,
                          after.a * self.tx + after.b * self.ty + after.tx,
                          after.c * self.tx + after.d * self.ty + after.ty)


def map_scale(f: PointMap) -> float:
    """How much ``f`` enlarges lengths (1 for a plain callable: a translation)."""
    return float(getattr(f, "scale", 1.0))


def rect_union(rects: list[Rect]) -> Rect:
    return (min(r[0] for r in rects), min(r[1] for r in rects),
            max(r[2] for r in rects), max(r[3] for r in rects))


def rects_overlap(a: Rect, b: Rect, pad: float = 0.0) -> bool:
    return a[0] < b[2] + pad and b[0] < a[2] + pad and a[1] < b[3] + pad and b[1] < a[3] + pad


def rect_overlap_area(a: Rect, b: Rect) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return max(w, 0.0) * max(h, 0.0)


def point_segment_distance(p: XY, a: XY, b: XY) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    den = dx * dx + dy * dy
    t = 0.0 if den == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / den))
    return math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy)


def _segments_cross(a: XY, b: XY, c: XY, d: XY) -> bool:
    def orient(p: XY, q: XY, r: XY) -> float:
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    o1, o2 = orient(a, b, c), orient(a, b, d)
    o3, o4 = orient(c, d, a), orient(c, d, b)
    return (o1 * o2 < 0) and (o3 * o4 < 0)


def segment_rect_distance(a: XY, b: XY, r: Rect) -> float:
    """0 when the segment touches the rectangle, else the smallest gap between them."""
    def inside(p: XY) -> bool:
        return r[0] <= p[0] <= r[2] and r[1] <= p[1] <= r[3]

    if inside(a) or inside(b):
        return 0.0
    corners = [(r[0], r[1]), (r[2], r[1]), (r[2], r[3]), (r[0], r[3])]
    for i in range(4):
        if _segments_cross(a, b, corners[i], corners[(i + 1) % 4]):
            return 0.0
    best = min(point_segment_distance(c, a, b) for c in corners)
    for p in (a, b):
        dx = max(r[0] - p[0], 0.0, p[0] - r[2])
        dy = max(r[1] - p[1], 0.0, p[1] - r[3])
        best = min(best, math.hypot(dx, dy))
    return best


@dataclass(frozen=True)
class Box:
    """A compact thing (symbol, label, arc): its axis-aligned box is its shape."""

    rect: Rect

    def bbox(self) -> Rect:
        return self.rect

    def hits(self, r: Rect, pad: float) -> bool:
        return rects_overlap(self.rect, r, pad)

    def mapped(self, f: PointMap) -> Box:
        x0, y0, x1, y1 = self.rect
        pts = [f((x0, y0)), f((x1, y0)), f((x1, y1)), f((x0, y1))]
        return Box((min(p[0] for p in pts), min(p[1] for p in pts),
                    max(p[0] for p in pts), max(p[1] for p in pts)))

    def ray_entry(self, o: XY, d: XY) -> float | None:
        t0, t1 = 0.0, math.inf
        for lo, hi, oc, dc in ((self.rect[0], self.rect[2], o[0], d[0]),
                               (self.rect[1], self.rect[3], o[1], d[1])):
            if abs(dc) < 1e-12:
                if oc < lo or oc > hi:
                    return None
                continue
            ta, tb = sorted(((lo - oc) / dc, (hi - oc) / dc))
            t0, t1 = max(t0, ta), min(t1, tb)
            if t0 > t1:
                return None
        return t0


@dataclass(frozen=True)
class Capsule:
    """A stroke: every pixel within ``r`` of the segment a–b."""

    a: XY
    b: XY
    r: float

    def bbox(self) -> Rect:
        return (min(self.a[0], self.b[0]) - self.r, min(self.a[1], self.b[1]) - self.r,
                max(self.a[0], self.b[0]) + self.r, max(self.a[1], self.b[1]) + self.r)

    def hits(self, r: Rect, pad: float) -> bool:
        if not rects_overlap(self.bbox(), r, pad):
            return False
        return segment_rect_distance(self.a, self.b, r) < self.r + pad

    def mapped(self, f: PointMap) -> Capsule:
        return Capsule(f(self.a), f(self.b), self.r * map_scale(f))

    def ray_entry(self, o: XY, d: XY) -> float | None:
        """Smallest t >= 0 with o + t·d within r of the segment (d a unit vector)."""
        if point_segment_distance(o, self.a, self.b) <= self.r:
            return 0.0
        hits = [t for c in (self.a, self.b) if (t := _ray_circle(o, d, c, self.r)) is not None]
        ux, uy = self.b[0] - self.a[0], self.b[1] - self.a[1]
        length = math.hypot(ux, uy)
        if length > 0:
            ux, uy = ux / length, uy / length
            nx, ny = -uy, ux
            for side in (self.r, -self.r):
                sx, sy = self.a[0] + side * nx, self.a[1] + side * ny
                det = d[0] * (-uy) - d[1] * (-ux)
                if abs(det) < 1e-12:
                    continue
                rx, ry = sx - o[0], sy - o[1]
                t = (rx * (-uy) - ry * (-ux)) / det
                lam = (d[0] * ry - d[1] * rx) / det
                if t >= 0 and 0 <= lam <= length:
                    hits.append(t)
        return min(hits) if hits else None


def _ray_circle(o: XY, d: XY, c: XY, r: float) -> float | None:
    fx, fy = o[0] - c[0], o[1] - c[1]
    b = fx * d[0] + fy * d[1]
    disc = b * b - (fx * fx + fy * fy - r * r)
    if disc < 0:
        return None
    t = -b - math.sqrt(disc)
    return t if t >= 0 else None


Shape = Box | Capsule


def polyline_capsules(points: list[XY], r: float) -> list[Shape]:
    return [Capsule(points[i], points[i + 1], r) for i in range(len(points) - 1)]


def touches(a: Shape, b: Shape, pad: float) -> bool:
    """Whether two shapes come within ``pad`` of each other."""
    if isinstance(a, Box):
        return b.hits(a.rect, pad)
    if isinstance(b, Box):
        return a.hits(b.rect, pad)
    if _segments_cross(a.a, a.b, b.a, b.b):
        return True
    gap = min(point_segment_distance(a.a, b.a, b.b), point_segment_distance(a.b, b.a, b.b),
              point_segment_distance(b.a, a.a, a.b), point_segment_distance(b.b, a.a, a.b))
    return gap < a.r + b.r + pad
