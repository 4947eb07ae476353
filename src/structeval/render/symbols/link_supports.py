"""Symbol set b: supports drawn as pinned link bars, the other textbook convention.

Many textbooks (and most Chinese ones: 链杆支座) draw a support as the bars that
would hold the structure: a *link bar* is a short two-force bar with a hinge circle
at each end, standing on hatched ground, and it can only push or pull along its own
axis. So the restrained direction is drawn, not coded:

* roller (FORMAT.md S2, restrains n = (−sin θ, cos θ)): one bar along n;
* pin: two bars meeting at the joint, at ±``PIN_SPREAD``° from the ground normal;
* guided support / slider (S3, restrains n = (cos θ, sin θ) and rotation): two parallel
  bars along n, hung from a short rigid crosspiece at the joint (two parallel bars
  stop the motion along them and the turning, and let the joint slide across them);
* fixed end: a hatched wall, as in set a.

The bars start at the joint's own hinge circle when the joint has one (every member
end there is released); otherwise the bar's top circle hangs just below the member,
touching it, so it is not read as a hinge in the structure. The glyph records the
bars (joint-side and ground-side circle centres), so a reader takes the restrained
direction from the bars' direction; a slanted bar's exact angle is stated by the
angle mark on its ground line, which is square to the bars.
"""

from __future__ import annotations

import math

from ...model.types import SupportKind
from ..scene.glyphs import Glyph
from ..scene.scene import LAYER_SUPPORT, Disc, Prim, Scene, Stroke, frame_point
from ..scene.shapes import XY
from .ground import frame_line, hatch
from .members import HINGE_R

BAR_R = 3.4  # radius of a bar's end circles (smaller than a joint hinge's HINGE_R)
BAR_VISIBLE = 16.0  # px of bar between its two circles
PIN_SPREAD = 28.0  # degrees between each bar of a pin and the ground normal
CROSS_HALF = 8.5  # half the crosspiece of a guided support (the bars' spacing / 2)
CROSS_DROP = 7.0  # joint → crosspiece
HATCH_DEPTH, HATCH_STEP = 8.0, 6.0
GROUND_HALF = 17.0  # least half-length of a bar's ground line
WALL_HALF, WALL_HATCH = 26.0, (-22.0, 26.0, 12.0)  # as set a's fixed wall

#: symbol name (what the glyph says is drawn) by support kind
NAMES = {SupportKind.ROLLER: "link", SupportKind.PIN: "two-links",
         SupportKind.SLIDER: "parallel-links", SupportKind.FIXED: "wall"}

Frame = tuple[XY, XY, XY]  # origin, u (along the ground), v (into the ground)


def _bar(f: Frame, start: tuple[float, float], d: tuple[float, float], r_start: float,
         width: float) -> tuple[list[tuple[Prim, int]], tuple[float, float]]:
    """One bar from the circle of radius ``r_start`` centred at ``start`` along the frame
    direction ``d``, ending in a circle of BAR_R; returns its prims and the far centre."""
    o, u, v = f
    length = r_start + BAR_VISIBLE + BAR_R
    far = (start[0] + d[0] * length, start[1] + d[1] * length)
    a = (start[0] + d[0] * r_start, start[1] + d[1] * r_start)
    b = (far[0] - d[0] * BAR_R, far[1] - d[1] * BAR_R)
    prims: list[tuple[Prim, int]] = [
        (Stroke((frame_point(o, u, v, *a), frame_point(o, u, v, *b)), width, "ink"),
         LAYER_SUPPORT),
        (Disc(frame_point(o, u, v, *far), BAR_R, "paper", "ink", width * 0.8), LAYER_SUPPORT)]
    return prims, far


def _joint_circle(scene: Scene, f: Frame, hinged: bool, at_v: float,
                  ) -> tuple[list[tuple[Prim, int]], tuple[float, float], float]:
    """Where the bars start: the joint's own hinge circle, or a bar circle hanging from the
    member at depth ``at_v`` (its top touching the member's edge)."""
    if hinged:
        return [], (0.0, 0.0), HINGE_R
    o, u, v = f
    c = (0.0, at_v + scene.style.member_width / 2 + scene.style.line_width / 2 + BAR_R)
    return [(Disc(frame_point(o, u, v, *c), BAR_R, "paper", "ink", scene.style.line_width),
             LAYER_SUPPORT)], c, BAR_R


def link_symbol_prims(scene: Scene, kind: SupportKind, o: XY, u: XY, v: XY, hinged: bool,
                      ) -> tuple[list[tuple[Prim, int]], tuple[XY, XY], Glyph]:
    """The set b symbol of ``kind`` at joint ``o`` (frame: u along the ground, v into it)."""
    st = scene.style
    f: Frame = (o, u, v)
    width = st.line_width * 1.25
    prims: list[tuple[Prim, int]] = []
    joint_ends: list[tuple[float, float]] = []
    ground_ends: list[tuple[float, float]] = []
    if kind is SupportKind.FIXED:
        base, half = 0.0, WALL_HALF
        prims.append(frame_line(o, u, v, (-half, 0), (half, 0), st.member_width * 1.25))
        h_from, h_to, depth = WALL_HATCH
    else:
        if kind is SupportKind.SLIDER:
            top = HINGE_R if hinged else 0.0
            drop = top + CROSS_DROP
            prims.append(frame_line(o, u, v, (0, top), (0, drop), st.member_width))
            prims.append(frame_line(o, u, v, (-CROSS_HALF, drop), (CROSS_HALF, drop),
                                    st.member_width))
            c_v = drop + st.member_width / 2 + st.line_width / 2 + BAR_R
            starts = [(-CROSS_HALF, c_v), (CROSS_HALF, c_v)]
            for c in starts:
                prims.append((Disc(frame_point(o, u, v, *c), BAR_R, "paper", "ink",
                                   st.line_width), LAYER_SUPPORT))
            dirs = [(0.0, 1.0), (0.0, 1.0)]
            r_start = BAR_R
        else:
            first, c, r_start = _joint_circle(scene, f, hinged, 0.0)
            prims += first
            starts = [c] if kind is SupportKind.ROLLER else [c, c]
            spread = math.radians(PIN_SPREAD)
            dirs = [(0.0, 1.0)] if kind is SupportKind.ROLLER else [
                (-math.sin(spread), math.cos(spread)), (math.sin(spread), math.cos(spread))]
        for start, d in zip(starts, dirs, strict=True):
            bar, far = _bar(f, start, d, r_start, width)
            prims += bar
            joint_ends.append(start)
            ground_ends.append(far)
        base = max(g[1] for g in ground_ends) + BAR_R
        half = max(max(abs(g[0]) for g in ground_ends) + BAR_R + 9.0, GROUND_HALF)
        prims.append(frame_line(o, u, v, (-half, base), (half, base), st.line_width))
        h_from, h_to, depth = -half + 2.0, half, HATCH_DEPTH
    strokes = hatch(o, u, v, h_from, h_to, base + (0.0 if base else 1.5), depth,
                    st.thin_width, HATCH_STEP)
    prims += strokes
    ground = (frame_point(o, u, v, -half, base), frame_point(o, u, v, half, base))
    paths: dict[str, tuple[XY, ...]] = {"ground_line": ground}
    lengths = {"size": base, "width": 2 * half, "hatch_len": depth * math.sqrt(2),
               "hatch_gap": HATCH_STEP / math.sqrt(2)}
    if joint_ends:
        paths["bar_joint"] = tuple(frame_point(o, u, v, *p) for p in joint_ends)
        paths["bar_ground"] = tuple(frame_point(o, u, v, *p) for p in ground_ends)
        lengths["bar_r"] = BAR_R
        lengths["bar_visible"] = BAR_VISIBLE
    glyph = Glyph("support", points={"attach": o, "ground": frame_point(o, u, v, 0.0,
                                                                         base + depth)},
                  paths=paths, lengths=lengths,
                  facts={"symbol": NAMES[kind], "set": "b", "bars": len(joint_ends),
                         "hatch_count": len(strokes)})
    return prims, ground, glyph
