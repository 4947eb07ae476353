"""The numeric FE problem the kernel solves, compiled from a :class:`Model`.

This is where FrameCalc semantics (support kinds and angles, load angles, flips,
offsets) become plain numbers; the kernel knows nothing about FrameCalc.
Several load cases can share one structure so that one factorisation serves them
all (the scorer's probe loads).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..model.canonical import LINK_WIDTH, Columns
from ..model.semantics import axis_between, couple, direction_on_axis, position_along, unit
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
            if load.target.type == "point":
                compile_load(load, case, node_index[load.target.id], None, nodal, onlink)
            else:
                link = model.link(load.target.id)
                pa, pb = model.point(link.a), model.point(link.b)
                compile_load(load, case, link_index[link.id],
                             axis_between(pa.x, pa.y, pb.x, pb.y), nodal, onlink)
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


def pack_columns(cols: Columns, *, spring: float = 0.0) -> bytes:
    """The kernel's input for the columns of a valid document, without a model: the
    bytes of ``pack(compile_model(cols.model(), spring=spring))``, equal bit for bit (the
    same values in the same order through the same arithmetic;
    ``tests/test_parse_columns.py`` compares them). Packed by :mod:`struct` rather than
    through a numpy array: converting a list of a few hundred numbers costs numpy
    twice as long."""
    xy, rows = cols.xy, cols.link_rows
    nodal: list[float] = []
    onlink: list[float] = []
    for load, target in zip(cols.loads, cols.load_targets, strict=True):
        if load.target.type == "point":
            compile_load(load, 0, target, None, nodal, onlink)
        else:
            a, b = 2 * rows[LINK_WIDTH * target], 2 * rows[LINK_WIDTH * target + 1]
            compile_load(load, 0, target, axis_between(xy[a], xy[a + 1], xy[b], xy[b + 1]),
                         nodal, onlink)
    body: list[float] = []
    for sup, node in zip(cols.supports, cols.support_points, strict=True):
        body += (node, *support_basis(sup.kind, sup.angle_deg), 0.0)
    values = (ABI_VERSION, len(cols.point_ids), len(cols.link_ids), len(cols.supports), 1,
              len(nodal) // 5, len(onlink) // 9, spring, MAX_MODES, 0.0,
              *xy, *rows, *body, *nodal, *onlink)
    return _packer(len(values)).pack(*values)


_PACKERS: dict[int, struct.Struct] = {}


def _packer(count: int) -> struct.Struct:
    """A compiled ``count``-double format (a few sizes recur: the same drawing again)."""
    packer = _PACKERS.get(count)
    if packer is None:
        if len(_PACKERS) >= 64:
            _PACKERS.clear()
        packer = _PACKERS[count] = struct.Struct(f"<{count}d")  # wasm is little-endian
    return packer


def compile_load(load: Load, case: int, target: int, axis: tuple[float, float, float] | None,
                 nodal: list[float], onlink: list[float]) -> None:
    """Append the kernel rows of one load: ``target`` is the index of its point or link,
    ``axis`` the (cx, cy, length) of that link (None for a point)."""
    if axis is None:
        if isinstance(load, BendingMoment):
            nodal.extend((case, target, 0.0, 0.0, couple(load)))
        else:
            assert isinstance(load, PointLoad)
            dx, dy = direction_on_axis(load, 1.0, 0.0)
            nodal.extend((case, target, load.value * dx, load.value * dy, 0.0))
        return
    cx, cy, length = axis
    if isinstance(load, BendingMoment):
        onlink.extend((case, target, LOAD_COUPLE, position_along(load, length), couple(load),
                       0.0, 0.0, 0.0, 0.0))
        return
    dx, dy = direction_on_axis(load, cx, cy)
    lx, ly = dx * cx + dy * cy, -dx * cy + dy * cx  # local components of the direction
    if isinstance(load, PointLoad):
        onlink.extend((case, target, LOAD_FORCE, position_along(load, length),
                       load.value * lx, load.value * ly, 0.0, 0.0, 0.0))
        return
    assert isinstance(load, DistributedLoad)
    onlink.extend((case, target, LOAD_DISTRIBUTED, load.from_start, length - load.from_end,
                   load.w_start * lx, load.w_start * ly, load.w_end * lx, load.w_end * ly))
