"""Dimension chains: every distinct x and y a reader needs to rebuild the model.

Joints, loads on members and the edges of partial distributed loads all get a
tick, so no position has to be guessed from the picture. Chains sit outside
everything already drawn; extension lines run from a chain towards the feature
and stop short of the first thing in the way, as on an engineering drawing.

A tick only dimensions a place when the reader can tell which place it means, so
every joint and every load position is *reached*: an extension line runs from its
tick to it (it may cross members on the way, never another joint), or the place
follows from one that is reached through a member visibly along that axis (a
column's top has its foot's x). Which places need a line, and from which side
(near chain or far chain), is planned once the members, supports and loads are
drawn and before any label is placed; the planned lines are reserved so labels
keep off them (:meth:`Obstacles.reserve`), and drawn last, when the chains' places
outside everything are known.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field

from ...model.types import Model
from ..legibility.positions import BRIDGE_CAPS
from ..reading.exam import ExamPlan, exam_plan, straight_runs
from ..reading.stations import Place, distinct, features, places
from ..scene.fonts import cap_height, text_size
from ..scene.glyphs import Glyph
from ..scene.scene import LAYER_THIN, Prim, Scene, Stroke
from ..scene.shapes import XY, Box, Capsule, Rect, Shape
from ..symbols.members import OWN_REACH
from .chains import (
    HALO,
    OFFSET,
    OVERSHOOT,
    STOP_SHORT,
    TICK,
    Axis,
    depths,
    first_block,
    thick_hit,
    v_to_xy,
)
from .exam_marks import draw_axis, draw_levels, reserve_axis
from .placement import place_label
from .slopes import Slope, draw_slope, plan_slopes

TOTAL_OFFSET = 16.0
LOCAL_OFFSET = 26.0  # px from a member to a local chain beside it


X_NEAR, X_FAR = Axis("x", (1.0, 0.0), (0.0, 1.0)), Axis("x", (1.0, 0.0), (0.0, -1.0))
Y_RIGHT, Y_LEFT = Axis("y", (0.0, 1.0), (1.0, 0.0)), Axis("y", (0.0, 1.0), (-1.0, 0.0))


@dataclass
class AxisPlan:
    """One axis: its station values (world), the two sides, and per side and station the
    place its extension line runs to (``targets``) and whether the station is needed there."""

    near: Axis
    far: Axis
    values: list[float]
    targets: dict[tuple[int, float], XY] = field(default_factory=dict)  # (side, value) → px
    used: set[tuple[int, float]] = field(default_factory=set)
    passes: dict[tuple[int, float], frozenset[int]] = field(default_factory=dict)  # may cross
    levels: bool = False  # exam: heights as level marks instead of a chain

    def chain_values(self, side: int) -> list[float]:
        ends = {self.values[0], self.values[-1]}
        mine = {v for s, v in self.used if s == side}
        if self.levels:  # a level mark stands alone: only where it is needed
            other = {v for s, v in self.used if s == 1}
            return [v for v in self.values if v in mine or (side == 0 and v not in other)]
        if side == 0:
            other = {v for s, v in self.used if s == 1}
            return [v for v in self.values if v in mine or v in ends or v not in other]
        return [v for v in self.values if v in mine or v in ends] if mine else []


@dataclass(frozen=True)
class Walk:
    """What an extension line from one side reaches at one station: the places in order
    from outside (the line is drawn to the first; each next one is in plain sight of the
    one before, no member between), and how many members the drawn part crosses."""

    reached: tuple[int, ...]
    crosses: int
    through: tuple[int, ...] = ()  # further places a drawn line reaches, crossing members
    ignore: frozenset[int] = frozenset()  # what such a line may pass (the places' own)


def _coord(axis: str, p: XY) -> float:
    return p[0] if axis == "x" else p[1]


def _own(scene: Scene, px: XY) -> frozenset[int]:
    """Items drawn for the place at ``px`` (its support, hinge, loads): a line may end at them
    (a released end's circle only when it is close enough to be seen as the joint's)."""
    return frozenset(i for i, it in enumerate(scene.layout.items)
                     if it.anchor is not None and any(math.dist(q, px) < 0.5 for q in it.anchor.at)
                     and not (it.glyph is not None and it.glyph.type == "hinge"
                              and math.dist(it.glyph.points["centre"], px) > OWN_REACH))


def _circles(scene: Scene, items: frozenset[int]) -> frozenset[int]:
    """The hinge circles among ``items``: all a line drawn on through a joint may cross."""
    return frozenset(i for i in items if scene.layout.items[i].kind == "hinge")


def _crossings(axis: Axis, a0: float, o_from: float, o_to: float,
               members: list[tuple[XY, XY]], skip: list[tuple[XY, XY]]) -> int:
    """Members crossing the station line a = a0 strictly between o_to and o_from."""
    lo_o, hi_o = min(o_from, o_to) + 1.0, max(o_from, o_to) - 1.0
    count = 0
    for a, b in members:
        if (a, b) in skip:
            continue
        (aa, ao), (ba, bo) = axis.coords(a), axis.coords(b)
        if abs(ba - aa) < 1e-9 or not min(aa, ba) - 0.5 <= a0 <= max(aa, ba) + 0.5:
            continue
        o = ao + (bo - ao) * (a0 - aa) / (ba - aa)
        if lo_o < o < hi_o:
            count += 1
    return count


def _blocked(scene: Scene, axis: Axis, a0: float, o_from: float, o_to: float,
             ignore: frozenset[int]) -> bool:
    """Whether anything a thin line must stop at (not in ``ignore``) lies on the line between."""
    d = (-axis.out[0], -axis.out[1]) if o_to < o_from else axis.out
    room = abs(o_from - o_to) - 1.0
    if room <= 0:
        return False
    start = o_from - 0.5 if o_to < o_from else o_from + 0.5
    return any(first_block(scene, axis.fig(a0 + da, start), d, room, ignore) is not None
               for da in (-HALO, 0.0, HALO))


#: px (design) within which a place's own symbol covers a line's last stretch. The rule
#: allows 2 px in the stored image, which is enlarged up to about 3×: a smaller pad here
#: keeps the plan on the safe side of the rule at every enlargement.
COVER_PAD = 0.6


def _bridged(scene: Scene, axis: Axis, a0: float, outside: float, first_o: float,
             structural: frozenset[int], own: frozenset[int]) -> bool:
    """Where the line will stop (at the place's own symbol, if one is in the way), the rest
    of the way to the place is covered by that symbol or short (legibility.positions).
    ``structural`` is what the line may cross on its way."""
    room = outside - first_o
    hit = thick_hit(scene, axis, a0, outside, room, structural)  # as the line is drawn
    if hit is None:
        return True
    end_o = outside - hit + 2.0
    boxes: list[Shape] = [Box(scene.layout.items[i].bbox) for i in own]
    bare = 0.0
    steps = max(1, math.ceil(end_o - first_o))
    for k in range(steps):
        o = end_o - (end_o - first_o) * (k + 0.5) / steps
        x, y = axis.fig(a0, o)
        if not any(b.hits((x - 0.5, y - 0.5, x + 0.5, y + 0.5), COVER_PAD) for b in boxes):
            bare += (end_o - first_o) / steps
    return bare <= BRIDGE_CAPS * cap_height(scene.style.sizes["dim"]) - STOP_SHORT


def _walk(scene: Scene, axis: Axis, on_station: list[int], pxs: list[XY],
          members: list[tuple[XY, XY]], incident: list[list[tuple[XY, XY]]],
          structural: frozenset[int]) -> Walk:
    """Follow the station's line inwards from outside (see :class:`Walk`)."""
    if not on_station:
        return Walk((), 0)  # a station no place is on (a symmetry axis through no joint)
    order = sorted(on_station, key=lambda i: -axis.coords(pxs[i])[1])
    a0 = axis.coords(pxs[order[0]])[0]
    x0, y0, x1, y1 = scene.layout.extent()
    outside = axis.reach((x0, y0, x1, y1)) + 10.0
    first_o = axis.coords(pxs[order[0]])[1]
    own = _own(scene, pxs[order[0]])
    if _blocked(scene, axis, a0, outside, first_o, structural | own):
        return Walk((), 0)
    if not _bridged(scene, axis, a0, outside, first_o, structural, own):
        return Walk((), 0)
    crosses = _crossings(axis, a0, outside, first_o, members, incident[order[0]])
    reached, through = [order[0]], []
    passed = _circles(scene, own)  # a line drawn on crosses the circles of the joints it passes
    for prev, nxt in itertools.pairwise(order):
        o_prev, o_next = axis.coords(pxs[prev])[1], axis.coords(pxs[nxt])[1]
        skip = incident[prev] + incident[nxt]
        mine = _own(scene, pxs[nxt])
        ignore = structural | _own(scene, pxs[prev]) | mine
        if _blocked(scene, axis, a0, o_prev, o_next, ignore):
            break
        if through or _crossings(axis, a0, o_prev, o_next, members, skip):
            # only a line drawn on through the members reaches it: it passes ``prev`` (whose
            # symbols, bar a hinge circle, it must not cross) and must get to ``nxt``
            if any(scene.layout.items[i].kind != "hinge" for i in _own(scene, pxs[prev])):
                break
            if not _bridged(scene, axis, a0, outside, o_next, structural | passed, mine):
                break
            through.append(nxt)
        else:
            reached.append(nxt)
        passed |= _circles(scene, mine)
    return Walk(tuple(reached), crosses, tuple(through), passed)


def _groups(model: Model, axis: str) -> dict[str, str]:
    """Joint → representative: joints linked by a member along ``axis``'s lines share the
    coordinate (a vertical member for x, a horizontal one for y)."""
    parent = {p.id: p.id for p in model.points}

    def root(k: str) -> str:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for lk in model.links:
        pa, pb = model.point(lk.a), model.point(lk.b)
        same = pa.x == pb.x if axis == "x" else pa.y == pb.y
        if same:
            parent[root(lk.a)] = root(lk.b)
    return {p.id: root(p.id) for p in model.points}


def _skipped(exam: ExamPlan | None, found: list[Place], span: float) -> dict[str, set[int]]:
    """Axis → the places whose coordinate an exam drawing leaves to a deduction (the
    mirrored half of a symmetric figure; heights implied by a straight chord)."""
    out: dict[str, set[int]] = {"x": set(), "y": set()}
    if exam is None:
        return out
    for i, f in enumerate(found):
        if exam.mirrored(f.world[0], span):
            out["x"].add(i)
            out["y"].add(i)
        elif f.target.startswith("point:") and f.target[6:] in exam.implied_y:
            out["y"].add(i)
    return out


def _slopes(scene: Scene, model: Model, found: list[Place], skipped: dict[str, set[int]],
            tol: float) -> None:
    """Heights a slope triangle gives instead of the vertical chain (:mod:`.slopes`): draws
    the triangles and leaves those heights out of the chain."""
    needs = {f.target[6:]: f.world[1] for i, f in enumerate(found)
             if f.target.startswith("point:") and i not in skipped["y"]}
    y_only = {f.world[1] for i, f in enumerate(found) if f.axes == "y" and i not in skipped["y"]}
    runs = straight_runs(model) + [[lk.a, lk.b] for lk in model.links]
    links = {frozenset((lk.a, lk.b)): lk.id for lk in model.links}

    def fits(slope: Slope) -> bool:
        return draw_slope(scene, model, slope, links[frozenset((slope.next, slope.low))],
                          dry=True)

    chosen = plan_slopes(model, needs, y_only, _groups(model, "y"), tol, runs, fits)
    if not chosen:
        return
    dropped = {round(needs[j] / tol) for j in chosen}
    for i, f in enumerate(found):
        if f.target.startswith("point:") and round(f.world[1] / tol) in dropped:
            skipped["y"].add(i)
    for slope in chosen.values():
        draw_slope(scene, model, slope, links[frozenset((slope.next, slope.low))])


def plan_dimensions(scene: Scene, model: Model) -> list[AxisPlan]:
    """Which stations each axis needs and where each extension line goes; reserves the
    lines' paths so the labels placed next keep off them."""
    found = places(model)
    pts = [f.world for f in found]
    pxs = [scene.px(*p) for p in pts]
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    tol = 1e-6 * max(max(xs) - min(xs), max(ys) - min(ys), 1e-9)
    exam = exam_plan(model) if scene.shown.dimensioning == "exam" else None
    scene.exam = exam
    skipped = _skipped(exam, found, tol * 1e6)
    if exam is not None and exam.axis is not None:
        reserve_axis(scene, exam.axis)
    if exam is not None:
        _slopes(scene, model, found, skipped, tol)
    members = []
    by_target: dict[str, list[tuple[XY, XY]]] = {}
    for lk in model.links:
        pa, pb = model.point(lk.a), model.point(lk.b)
        seg = (scene.px(pa.x, pa.y), scene.px(pb.x, pb.y))
        members.append(seg)
        for key in (f"point:{lk.a}", f"point:{lk.b}", f"link:{lk.id}"):
            by_target.setdefault(key, []).append(seg)
    incident = [by_target.get(f.target, []) for f in found]
    structural = frozenset(i for i, it in enumerate(scene.layout.items)
                           if it.kind in ("member", "dimension"))
    plans = []
    either_done: set[int] = set()
    for name, sides in (("x", (X_NEAR, X_FAR)), ("y", (Y_RIGHT, Y_LEFT))):
        coords = [_coord(name, p) for i, p in enumerate(pts) if i not in skipped[name]]
        if name == "x" and exam is not None and exam.axis is not None:
            coords.append(exam.axis)  # the axis is dimensioned: the half ends there
        values = distinct(coords, tol)
        if len(values) < 2:
            continue
        if name == "y":
            values = list(reversed(values))  # top first, as a chain on the page runs
        station = [_station(values, _coord(name, p), tol) for p in pts]
        walks = {(s, k): _walk(scene, sides[s], [i for i in range(len(pts)) if station[i] == k],
                               pxs, members, incident, structural)
                 for s in (0, 1) for k in range(len(values))}
        groups = _groups(model, name)
        wanted: dict[str, list[int]] = {}
        for i, f in enumerate(found):
            if i in skipped[name] or station[i] is None:
                continue
            if f.axes == "xy":
                wanted.setdefault(groups[f.target.split(":", 1)[1]], []).append(i)
            elif f.axes == name or (f.axes == "either" and i not in either_done):
                wanted.setdefault(f"place{i}", []).append(i)
        if name == "y":
            clear = [sum(any(i in walks[(s, station[i])].reached
                             and not walks[(s, station[i])].crosses for i in g)
                         for g in wanted.values()) for s in (0, 1)]
            if clear[1] > clear[0]:
                sides = (Y_LEFT, Y_RIGHT)
                walks = {(1 - s, k): w for (s, k), w in walks.items()}
        plan = AxisPlan(sides[0], sides[1], values,
                        levels=name == "y" and exam is not None and exam.levels)
        for (s, k), w in walks.items():
            if w.reached:
                plan.targets[(s, values[k])] = pxs[w.reached[0]]
        for members_of in wanted.values():
            options = [(walks[(s, station[i])].crosses > 0, s, i) for i in members_of
                       for s in (0, 1) if i in walks[(s, station[i])].reached]
            if not options:  # a line drawn on through the members, to the nearest side's
                options = [(2 + walks[(s, station[i])].through.index(i), s, i)
                           for i in members_of for s in (0, 1)
                           if i in walks[(s, station[i])].through]
                if options:
                    _, side, i = min(options)
                    walk = walks[(side, station[i])]
                    key = (side, values[station[i]])
                    deepest = plan.targets.get(key)
                    axis_ = plan.near if side == 0 else plan.far
                    if deepest is None or axis_.coords(pxs[i])[1] < axis_.coords(deepest)[1]:
                        plan.targets[key] = pxs[i]
                    plan.passes[key] = plan.passes.get(key, frozenset()) | walk.ignore
                    plan.used.add(key)
                    if found[i].axes == "either":
                        either_done.add(i)
                    order = walk.reached + walk.through
                    _reserve(scene, axis_, [pxs[j] for j in order[:order.index(i) + 1]])
                    continue
            if not options:
                i = members_of[0]
                if found[i].target.startswith("link:") and (
                        found[i].axes in (name, "either") and i not in either_done):
                    _local_chain(scene, model, name, found[i], tol)
                    if found[i].axes == "either":
                        either_done.add(i)
                elif found[i].target.startswith("point:"):
                    _local_joint_chain(scene, model, name, found[i].target[6:], tol)
                continue
            _, side, i = min(options)
            plan.used.add((side, values[station[i]]))
            if found[i].axes == "either":
                either_done.add(i)
            walk = walks[(side, station[i])]
            path = [pxs[j] for j in walk.reached[:walk.reached.index(i) + 1]]
            _reserve(scene, plan.near if side == 0 else plan.far, path)
        plans.append(plan)
    return plans


def _local_chain(scene: Scene, model: Model, name: str, place: Place, tol: float) -> None:
    """A short chain beside the member, from a load's place to the member's nearer end, for
    a place no chain outside the drawing can reach (e.g. a load on a middle column level
    with something at the outer ones): as a textbook dimensions such a place locally."""
    link = model.link(place.target.split(":", 1)[1])
    c = _coord(name, place.world)
    ends = sorted((model.point(link.a), model.point(link.b)),
                  key=lambda p: abs(_coord(name, (p.x, p.y)) - c))
    end = next((p for p in ends if abs(_coord(name, (p.x, p.y)) - c) > tol), None)
    if end is None:
        return
    _local_between(scene, name, place.world, (end.x, end.y))


def _local_joint_chain(scene: Scene, model: Model, name: str, pid: str, tol: float) -> None:
    """A joint no extension line reaches: a short chain beside its shortest member whose
    other end differs in that coordinate (the chains tie it where their ticks meet)."""
    p = model.point(pid)
    here = (p.x, p.y)
    ends = [model.point(lk.b if lk.a == pid else lk.a) for lk in model.links
            if pid in (lk.a, lk.b)]
    ends = [q for q in ends if abs(_coord(name, (q.x, q.y)) - _coord(name, here)) > tol]
    if ends:
        q = min(ends, key=lambda q: (math.hypot(q.x - p.x, q.y - p.y), q.id))
        _local_between(scene, name, here, (q.x, q.y))


def _local_between(scene: Scene, name: str, world: XY, other: XY) -> None:
    """The local chain from ``world`` to ``other`` along axis ``name``, on the freer side."""
    pts = [scene.px(*world), scene.px(*other)]
    along = (1.0, 0.0) if name == "x" else (0.0, 1.0)
    structural = frozenset(i for i, it in enumerate(scene.layout.items)
                           if it.kind in ("dimension", "member"))
    bridge = BRIDGE_CAPS * cap_height(scene.style.sizes["dim"]) - STOP_SHORT
    best: tuple[int, int, float, Axis] | None = None
    for out in ((0.0, 1.0), (0.0, -1.0)) if name == "x" else ((1.0, 0.0), (-1.0, 0.0)):
        axis = Axis(name, along, out)
        for extra in (0.0, 16.0, 34.0, 56.0, 84.0):
            o_line = max(axis.coords(p)[1] for p in pts) + LOCAL_OFFSET + extra
            a0, a1 = sorted(axis.coords(p)[0] for p in pts)
            band = Capsule(axis.fig(a0, o_line), axis.fig(a1, o_line), 14.0)
            hits = len(scene.layout.obstacles.shape_hits(band, 0.0))
            short = 0  # extension lines that would stop short of their place
            for p in pts:
                a, o = axis.coords(p)
                hit = thick_hit(scene, axis, a, o_line - 1.0, o_line - 1.0 - o,
                                 structural | _own(scene, p))
                short += hit is not None and (o_line - 1.0 - hit) - o > bridge
            key = (short, hits, extra)
            if best is None or key < best[:3]:
                best = (short, hits, extra, axis)
    assert best is not None
    axis = best[3]
    o_line = max(axis.coords(p)[1] for p in pts) + LOCAL_OFFSET + best[2]
    stations = sorted(axis.coords(p)[0] for p in pts)
    depth = {axis.coords(p)[0]: axis.coords(p)[1] for p in pts}
    values = [_coord(name, world), _coord(name, other)]
    if axis.coords(pts[0])[0] > axis.coords(pts[1])[0]:
        values.reverse()
    _line(scene, axis, stations, depth, o_line, "local")
    candidates = _beside_horizontal if name == "x" else _beside_vertical
    _texts(scene, axis, stations, values, o_line, "local-value", candidates)


def _station(values: list[float], c: float, tol: float) -> int | None:
    """The station a coordinate is on (None: on none, an exam drawing leaves it out)."""
    k = min(range(len(values)), key=lambda k: abs(values[k] - c))
    return k if abs(values[k] - c) <= tol else None


def _reserve(scene: Scene, axis: Axis, path: list[XY]) -> None:
    """Keep labels off an extension line's path: from outside to the first place, and on
    along the row of places it reaches."""
    a, o = axis.coords(path[0])
    far = axis.reach(scene.layout.extent()) + 400.0
    shapes = [Capsule(axis.fig(a, o + STOP_SHORT), axis.fig(a, far), HALO + 1.0)]
    shapes += [Capsule(p, q, HALO + 1.0) for p, q in itertools.pairwise(path)]
    for shape in shapes:
        scene.layout.obstacles.reserve(shape, axis.name)


def _line(scene: Scene, axis: Axis, stations: list[float], depth: dict[float, float],
          o_line: float, role: str, passes: dict[float, frozenset[int]] | None = None,
          ) -> None:
    """Chain line, ticks and extension lines (which stop before the first obstacle; a
    line drawn on through members to a deeper place passes that station's ``passes``)."""
    w = scene.style.thin_width
    prims: list[tuple[Prim, int]] = []
    a0, a1 = axis.fig(stations[0], o_line), axis.fig(stations[-1], o_line)
    prims.append((Stroke((a0, a1), w, "dim"), LAYER_THIN))
    shapes: list[Shape] = [Capsule(a0, a1, w)]
    # an extension line may cross members and other chains, but stops at symbols and loads
    others = frozenset(i for i, it in enumerate(scene.layout.items)
                       if it.kind in ("dimension", "member"))
    ticks, outer, inner = [], [], []
    for a in stations:
        t0, t1 = axis.fig(a - TICK, o_line + TICK), axis.fig(a + TICK, o_line - TICK)
        prims.append((Stroke((t0, t1), w * 1.4, "dim"), LAYER_THIN))
        shapes.append(Capsule(t0, t1, w))
        ticks.append(axis.fig(a, o_line))
        start = axis.fig(a, o_line + OVERSHOOT)
        room = o_line + OVERSHOOT - depth[a] - STOP_SHORT
        hit = thick_hit(scene, axis, a, o_line - 1.0, o_line - 1.0 - depth[a],
                         others | (passes or {}).get(a, frozenset()))
        stop = room if hit is None else min(room, OVERSHOOT + hit - 2.0)
        end = axis.fig(a, o_line + OVERSHOOT - stop)
        if stop > OVERSHOOT + 1.0:
            prims.append((Stroke((start, end), w * 0.8, "dim"), LAYER_THIN))
            shapes.append(Capsule(start, end, w * 0.8))
            outer.append(start)
            inner.append(end)
        else:
            outer.append(ticks[-1])
            inner.append(ticks[-1])
    glyph = Glyph("chain", paths={"line": (a0, a1), "ticks": tuple(ticks),
                                  "ext_outer": tuple(outer), "ext_inner": tuple(inner)},
                  facts={"axis": axis.name})
    scene.add("dimension", axis.name, "dimension", role, prims, shapes, glyph=glyph)


def repeats(values: list[float]) -> list[tuple[int, int]]:
    """(first interval, count) of each run of consecutive equal intervals."""
    gaps = [abs(b - a) for a, b in itertools.pairwise(values)]
    out: list[tuple[int, int]] = []
    for i, g in enumerate(gaps):
        if out and abs(gaps[out[-1][0]] - g) <= 1e-9 * max(g, 1.0):
            out[-1] = (out[-1][0], out[-1][1] + 1)
        else:
            out.append((i, 1))
    return out


def _texts(scene: Scene, axis: Axis, stations: list[float], values: list[float],
           o_line: float, role: str, candidates: Callable[..., list[Rect]], *,
           repeat: bool = False) -> None:
    """One text per interval; with ``repeat``, one "n × s" per run of n equal intervals,
    centred on the run (it may move off centre by a quarter interval at most)."""
    size = scene.style.sizes["dim"]
    runs = repeats(values) if repeat else [(i, 1) for i in range(len(stations) - 1)]
    for i, n in runs:
        gap = values[i + 1] - values[i]
        text = scene.values.length(gap) if n == 1 else scene.values.repeat(n, gap)
        w, h = text_size(text, size)
        lo, hi = stations[i], stations[i + n]
        if n > 1:
            mid, step = (lo + hi) / 2, (stations[i + 1] - stations[i]) / 4
            lo, hi = mid - step - 4.0, mid + step + 4.0
        place_label(scene, text, size, axis.name, "dimension", role,
                    candidates=candidates(axis, lo, hi, o_line, w, h), colour_role="dim")


def _shifts(lo: float, hi: float, extent: float) -> list[float]:
    """Offsets along the chain that keep a text of ``extent`` centred well inside its
    interval: a reader gives a text to the interval it is centred on."""
    room = max(0.0, (hi - lo) / 2 - 4.0)
    steps = [0.0, -extent / 4, extent / 4, -extent / 2, extent / 2, -extent, extent]
    return [d for d in steps if abs(d) <= room * 0.8]


def _beside_horizontal(axis: Axis, lo: float, hi: float, o: float, w: float, h: float,
                       ) -> list[Rect]:
    """Above the line (the drafting convention), else below, else a row further out."""
    mid = (lo + hi) / 2
    y = axis.fig(mid, o)[1]
    rows = [y - 3.0 - h, y + 5.0, y - 7.0 - 2 * h, y + 9.0 + h, y - 11.0 - 3 * h]
    return [(mid - w / 2 + dx, r, mid + w / 2 + dx, r + h) for r in rows
            for dx in _shifts(lo, hi, w)]


def _beside_vertical(axis: Axis, lo: float, hi: float, o: float, w: float, h: float,
                     ) -> list[Rect]:
    """Outside the line, centred on the stretch, else staggered further out."""
    mid = (lo + hi) / 2
    out = []
    for gap in (5.0, 12.0 + w, 19.0 + 2 * w):
        for da in _shifts(lo, hi, h):
            x0, y0 = axis.fig(mid - h / 2 + da, o + gap)
            x1, _ = axis.fig(mid, o + gap + w)
            out.append((min(x0, x1), y0, min(x0, x1) + w, y0 + h))
    return out


def _chain(scene: Scene, axis: Axis, values: list[float], pts: list[XY],
           targets: dict[float, XY], candidates: Callable[..., list[Rect]], total: bool,
           passes: dict[float, frozenset[int]] | None = None) -> None:
    """One chain; the near one (``total``) also gets the overall dimension beyond it.
    A station's extension line goes to its planned place, else to its outermost one."""
    stations = [axis.coords(scene.px(*v_to_xy(axis, v)))[0] for v in values]
    o_line = axis.reach(scene.layout.extent()) + OFFSET
    depth = depths(scene, axis, stations, pts)
    depth = {st: depth.get(st, o_line - 10.0) for st in stations}
    for v, st in zip(values, stations, strict=True):
        if v in targets:
            depth[st] = axis.coords(targets[v])[1]
    by_station = {st: (passes or {}).get(v, frozenset())
                  for v, st in zip(values, stations, strict=True)}
    _line(scene, axis, stations, depth, o_line, "chain" if total else "far-chain", by_station)
    first = len(scene.layout.items)
    exam = scene.exam is not None
    _texts(scene, axis, stations, values, o_line, "value" if total else "far-value", candidates,
           repeat=exam)
    if total and len(values) > 2 and not exam:  # an exam figure gives no overall length
        # beyond every text of the chain by more than the text is from its own line, so a
        # reader gives each text to the nearer line, its own
        centres = [axis.coords(((it.bbox[0] + it.bbox[2]) / 2, (it.bbox[1] + it.bbox[3]) / 2))[1]
                   for it in scene.layout.items[first:]]
        o_total = max([axis.reach(scene.layout.extent()) + TOTAL_OFFSET,
                       *(2 * c - o_line + 2 * TICK for c in centres)])
        ends = [stations[0], stations[-1]]
        _line(scene, axis, ends, {a: o_line for a in ends}, o_total, "total")
        _texts(scene, axis, ends, [values[0], values[-1]], o_total, "total-value", candidates)


def draw_dimensions(scene: Scene, model: Model, plans: list[AxisPlan]) -> None:
    """The chains of :func:`plan_dimensions`' plans, outside everything drawn so far."""
    pts = features(model)
    for plan in plans:
        scene.layout.obstacles.release(plan.near.name)
        candidates = _beside_horizontal if plan.near.name == "x" else _beside_vertical
        for side, axis in enumerate((plan.near, plan.far)):
            values = plan.chain_values(side)
            targets = {v: px for (s, v), px in plan.targets.items() if s == side}
            passes = {v: ids for (s, v), ids in plan.passes.items() if s == side}
            if plan.levels:
                draw_levels(scene, axis, values, min(plan.values), pts, targets, passes)
                continue
            if len(values) < 2:
                continue
            _chain(scene, axis, values, pts, targets, candidates, total=side == 0,
                   passes=passes)
    if scene.exam is not None and scene.exam.axis is not None:
        draw_axis(scene, scene.exam.axis)


def station_gaps(values: list[float]) -> list[float]:
    return [b - a for a, b in itertools.pairwise(values)]
