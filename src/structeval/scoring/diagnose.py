"""Grade a candidate model against the ground truth: equivalence check, then staged diagnosis.

An answer is perfect when its structure behaves like the ground truth under every
probe load with its own supports and hinges (stage 3), and under the given loads
(stage 4) where, in addition, the applied loads must add up to the same resultants
at every point and along every member. Otherwise the stages run in order and the
first that fails decides the credit; a candidate that is a mechanism at a stage fails
that stage.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from ..fe.analyze import MechanismError
from ..fe.wasm import SolverError
from ..model.errors import ModelError
from ..model.parse import parse_model
from ..model.types import Model
from .align import align
from .canonical import harmonize_supports
from .compare import StageResult, compare_stage
from .experiments import STAGES, Experiment
from .locate import geometry_problems, load_problems, release_problems, support_problems
from .stations import build_stations
from .verdict import STAGE_LABEL, Verdict

DEFAULT_TOLERANCE = 0.02


def score(gt: Model, candidate: Any, *, tolerance: float = DEFAULT_TOLERANCE) -> Verdict:
    """Verdict for ``candidate`` (Model, dict or JSON text) against the ground truth ``gt``.

    Raises only for a broken ground truth (a mechanism or an invalid model there is
    the benchmark's fault, not the candidate's).
    """
    if not tolerance > 0:
        raise ValueError("tolerance must be > 0")
    # Hostile numbers (1e154 coordinates, say) overflow to inf in comparisons; that is
    # a clear mismatch, not a warning worth showing a user.
    with np.errstate(all="ignore"):
        return _score(gt, candidate, tolerance)


def _score(gt: Model, candidate: Any, tolerance: float) -> Verdict:
    if not isinstance(candidate, Model):
        try:
            candidate = parse_model(candidate)
        except ModelError as exc:
            return Verdict.at("invalid", "Your JSON is not a valid FrameCalc model: "
                              + "; ".join(str(i) for i in exc.issues[:12]),
                              {"validation": [str(i) for i in exc.issues]})
    al = align(gt, candidate)
    gt_c, cand_c = harmonize_supports(gt, candidate, al)
    checks: dict[str, Any] = {"alignment": {
        "offset": [round(al.offset[0], 9), round(al.offset[1], 9)],
        "position_tolerance": al.tol,
        "matched_points": int((al.point_map >= 0).sum()), "gt_points": len(gt.points),
        "missing_members": len(al.missing_links), "extra_links": len(al.extra_links)},
        "tolerance": tolerance, "stages": {}}
    if al.missing_links or al.extra_links:
        checks["stages"]["geometry"] = {"passed": False, "reason": "members do not match"}
        return Verdict.at("geometry", _message("geometry", geometry_problems(gt_c, cand_c, al)),
                          checks)
    exp = Experiment(gt_c, cand_c, al, build_stations(gt_c, cand_c, al))
    size = float(al.gt.length.max())
    results: dict[str, StageResult] = {}
    misplaced: list[str] = []

    def stage(name: str) -> StageResult:
        if name not in results:
            try:
                result = compare_stage(exp.run(name), tolerance, size)
            except SolverError as exc:  # the candidate exceeded the solver's limits
                result = StageResult(name, False, str(exc), (), float("inf"), 0)
            summary = result.summary()
            if name == "loads" and result.passed:
                # A small load scaled or moved may hide under the tolerance of the
                # responses; the applied actions themselves are compared place by place.
                misplaced.extend(load_problems(gt_c, cand_c, al, tolerance))
                summary["load_resultants_match"] = not misplaced
                if misplaced:
                    result = replace(result, passed=False)
            results[name] = result
            checks["stages"][name] = summary
        return results[name]

    if stage("releases").passed and stage("loads").passed:
        return Verdict.at("perfect", "Correct: reactions and bending moments match the drawing.",
                          checks)
    for name in STAGES:
        if not stage(name).passed:
            return Verdict.at(name, _message(name, _where(name, gt_c, cand_c, al, tolerance,
                                                          results[name], misplaced)), checks)
    raise AssertionError("unreachable: a stage failed above")  # pragma: no cover


def _where(name: str, gt: Model, cand: Model, al: Any, tol: float,
           result: StageResult, misplaced: list[str]) -> list[str]:
    notes: list[str] = []
    if result.mechanism:
        what = {"geometry": "parts of your structure are not connected to the rest",
                "supports": "with your supports the structure is a mechanism",
                "releases": "with your hinges the structure is a mechanism",
                "loads": "your loads cannot be carried"}[name]
        notes.append(f"{what} ({result.mechanism})")
    if name == "geometry":
        notes += geometry_problems(gt, cand, al)
    elif name == "supports":
        notes += support_problems(gt, cand, al)
    elif name == "releases":
        notes += release_problems(gt, cand, al)
    else:
        notes += misplaced or load_problems(gt, cand, al, tol)
    if not notes:
        notes.append(_fallback(name, cand, result))
    return notes


def _fallback(name: str, cand: Model, result: StageResult) -> str:
    links = sorted({cand.links[m.cand_link].id for m in result.mismatches if m.cand_link >= 0})
    supports = sorted({cand.supports[m.cand_support].id for m in result.mismatches
                       if m.cand_support >= 0})
    where = []
    if links:
        where.append("your links " + ", ".join(links[:8]))
    if supports:
        where.append("your supports " + ", ".join(supports[:8]))
    place = " and ".join(where) or "the structure"
    what = {"geometry": "member lengths, angles or connections",
            "supports": "support kinds or angles", "releases": "hinges (endA/endB)",
            "loads": "load values, directions or positions"}[name]
    return f"the {what} differ from the drawing; the effect shows at {place}"


def _message(stage: str, notes: list[str]) -> str:
    shown = notes[:6] + ([f"and {len(notes) - 6} more"] if len(notes) > 6 else [])
    return f"{STAGE_LABEL[stage]} stage failed: " + "; ".join(shown) + "."


__all__ = ["DEFAULT_TOLERANCE", "MechanismError", "score"]
