"""Members as thick lines and hinges as open circles.

A circle centred on a joint says "everything here is pinned together" (the members
stop at its rim: it is painted over their ends); a circle on one member, clear of the
joint by at least its own diameter, says "only this member's end is released". The
JSON distinguishes the two (FORMAT.md M4/M5), so the drawing does too, far enough
apart that the two can never be confused or counted as one (the ``hinges`` rule).
"""

from __future__ import annotations

import math
from collections import defaultdict

from ...model.types import Model
from ..scene.glyphs import Anchor, Glyph
from ..scene.scene import LAYER_HINGE, LAYER_MEMBER, Disc, Scene, Stroke, along, unit_vec
from ..scene.shapes import XY, Capsule

HINGE_R = 5.5
END_CLEAR = 2 * HINGE_R  # px of member between the joint and a released end's circle
END_GAP = END_CLEAR + HINGE_R  # px from the joint to that circle's centre
OWN_REACH = END_GAP + HINGE_R  # px: a circle this near a joint is drawn for that joint


def link_ends(model: Model) -> dict[str, list[tuple[str, str, bool]]]:
    """point id → [(link id, "A"|"B", hinged)] in model order."""
    ends: dict[str, list[tuple[str, str, bool]]] = defaultdict(list)
    for lk in model.links:
        ends[lk.a].append((lk.id, "A", lk.hinge_a))
        ends[lk.b].append((lk.id, "B", lk.hinge_b))
    return ends


def joint_hinged(model: Model, pid: str) -> bool:
    """Whether the joint gets one circle of its own (every link end there is hinged)."""
    ends = link_ends(model).get(pid, [])
    return bool(ends) and all(h for _, _, h in ends)


def directions_at(scene: Scene, model: Model, pid: str) -> list[XY]:
    """Unit vectors (figure pixels) from a point along each member meeting there."""
    return [d for _, d in _directions(scene, model, pid)]


def draw_members(scene: Scene, model: Model) -> None:
    w = scene.style.member_width
    for lk in model.links:
        pa, pb = model.point(lk.a), model.point(lk.b)
        a, b = scene.px(pa.x, pa.y), scene.px(pb.x, pb.y)
        scene.add("member", lk.id, "link", "member",
                  [(Stroke((a, b), w, "ink"), LAYER_MEMBER)], [Capsule(a, b, w / 2 + 0.5)],
                  glyph=Glyph("member", paths={"ends": (a, b)}, lengths={"width": w}))


def draw_hinges(scene: Scene, model: Model) -> None:
    width = scene.style.line_width
    for pid, ends in link_ends(model).items():
        p = model.point(pid)
        here = scene.px(p.x, p.y)
        if all(h for _, _, h in ends):
            keys = tuple(f"hinge:{lid}:{end}" for lid, end, _ in ends)
            scene.add("hinge", pid, "point", "hinge",
                      [(Disc(here, HINGE_R, "paper", "ink", width), LAYER_HINGE)],
                      keys=(f"hinge:{pid}", *keys), glyph=_circle(here, "joint"),
                      anchor=Anchor(f"point:{pid}", (here,)))
            continue
        for lid, end, hinged in ends:
            if not hinged:
                continue
            lk = model.link(lid)
            other = model.point(lk.b if end == "A" else lk.a)
            u = unit_vec(here, scene.px(other.x, other.y))
            centre = along(here, u, _end_gap(scene, model, pid, u, lk.id))
            scene.add("hinge", lid, "link", f"hinge-{end}",
                      [(Disc(centre, HINGE_R, "paper", "ink", width), LAYER_HINGE)],
                      keys=(f"hinge:{lid}:{end}",), glyph=_circle(centre, "end"),
                      anchor=Anchor(f"point:{pid}", (here,)))


def _end_gap(scene: Scene, model: Model, pid: str, u: XY, lid: str) -> float:
    """How far from the joint a released end's circle sits: a diameter clear of it, or
    further out when another member leaves the joint at a small angle (the circle must
    be on its own member only, or a reader cannot tell which end is released; and clear
    of that member's own circle by paper, when its end there is released too)."""
    gap = END_GAP
    lk = model.link(lid)
    pa, pb = model.point(lk.a), model.point(lk.b)
    length = math.dist(scene.px(pa.x, pa.y), scene.px(pb.x, pb.y))
    released = {other for other, _, hinged in link_ends(model).get(pid, []) if hinged}
    for other, d in _directions(scene, model, pid):
        if other == lid:
            continue
        sin = abs(u[0] * d[1] - u[1] * d[0])
        if d[0] * u[0] + d[1] * u[1] > 0 and sin > 1e-9:
            # the centre clearly off the other member; off its circle too, if it has one
            off = 2 * HINGE_R + 1.5 if other in released else 3.0
            gap = max(gap, off / sin)
    return min(gap, length / 3)


def _directions(scene: Scene, model: Model, pid: str) -> list[tuple[str, XY]]:
    """(link id, unit vector from the point along it) of each member meeting there."""
    p = model.point(pid)
    here = scene.px(p.x, p.y)
    out = []
    for lk in model.links:
        if pid in (lk.a, lk.b):
            other = model.point(lk.b if lk.a == pid else lk.a)
            out.append((lk.id, unit_vec(here, scene.px(other.x, other.y))))
    return out


def _circle(centre: XY, place: str) -> Glyph:
    return Glyph("hinge", points={"centre": centre}, lengths={"r": HINGE_R},
                 facts={"place": place})
