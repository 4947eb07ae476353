"""Arrow and arc primitives shared by loads, moments and dimension marks."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..reading.value_text import fmt_number
from ..scene.glyphs import Anchor, Glyph
from ..scene.scene import LAYER_LOAD, LAYER_THIN, Fill, Prim, Scene, Stroke, along, unit_vec
from ..scene.shapes import XY, Box, Capsule, Shape

HEAD_LEN = 10.0
HEAD_HALF = 4.2


@dataclass(frozen=True)
class LabelRequest:
    """A label to place once all graphics exist (so it can avoid all of them)."""

    text: str
    size_key: str
    owner: str
    owner_type: str
    role: str
    anchor: XY
    prefer: XY | None
    colour_role: str = "load"
    first_gap: float = 3.0
    also: tuple[XY, ...] = ()  # further anchors to try, ring by ring with the first


def arrow(tail: XY, tip: XY, width: float, role: str = "load", layer: int = LAYER_LOAD,
          head_len: float = HEAD_LEN, head_half: float = HEAD_HALF,
          ) -> tuple[list[tuple[Prim, int]], list[Shape]]:
    """A shaft and a filled head ending exactly at ``tip``; short arrows are all head."""
    d = unit_vec(tail, tip)
    length = math.hypot(tip[0] - tail[0], tip[1] - tail[1])
    head_len = min(head_len, length)
    base = along(tip, d, -head_len)
    n = (-d[1], d[0])
    head = (tip, along(base, n, head_half), along(base, n, -head_half))
    prims: list[tuple[Prim, int]] = [(Fill(head, role, role, 1.0), layer)]
    shapes: list[Shape] = [Capsule(base, tip, head_half * 0.75)]
    if length - head_len > 0.5:
        prims.insert(0, (Stroke((tail, base), width, role), layer))
        shapes.insert(0, Capsule(tail, base, width / 2 + 0.5))
    return prims, shapes


def arc_points(centre: XY, radius: float, start_deg: float, end_deg: float, step: float = 6.0,
               ) -> list[XY]:
    """Points of a circular arc; angles are visual (counter-clockwise on screen, 0° = right)."""
    n = max(2, math.ceil(abs(end_deg - start_deg) / step))
    out = []
    for i in range(n + 1):
        a = math.radians(start_deg + (end_deg - start_deg) * i / n)
        out.append((centre[0] + radius * math.cos(a), centre[1] - radius * math.sin(a)))
    return out


def visual_deg(v: XY) -> float:
    """Visual angle (counter-clockwise on screen) of a figure-pixel vector."""
    return math.degrees(math.atan2(-v[1], v[0]))


ANGLE_R = 26.0


def angle_mark(scene: Scene, owner: str, owner_type: str, vertex: XY, ray: XY, degrees: float,
               role: str, radius: float = ANGLE_R, *, extend: bool = False,
               anchor: Anchor | None = None) -> LabelRequest:
    """A dashed horizontal reference at ``vertex`` and an arc from it to ``ray``: how a
    drawing states the inclination of a force or a support. ``extend`` also draws the
    ray itself as a dashed construction line (a support's surface continued beyond its
    end). Returns the label to place."""
    ref = (math.copysign(1.0, ray[0]), 0.0)
    start, end = visual_deg(ref), visual_deg(ray)
    if end - start > 180:
        end -= 360
    elif start - end > 180:
        end += 360
    pts = arc_points(vertex, radius, start, end, step=4.0)
    w = scene.style.thin_width
    ref_end = along(vertex, ref, radius + 8.0)
    prims: list[tuple[Prim, int]] = [(Stroke((vertex, ref_end), w, role, dash=3.0), LAYER_THIN),
                                     (Stroke(tuple(pts), w, role), LAYER_THIN)]
    shapes: list[Shape] = [Capsule(vertex, ref_end, w), Box((
        min(p[0] for p in pts), min(p[1] for p in pts), max(p[0] for p in pts),
        max(p[1] for p in pts)))]
    if extend:
        ray_end = along(vertex, unit_vec((0.0, 0.0), ray), radius + 8.0)
        prims.append((Stroke((vertex, ray_end), w, role, dash=3.0), LAYER_THIN))
        shapes.append(Capsule(vertex, ray_end, w))
    kind = "load" if owner_type == "load" else "support"
    glyph = Glyph("angle", points={"vertex": vertex, "ref": ref_end, "ray": pts[-1]},
                  lengths={"r": radius})
    scene.add(kind, owner, owner_type, "angle", prims, shapes, glyph=glyph, anchor=anchor)
    mid = arc_points(vertex, radius, (start + end) / 2, (start + end) / 2)[0]
    return LabelRequest(f"{fmt_number(round(degrees, 1))}°", "dim", owner, owner_type, "angle",
                        mid, (mid[0] - vertex[0], mid[1] - vertex[1]), colour_role=role)
