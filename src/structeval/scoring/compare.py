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

from ..fe.results import CaseSolution
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


def _read(sol: CaseSolution, link: np.ndarray, s: np.ndarray, right: np.ndarray,
          ) -> tuple[np.ndarray, np.ndarray]:
    n, _, m = sol.evaluate(link, s, side=right)
    return n, m


def _check(values: np.ndarray, ref: np.ndarray, tol: float, scale: float) -> np.ndarray:
    allowed = tol * np.abs(ref) + FLOOR_SHARE * tol * scale
    return np.abs(values - ref) / np.maximum(allowed, 1e-300)


def compare_stage(run: StageRun, tol: float, size: float) -> StageResult:
    if run.cand is None:
        text = str(run.mechanism) if run.mechanism else "mechanism"
        return StageResult(run.stage, False, text, (), float("inf"), 0)
    mismatches: list[Mismatch] = []
    worst, checks, failed = 0.0, 0, 0
    st: Stations = run.stations
    for name, gsol, csol in zip(run.case_names, run.gt, run.cand, strict=True):
        rg = world_reactions(gsol, run.gt_supports)
        rc = world_reactions(csol, run.cand_supports)
        n_g, m_g = _read(gsol, st.gt_link, st.gt_s, st.gt_right)
        n_c, m_c = _read(csol, st.cand_link, st.cand_s, st.cand_right)
        m_c = m_c * st.orient
        # Scales of the case; each bounded below by the other so that a case with only
        # couples (forces ~ 0) or only axial action (moments ~ 0) is not judged on noise.
        moment = max(gsol.max_abs_moment, float(np.abs(rg[:, 2]).max(initial=0.0)))
        force = max(float(np.abs(rg[:, :2]).max(initial=0.0)), float(np.abs(n_g).max(initial=0.0)),
                    moment / size)
        force = force if force > 0 else 1.0
        moment = max(moment, 1e-3 * force * size)
        pairs = np.array(run.pairs, dtype=np.int64).reshape(-1, 2)
        g_r = np.where(pairs[:, :1] >= 0, rg[np.maximum(pairs[:, 0], 0)], 0.0) if len(rg) \
            else np.zeros((len(pairs), 3))
        c_r = np.where(pairs[:, 1:] >= 0, rc[np.maximum(pairs[:, 1], 0)], 0.0) if len(rc) \
            else np.zeros((len(pairs), 3))
        r_ratio = np.column_stack([_check(c_r[:, :2], g_r[:, :2], tol, force),
                                   _check(c_r[:, 2:], g_r[:, 2:], tol, moment)])
        n_ratio = _check(n_c, n_g, tol, force)
        m_ratio = _check(m_c, m_g, tol, moment)
        mx_ratio = float(_check(np.array([csol.max_abs_moment]),
                                np.array([gsol.max_abs_moment]), tol, moment)[0])
        checks += r_ratio.size + n_ratio.size + m_ratio.size + 1
        worst = max(worst, float(r_ratio.max(initial=0.0)), float(n_ratio.max(initial=0.0)),
                    float(m_ratio.max(initial=0.0)), mx_ratio)
        failed += int((r_ratio > 1.0).sum() + (n_ratio > 1.0).sum() + (m_ratio > 1.0).sum()
                      + (mx_ratio > 1.0))
        room = MAX_RECORDED - len(mismatches)
        for k, comp in list(zip(*np.nonzero(r_ratio > 1.0), strict=True))[:max(room, 0)]:
            mismatches.append(Mismatch(name, "reaction", float(r_ratio[k, comp]),
                                       gt_support=int(pairs[k, 0]), cand_support=int(pairs[k, 1]),
                                       component=("Rx", "Ry", "Mz")[comp]))
        for kind, ratio in (("moment", m_ratio), ("axial force", n_ratio)):
            room = MAX_RECORDED - len(mismatches)
            for k in np.flatnonzero(ratio > 1.0)[:max(room, 0)]:
                mismatches.append(Mismatch(name, kind, float(ratio[k]), gt_link=int(st.gt_link[k]),
                                           gt_s=float(st.gt_s[k]), cand_link=int(st.cand_link[k])))
        if mx_ratio > 1.0 and len(mismatches) < MAX_RECORDED:
            mismatches.append(Mismatch(name, "max moment", mx_ratio))
    return StageResult(run.stage, failed == 0, None, tuple(mismatches), worst, checks, failed)
