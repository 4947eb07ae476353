"""Support symbols, drawn on the side of the joint where they read naturally.

Rollers and sliders restrain one direction, fixed by ``angleDeg`` (FORMAT.md
S2/S3); the symbol's axis follows it exactly. Two symbol conventions exist (the
presentation's ``symbols``): set a here, set b (link bars) in :mod:`.link_supports`;
both stand on the side this module chooses. Their constraint is bilateral, so
which of the two sides the symbol sits on is free: it goes on the side away
from the members. Pins and fixed supports ignore ``angleDeg`` (S1), so their
side comes from the geometry alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...model.semantics import unit
from ...model.types import Model, Support, SupportKind
from ..scene.glyphs import Anchor, Glyph
from ..scene.scene import LAYER_SUPPORT, Disc, Fill, Prim, Scene, frame_point, outline_shapes
from ..scene.shapes import XY
from .arrows import LabelRequest, angle_mark
from .ground import frame_line, hatch
from .link_supports import link_symbol_prims
from .members import HINGE_R, directions_at, joint_hinged

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


@dataclass(frozen=True)
class Symbol:
    """A support symbol's geometry in its local frame (u along the ground, v into it).

    Sizes are design pixels; every delivered figure is at least this large, and the
    legibility rules check the delivered sizes (a fixed wall must not shrink into
    something that reads as a pin's ground line).
    """

    ground_v: float  # where the ground line (rolling surface, rails, wall) lies
    half: float  # half the ground line's length
    hatch_from: float
    hatch_to: float
    hatch_depth: float
    hatch_step: float


PIN_H, PIN_HALF = 22.0, 13.0
ROLLER_H, ROLLER_HALF, WHEEL_R = 18.0, 12.0, 4.0
SYMBOLS = {
    SupportKind.PIN: Symbol(PIN_H, 20.0, -16.0, 20.0, 8.0, 6.0),
    SupportKind.ROLLER: Symbol(ROLLER_H + 2 * WHEEL_R + 1.0, 20.0, -16.0, 20.0, 8.0, 6.0),
    SupportKind.FIXED: Symbol(0.0, 26.0, -22.0, 26.0, 12.0, 6.0),
    SupportKind.SLIDER: Symbol(23.0, 24.0, -20.0, 24.0, 8.0, 6.0),
}


def support_prims(scene: Scene, model: Model, support: Support,
                  ) -> tuple[list[tuple[Prim, int]], tuple[XY, XY], Glyph]:
    """The symbol in the presentation's symbol set, its ground line (whose tilt states the
    angle of a roller/slider) and what a reader sees of it."""
    p = model.point(support.at)
    o = scene.px(p.x, p.y)
    v = ground_side(scene, model, support)
    u = (-v[1], v[0])
    hinged = joint_hinged(model, support.at)
    if scene.shown.symbols == "b":
        return link_symbol_prims(scene, support.kind, o, u, v, hinged)
    return _set_a_prims(scene, support.kind, o, u, v, hinged)


def _set_a_prims(scene: Scene, kind: SupportKind, o: XY, u: XY, v: XY, hinged: bool,
                 ) -> tuple[list[tuple[Prim, int]], tuple[XY, XY], Glyph]:
    """Set a: pin triangle, roller triangle on wheels, fixed wall, slider block on rails."""
    st = scene.style
    lw, thin = st.line_width, st.thin_width
    top = HINGE_R if hinged else 0.0
    sym = SYMBOLS[kind]
    prims: list[tuple[Prim, int]] = []
    base = top + sym.ground_v
    extra: dict[str, float] = {}
    if kind in (SupportKind.PIN, SupportKind.ROLLER):
        h, half = (PIN_H, PIN_HALF) if kind is SupportKind.PIN else (ROLLER_H, ROLLER_HALF)
        tri = tuple(frame_point(o, u, v, a, b) for a, b in ((0, top), (-half, top + h),
                                                            (half, top + h)))
        prims.append((Fill(tri, "paper", "ink", lw), LAYER_SUPPORT))
        if kind is SupportKind.ROLLER:
            for uu in (-half / 2 - 1.0, half / 2 + 1.0):
                prims.append((Disc(frame_point(o, u, v, uu, top + h + WHEEL_R), WHEEL_R, "paper",
                                   "ink", lw), LAYER_SUPPORT))
            extra["wheel_r"] = WHEEL_R
        prims.append(frame_line(o, u, v, (-sym.half, base), (sym.half, base), lw))
    elif kind is SupportKind.FIXED:
        base = 0.0
        prims.append(frame_line(o, u, v, (-sym.half, 0), (sym.half, 0), st.member_width * 1.25))
    else:  # slider: a block gliding between two rails laid along the free direction
        near = 8.0
        prims.append(frame_line(o, u, v, (0, 0), (0, 10.0), st.member_width))
        block = tuple(frame_point(o, u, v, a, b) for a, b in ((-11, 10.0), (11, 10.0),
                                                              (11, 20.0), (-11, 20.0)))
        prims.append((Fill(block, "paper", "ink", lw), LAYER_SUPPORT))
        prims.append(frame_line(o, u, v, (-sym.half, near), (-5, near), lw))
        prims.append(frame_line(o, u, v, (5, near), (sym.half, near), lw))
        prims.append(frame_line(o, u, v, (-sym.half, base), (sym.half, base), lw))
    strokes = hatch(o, u, v, sym.hatch_from, sym.hatch_to, base + (0.0 if base else 1.5),
                    sym.hatch_depth, thin, sym.hatch_step)
    prims += strokes
    ground = (frame_point(o, u, v, -sym.half, base), frame_point(o, u, v, sym.half, base))
    glyph = Glyph("support", points={"attach": o,
                                     "ground": frame_point(o, u, v, 0.0, base + sym.hatch_depth)},
                  paths={"ground_line": ground},
                  lengths={"size": base, "width": 2 * sym.half,
                           "hatch_len": sym.hatch_depth * math.sqrt(2),
                           "hatch_gap": sym.hatch_step / math.sqrt(2), **extra},
                  facts={"symbol": kind.value, "set": "a", "hatch_count": len(strokes)})
    return prims, ground, glyph


def draw_supports(scene: Scene, model: Model) -> list[LabelRequest]:
    """Symbols, plus an angle mark for a roller or slider that is not square to the axes
    (its angle cannot be guessed from the picture alone)."""
    requests = []
    for s in model.supports:
        prims, ground, glyph = support_prims(scene, model, s)
        p = model.point(s.at)
        anchor = Anchor(f"point:{s.at}", (scene.px(p.x, p.y),))
        scene.add("support", s.id, "support", s.kind.value, prims, outline_shapes(prims),
                  glyph=glyph, anchor=anchor)
        if s.kind not in (SupportKind.ROLLER, SupportKind.SLIDER):
            continue
        upper, lower = sorted(ground, key=lambda q: (q[1], q[0]))
        ray = (lower[0] - upper[0], lower[1] - upper[1])  # the surface, on beyond its low end
        deg = math.degrees(math.atan2(abs(ray[1]), abs(ray[0])))
        if min(deg, 90.0 - deg) >= 0.05:
            requests.append(angle_mark(scene, s.id, "support", lower, ray, deg, "dim",
                                       extend=True, anchor=anchor))
    return requests
