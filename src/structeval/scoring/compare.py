"""Compare two solutions at matched locations: reactions per support and component, with sign,
axial force and bending moment at stations along every ground-truth member, and max |M|.

Never sorted values: a reaction is compared with the reaction of the support at
the same place, a moment with the moment at the same place of the same member.
A value x agrees with the ground truth g when |x − g| ≤ tol·|g| + floor, the floor
being tol/4 of the case's scale (largest force reaction for forces, largest |M| for
moments), so values near zero are judged against the size of the problem.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..fe.results import CaseSolution, evaluate_cases
from .experiments import StageRun
from .stations import Stations

FLOOR_SHARE = 0.25  # absolute floor = FLOOR_SHARE · tol · scale
MAX_RECORDED = 40  # mismatches kept for feedback; all are counted


@dataclass(frozen=True)
class Mismatch:
    case: str
    kind: str  # "reaction" | "moment" | "axial force" | "max moment"
    excess: float  # |difference| / allowed difference (> 1)
    gt_support: int = -1
    cand_support: int = -1
    component: str = ""
    gt_link: int = -1
    gt_s: float = 0.0
    cand_link: int = -1


@dataclass(frozen=True)
class StageResult:
    stage: str
    passed: bool
    mechanism: str | None
    mismatches: tuple[Mismatch, ...]
    worst: float  # largest |difference| / allowed over every check (≤ 1 passes)
    checks: int
    failed: int = 0  # failing checks (only the first MAX_RECORDED are kept as mismatches)

    def summary(self) -> dict[str, object]:
        worst = round(self.worst, 6) if np.isfinite(self.worst) else None
        return {"passed": self.passed, "worst_error_ratio": worst,
                "checks": self.checks, "failed_checks": self.failed,
                **({"mechanism": self.mechanism} if self.mechanism else {})}


def world_reactions(sol: CaseSolution, supports: np.ndarray) -> np.ndarray:
    """(S, 3) world Rx, Ry, Mz of the force/moment each support exerts on the structure."""
    r = sol.raw.reactions
    c, s = supports[:, 2], supports[:, 3]
    return np.column_stack([r[:, 0] * c - r[:, 1] * s, r[:, 0] * s + r[:, 1] * c, r[:, 2]])


def _all_reactions(sols: list[CaseSolution], supports: np.ndarray) -> np.ndarray:
    """(C, S, 3) world reactions of every support in every case."""
    if not len(supports):
        return np.zeros((len(sols), 0, 3))
    return np.stack([world_reactions(sol, supports) for sol in sols])


def _paired(reactions: np.ndarray, index: np.ndarray) -> np.ndarray:
    """(C, P, 3) reactions of the supports in ``index`` (zeros where −1 or none)."""
    if not reactions.shape[1] or not len(index):
        return np.zeros((reactions.shape[0], len(index), 3))
    return np.where((index >= 0)[None, :, None], reactions[:, np.maximum(index, 0)], 0.0)


def _ratio(values: np.ndarray, ref: np.ndarray, tol: float, scale: np.ndarray) -> np.ndarray:
    """|value − ref| / allowed, with ``scale`` broadcast over the trailing axes."""
    allowed = tol * np.abs(ref) + FLOOR_SHARE * tol * scale
    return np.abs(values - ref) / np.maximum(allowed, 1e-300)


def compare_stage(run: StageRun, tol: float, size: float) -> StageResult:
    if run.cand is None:
        text = str(run.mechanism) if run.mechanism else "mechanism"
        return StageResult(run.stage, False, text, (), float("inf"), 0)
    st: Stations = run.stations
    pairs = np.array(run.pairs, dtype=np.int64).reshape(-1, 2)
    gt_all_r = _all_reactions(run.gt, run.gt_supports)
    g_r = _paired(gt_all_r, pairs[:, 0])  # (C, P, 3)
    c_r = _paired(_all_reactions(run.cand, run.cand_supports), pairs[:, 1])
    n_g, _, m_g = evaluate_cases(run.gt, st.gt_link, st.gt_s, side=st.gt_right)  # (C, K)
    n_c, _, m_c = evaluate_cases(run.cand, st.cand_link, st.cand_s, side=st.cand_right)
    m_c = m_c * st.orient[None, :]
    g_max = np.array([sol.max_abs_moment for sol in run.gt])
    c_max = np.array([sol.max_abs_moment for sol in run.cand])
    # Scales of each case, each bounded below by the other so that a case with only
    # couples (forces ~ 0) or only axial action (moments ~ 0) is not judged on noise.
    moment = np.maximum(g_max, np.abs(gt_all_r[..., 2]).max(axis=1, initial=0.0))
    force = np.maximum.reduce([np.abs(gt_all_r[..., :2]).max(axis=(1, 2), initial=0.0),
                               np.abs(n_g).max(axis=1, initial=0.0), moment / size])
    force = np.where(force > 0, force, 1.0)
    moment = np.maximum(moment, 1e-3 * force * size)

    r_ratio = np.concatenate([_ratio(c_r[..., :2], g_r[..., :2], tol, force[:, None, None]),
                              _ratio(c_r[..., 2:], g_r[..., 2:], tol, moment[:, None, None])],
                             axis=2)  # (C, P, 3)
    n_ratio = _ratio(n_c, n_g, tol, force[:, None])
    m_ratio = _ratio(m_c, m_g, tol, moment[:, None])
    mx_ratio = _ratio(c_max, g_max, tol, moment)
    checks = r_ratio.size + n_ratio.size + m_ratio.size + mx_ratio.size
    worst = float(max(r_ratio.max(initial=0.0), n_ratio.max(initial=0.0),
                      m_ratio.max(initial=0.0), mx_ratio.max(initial=0.0)))
    failed = int((r_ratio > 1).sum() + (n_ratio > 1).sum() + (m_ratio > 1).sum()
                 + (mx_ratio > 1).sum())
    mismatches: list[Mismatch] = []
    if failed:
        names = run.case_names
        hits = np.nonzero(r_ratio > 1.0)
        for c, k, comp in list(zip(*hits, strict=True))[:MAX_RECORDED]:
            mismatches.append(Mismatch(names[c], "reaction", float(r_ratio[c, k, comp]),
                                       gt_support=int(pairs[k, 0]), cand_support=int(pairs[k, 1]),
                                       component=("Rx", "Ry", "Mz")[comp]))
        for kind, ratio in (("moment", m_ratio), ("axial force", n_ratio)):
            room = MAX_RECORDED - len(mismatches)
            for c, k in list(zip(*np.nonzero(ratio > 1.0), strict=True))[:max(room, 0)]:
                mismatches.append(Mismatch(names[c], kind, float(ratio[c, k]),
                                           gt_link=int(st.gt_link[k]), gt_s=float(st.gt_s[k]),
                                           cand_link=int(st.cand_link[k])))
        for c in np.flatnonzero(mx_ratio > 1.0)[:max(MAX_RECORDED - len(mismatches), 0)]:
            mismatches.append(Mismatch(names[c], "max moment", float(mx_ratio[c])))
    return StageResult(run.stage, failed == 0, None, tuple(mismatches), worst,
                       checks, failed)
