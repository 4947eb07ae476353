"""Equivalence-preserving rewrites and single-fault mutations of FrameCalc models.

The rewrites change how a structure is written, never what it is; the mutations
change exactly one physical fact and say which diagnosis stage should catch it.
Every function returns a new validated Model (round-tripped through the parser,
so the scorer sees what a VLM's JSON would give).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, replace

from structeval.model import (
    AngleMode,
    BendingMoment,
    DistributedLoad,
    Link,
    Model,
    ModelError,
    OffsetMode,
    Point,
    PointLoad,
    Position,
    SupportKind,
    Target,
    model_to_json,
    parse_model,
)
from structeval.model.semantics import link_axis, position_on_link


def _reparse(model: Model) -> Model:
    return parse_model(model_to_json(model))


def _fresh(prefix: str, taken: set[str], rng: random.Random) -> str:
    while True:
        name = f"{prefix}{rng.randrange(1000, 99999)}"
        if name not in taken:
            taken.add(name)
            return name


# ---------------------------------------------------------------- rewrites

def rename_ids(model: Model, rng: random.Random) -> Model:
    taken: set[str] = set()
    pmap = {p.id: _fresh("N", taken, rng) for p in model.points}
    lmap = {lk.id: _fresh("M", taken, rng) for lk in model.links}
    points = tuple(replace(p, id=pmap[p.id]) for p in model.points)
    links = tuple(replace(lk, id=lmap[lk.id], a=pmap[lk.a], b=pmap[lk.b]) for lk in model.links)
    supports = tuple(replace(s, id=_fresh("R", taken, rng), at=pmap[s.at])
                     for s in model.supports)
    loads = []
    for ld in model.loads:
        table = pmap if ld.target.type == "point" else lmap
        loads.append(replace(ld, id=_fresh("F", taken, rng),
                             target=Target(ld.target.type, table[ld.target.id])))
    return _reparse(Model(points, links, supports, tuple(loads)))


def shuffle_order(model: Model, rng: random.Random) -> Model:
    parts = [list(model.points), list(model.links), list(model.supports), list(model.loads)]
    for part in parts:
        rng.shuffle(part)
    return _reparse(Model(*(tuple(p) for p in parts)))


def translate(model: Model, rng: random.Random) -> Model:
    dx, dy = rng.choice([-7.5, -2, 3, 10.25]), rng.choice([-4, 0.5, 6])
    points = tuple(replace(p, x=p.x + dx, y=p.y + dy) for p in model.points)
    return _reparse(replace(model, points=points))


def _swap_end(pos: Position) -> Position:
    return replace(pos, ref_end="B" if pos.ref_end == "A" else "A")


def reverse_link(model: Model, rng: random.Random) -> Model:
    """a ↔ b of one link: hinges swap, relative angles turn by 180°, positions keep place."""
    link = rng.choice(model.links)
    links = tuple(replace(lk, a=lk.b, b=lk.a, hinge_a=lk.hinge_b, hinge_b=lk.hinge_a)
                  if lk.id == link.id else lk for lk in model.links)
    loads = []
    for ld in model.loads:
        if ld.target.type == "link" and ld.target.id == link.id:
            if isinstance(ld, DistributedLoad):
                ld = replace(ld, w_start=ld.w_end, w_end=ld.w_start, from_start=ld.from_end,
                             from_end=ld.from_start)
            else:
                ld = replace(ld, position=_swap_end(ld.position))
            if not isinstance(ld, BendingMoment) and ld.angle_mode is AngleMode.RELATIVE:
                ld = replace(ld, angle_deg=ld.angle_deg + 180.0)
        loads.append(ld)
    return _reparse(replace(model, links=links, loads=tuple(loads)))


def reencode_loads(model: Model, rng: random.Random) -> Model:
    """world ↔ relative, flip, percent ↔ metres, refEnd A ↔ B (same physical load)."""
    loads = []
    for ld in model.loads:
        if not isinstance(ld, BendingMoment):
            if rng.random() < 0.5:
                ld = replace(ld, flip=-ld.flip, angle_deg=ld.angle_deg + 180.0)
            if ld.target.type == "link" and rng.random() < 0.5:
                cx, cy, _ = link_axis(model, model.link(ld.target.id))
                axis = math.degrees(math.atan2(cy, cx))
                if ld.angle_mode is AngleMode.RELATIVE:
                    ld = replace(ld, angle_mode=AngleMode.WORLD, angle_deg=ld.angle_deg + axis)
                else:
                    ld = replace(ld, angle_mode=AngleMode.RELATIVE, angle_deg=ld.angle_deg - axis)
        elif rng.random() < 0.5:
            ld = replace(ld, flip=-ld.flip, value=-ld.value)
        if ld.target.type == "link" and not isinstance(ld, DistributedLoad):
            _, _, length = link_axis(model, model.link(ld.target.id))
            s = position_on_link(model, ld)
            ref = rng.choice("AB")
            d = s if ref == "A" else length - s
            if rng.random() < 0.5:
                ld = replace(ld, position=Position(ref, OffsetMode.PERCENT, 100.0 * d / length))
            else:
                ld = replace(ld, position=Position(ref, OffsetMode.METRES, d))
        loads.append(ld)
    return _reparse(replace(model, loads=tuple(loads)))


def _split(model: Model, link: Link, s: float, rng: random.Random,
           ) -> tuple[Model, str]:
    """Cut ``link`` at s with a rigid joint; its loads follow their positions."""
    pa = model.point(link.a)
    cx, cy, length = link_axis(model, link)
    taken = {p.id for p in model.points} | {lk.id for lk in model.links} | {
        ld.id for ld in model.loads}
    pid = _fresh("X", taken, rng)
    first_id, second_id = _fresh("Y", taken, rng), _fresh("Y", taken, rng)
    point = Point(pid, pa.x + cx * s, pa.y + cy * s)
    first = replace(link, id=first_id, b=pid, hinge_b=False)
    second = replace(link, id=second_id, a=pid, hinge_a=False)
    links = []
    for lk in model.links:
        links += [first, second] if lk.id == link.id else [lk]
    loads = []
    for ld in model.loads:
        if ld.target.type != "link" or ld.target.id != link.id:
            loads.append(ld)
            continue
        if isinstance(ld, DistributedLoad):
            s0, s1 = ld.from_start, length - ld.from_end

            def w(x: float, ld: DistributedLoad = ld, s0: float = s0, s1: float = s1) -> float:
                return ld.w_start + (ld.w_end - ld.w_start) * (x - s0) / (s1 - s0)

            if s0 < s - 1e-9:
                hi = min(s1, s)
                loads.append(replace(ld, target=Target("link", first_id), from_start=s0,
                                     from_end=s - hi, w_start=w(s0), w_end=w(hi)))
            if s1 > s + 1e-9:
                lo = max(s0, s)
                loads.append(replace(ld, id=_fresh("F", taken, rng),
                                     target=Target("link", second_id), from_start=lo - s,
                                     from_end=length - s1, w_start=w(lo), w_end=w(s1)))
            continue
        at = position_on_link(model, ld)
        if at <= s:
            loads.append(replace(ld, target=Target("link", first_id),
                                 position=Position("A", OffsetMode.METRES, at)))
        else:
            loads.append(replace(ld, target=Target("link", second_id),
                                 position=Position("A", OffsetMode.METRES, at - s)))
    points = (*model.points, point)
    return _reparse(Model(points, tuple(links), model.supports, tuple(loads))), pid


def subdivide(model: Model, rng: random.Random) -> Model:
    """Split one link into two collinear links joined rigidly, at a place with no load."""
    link = rng.choice(model.links)
    _, _, length = link_axis(model, link)
    busy = [position_on_link(model, ld) for ld in model.loads
            if ld.target.type == "link" and ld.target.id == link.id
            and not isinstance(ld, DistributedLoad)]
    for frac in (0.37, 0.61, 0.29, 0.73):
        s = frac * length
        if all(abs(s - b) > 0.01 * length for b in busy):
            return _split(model, link, s, rng)[0]
    return model


def load_to_point(model: Model, rng: random.Random) -> Model:
    """A concentrated load on a link at an offset becomes a load on a point placed there."""
    inside = []
    for ld in model.loads:
        if ld.target.type == "link" and not isinstance(ld, DistributedLoad):
            _, _, length = link_axis(model, model.link(ld.target.id))
            s = position_on_link(model, ld)
            if 1e-6 * length < s < length * (1 - 1e-6):
                inside.append((ld, s))
    if not inside:
        return model
    ld, s = rng.choice(inside)
    cut, pid = _split(model, model.link(ld.target.id), s, rng)
    loads = []
    for other in cut.loads:
        if other.id == ld.id:
            if isinstance(other, PointLoad) and other.angle_mode is AngleMode.RELATIVE:
                # on a point the angle is always world (D1): carry the link's axis in
                cx, cy, _ = link_axis(model, model.link(ld.target.id))
                other = replace(other, angle_deg=other.angle_deg + math.degrees(
                    math.atan2(cy, cx)), angle_mode=AngleMode.WORLD)
            other = replace(other, target=Target("point", pid), position=None)
        loads.append(other)
    return _reparse(replace(cut, loads=tuple(loads)))


def flip_roller(model: Model, rng: random.Random) -> Model:
    """A roller at θ restrains the same line as one at θ + 180° (bilateral, S2)."""
    supports = tuple(replace(s, angle_deg=s.angle_deg + 180.0) if s.kind in (
        SupportKind.ROLLER, SupportKind.SLIDER) else s for s in model.supports)
    return _reparse(replace(model, supports=supports))


REWRITES: tuple[Callable[[Model, random.Random], Model], ...] = (
    rename_ids, shuffle_order, translate, reverse_link, reencode_loads, subdivide, load_to_point,
    flip_roller)


def random_rewrite(model: Model, rng: random.Random, steps: int = 4) -> tuple[Model, list[str]]:
    applied = []
    for _ in range(steps):
        fn = rng.choice(REWRITES)
        model = fn(model, rng)
        applied.append(fn.__name__)
    return model, applied


# ---------------------------------------------------------------- mutations

@dataclass(frozen=True)
class Mutation:
    name: str
    expected_stage: str
    model: Model


def _try(build: Callable[[], Model]) -> Model | None:
    try:
        return build()
    except ModelError:
        return None  # the fault made the JSON invalid: not a single physical fault


def _span(model: Model) -> float:
    xs = [p.x for p in model.points]
    ys = [p.y for p in model.points]
    return max(max(xs) - min(xs), max(ys) - min(ys))


def mutations(model: Model, rng: random.Random) -> list[Mutation]:
    out: list[Mutation] = []
    span = _span(model)

    def add(name: str, stage: str, build: Callable[[], Model]) -> None:
        m = _try(build)
        if m is not None:
            out.append(Mutation(name, stage, m))

    # geometry: move one point by 10-20 % of the span
    for p in rng.sample(list(model.points), min(3, len(model.points))):
        angle = rng.uniform(0, 2 * math.pi)
        dist = rng.uniform(0.1, 0.2) * span
        moved = replace(p, x=p.x + dist * math.cos(angle), y=p.y + dist * math.sin(angle))
        add(f"move point {p.id}", "geometry", lambda moved=moved: _reparse(replace(
            model, points=tuple(moved if q.id == moved.id else q for q in model.points))))

    # supports: change one kind or angle
    for s in model.supports:
        for kind in SupportKind:
            if kind is s.kind:
                continue
            new = replace(s, kind=kind, angle_deg=0.0)
            add(f"support {s.id} {s.kind.value}->{kind.value}", "supports",
                lambda new=new: _reparse(replace(model, supports=tuple(
                    new if t.id == new.id else t for t in model.supports))))
        if s.kind in (SupportKind.ROLLER, SupportKind.SLIDER):
            new = replace(s, angle_deg=s.angle_deg + 90.0)
            add(f"support {s.id} angle+90", "supports",
                lambda new=new: _reparse(replace(model, supports=tuple(
                    new if t.id == new.id else t for t in model.supports))))

    # releases: toggle one hinge
    for lk in model.links:
        for end in ("hinge_a", "hinge_b"):
            new_link = replace(lk, **{end: not getattr(lk, end)})
            add(f"toggle {end} of {lk.id}", "releases",
                lambda new_link=new_link: _reparse(replace(model, links=tuple(
                    new_link if t.id == new_link.id else t for t in model.links))))

    # loads: scale by 1.5, reverse, move
    for ld in model.loads:
        def swap(new: object, ld: object = ld) -> Model:
            return _reparse(replace(model, loads=tuple(
                new if t.id == ld.id else t for t in model.loads)))  # type: ignore[attr-defined]

        if isinstance(ld, DistributedLoad):
            add(f"scale {ld.id}", "loads",
                lambda ld=ld: swap(replace(ld, w_start=1.5 * ld.w_start, w_end=1.5 * ld.w_end)))
        else:
            add(f"scale {ld.id}", "loads", lambda ld=ld: swap(replace(ld, value=1.5 * ld.value)))
        add(f"reverse {ld.id}", "loads", lambda ld=ld: swap(replace(ld, flip=-ld.flip)))
        add(f"move {ld.id}", "loads", lambda ld=ld: swap(_moved(model, ld, rng)))
    return out


def _moved(model: Model, ld: PointLoad | DistributedLoad | BendingMoment,
           rng: random.Random) -> PointLoad | DistributedLoad | BendingMoment:
    if ld.target.type == "point":
        others = [p for p in model.points if p.id != ld.target.id]
        return replace(ld, target=Target("point", rng.choice(others).id))
    _, _, length = link_axis(model, model.link(ld.target.id))
    if isinstance(ld, DistributedLoad):
        covered = length - ld.from_start - ld.from_end
        if ld.from_start + ld.from_end > 0.15 * length:  # shift the partial load
            shift = ld.from_end if ld.from_end >= ld.from_start else -ld.from_start
            return replace(ld, from_start=ld.from_start + shift, from_end=ld.from_end - shift)
        return replace(ld, from_end=ld.from_end + 0.4 * covered)  # shorten it
    s = position_on_link(model, ld)
    target = s + 0.3 * length if s < 0.5 * length else s - 0.3 * length
    return replace(ld, position=Position("A", OffsetMode.METRES, target))


def physically_identical(a: Model, b: Model, trials: int = 6, seed: int = 0) -> bool:
    """Independent check that two models are the same structure: same responses (reactions
    at support positions, displacements at shared points) under random loads at every
    point, solved directly. Used to excuse a mutation the scorer rightly calls perfect."""
    import numpy as np

    from structeval.fe import MechanismError, analyze

    rng = random.Random(seed)
    pos_a = {(round(p.x, 6), round(p.y, 6)): p.id for p in a.points}
    pos_b = {(round(p.x, 6), round(p.y, 6)): p.id for p in b.points}
    shared = sorted(set(pos_a) & set(pos_b))
    cases_a, cases_b = [], []
    for t in range(trials):
        la, lb = [], []
        for k, xy in enumerate(shared):
            ang, val = rng.uniform(0, 360), rng.uniform(0.5, 2)
            la.append(PointLoad(f"t{t}_{k}", Target("point", pos_a[xy]), val, ang,
                                AngleMode.WORLD))
            lb.append(PointLoad(f"t{t}_{k}", Target("point", pos_b[xy]), val, ang,
                                AngleMode.WORLD))
        cases_a.append(la + list(a.loads))
        cases_b.append(lb + list(b.loads))
    try:
        sa = analyze(a, cases_a)
    except MechanismError:
        return False
    try:
        sb = analyze(b, cases_b)
    except MechanismError:
        return False
    ia = {p.id: i for i, p in enumerate(a.points)}
    ib = {p.id: i for i, p in enumerate(b.points)}
    for ca, cb in zip(sa, sb, strict=True):
        ua = np.array([ca.raw.displacements[ia[pos_a[xy]], :2] for xy in shared])
        ub = np.array([cb.raw.displacements[ib[pos_b[xy]], :2] for xy in shared])
        scale = max(float(np.abs(ua).max()), 1e-300)
        if np.abs(ua - ub).max() > 1e-6 * scale:
            return False
    return True
