"""A structure and its bending moments as plain numbers, for the page to draw itself.

Drawing the ground truth, the reconstruction and both moment diagrams with the
raster renderer was 95 % of the old report's time (cProfile of 40 tasks: 52.8
of 55.4 s, label placement and legibility checks mostly) and four JPEGs per
task. The page instead carries each structure as a few short
lists (coordinates, member ends, supports, loads, moment samples) and draws
them as SVG in the browser when a task is opened (``page_assets.JS``: DOM
nodes and ``textContent`` only, so no string from here is ever parsed as
markup). Numbers are rounded to fixed precision so that equal inputs give
equal bytes.

A model that cannot be solved, or whose moments are round-off (a pin-jointed
truss), gets a note instead of a diagram: the browser scales the largest
ordinate to full height, which would make 1e-17 kN·m look like a real diagram.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..fe import analyze
from ..model.errors import StructEvalError
from ..model.semantics import (
    couple,
    distributed_extent,
    force_direction,
    link_axis,
    world_point_of_load,
)
from ..model.types import BendingMoment, DistributedLoad, Model
from .figures import guarded

MOMENT_ROUNDOFF = 1e-9  # max |M| below this × (largest reaction × size) is zero
SAMPLES_PER_PIECE = 9  # moment samples between two load breaks of a member


def _r(value: float) -> float:
    """Four decimals: millimetres on a metre grid, and identical text for identical input
    (a non-finite number has no drawing: ``guarded`` turns this into a note)."""
    if not math.isfinite(value):
        raise ValueError(f"a coordinate or value is not a finite number ({value})")
    return round(float(value), 4) + 0.0  # + 0.0 turns -0.0 into 0.0


def _extent(model: Model) -> float:
    xs = [p.x for p in model.points]
    ys = [p.y for p in model.points]
    return max(max(xs) - min(xs), max(ys) - min(ys), 0.0)


def _loads(model: Model, marks: Mapping[str, str]) -> list[list[Any]]:
    """[kind, x, y, …, label, colour]: ``f`` force (unit direction), ``q`` distributed
    (both ends on the member, direction, end intensities), ``c`` couple (sign)."""
    out: list[list[Any]] = []
    for load in model.loads:
        colour = marks.get(f"load:{load.id}", "")
        if isinstance(load, DistributedLoad):
            link = model.link(load.target.id)
            cx, cy, _ = link_axis(model, link)
            s0, s1, _ = distributed_extent(model, load)
            a = model.point(link.a)
            dx, dy = force_direction(model, load)
            same = load.w_start == load.w_end
            label = f"{load.w_start:g} kN/m" if same else f"{load.w_start:g}–{load.w_end:g} kN/m"
            out.append(["q", _r(a.x + cx * s0), _r(a.y + cy * s0), _r(a.x + cx * s1),
                        _r(a.y + cy * s1), _r(dx), _r(dy), _r(load.w_start), _r(load.w_end),
                        label, colour])
            continue
        x, y = world_point_of_load(model, load)
        if isinstance(load, BendingMoment):
            c = couple(load)
            out.append(["c", _r(x), _r(y), 1 if c >= 0 else -1, f"{abs(c):g} kN·m", colour])
        else:
            dx, dy = force_direction(model, load)
            out.append(["f", _r(x), _r(y), _r(dx), _r(dy), f"{abs(load.value):g} kN", colour])
    return out


class NoBending(StructEvalError):
    """Every member is moment-free (a pin-jointed truss): there is no diagram to draw."""


def moments(model: Model) -> list[list[Any]]:
    """Per member: [index, [s, M, s, M, …]] (flattened samples along it, kN·m)."""
    solution = analyze(model)[0]
    forces = [abs(r.value) for r in solution.reactions]
    reference = max(forces, default=0.0) * max(_extent(model), 1.0)
    if solution.max_abs_moment <= MOMENT_ROUNDOFF * max(reference, 1.0):
        raise NoBending(f"no bending moment anywhere (max |M| = {solution.max_abs_moment:.1e} "
                        "kN·m, round-off)")
    out = []
    for index in range(len(model.links)):
        flat: list[float] = []
        for sample in solution.link_samples(index, SAMPLES_PER_PIECE):
            flat += [_r(sample["s"]), _r(sample["m"])]
        out.append([index, flat])
    return out


def sketch(model: Model, marks: Mapping[str, str]) -> dict[str, Any]:
    """The structure as the page's drawing code reads it (keys as in ``page_assets.JS``);
    ``marks`` are :mod:`.differences` highlight colours by element key."""
    index = {p.id: k for k, p in enumerate(model.points)}
    links = [[index[lk.a], index[lk.b], int(lk.hinge_a), int(lk.hinge_b),
              marks.get(f"link:{lk.id}", "")] for lk in model.links]
    points = [[_r(p.x), _r(p.y), p.id, marks.get(f"point:{p.id}", "")] for p in model.points]
    supports = [[index[s.at], s.kind.value, _r(s.angle_deg), marks.get(f"support:{s.id}", "")]
                for s in model.supports]
    drawing: dict[str, Any] = {"p": points, "l": links, "s": supports,
                               "f": _loads(model, marks)}
    diagram, note = guarded("no moment diagram", lambda: moments(model))
    if diagram is not None:
        drawing["m"] = diagram
    else:
        drawing["mnote"] = note
    return drawing


@dataclass(frozen=True)
class PairSketches:
    """The truth and the reconstruction as drawing data, or why one is missing."""

    gt: dict[str, Any] | None
    cand: dict[str, Any] | None
    gt_note: str | None
    cand_note: str | None

    def to_json(self) -> dict[str, Any]:
        return {"gt": self.gt, "cand": self.cand, "gtNote": self.gt_note,
                "candNote": self.cand_note}


def pair_sketches(gt: Model | None, cand: Model | None, gt_marks: Mapping[str, str],
                  cand_marks: Mapping[str, str], cand_missing: str) -> PairSketches:
    gt_data, gt_note = (None, "the ground truth is not available (task not found in the "
                        "dataset)")
    if gt is not None:
        gt_data, gt_note = guarded("the ground truth cannot be drawn",
                                   lambda: sketch(gt, gt_marks))
    cand_data, cand_note = None, cand_missing
    if cand is not None:
        cand_data, cand_note = guarded("your model cannot be drawn",
                                       lambda: sketch(cand, cand_marks))
    return PairSketches(gt_data, cand_data, gt_note, cand_note)
