"""Exam dimensioning: heights given by a member's slope instead of a height dimension.

A rise:run triangle on an inclined member (its hypotenuse on the member, its legs
horizontal and vertical, the rise written beside the vertical leg and the run below
or above the horizontal one: "1" and "4") states the member's slope exactly. When a
height then follows — the upper joint's x is dimensioned and the member's other end
is dimensioned in x and y — the height is not dimensioned again. A height station is
given up this way only if every place at that height gets it so (directly, or along
a horizontal member from such a joint), and the vertical chain keeps two stations.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from ...model.types import Model
from ..scene.fonts import text_size
from ..scene.glyphs import Glyph
from ..scene.scene import LAYER_THIN, Prim, Scene, Stroke
from ..scene.shapes import XY, Capsule, Rect, Shape

MAX_TERM = 12  # rise and run are whole numbers up to this
LEG = 30.0  # px: the longer leg of a slope triangle, at least
SHORT_LEG = 16.0  # px: the shorter leg, at least (its number stands beside it)
#: sizes of a slope triangle tried, of its smallest (legs of LEG and SHORT_LEG px)
TRIANGLE_GROWTH = (1.0, 1.5, 2.0)
TEXT_GAP = 3.0


@dataclass(frozen=True)
class Slope:
    """A triangle on the straight run from ``low`` to ``high`` stating rise:run; it is drawn
    on the run's member at ``low`` (``low``–``next``)."""

    high: str  # the joint whose height follows
    low: str  # a dimensioned joint on the same straight run
    rise: int
    run: int
    next: str = ""  # the joint after ``low`` towards ``high``


def ratio(dx: float, dy: float) -> tuple[int, int] | None:
    """(rise, run) as small whole numbers when |dy|/|dx| is exactly such a ratio."""
    if abs(dx) < 1e-9 or abs(dy) < 1e-9:
        return None
    r = Fraction(abs(dy) / abs(dx)).limit_denominator(MAX_TERM)
    if r.numerator > MAX_TERM or abs(float(r) * abs(dx) - abs(dy)) > 1e-9 * abs(dy):
        return None
    return r.numerator, r.denominator


def plan_slopes(model: Model, needs_y: dict[str, float], y_only: set[float],
                groups: dict[str, str], tol: float, runs: list[list[str]],
                fits: Callable[[Slope], bool]) -> dict[str, Slope]:
    """Joints (by id) whose height a slope gives, from the top station down.

    ``needs_y``: joint → height for every joint the drawing must give a height;
    ``y_only``: heights some other place needs from a chain (a load on a column);
    ``groups``: joint → representative of the joints sharing its height along
    horizontal members; ``runs``: the straight runs of members (point ids in order, a
    single member included); ``fits``: whether a slope's triangle can be drawn clear of
    everything."""
    stations = sorted({round(y / tol) for y in needs_y.values()} | {round(y / tol) for y in y_only})
    kept = set(stations)
    out: dict[str, Slope] = {}
    for s in sorted(stations, reverse=True):
        if len(kept) <= 2 or s in {round(y / tol) for y in y_only}:
            continue
        here = [j for j, y in needs_y.items() if round(y / tol) == s]
        chosen: dict[str, Slope] = {}
        for g in sorted({groups[j] for j in here}):
            options = []
            for j in sorted(j for j in here if groups[j] == g):
                p = model.point(j)
                for run_ids in runs:
                    if j not in run_ids:
                        continue
                    at = run_ids.index(j)
                    for n, k in enumerate(run_ids):
                        if k == j or k not in needs_y or round(needs_y[k] / tol) not in kept \
                                or round(needs_y[k] / tol) >= s:
                            continue
                        q = model.point(k)
                        rr = ratio(p.x - q.x, p.y - q.y)
                        if rr is not None:
                            nxt = run_ids[n + 1] if at > n else run_ids[n - 1]
                            if fits(Slope(j, k, rr[0], rr[1], nxt)):
                                options.append((max(rr), abs(at - n), j, k, nxt, rr))
            if not options:
                break
            _, _, j, k, nxt, (rise, run) = min(options)
            chosen[j] = Slope(j, k, rise, run, nxt)
        else:
            kept.discard(s)
            out.update(chosen)
    return out


def draw_slope(scene: Scene, model: Model, slope: Slope, link_id: str, *,
               dry: bool = False) -> bool:
    """The triangle on the member ``low``–``next`` where it and its numbers touch nothing
    (``dry``: only say whether there is such a place)."""
    hi, lo = model.point(slope.next), model.point(slope.low)
    a, b = scene.px(lo.x, lo.y), scene.px(hi.x, hi.y)
    length = math.dist(a, b)
    u = ((b[0] - a[0]) / length, (b[1] - a[1]) / length)
    k0 = max(LEG / max(slope.rise, slope.run), SHORT_LEG / min(slope.rise, slope.run))
    size = scene.style.sizes["dim"]
    host = frozenset(i for i, it in enumerate(scene.layout.items)
                     if it.kind == "member" and it.owner == link_id)  # it sits on its member
    best: tuple[int, list[tuple[Prim, int]], list[Shape], Glyph, list] | None = None
    # the smallest triangle first; a larger one when a number finds no room beside its
    # leg (the short leg of a shallow slope, a wide digit)
    places = [(k0 * grow, t) for grow in TRIANGLE_GROWTH for t in (0.3, 0.5, 0.7, 0.15, 0.85)]
    for k, t in places:
        if best is not None:
            break
        hyp = math.hypot(slope.run * k, slope.rise * k)
        if t * length + hyp > length - 4.0 or t * length < 4.0:
            continue
        s = (a[0] + u[0] * t * length, a[1] + u[1] * t * length)
        e = (s[0] + u[0] * hyp, s[1] + u[1] * hyp)
        for corner in ((e[0], s[1]), (s[0], e[1])):
            legs = [(s, corner), (corner, e)]
            horiz = legs[0] if abs(legs[0][0][1] - legs[0][1][1]) < 1e-6 else legs[1]
            vert = legs[1] if horiz is legs[0] else legs[0]
            texts = [(text, _leg_text(text, size, leg, corner, s, e, vertical))
                     for text, leg, vertical in ((str(slope.run), horiz, False),
                                                 (str(slope.rise), vert, True))]
            w = scene.style.thin_width
            shapes: list[Shape] = [Capsule(p, q, w) for p, q in legs]
            hits = sum(len(scene.layout.obstacles.shape_hits(sh, 1.0, host)) for sh in shapes)
            hits += sum(len(scene.layout.obstacles.hits(r, 3.0)) for _, r in texts)
            prims: list[tuple[Prim, int]] = [(Stroke((s, corner, e), w, "dim"), LAYER_THIN)]
            glyph = Glyph("slope", points={"start": s, "corner": corner, "end": e})
            if hits == 0 and best is None:
                best = (hits, prims, shapes, glyph, texts)
    if best is None or dry:
        return best is not None
    _, prims, shapes, glyph, texts = best
    scene.add("dimension", link_id, "link", "slope", prims, shapes, glyph=glyph)
    for (text, rect), role in zip(texts, ("slope-run", "slope-rise"), strict=True):
        scene.add_text(link_id, "link", role, text, size, rect, "dim")
    return True



def _leg_text(text: str, size: float, leg: tuple[XY, XY], corner: XY,
              s: XY, e: XY, vertical: bool) -> Rect:
    """The box of a slope number beside its leg, outside the triangle, 0.4 of the way
    from the corner end (away from the member)."""
    w, h = text_size(text, size)
    p, q = leg
    near = p if p == corner else q
    far = q if near is p else p
    mid = (near[0] + (far[0] - near[0]) * 0.4, near[1] + (far[1] - near[1]) * 0.4)
    if vertical:
        side = 1.0 if mid[0] >= (s[0] + e[0]) / 2 else -1.0
        x0 = mid[0] + TEXT_GAP if side > 0 else mid[0] - TEXT_GAP - w
        return (x0, mid[1] - h / 2, x0 + w, mid[1] + h / 2)
    side = 1.0 if mid[1] >= (s[1] + e[1]) / 2 else -1.0
    y0 = mid[1] + TEXT_GAP if side > 0 else mid[1] - TEXT_GAP - h
    return (mid[0] - w / 2, y0, mid[0] + w / 2, y0 + h)
