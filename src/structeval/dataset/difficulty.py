"""Difficulty 1–5 of a task, by a rule anyone can recompute from its model and presentation.

The rule scores what makes a drawing hard to turn into a correct FrameCalc model —
how much there is to read, how it is written down — and what makes the mechanics
hard to get right, then maps the sum to a level. Points:

*Structure*

* **members** — links to write: 1–2 → 0, 3–5 → 1, 6–10 → 2, 11–20 → 3, then one point
  per further ten members (21–30 → 4, 31–40 → 5, 41–50 → 6, 51–60 → 7, ≥ 61 → 8): any
  one of them wrong costs the geometry stage, so the chance of a perfect reading falls
  with every member rather than with the logarithm of their number;
* **redundancy** — degree of static indeterminacy (DSI): 0 → 0, 1 → 1, 2–3 → 2, ≥ 4 → 3;
* **hinges** — joints of beams/frames with a moment release (a truss's pin joints are not
  counted: they are its nature and the prompt states them): 0 → 0, 1 → 1, 2–3 → 2, ≥ 4 → 3;
* **inclined members** — a beam/frame member neither horizontal nor vertical: +1;
* **slanted supports** — a roller or slider at an angle that is not a multiple of 90°: +1.

*Loads*

* **load classes** present, out of six (force at a point along an axis, slanted force at
  a point, force on a member at an offset, uniform distributed, varying or partial
  distributed, couple): 1 → 0, 2 → 1, 3 → 2, ≥ 4 → 3;
* **load count**: 4–7 loads → 1, ≥ 8 → 2;
* **perpendicular loads on inclined members** — a distributed load on one: +1.

*Drawing density* (how much must be located on the picture, and how finely)

* **coordinates** — distinct x values plus distinct y values the reader must place: of
  the points, of the concentrated loads on members and of the ends of distributed
  loads: ≤ 8 → 0, 9–14 → 1, 15–24 → 2, ≥ 25 → 3. Regular geometry (equal bays, repeated storey
  heights) keeps this low however many members there are, as it keeps an exam drawing
  readable;
* **fine detail** — the smallest gap between two distinct coordinates is less than
  1/24 of the structure's extent (at the delivered ~2,000 px that gap is narrower than
  about three text heights, so its dimension, letters and symbols crowd): +1.

*Presentation* (:class:`structeval.presentation.Presentation`; the defaults score 0)

* **dimensioning** ``exam``: +2 — coordinates must be derived (repeated spacings written
  once, a symmetry axis, slopes as a ratio or angle, levels from a datum), a multi-step
  reading where one slip moves a whole row of joints;
* **values** ``parametric``: +2 — every number is an expression over a legend (P = 2qa,
  qa²) that must be looked up and evaluated;
* **units** ``mm-kN``: +1 — one systematic conversion of every dimension;
* **symbols** ``b``: +1 — supports as link bars, whose kind and direction must be read
  from the number and direction of the bars, a convention seen less often;
* **style** ``scanned``, ``sketch`` or ``exam-page``: +1 — blur, noise, wobbly pencil
  lines or a figure shrunk onto a page make small texts, arrowheads and hatching harder
  to read than in a clean ``cad`` or ``textbook`` drawing;
* **language**: 0 — the numbers, units and symbols that carry the structure are the same
  in every language and the answer is language-neutral JSON; matched presentations can
  measure whether the label language matters, and this term can then be revised.

Level: score 0–2 → 1, 3–5 → 2, 6–9 → 3, 10–12 → 4, ≥ 13 → 5 (:data:`LEVEL_FLOORS`).

The floors were set on measurements (``python tools/generation_report.py``): the v1
structures (the 346 shipped tasks and the standard templates) score 0–12 and spread
over levels 1–3 with some at 4; the hard templates (40+ member frames, 60+ member
trusses, six-span Gerber beams, 4–12 loads) score 8–23 and reach 4–5; a presentation
adds up to 7. So a set of the 346 plus about 250 hard structures covers 1–5 in every
category (no level more than 2.5 times as full as another). Trusses score less than
frames of the same size: joint forces are their only load kind and their pin joints and
diagonals are not counted, so a truss needs more members for the same level.

DSI = 3·links + restraints − 3·points − releases, where a pin restrains 2, a roller 1,
a fixed support 3, a slider 2, and a point whose k link ends are all hinged (and whose
rotation no support holds) releases k − 1, any other point one per hinged end.

A problem's file may override the level (``problem.difficulty``); the ground truth then
records both, the rule's as ``difficulty_rule`` with its points as ``difficulty_points``.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import dataclass, field

from ..model.semantics import force_direction, member_places
from ..model.types import BendingMoment, DistributedLoad, Model, PointLoad, SupportKind
from ..presentation import Presentation

RESTRAINTS = {SupportKind.PIN: 2, SupportKind.ROLLER: 1, SupportKind.FIXED: 3,
              SupportKind.SLIDER: 2}
LEVEL_FLOORS = (0, 3, 6, 10, 13)  # lowest score of levels 1..5
MEMBER_FLOORS = (3, 6, 11, 21, 31, 41, 51, 61)  # then one point per further ten members
FINE_DETAIL = 24  # extent / smallest gap above this earns a point

#: presentation factor → {value: points}; values not named score 0
PRESENTATION_POINTS: dict[str, dict[str, int]] = {
    "dimensioning": {"exam": 2},
    "values": {"parametric": 2},
    "units": {"mm-kN": 1},
    "symbols": {"b": 1},
    "style": {"scanned": 1, "sketch": 1, "exam-page": 1},
    "language": {},
}


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
    coordinates: int = 0
    detail_ratio: float = 0.0  # extent / smallest gap between distinct coordinates
    presentation: Presentation = field(default_factory=Presentation)

    def points(self) -> dict[str, int]:
        """Every term of the rule, in the documented order (zeros included)."""
        shown = self.presentation
        return {
            "members": _band(self.links, MEMBER_FLOORS),
            "redundancy": _band(self.redundancy, (1, 2, 4)),
            "hinges": _band(self.hinged_joints, (1, 2, 4)),
            "inclined_members": int(self.inclined_members > 0),
            "slanted_supports": int(self.slanted_supports > 0),
            "load_classes": _band(len(self.load_classes), (2, 3, 4)),
            "load_count": _band(self.loads, (4, 8)),
            "inclined_distributed": int(self.inclined_distributed > 0),
            "coordinates": _band(self.coordinates, (9, 15, 25)),
            "fine_detail": int(self.detail_ratio > FINE_DETAIL),
            **{factor: PRESENTATION_POINTS[factor].get(getattr(shown, factor), 0)
               for factor in ("dimensioning", "values", "units", "symbols", "style",
                              "language")},
        }

    def score(self) -> int:
        return sum(self.points().values())

    def level(self) -> int:
        return level_of(self.score())


def presentation_points(presentation: Presentation, *, drawn: tuple[str, ...] = ()) -> int:
    """Points the presentation alone adds; factors named in ``drawn`` count at their most
    (the generator's bound for a factor it draws per problem, like the style)."""
    total = 0
    for factor, table in PRESENTATION_POINTS.items():
        if factor in drawn:
            total += max(table.values(), default=0)
        else:
            total += table.get(getattr(presentation, factor), 0)
    return total


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


def places(model: Model) -> list[tuple[float, float]]:
    """Every place a reader must locate: the points, the concentrated loads on members and
    the ends of distributed loads (rounded to µm, so equal places compare equal)."""
    out = [(p.x, p.y) for p in model.points]
    for load in model.loads:
        out += member_places(model, load)
    return [(round(x, 6) + 0.0, round(y, 6) + 0.0) for x, y in out]


def density(model: Model) -> tuple[int, float]:
    """(distinct x + distinct y values, extent / smallest gap between distinct values)."""
    where = places(model)
    xs, ys = sorted({x for x, _ in where}), sorted({y for _, y in where})
    gaps = [b - a for axis in (xs, ys) for a, b in itertools.pairwise(axis)]
    extent = max(xs[-1] - xs[0], ys[-1] - ys[0])
    return len(xs) + len(ys), (extent / min(gaps) if gaps else 0.0)


def features(model: Model, presentation: Presentation | None = None) -> Features:
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
    coordinates, detail = density(model)
    return Features(
        links=len(model.links),
        redundancy=max(0, redundancy(model)),
        hinged_joints=len(hinged_points),
        load_classes=tuple(sorted({load_class(model, ld) for ld in model.loads})),
        loads=len(model.loads),
        inclined_members=len(inclined),
        inclined_distributed=inclined_distributed,
        slanted_supports=slanted,
        coordinates=coordinates,
        detail_ratio=detail,
        presentation=presentation or Presentation(),
    )


def difficulty(model: Model, presentation: Presentation | None = None) -> int:
    """The rule's level, 1–5, of ``model`` shown in ``presentation`` (default: the v1 look,
    full dimensions, numeric values, metres, English, symbol set a, a clean style)."""
    return features(model, presentation).level()
