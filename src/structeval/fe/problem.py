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
from ..model.semantics import axis_between, turned, unit
from ..model.types import (
    AngleMode,
    BendingMoment,
    DistributedLoad,
    Load,
    Model,
    OffsetMode,
    PointLoad,
    RefEnd,
    SupportKind,
    s_along,
)

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
    fixed = _FIXED_BASES.get(kind)
    if fixed is not None:
        return fixed
    c, s = unit(angle_deg)
    if kind is SupportKind.ROLLER:
        return 0b010, c, s
    return 0b110, s, -c  # slider: e1 = (sin θ, −cos θ) so that e2 = (cos θ, sin θ)


#: The bases of the kinds whose angle does not matter (one lookup for the common case).
_FIXED_BASES = {SupportKind.PIN: (0b011, 1.0, 0.0), SupportKind.FIXED: (0b111, 1.0, 0.0)}


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


def pack_columns(cols: Columns, *, spring: float = 0.0, layout_check: float = 0.0) -> bytes:
    """The kernel's input for the columns of a document, without a model: the bytes of
    ``pack(compile_model(cols.model(), spring=spring))``, equal bit for bit (the same
    values in the same order through the same arithmetic; ``tests/test_parse_columns.py``
    compares them). Packed by :mod:`struct` rather than through a numpy array:
    converting a list of a few hundred numbers costs numpy twice as long.

    ``layout_check`` > 0 (the relative tolerance of the geometry check) asks the kernel
    to confirm the layout before it solves (header slot 9, solver/ABI.md), for columns
    whose geometry Python has not checked."""
    xy, rows = cols.xy, cols.link_rows
    nodal: list[float] = []
    onlink: list[float] = []
    relative = AngleMode.RELATIVE
    for (kind, _, where, _, value, w_end, from_start, from_end, angle, mode, flip,
         position), target in zip(cols.load_fields, cols.load_targets, strict=True):
        if where == "point":
            axis = None
        else:
            a, b = 2 * rows[LINK_WIDTH * target], 2 * rows[LINK_WIDTH * target + 1]
            axis = axis_between(xy[a], xy[a + 1], xy[b], xy[b + 1])
        compile_fields(0, target, kind, value, w_end, from_start, from_end, angle,
                       mode is relative, flip, position, axis, nodal, onlink)
    body: list[float] = []
    for sup, node in zip(cols.supports, cols.support_points, strict=True):
        body += (node, *support_basis(sup.kind, sup.angle_deg), 0.0)
    values = (ABI_VERSION, len(cols.point_ids), len(cols.link_ids), len(cols.supports), 1,
              len(nodal) // 5, len(onlink) // 9, spring, MAX_MODES, layout_check,
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
    on_link = load.target.type == "link"
    if isinstance(load, DistributedLoad):
        compile_fields(case, target, DistributedLoad, load.w_start, load.w_end, load.from_start,
                       load.from_end, load.angle_deg,
                       on_link and load.angle_mode is AngleMode.RELATIVE, load.flip, None,
                       axis, nodal, onlink)
        return
    pos = load.position
    position = None if pos is None else (pos.ref_end, pos.mode, pos.value)
    if isinstance(load, PointLoad):
        compile_fields(case, target, PointLoad, load.value, 0.0, 0.0, 0.0, load.angle_deg,
                       on_link and load.angle_mode is AngleMode.RELATIVE, load.flip, position,
                       axis, nodal, onlink)
    else:
        compile_fields(case, target, BendingMoment, load.value, 0.0, 0.0, 0.0, 0.0, False,
                       load.flip, position, axis, nodal, onlink)


def compile_fields(case: int, target: int, kind: type, value: float, w_end: float,
                   from_start: float, from_end: float, angle_deg: float, relative: bool,
                   flip: int, position: tuple[RefEnd, OffsetMode, float] | None,
                   axis: tuple[float, float, float] | None, nodal: list[float],
                   onlink: list[float]) -> None:
    """:func:`compile_load` from a load's fields (``kind`` its class, ``value`` the
    start intensity of a distributed load, ``relative`` whether its angle is measured
    from its link's axis), so that the canonical reader's loads need no objects: the
    one place where a load becomes kernel rows."""
    if axis is None:
        if kind is BendingMoment:
            nodal.extend((case, target, 0.0, 0.0, flip * value))
        else:
            dx, dy = turned(angle_deg, False, flip, 1.0, 0.0)
            nodal.extend((case, target, value * dx, value * dy, 0.0))
        return
    cx, cy, length = axis
    if kind is BendingMoment:
        onlink.extend((case, target, LOAD_COUPLE, _clamped(position, length), flip * value,
                       0.0, 0.0, 0.0, 0.0))
        return
    dx, dy = turned(angle_deg, relative, flip, cx, cy)
    lx, ly = dx * cx + dy * cy, -dx * cy + dy * cx  # local components of the direction
    if kind is PointLoad:
        onlink.extend((case, target, LOAD_FORCE, _clamped(position, length),
                       value * lx, value * ly, 0.0, 0.0, 0.0))
        return
    onlink.extend((case, target, LOAD_DISTRIBUTED, from_start, length - from_end,
                   value * lx, value * ly, w_end * lx, w_end * ly))


def _clamped(position: tuple[RefEnd, OffsetMode, float] | None, length: float) -> float:
    """s of a concentrated load on its link, clamped into [0, L] (P1/P2,
    :func:`~structeval.model.semantics.position_along`)."""
    assert position is not None
    return min(max(s_along(*position, length), 0.0), length)
