"""Support symbols, drawn on the side of the joint where they read naturally.

Rollers and sliders restrain one direction, fixed by ``angleDeg`` (FORMAT.md
S2/S3); the symbol's axis follows it exactly. Their constraint is bilateral, so
which of the two sides the symbol sits on is free: it goes on the side away
from the members. Pins and fixed supports ignore ``angleDeg`` (S1), so their
side comes from the geometry alone.
"""

from __future__ import annotations

import math

from ..model.semantics import unit
from ..model.types import Model, Support, SupportKind
from .arrows import LabelRequest, angle_mark
from .members import HINGE_R, directions_at, joint_hinged
from .scene import (
    LAYER_SUPPORT,
    LAYER_THIN,
    Disc,
    Fill,
    Prim,
    Scene,
    Stroke,
    frame_point,
)
from .shapes import XY

DOWN, LEFT, RIGHT, UP = (0.0, 1.0), (-1.0, 0.0), (1.0, 0.0), (0.0, -1.0)
CLEAR = math.radians(75)  # a side this far from every member is free


def _clearance(g: XY, dirs: list[XY]) -> float:
    """Smallest angle between g and any member direction (π when there is none)."""
    return min((math.acos(max(-1.0, min(1.0, g[0] * d[0] + g[1] * d[1]))) for d in dirs),
               default=math.pi)


def _bilateral_side(scene: Scene, model: Model, support: Support, g: XY, dirs: list[XY]) -> XY:
    """Ground side of a roller or slider: ``g`` (the side its angle puts the ground on)
    unless that is crowded by members or faces into the structure while the other side
    does not; the constraint is two-sided, so both drawings mean the same."""
    other = (-g[0], -g[1])
    p = model.point(support.at)
    here = scene.px(p.x, p.y)
    ignore = frozenset(i for i, it in enumerate(scene.layout.items) if it.kind != "member")

    def inward(d: XY) -> bool:
        start = (here[0] + 8.0 * d[0], here[1] + 8.0 * d[1])
        x0, y0, x1, y1 = scene.layout.extent()
        reach = math.hypot(x1 - x0, y1 - y0)
        return scene.layout.obstacles.first_hit(start, d, reach, ignore) is not None

    def score(d: XY) -> tuple[bool, bool]:
        return (_clearance(d, dirs) >= CLEAR, not inward(d))

    return other if score(other) > score(g) else g


def _first_free(options: list[XY], dirs: list[XY]) -> XY:
    for g in options:
        if _clearance(g, dirs) >= CLEAR:
            return g
    return max(options, key=lambda g: _clearance(g, dirs))


def ground_side(scene: Scene, model: Model, support: Support) -> XY:
    """Unit vector (figure pixels) from the joint towards the ground of the symbol."""
    dirs = directions_at(scene, model, support.at)
    if support.kind is SupportKind.ROLLER:
        gx, gy = unit(support.angle_deg - 90.0)  # −n of S2, n = (−sin θ, cos θ)
        return _bilateral_side(scene, model, support, (gx, -gy), dirs)  # figure axes (y down)
    if support.kind is SupportKind.SLIDER:
        nx, ny = unit(support.angle_deg)  # S3: n = (cos θ, sin θ); ground side −n
        return _bilateral_side(scene, model, support, (-nx, ny), dirs)
    if support.kind is SupportKind.FIXED and dirs:
        sx, sy = -sum(d[0] for d in dirs), -sum(d[1] for d in dirs)
        if math.hypot(sx, sy) > 0.2:
            snapped = max((DOWN, LEFT, RIGHT, UP), key=lambda g: (g[0] * sx + g[1] * sy))
            if _clearance(snapped, dirs) >= math.radians(45):
                return snapped
    return _first_free([DOWN, LEFT, RIGHT, UP], dirs)


def _hatch(o: XY, u: XY, v: XY, u0: float, u1: float, v0: float, depth: float,
           width: float, step: float = 6.0) -> list[tuple[Prim, int]]:
    """Ground hatching: short strokes below the line v = v0, between u0 and u1."""
    out: list[tuple[Prim, int]] = []
    k = 0
    while u0 + k * step <= u1 + 1e-9:
        uu = u0 + k * step
        out.append((Stroke((frame_point(o, u, v, uu, v0),
                            frame_point(o, u, v, uu - depth, v0 + depth)), width, "hatch"),
                    LAYER_THIN))
        k += 1
    return out


def _line(o: XY, u: XY, v: XY, a: tuple[float, float], b: tuple[float, float], width: float,
          ) -> tuple[Prim, int]:
    return Stroke((frame_point(o, u, v, *a), frame_point(o, u, v, *b)), width, "ink"), LAYER_SUPPORT


def support_prims(scene: Scene, model: Model, support: Support,
                  ) -> tuple[list[tuple[Prim, int]], tuple[XY, XY] | None]:
    """The symbol, and its ground line (whose tilt states the angle of a roller/slider)."""
    p = model.point(support.at)
    o = scene.px(p.x, p.y)
    v = ground_side(scene, model, support)
    u = (-v[1], v[0])
    st = scene.style
    lw, thin = st.line_width, st.thin_width
    top = HINGE_R if joint_hinged(model, support.at) else 0.0
    prims: list[tuple[Prim, int]] = []
    ground: tuple[XY, XY] | None = None
    kind = support.kind
    if kind in (SupportKind.PIN, SupportKind.ROLLER):
        h, half = (19.0, 11.0) if kind is SupportKind.PIN else (16.0, 10.0)
        tri = tuple(frame_point(o, u, v, a, b) for a, b in ((0, top), (-half, top + h),
                                                            (half, top + h)))
        prims.append((Fill(tri, "paper", "ink", lw), LAYER_SUPPORT))
        base = top + h
        if kind is SupportKind.ROLLER:
            wr = 3.2
            for uu in (-5.5, 5.5):
                prims.append((Disc(frame_point(o, u, v, uu, base + wr), wr, "paper", "ink", lw),
                              LAYER_SUPPORT))
            base += 2 * wr + 0.8
        prims.append(_line(o, u, v, (-17, base), (17, base), lw))
        prims += _hatch(o, u, v, -14, 17, base, 6.0, thin)
        ground = (frame_point(o, u, v, -17, base), frame_point(o, u, v, 17, base))
    elif kind is SupportKind.FIXED:
        prims.append(_line(o, u, v, (-18, 0), (18, 0), st.member_width))
        prims += _hatch(o, u, v, -14, 19, 1.5, 7.0, thin)
    else:  # slider: a block gliding between two rails laid along the free direction
        near, far = 6.0, 20.0
        prims.append(_line(o, u, v, (0, 0), (0, 8.5), st.member_width))
        block = tuple(frame_point(o, u, v, a, b) for a, b in ((-10, 8.5), (10, 8.5), (10, 17.5),
                                                              (-10, 17.5)))
        prims.append((Fill(block, "paper", "ink", lw), LAYER_SUPPORT))
        prims.append(_line(o, u, v, (-22, near), (-4, near), lw))
        prims.append(_line(o, u, v, (4, near), (22, near), lw))
        prims.append(_line(o, u, v, (-22, far), (22, far), lw))
        prims += _hatch(o, u, v, -19, 22, far, 6.0, thin)
        ground = (frame_point(o, u, v, -22, far), frame_point(o, u, v, 22, far))
    return prims, ground


def draw_supports(scene: Scene, model: Model) -> list[LabelRequest]:
    """Symbols, plus an angle mark for a roller or slider that is not square to the axes
    (its angle cannot be guessed from the picture alone)."""
    requests = []
    for s in model.supports:
        prims, ground = support_prims(scene, model, s)
        scene.add("support", s.id, "support", s.kind.value, prims)
        if ground is None or s.kind not in (SupportKind.ROLLER, SupportKind.SLIDER):
            continue
        a, b = sorted(ground, key=lambda p: (p[1], p[0]))  # vertex: the lower end
        ray = (a[0] - b[0], a[1] - b[1])
        deg = math.degrees(math.atan2(abs(ray[1]), abs(ray[0])))
        if min(deg, 90.0 - deg) >= 0.05:
            requests.append(angle_mark(scene, s.id, "support", b, ray, deg, "dim"))
    return requests
