"""Point loads, couples and the order loads are drawn in.

Directions and positions come only from :mod:`structeval.model.semantics`, so the
picture shows exactly the force the solver applies. An arrow normally points at
the structure from outside; when that side is taken (the member continues
there, or a support), it starts at the joint and points away instead — the same
force, drawn where it can be seen.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ...model.semantics import couple, force_direction, link_axis, position_on_link, unit
from ...model.semantics import world_point_of_load as world_point
from ...model.types import BendingMoment, DistributedLoad, Model, PointLoad
from ..scene.glyphs import Anchor, Glyph
from ..scene.scene import LAYER_LOAD, Prim, Scene, Stroke, along
from ..scene.shapes import XY, Box, Capsule, point_segment_distance
from .arrows import (
    ANGLE_R,
    HEAD_HALF,
    HEAD_LEN,
    LabelRequest,
    angle_mark,
    arc_points,
    arrow,
    visual_deg,
)
from .distributed import Occupancy, draw_distributed
from .members import HINGE_R, directions_at, joint_hinged

ARROW_LEN = 52.0
MOMENT_R = 27.0
MOMENT_HEAD = 15.0  # px along the arc: ≥ 0.8 × the load text's cap height
MOMENT_HEAD_HALF = 6.5
SIDE_OFFSET = 14.0
FREE_END = 30.0  # px: a pulling arrow's tip keeps this far from every member
MOMENT_SWEEP = 280.0


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
                    arrow_len: float = ARROW_LEN) -> list[LabelRequest]:
    """The force's arrow (``arrow_len`` px of it outside any rows it must reach past)
    where it reads best, and the request for its value text."""
    dx, dy = force_direction(model, load)
    sign = -1.0 if load.value < 0 else 1.0
    a = (dx * sign, -dy * sign)  # figure axes
    at = scene.px(*world_point(model, load))
    gap = _tip_gap(scene, model, load)
    reach = _row_reach(model, occ, load, (-a[0], -a[1]))
    length = arrow_len + reach
    # rows on the load's own member(s) may be crossed by the first option only: its arrow
    # was lengthened to reach past them
    mine = {load.target.id} if load.target.type == "link" else {
        lk.id for lk in model.links if load.target.id in (lk.a, lk.b)}
    on_link = {ld.id: ld.target.id for ld in model.loads if ld.target.type == "link"}
    own_rows = frozenset(i for i, it in enumerate(scene.layout.items)
                         if it.role == "row" and on_link.get(it.owner) in mine)
    # the line of action always runs through the point (a reader finds the place where it
    # meets the structure); the arrow may stop a little short of a crowded joint
    options = [("push", along(along(at, a, -g), a, -length), along(at, a, -g), own_rows)
               for g in (gap, gap + 5.0, gap + 10.0)]
    options += [("pull", along(at, a, g), along(at, a, g + arrow_len), frozenset())
                for g in (gap, gap + 5.0)]
    around = _occupied_around(scene, model, load)
    if any(abs(a[0] * d[1] - a[1] * d[0]) < 1e-9 for d in around):
        others = [it.glyph.paths["ends"] for it in scene.layout.items
                  if it.kind == "member" and it.glyph is not None
                  and not _parallel(it.glyph.paths["ends"], a)]
        for side in (1.0, -1.0):  # along a member: beside it, the tip level with the point
            beside = (at[0] - a[1] * side * SIDE_OFFSET, at[1] + a[0] * side * SIDE_OFFSET)
            # only where no other member is: a tip on another member would say "here"
            if all(point_segment_distance(beside, p, q) > 0.7 * SIDE_OFFSET for p, q in others):
                options.append(("beside", along(beside, a, -arrow_len), beside, frozenset()))
    slanted = _needs_angle_mark(model, load, a)

    def lies_on_member(mode: str) -> bool:
        """An arrow drawn over a member of its point hides which end acts."""
        if mode == "beside":
            return False
        away = (-a[0], -a[1]) if mode == "push" else a
        return any(d[0] * away[0] + d[1] * away[1] > 0.9999 for d in around)

    member_ends = [it.glyph.paths["ends"] for it in scene.layout.items
                   if it.kind == "member" and it.glyph is not None]

    def cost(o: tuple[str, XY, XY, frozenset[int]]) -> int:
        """Clean arrows first, then arrows crossing a little, then arrows drawn over a
        member of their point (still read by their head); never one whose far end or
        (laid beside) tip touches something else: a reader would take that for the place."""
        mode, tail, tip, rows = o
        free_end = tip if mode == "pull" else tail
        crowd = scene.layout.obstacles.hits((free_end[0] - 8.0, free_end[1] - 8.0,
                                              free_end[0] + 8.0, free_end[1] + 8.0), 0.0)
        # a pushing arrow over a member of its point still shows the place by its head; a
        # pulling one's head on that member would say "here" (so it must be off it)
        under = [e for e in member_ends if mode == "push" and lies_on_member(mode)
                 and _parallel(e, a) and min(math.dist(e[0], at), math.dist(e[1], at)) < 1.0]
        near_member = min((point_segment_distance(free_end, p, q) for p, q in member_ends
                           if (p, q) not in under), default=math.inf)
        unreadable = (mode == "pull" and near_member < FREE_END) or (
            mode != "pull" and near_member < 4.0) or (mode == "beside" and bool(
                scene.layout.obstacles.hits((tip[0] - 4.0, tip[1] - 4.0, tip[0] + 4.0,
                                             tip[1] + 4.0), 0.0)))
        return (1000 * unreadable + 60 * lies_on_member(mode)
                + _arrow_hits(scene, tail, tip, "whole" if mode == "beside" else mode, rows)
                + (_mark_hits(scene, tail) if slanted else 0) + 6 * len(crowd))

    mode, tail, tip, _ = min(options, key=cost)
    prims, shapes = arrow(tail, tip, scene.style.line_width)
    glyph = Glyph("arrow", points={"tail": tail, "tip": tip},
                  lengths={"head": HEAD_LEN, "head_width": 2 * HEAD_HALF})
    scene.add("load", load.id, "load", "arrow", prims, shapes, glyph=glyph,
              anchor=Anchor(_target(load), (at,)))
    far, outward = (tip, a) if mode == "pull" else (tail, (-a[0], -a[1]))
    middle = ((tail[0] + tip[0]) / 2, (tail[1] + tip[1]) / 2)
    requests = [LabelRequest(scene.values.force(load.value), "load", load.id, "load",
                             "value", far, outward, also=(middle,))]
    requests += _angle_mark(scene, model, load, tail, tip, a, Anchor(_target(load), (at,)))
    return requests


def _parallel(ends: tuple[XY, ...], a: XY) -> bool:
    (x0, y0), (x1, y1) = ends
    return abs(a[0] * (y1 - y0) - a[1] * (x1 - x0)) < 1e-9 * math.hypot(x1 - x0, y1 - y0)


def _arrow_hits(scene: Scene, tail: XY, tip: XY, mode: str, rows: frozenset[int]) -> int:
    """How many px of an arrow would run over drawn things (``rows`` aside): an arrow
    lying along a member is worse than one crossing a diagonal. The part next to the
    joint is not counted (it touches the structure by design)."""
    d = (tip[0] - tail[0], tip[1] - tail[1])
    n = math.hypot(*d)
    u = (d[0] / n, d[1] / n)
    a, b = {"push": (tail, along(tip, u, -8.0)), "pull": (along(tail, u, 8.0), tip),
            "whole": (tail, tip)}[mode]
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


def _needs_angle_mark(model: Model, load: PointLoad, a: XY) -> bool:
    """A force not along an axis (nor square to its member) needs its angle written."""
    deg = math.degrees(math.atan2(abs(a[1]), abs(a[0])))
    if min(deg, 90 - deg) < 0.05:
        return False
    if load.target.type == "link":
        ex, ey, _ = link_axis(model, model.link(load.target.id))
        if abs(ex * a[0] - ey * a[1]) < 1e-6 and abs(ey) > 1e-9:  # square to an inclined member
            return False
    return True


def _mark_hits(scene: Scene, tail: XY) -> int:
    """How crowded the place of an angle mark at ``tail`` is (its arc and its text)."""
    r = ANGLE_R + 14.0
    box = (tail[0] - r, tail[1] - r, tail[0] + r, tail[1] + r)
    return 4 * len(scene.layout.obstacles.hits(box, 0.0))


def _angle_mark(scene: Scene, model: Model, load: PointLoad, tail: XY, tip: XY, a: XY,
                anchor: Anchor) -> list[LabelRequest]:
    """For a force not along an axis (nor square to its member), mark its angle to the
    horizontal at the tail: the reader needs it to rebuild the load."""
    if not _needs_angle_mark(model, load, a):
        return []
    deg = math.degrees(math.atan2(abs(a[1]), abs(a[0])))
    shaft = (tip[0] - tail[0], tip[1] - tail[1])
    return [angle_mark(scene, load.id, "load", tail, shaft, deg, "load", anchor=anchor)]


def _moment_tip_options(scene: Scene, model: Model, load: BendingMoment) -> list[float]:
    """Visual angles (degrees) for the arrowhead's tip, best first: the head must lie in
    free space, so candidates are ranked by what they would touch, then by how far they
    are from the members meeting there."""
    centre = scene.px(*world_point(model, load))
    own = _occupied_around(scene, model, load)
    own_deg = [visual_deg(d) for d in own]
    ccw = couple(load) >= 0
    head_span = math.degrees(MOMENT_HEAD / MOMENT_R)
    obstacles = scene.layout.obstacles

    members_here = frozenset(
        i for i, it in enumerate(scene.layout.items) if it.kind == "member"
        and it.glyph is not None and (it.owner == load.target.id if load.target.type == "link"
                                      else min(math.dist(e, centre)
                                               for e in it.glyph.paths["ends"]) < 0.5))
    members_here |= frozenset(i for i, it in enumerate(scene.layout.items)
                              if it.kind == "support" and it.anchor is not None
                              and math.dist(it.anchor.at[0], centre) < 0.5)

    def touching(points: list[XY], pad: float, ignore: frozenset[int]) -> int:
        return sum(len(obstacles.hits((q[0] - pad, q[1] - pad, q[0] + pad, q[1] + pad), 1.0,
                                      ignore)) for q in points)

    def rank(tip_deg: float) -> tuple[int, int, float]:
        back = -1.0 if ccw else 1.0
        mid = tip_deg + back * head_span / 2
        clearance = min((abs((mid - d + 180.0) % 360.0 - 180.0) for d in own_deg),
                        default=180.0)
        head = arc_points(centre, MOMENT_R, tip_deg + back * head_span, tip_deg, step=5.0)
        arc = arc_points(centre, MOMENT_R, tip_deg + back * MOMENT_SWEEP,
                         tip_deg + back * head_span, step=8.0)
        # the head touches nothing; the arc nothing but the members (and support) at its point
        return (touching(head, MOMENT_HEAD_HALF, frozenset()),
                touching(arc, 1.5, members_here), -round(clearance, 3))

    return sorted((float(a) for a in range(0, 360, 10)), key=rank)


def draw_moment(scene: Scene, model: Model, load: BendingMoment) -> list[LabelRequest]:
    """A couple: an arc of MOMENT_SWEEP degrees round its point, ending in a large head.

    The head is what says which way the couple turns, so it goes where nothing else is
    drawn (the members at the point may cross the arc, never the head), and it is long
    compared with the text (the legibility rules hold it to the load text's cap height).
    """
    centre = scene.px(*world_point(model, load))
    ccw = couple(load) >= 0
    tip_deg = _moment_tip_options(scene, model, load)[0]
    sense = 1.0 if ccw else -1.0
    start = tip_deg - sense * MOMENT_SWEEP
    head_deg = math.degrees(MOMENT_HEAD / MOMENT_R) * sense
    pts = arc_points(centre, MOMENT_R, start, tip_deg - head_deg * 0.8)
    tip = arc_points(centre, MOMENT_R, tip_deg, tip_deg)[0]
    head_base = arc_points(centre, MOMENT_R, tip_deg - head_deg, tip_deg - head_deg)[0]
    w = scene.style.line_width
    head_prims, _ = arrow(head_base, tip, w, head_len=MOMENT_HEAD, head_half=MOMENT_HEAD_HALF)
    prims: list[tuple[Prim, int]] = [(Stroke(tuple(pts), w * 1.2, "load"), LAYER_LOAD),
                                     *head_prims]
    r = MOMENT_R + MOMENT_HEAD_HALF
    box = Box((centre[0] - r, centre[1] - r, centre[0] + r, centre[1] + r))
    glyph = Glyph("couple", points={"centre": centre, "start": pts[0], "tip": tip,
                                    "head_base": head_base},
                  lengths={"r": MOMENT_R, "head": MOMENT_HEAD, "head_width": 2 * MOMENT_HEAD_HALF},
                  facts={"sweep": MOMENT_SWEEP, "sense": "ccw" if ccw else "cw"})
    scene.add("load", load.id, "load", "arc", prims, [box], glyph=glyph,
              anchor=Anchor(_target(load), (centre,)))
    gap_dir = unit(tip_deg + sense * (360.0 - MOMENT_SWEEP) / 2)
    value = scene.values.couple(load.value)
    return [LabelRequest(value, "load", load.id, "load", "value", centre,
                         (gap_dir[0], -gap_dir[1]), first_gap=r + 4.0)]


def _target(load: PointLoad | BendingMoment | DistributedLoad) -> str:
    return f"{load.target.type}:{load.target.id}"


def draw_loads(scene: Scene, model: Model, shorter: Mapping[str, float] | None = None,
               ) -> list[LabelRequest]:
    """Rows first (they decide how long the other arrows must be), then couples, then
    forces; the arrow of a force named in ``shorter`` is drawn that share of its usual
    length (two arrows that would otherwise run together on one line: the figure's
    second try, :func:`..compose.figure.lay_out`)."""
    shorter = shorter or {}
    occ = Occupancy()
    requests: list[LabelRequest] = []
    gap = scene.style.member_width / 2 + 1.5
    arcs = [(scene.px(*world_point(model, ld)), MOMENT_R + MOMENT_HEAD_HALF + 2.0)
            for ld in model.loads if isinstance(ld, BendingMoment)]
    for load in model.loads:
        if isinstance(load, DistributedLoad):
            requests += draw_distributed(scene, model, load, occ, gap, arcs)
    for load in model.loads:  # couples before forces: an arc's place is fixed, an arrow's not
        if isinstance(load, BendingMoment):
            requests += draw_moment(scene, model, load)
    for load in model.loads:
        if isinstance(load, PointLoad):
            requests += draw_point_load(scene, model, load, occ,
                                        ARROW_LEN * shorter.get(load.id, 1.0))
    return requests
