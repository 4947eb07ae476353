"""Model → kernel → per-case solutions, or a typed reason why there is none."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..model.canonical import Columns
from ..model.errors import StructEvalError
from ..model.types import Load, Model
from .abi import (
    HDR_OUT,
    REC_PIECE,
    ST_BAD_INPUT,
    ST_LOOK_CLOSER,
    ST_MECHANISM,
    ST_NO_MEMORY,
    ST_NUMERICAL,
    ST_OK,
    STATUS_NAMES,
    pack,
    unpack_cases,
    unpack_modes,
)
from .problem import FEProblem, compile_model, pack_columns
from .results import CaseSolution
from .wasm import Kernel, SolverError, default_kernel

MOVING = 1e-6  # share of a free motion's largest component that still counts as moving
OVERFLOWED_STIFFNESS = 500000  # kernel detail: + element index (solver/ABI.md)


class MechanismError(StructEvalError):
    """The structure can move without resistance; ``motions`` says how."""

    def __init__(self, model: Model, count: int, modes: list[np.ndarray]):
        self.count = count
        self.motions = [_describe_mode(model, mode) for mode in modes]
        self.moving_points = sorted({pid for m in self.motions for pid in m["points"]})
        super().__init__(self._message())

    def _message(self) -> str:
        plural = "s" if self.count != 1 else ""
        parts = [f"mechanism: the structure is not stable, it can move without resistance "
                 f"({self.count} independent free motion{plural})"]
        for i, motion in enumerate(self.motions[:3], start=1):
            parts.append(f"free motion {i}: {motion['text']}")
        return "; ".join(parts)


def _describe_mode(model: Model, mode: np.ndarray) -> dict[str, object]:
    mode = np.where(np.isfinite(mode), mode, 0.0)
    trans = np.hypot(mode[:, 0], mode[:, 1])
    rot = np.abs(mode[:, 2])
    if trans.max() > 0:
        moving = np.flatnonzero(trans > MOVING * trans.max())
        ids = [model.points[i].id for i in moving]
        lead = int(moving[np.argmax(trans[moving])])
        dx, dy = mode[lead, :2] / trans[lead]
        shown = ", ".join(ids[:8]) + (f" and {len(ids) - 8} more" if len(ids) > 8 else "")
        text = (f"point{'s' if len(ids) > 1 else ''} {shown} can move "
                f"(point {model.points[lead].id} along ({dx:.2f}, {dy:.2f}))")
        return {"points": ids, "text": text, "kind": "translation"}
    moving = np.flatnonzero(rot > MOVING * rot.max()) if rot.max() > 0 else np.array([], int)
    ids = [model.points[i].id for i in moving]
    if not ids:  # a motion with no finite component: the numbers failed, not the joints
        return {"points": [], "kind": "numerical",
                "text": "a free motion the solver cannot locate (its components are not "
                        "finite numbers): the stiffness is numerically degenerate; check E, A, "
                        "Iz and the coordinates for extreme values"}
    text = (f"point{'s' if len(ids) > 1 else ''} {', '.join(ids)} can rotate freely: every link "
            "end there is hinged, so a couple on it cannot be resisted")
    return {"points": ids, "text": text, "kind": "rotation"}


def _failure(status: int, detail: float, model: Model) -> str:
    """Why the kernel gave no answer, in terms of the model (detail codes: framecalc.c)."""
    if status == ST_BAD_INPUT:
        index = int(detail) - 100
        if 0 <= index < len(model.links):
            return (f'link "{model.links[index].id}": its length or section is not a usable '
                    "floating-point number (coordinates or E, A, Iz too extreme)")
        index = int(detail) - OVERFLOWED_STIFFNESS
        if 0 <= index < len(model.links):
            link = model.links[index]
            return (f'link "{link.id}": its stiffness overflows double precision '
                    f"(E = {link.E:g}, A = {link.A:g}, Iz = {link.Iz:g}: E·A/L or E·Iz/L³ is "
                    "not a finite number); use realistic section values")
        return f"solver rejected the numeric input (detail {detail:g})"
    if status == ST_NO_MEMORY:
        return "model too large for the solver's memory cap"
    if status == ST_NUMERICAL and detail == 2:
        return ("the assembled stiffness overflows double precision: the members' E·A/L or "
                "E·Iz/L³ add up beyond 1.8e308; use realistic section values")
    if status == ST_NUMERICAL and detail == 1:
        return ("the structure is too ill-conditioned to solve in double precision: its "
                "stiffnesses or dimensions span too many orders of magnitude")
    if status == ST_NUMERICAL:
        return ("the results overflow: loads, dimensions or stiffnesses are too extreme "
                "to give finite numbers")
    return f"solver failed: {STATUS_NAMES.get(status, status)}"


def run_problem(problem: FEProblem, model: Model, kernel: Kernel | None = None,
                ) -> list[CaseSolution]:
    kernel = kernel or default_kernel()
    out = kernel.run(pack(problem))
    if out[0] != ST_OK:
        raise _failure_of(out, model)
    lengths = problem.lengths
    return [CaseSolution(model, raw, lengths) for raw in unpack_cases(out, problem)]


def analyze_columns(cols: Columns, *, spring: float = 0.0, kernel: Kernel | None = None,
                    layout_check: float = 0.0) -> bytes | None:
    """The kernel's output block (its bytes) for the columns of a valid document under
    its own loads, without building its model (``structeval.solve``'s path, read by
    :func:`~.solution_json.columns_to_json`); the model is built only to word a
    failure, which is then the one :func:`analyze` raises.

    With ``layout_check`` (the geometry check's relative tolerance) the columns' layout
    has not been checked in Python and the kernel confirms it in the same call; None
    when it could not (or refused the input before it could): the caller then checks
    the model in full, which words any problem."""
    kernel = kernel or default_kernel()
    block = kernel.run_bytes(pack_columns(cols, spring=spring, layout_check=layout_check))
    values = memoryview(block).cast("d")
    status = values[0]
    if status != ST_OK:
        if layout_check and status in (ST_LOOK_CLOSER, ST_BAD_INPUT):
            return None
        raise _failure_of(np.frombuffer(block), cols.model())
    # the one case's answer, and its pieces, fit in the block (else a reader would
    # silently take a short slice)
    at = HDR_OUT + 3 * len(cols.point_ids) + 3 * len(cols.supports) + 6 * len(cols.link_ids)
    if at + 4 > len(values) or not 0 <= values[at + 3] <= (len(values) - at - 4) // REC_PIECE:
        raise SolverError("solver returned a malformed output block")
    return block


def _failure_of(out: np.ndarray, model: Model) -> StructEvalError:
    status = int(out[0])
    if status == ST_MECHANISM:
        count, modes = unpack_modes(out, len(model.points))
        return MechanismError(model, count, modes)
    return SolverError(_failure(status, float(out[2]), model))


def analyze(model: Model, cases: Sequence[Sequence[Load]] | None = None, *, spring: float = 0.0,
            kernel: Kernel | None = None) -> list[CaseSolution]:
    """Solve ``model`` for each load case (default: its own loads) with one factorisation.

    ``spring`` > 0 models supports as FrameCalc's linear springs (1e12 reproduces the
    original's values to round-off); 0 uses exact constraints.
    """
    return run_problem(compile_model(model, cases, spring=spring), model, kernel)
