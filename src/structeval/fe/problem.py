"""The numeric FE problem the kernel solves, compiled from a :class:`Model`.

This is where FrameCalc semantics (support kinds and angles, load angles, flips,
offsets) become plain numbers; the kernel knows nothing about FrameCalc.
Several load cases can share one structure so that one factorisation serves them
all (the scorer's probe loads).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..model.semantics import (
    couple,
    distributed_extent,
    force_direction,
    link_axis,
    position_on_link,
    unit,
)
from ..model.types import BendingMoment, DistributedLoad, Load, Model, PointLoad, SupportKind

LOAD_FORCE, LOAD_COUPLE, LOAD_DISTRIBUTED = 1, 2, 3
ABI_VERSION = 1  # layout of the packed input (solver/ABI.md)
HDR_IN = 10
MAX_MODES = 8  # mechanism motions the kernel reports

#: Reported reaction entries per support kind, in output order, and the nodal-basis
#: component (0 = e1, 1 = e2, 2 = rotation) each one reads (FORMAT.md §4).
REACTION_TYPES: dict[SupportKind, tuple[tuple[str, int], ...]] = {
    SupportKind.PIN: (("ux", 0), ("uy", 1)),
    SupportKind.FIXED: (("ux", 0), ("uy", 1), ("rz", 2)),
    SupportKind.ROLLER: (("normal", 1),),
    SupportKind.SLIDER: (("normal", 1), ("rz", 2)),
}


def support_basis(kind: SupportKind, angle_deg: float) -> tuple[int, float, float]:
    """(restraint mask, e1 components) of the nodal basis a support imposes.

    The restrained translation is always e2 = e1 turned +90°, so the reported
    ``normal`` is the e2 component: roller n = (−sin θ, cos θ), slider n = (cos θ, sin θ).
    """
    if kind is SupportKind.PIN:
        return 0b011, 1.0, 0.0
    if kind is SupportKind.FIXED:
        return 0b111, 1.0, 0.0
    c, s = unit(angle_deg)
    if kind is SupportKind.ROLLER:
        return 0b010, c, s
    return 0b110, s, -c  # slider: e1 = (sin θ, −cos θ) so that e2 = (cos θ, sin θ)


@dataclass(frozen=True)
class FEProblem:
    nodes: np.ndarray  # (N, 2) x, y
    elems: np.ndarray  # (M, 7) a, b, E, A, I, hinge_a, hinge_b
    supports: np.ndarray  # (S, 5) node, mask, c, s, 0
    nodal_loads: np.ndarray  # (P, 5) case, node, fx, fy, m
    elem_loads: np.ndarray  # (Q, 9) case, elem, type, p0..p5
    n_cases: int
    spring: float = 0.0  # 0: exact constraints; > 0: FrameCalc-style support springs

    @cached_property
    def lengths(self) -> np.ndarray:
        d = self.nodes[self.elems[:, 1].astype(np.int64)] - self.nodes[
            self.elems[:, 0].astype(np.int64)]
        return np.hypot(d[:, 0], d[:, 1])


def compile_model(model: Model, cases: Sequence[Sequence[Load]] | None = None, *,
                  spring: float = 0.0) -> FEProblem:
    """Numeric problem for ``model``; ``cases`` defaults to the model's own loads.

    Everything is gathered into one flat list and converted once: the arrays of the
    problem are views of the kernel's input buffer, which ``abi.pack`` then reuses.
    For a small model the numpy calls, not the arithmetic, are what costs time.
    """
    if cases is None:
        cases = [model.loads]
    node_index = {p.id: i for i, p in enumerate(model.points)}
    link_index = {lk.id: i for i, lk in enumerate(model.links)}
    body: list[float] = []
    for p in model.points:
        body += (p.x, p.y)
    for lk in model.links:
        body += (node_index[lk.a], node_index[lk.b], lk.E, lk.A, lk.Iz,
                 float(lk.hinge_a), float(lk.hinge_b))
    for sup in model.supports:
        body += (node_index[sup.at], *support_basis(sup.kind, sup.angle_deg), 0.0)
    nodal: list[float] = []
    onlink: list[float] = []
    for case, loads in enumerate(cases):
        for load in loads:
            _compile_load(model, load, case, node_index, link_index, nodal, onlink)
    counts = (len(model.points), len(model.links), len(model.supports), len(nodal) // 5,
              len(onlink) // 9)
    buf = np.array([ABI_VERSION, *counts[:3], len(cases), *counts[3:], spring, MAX_MODES, 0.0,
                    *body, *nodal, *onlink], dtype=np.float64)
    views, at = [], HDR_IN
    for count, width in zip(counts, (2, 7, 5, 5, 9), strict=True):
        views.append(buf[at:at + count * width].reshape(count, width))
        at += count * width
    problem = FEProblem(*views, len(cases), spring)
    object.__setattr__(problem, "packed", buf)
    return problem


def _compile_load(model: Model, load: Load, case: int, node_index: dict[str, int],
                  link_index: dict[str, int], nodal: list[float], onlink: list[float]) -> None:
    if load.target.type == "point":
        node = node_index[load.target.id]
        if isinstance(load, BendingMoment):
            nodal.extend((case, node, 0.0, 0.0, couple(load)))
        else:
            assert isinstance(load, PointLoad)
            dx, dy = force_direction(model, load)
            nodal.extend((case, node, load.value * dx, load.value * dy, 0.0))
        return
    link = model.link(load.target.id)
    elem = link_index[link.id]
    cx, cy, _ = link_axis(model, link)
    if isinstance(load, BendingMoment):
        onlink.extend((case, elem, LOAD_COUPLE, position_on_link(model, load), couple(load),
                       0.0, 0.0, 0.0, 0.0))
        return
    dx, dy = force_direction(model, load)
    lx, ly = dx * cx + dy * cy, -dx * cy + dy * cx  # local components of the direction
    if isinstance(load, PointLoad):
        onlink.extend((case, elem, LOAD_FORCE, position_on_link(model, load),
                       load.value * lx, load.value * ly, 0.0, 0.0, 0.0))
        return
    assert isinstance(load, DistributedLoad)
    s0, s1, _ = distributed_extent(model, load)
    onlink.extend((case, elem, LOAD_DISTRIBUTED, s0, s1, load.w_start * lx, load.w_start * ly,
                   load.w_end * lx, load.w_end * ly))
