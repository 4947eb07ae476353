"""Difficulty 1–5 of a problem, by a rule anyone can recompute from the model.

The rule scores what makes a drawing hard to turn into a correct FrameCalc
model and what makes the mechanics hard to get right, then maps the sum to a
level. Points:

* **size** — links to write: 1–2 → 0, 3–5 → 1, 6–10 → 2, 11–20 → 3, ≥ 21 → 4;
* **redundancy** — degree of static indeterminacy (DSI): 0 → 0, 1 → 1, 2–3 → 2, ≥ 4 → 3;
* **hinges** — joints of beams/frames with a moment release (a truss's pin joints
  are not counted: they are its nature and the prompt states them): 0 → 0, 1 → 1, ≥ 2 → 2;
* **load classes** present, out of six (force at a point along an axis, slanted force
  at a point, force on a member at an offset, uniform distributed, varying or
  partial distributed, couple): 1 → 0, 2 → 1, 3 → 2, ≥ 4 → 3;
* **many loads** — 4 or more loads: +1;
* **inclined members** — a beam/frame member neither horizontal nor vertical: +1;
* **perpendicular loads on inclined members** — a distributed load on one: +1;
* **slanted supports** — a roller or slider at an angle that is not a multiple of 90°: +1.

Level: score 0–1 → 1, 2–3 → 2, 4–5 → 3, 6–7 → 4, ≥ 8 → 5.

DSI = 3·links + restraints − 3·points − releases, where a pin restrains 2, a
roller 1, a fixed support 3, a slider 2, and a point whose k link ends are all
hinged (and whose rotation no support holds) releases k − 1, any other point one
per hinged end. A problem's file may override the level (``problem.difficulty``);
the ground truth then records both.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from ..model.semantics import force_direction
from ..model.types import BendingMoment, DistributedLoad, Model, PointLoad, SupportKind

RESTRAINTS = {SupportKind.PIN: 2, SupportKind.ROLLER: 1, SupportKind.FIXED: 3,
              SupportKind.SLIDER: 2}
LEVEL_FLOORS = (0, 2, 4, 6, 8)  # lowest score of levels 1..5


@dataclass(frozen=True)
class Features:
    links: int
    redundancy: int
    hinged_joints: int
    load_classes: tuple[str, ...]
    loads: int
    inclined_members: int
    inclined_distributed: int
    slanted_supports: int

    def points(self) -> dict[str, int]:
        return {
            "size": _band(self.links, (3, 6, 11, 21)),
            "redundancy": _band(self.redundancy, (1, 2, 4)),
            "hinges": _band(self.hinged_joints, (1, 2)),
            "load_classes": _band(len(self.load_classes), (2, 3, 4)),
            "many_loads": int(self.loads >= 4),
            "inclined_members": int(self.inclined_members > 0),
            "inclined_distributed": int(self.inclined_distributed > 0),
            "slanted_supports": int(self.slanted_supports > 0),
        }

    def score(self) -> int:
        return sum(self.points().values())

    def level(self) -> int:
        return level_of(self.score())


def _band(value: int, floors: tuple[int, ...]) -> int:
    return sum(value >= f for f in floors)


def level_of(score: int) -> int:
    return max(i for i, floor in enumerate(LEVEL_FLOORS, start=1) if score >= floor)


def redundancy(model: Model) -> int:
    """Degree of static indeterminacy by the counting formula (stability is the solver's job)."""
    ends: dict[str, list[bool]] = defaultdict(list)
    for lk in model.links:
        ends[lk.a].append(lk.hinge_a)
        ends[lk.b].append(lk.hinge_b)
    held = {s.at for s in model.supports if s.kind in (SupportKind.FIXED, SupportKind.SLIDER)}
    releases = 0
    for pid, hinged in ends.items():
        if all(hinged) and pid not in held:
            releases += len(hinged) - 1
        else:
            releases += sum(hinged)
    restraints = sum(RESTRAINTS[s.kind] for s in model.supports)
    return 3 * len(model.links) + restraints - 3 * len(model.points) - releases


def _is_bar(model: Model, link_id: str) -> bool:
    lk = model.link(link_id)
    return lk.hinge_a and lk.hinge_b


def _axis_aligned(dx: float, dy: float) -> bool:
    return abs(dx) < 1e-9 or abs(dy) < 1e-9


def load_class(model: Model, load: object) -> str:
    if isinstance(load, BendingMoment):
        return "couple"
    if isinstance(load, DistributedLoad):
        varying = load.w_start != load.w_end or load.from_start > 0 or load.from_end > 0
        return "varying_distributed" if varying else "uniform_distributed"
    assert isinstance(load, PointLoad)
    if load.target.type == "link":
        return "force_on_member"
    return "axial_force" if _axis_aligned(*force_direction(model, load)) else "slanted_force"


def features(model: Model) -> Features:
    hinged_points: set[str] = set()
    inclined: set[str] = set()
    for lk in model.links:
        pa, pb = model.point(lk.a), model.point(lk.b)
        if _is_bar(model, lk.id):
            continue
        if not _axis_aligned(pb.x - pa.x, pb.y - pa.y):
            inclined.add(lk.id)
        if lk.hinge_a:
            hinged_points.add(lk.a)
        if lk.hinge_b:
            hinged_points.add(lk.b)
    all_inclined = {lk.id for lk in model.links if not _axis_aligned(
        model.point(lk.b).x - model.point(lk.a).x, model.point(lk.b).y - model.point(lk.a).y)}
    inclined_distributed = sum(1 for ld in model.loads if isinstance(ld, DistributedLoad)
                               and ld.target.id in all_inclined)
    slanted = sum(1 for s in model.supports if s.kind in (SupportKind.ROLLER, SupportKind.SLIDER)
                  and abs(s.angle_deg / 90.0 - round(s.angle_deg / 90.0)) > 1e-9)
    return Features(
        links=len(model.links),
        redundancy=max(0, redundancy(model)),
        hinged_joints=len(hinged_points),
        load_classes=tuple(sorted({load_class(model, ld) for ld in model.loads})),
        loads=len(model.loads),
        inclined_members=len(inclined),
        inclined_distributed=inclined_distributed,
        slanted_supports=slanted,
    )


def difficulty(model: Model) -> int:
    """The rule's level, 1–5."""
    return features(model).level()
