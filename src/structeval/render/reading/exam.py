"""``dimensioning=exam``: which textbook economies a drawing of this model may use.

An exam figure gives the minimal set of dimensions from which an expert still
reads every coordinate exactly. What applies is decided here, from the model
alone (so the same model always gets the same drawing):

* **repeated spacings** — consecutive equal intervals of a chain are written once,
  "n × s", centred on their n intervals (ticks stay at every station);
* **symmetry** — when the structure *and* its supports *and* its loads are mirror
  images about a vertical axis, a centre line is drawn and only the left half is
  dimensioned (the right half's places follow from their mirror images);
* **levels** — a building frame (several storeys) gives heights as level marks
  (▽ ±0.000, +3.500, in m above the lowest level) instead of a vertical chain;
* **implied coordinates** — a joint visibly on a straight run of members (a
  chord) between two dimensioned joints has its height implied by its x, so its
  height is not dimensioned again;
* **slopes** — a height that follows from a member's slope is given by a rise:run
  triangle on the member instead (:mod:`.slopes`).

Each economy is an exact deduction the reader of the drawing makes; the
legibility rules (:mod:`.legibility.deductions`) and the readability proof in the
tests make it from the picture alone.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

from ...model.semantics import couple, distributed_extent, force_direction, world_point_of_load
from ...model.types import BendingMoment, DistributedLoad, Model, PointLoad, SupportKind

TOL = 1e-9  # relative to the span: world coordinates on the 0.5 m grid are exact
MIN_LEVELS = 3  # distinct heights from which a frame is dimensioned by levels


@dataclass(frozen=True)
class ExamPlan:
    """The economies one drawing uses (see the module docstring)."""

    axis: float | None = None  # x of the symmetry axis, if the figure is symmetric
    levels: bool = False
    implied_y: frozenset[str] = field(default_factory=frozenset)  # point ids

    def mirrored(self, x: float, span: float) -> bool:
        """Whether a place at ``x`` lies in the half that is not dimensioned."""
        return self.axis is not None and x > self.axis + TOL * span


def _span(model: Model) -> float:
    xs, ys = [p.x for p in model.points], [p.y for p in model.points]
    return max(max(xs) - min(xs), max(ys) - min(ys), 1e-9)


def _key(x: float, y: float, span: float) -> tuple[int, int]:
    q = 1e-6 * span
    return (round(x / q), round(y / q))


def _load_signature(model: Model, load: object, mirror: float | None, span: float,
                    ) -> tuple[object, ...]:
    """What a load looks like, optionally mirrored about x = ``mirror``: its kind, place,
    direction and values (a mirrored couple turns the other way)."""
    def mx(x: float) -> float:
        return x if mirror is None else 2 * mirror - x

    def vec(d: tuple[float, float]) -> tuple[int, int]:
        return (round((d[0] if mirror is None else -d[0]) * 1e6), round(d[1] * 1e6))

    if isinstance(load, DistributedLoad):
        link = model.link(load.target.id)
        pa, pb = model.point(link.a), model.point(link.b)
        s0, s1, length = distributed_extent(model, load)
        ends = []
        for s, w in ((s0, load.w_start), (s1, load.w_end)):
            t = s / length
            ends.append((_key(mx(pa.x + (pb.x - pa.x) * t), pa.y + (pb.y - pa.y) * t, span),
                         round(w * 1e6)))
        ends.sort()
        d = force_direction(model, load)
        return ("row", tuple(ends), vec(d))
    assert isinstance(load, PointLoad | BendingMoment)
    x, y = world_point_of_load(model, load)
    if isinstance(load, BendingMoment):
        value = couple(load) * (1 if mirror is None else -1)
        return ("couple", _key(mx(x), y, span), round(value * 1e6))
    d = force_direction(model, load)
    sign = -1.0 if load.value < 0 else 1.0
    return ("force", _key(mx(x), y, span), vec((d[0] * sign, d[1] * sign)),
            round(abs(load.value) * 1e6))


def _support_signature(model: Model, s: object, mirror: float | None, span: float,
                       ) -> tuple[object, ...]:
    p = model.point(s.at)  # type: ignore[attr-defined]
    kind = s.kind  # type: ignore[attr-defined]
    x = p.x if mirror is None else 2 * mirror - p.x
    angle = 0
    if kind in (SupportKind.ROLLER, SupportKind.SLIDER):
        theta = math.radians(s.angle_deg)  # type: ignore[attr-defined]
        # the restrained direction, up to its sign (bilateral)
        n = ((-math.sin(theta), math.cos(theta)) if kind is SupportKind.ROLLER
             else (math.cos(theta), math.sin(theta)))
        if mirror is not None:
            n = (-n[0], n[1])
        if n[1] < -1e-9 or (abs(n[1]) <= 1e-9 and n[0] < 0):
            n = (-n[0], -n[1])
        angle = (round(n[0] * 1e6), round(n[1] * 1e6))  # type: ignore[assignment]
    return (str(kind), _key(x, p.y, span), angle)


def symmetry_axis(model: Model) -> float | None:
    """The x of the vertical axis the structure, its supports and its loads are mirror
    images about, or None."""
    span = _span(model)
    xs = [p.x for p in model.points]
    c = (min(xs) + max(xs)) / 2
    points = {_key(p.x, p.y, span) for p in model.points}
    if {_key(2 * c - p.x, p.y, span) for p in model.points} != points:
        return None

    def link_sig(lk: object, mirror: float | None) -> tuple[object, ...]:
        ends = []
        for pid, hinged in ((lk.a, lk.hinge_a), (lk.b, lk.hinge_b)):  # type: ignore[attr-defined]
            p = model.point(pid)
            x = p.x if mirror is None else 2 * mirror - p.x
            ends.append((_key(x, p.y, span), hinged))
        return tuple(sorted(ends))

    if ({link_sig(lk, None) for lk in model.links}
            != {link_sig(lk, c) for lk in model.links}):
        return None
    if (sorted(_support_signature(model, s, None, span) for s in model.supports)
            != sorted(_support_signature(model, s, c, span) for s in model.supports)):
        return None
    if (sorted(map(repr, (_load_signature(model, ld, None, span) for ld in model.loads)))
            != sorted(map(repr, (_load_signature(model, ld, c, span) for ld in model.loads)))):
        return None
    return c


def straight_runs(model: Model) -> list[list[str]]:
    """Maximal straight runs of members (chords): point ids in order along each run of
    two or more collinear members that continue through their shared joints."""
    at: dict[str, list[tuple[str, tuple[float, float]]]] = {}
    for lk in model.links:
        pa, pb = model.point(lk.a), model.point(lk.b)
        d = (pb.x - pa.x, pb.y - pa.y)
        n = math.hypot(*d)
        at.setdefault(lk.a, []).append((lk.b, (d[0] / n, d[1] / n)))
        at.setdefault(lk.b, []).append((lk.a, (-d[0] / n, -d[1] / n)))

    def onward(prev: str, here: str) -> str | None:
        p, q = model.point(prev), model.point(here)
        d = (q.x - p.x, q.y - p.y)
        n = math.hypot(*d)
        d = (d[0] / n, d[1] / n)
        nxt = [o for o, e in at.get(here, []) if e[0] * d[0] + e[1] * d[1] > 1 - 1e-12]
        return nxt[0] if len(nxt) == 1 else None

    runs, seen = [], set()
    for lk in model.links:
        if (lk.a, lk.b) in seen:
            continue
        run = [lk.a, lk.b]
        while (n := onward(run[-2], run[-1])) is not None and n not in run:
            run.append(n)
        while (n := onward(run[1], run[0])) is not None and n not in run:
            run.insert(0, n)
        for a, b in itertools.pairwise(run):
            seen |= {(a, b), (b, a)}
        if len(run) >= 3:
            runs.append(run)
    return runs


def implied_heights(model: Model, axis: float | None) -> frozenset[str]:
    """Joints whose height follows from their x on an inclined straight run between two
    dimensioned joints (the run's ends, which are never implied themselves)."""
    span = _span(model)
    runs = [r for r in straight_runs(model)
            if abs(model.point(r[0]).y - model.point(r[-1]).y) > TOL * span
            and abs(model.point(r[0]).x - model.point(r[-1]).x) > TOL * span]
    ends = {pid for r in runs for pid in (r[0], r[-1])}
    out = set()
    for r in runs:
        if axis is not None and any(model.point(p).x > axis + TOL * span for p in (r[0], r[-1])):
            continue  # a run reaching into the mirrored half: its far end is not dimensioned
        out |= {pid for pid in r[1:-1] if pid not in ends}
    return frozenset(out)


def is_building_frame(model: Model) -> bool:
    """A frame of several storeys: rigid joints somewhere, and at least MIN_LEVELS distinct
    heights carried by horizontal members."""
    if all(lk.hinge_a and lk.hinge_b for lk in model.links):
        return False
    span = _span(model)
    heights = {round(model.point(lk.a).y / (1e-6 * span)) for lk in model.links
               if abs(model.point(lk.a).y - model.point(lk.b).y) <= TOL * span}
    ground = {round(p.y / (1e-6 * span)) for p in model.points}
    return len(heights | {min(ground)}) >= MIN_LEVELS


def exam_plan(model: Model) -> ExamPlan:
    axis = symmetry_axis(model)
    return ExamPlan(axis=axis, levels=is_building_frame(model),
                    implied_y=implied_heights(model, axis))
