"""Layout of the kernel's input and output buffers (solver/ABI.md, solver/framecalc.c)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .problem import ABI_VERSION, MAX_MODES, FEProblem

HDR_OUT, REC_PIECE = 4, 13

ST_OK, ST_MECHANISM, ST_BAD_INPUT, ST_NO_MEMORY, ST_NUMERICAL, ST_LOOK_CLOSER = range(6)
STATUS_NAMES = {ST_OK: "ok", ST_MECHANISM: "mechanism", ST_BAD_INPUT: "bad input",
                ST_NO_MEMORY: "out of memory", ST_NUMERICAL: "non-finite result",
                ST_LOOK_CLOSER: "layout not confirmed"}


def pack(problem: FEProblem) -> np.ndarray:
    packed = problem.__dict__.get("packed")
    if packed is not None:  # compiled straight into the kernel's layout
        return packed
    header = np.array([ABI_VERSION, len(problem.nodes), len(problem.elems), len(problem.supports),
                       problem.n_cases, len(problem.nodal_loads), len(problem.elem_loads),
                       problem.spring, MAX_MODES, 0.0])
    return np.concatenate([header, problem.nodes.ravel(), problem.elems.ravel(),
                           problem.supports.ravel(), problem.nodal_loads.ravel(),
                           problem.elem_loads.ravel()])


@dataclass(frozen=True)
class RawCase:
    displacements: np.ndarray  # (N, 3) world ux, uy, rz
    reactions: np.ndarray  # (S, 3) nodal-basis components e1, e2, rz
    end_forces: np.ndarray  # (M, 6) local N, V, M at A then B (forces of the nodes on the link)
    max_abs_moment: float
    max_elem: int
    max_s: float
    pieces: np.ndarray  # (K, 13) elem, s0, s1, n0..n2, v0..v2, m0..m3


def unpack_cases(out: np.ndarray, problem: FEProblem) -> list[RawCase]:
    return read_cases(out, len(problem.nodes), len(problem.elems), len(problem.supports),
                      problem.n_cases)


def read_cases(out: np.ndarray, N: int, M: int, S: int, n_cases: int) -> list[RawCase]:
    """The per-case results in an output block, for N nodes, M elements, S supports."""
    pos = HDR_OUT
    cases = []
    for _ in range(n_cases):
        disp = out[pos:pos + 3 * N].reshape(N, 3)
        pos += 3 * N
        react = out[pos:pos + 3 * S].reshape(S, 3)
        pos += 3 * S
        ends = out[pos:pos + 6 * M].reshape(M, 6)
        pos += 6 * M
        mx, me, ms, count = out[pos:pos + 4]
        pos += 4
        k = int(count)
        pieces = out[pos:pos + k * REC_PIECE].reshape(k, REC_PIECE)
        pos += k * REC_PIECE
        cases.append(RawCase(disp, react, ends, float(mx), int(me), float(ms), pieces))
    return cases


def unpack_modes(out: np.ndarray, n_nodes: int) -> tuple[int, list[np.ndarray]]:
    """(number of independent free motions, the first few as (N, 3) world motions)."""
    total, written = int(out[2]), int(out[3])
    modes = [out[HDR_OUT + i * 3 * n_nodes: HDR_OUT + (i + 1) * 3 * n_nodes].reshape(n_nodes, 3)
             for i in range(written)]
    return total, modes
