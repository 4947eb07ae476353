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
from .verdict import Verdict
from .wording import (
    DEFAULT_LANGUAGE,
    Listed,
    Phrase,
    check_language,
    join,
    phrase,
    render,
)

DEFAULT_TOLERANCE = 0.02


def score(gt: Model, candidate: Any, *, tolerance: float = DEFAULT_TOLERANCE,
          lang: str = DEFAULT_LANGUAGE) -> Verdict:
    """Verdict for ``candidate`` (Model, dict or JSON text) against the ground truth ``gt``.

    ``lang`` (``en`` | ``zh``) is the language of the verdict's message only: the
    stage, the credit and the checks do not depend on it (:mod:`.wording`).
    Raises only for a broken ground truth (a mechanism or an invalid model there is
    the benchmark's fault, not the candidate's).
    """
    if not tolerance > 0:
        raise ValueError("tolerance must be > 0")
    check_language(lang)
    # Hostile numbers (1e154 coordinates, say) overflow to inf in comparisons; that is
    # a clear mismatch, not a warning worth showing a user.
    with np.errstate(all="ignore"):
        return _score(gt, candidate, tolerance, lang)


def _score(gt: Model, candidate: Any, tolerance: float, lang: str) -> Verdict:
    if not isinstance(candidate, Model):
        try:
            candidate = parse_model(candidate)
        except ModelError as exc:
            issues = join((str(i) for i in exc.issues[:12]), lang, "notes")
            return Verdict.at("invalid", render(phrase("message.invalid", issues=issues), lang),
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
        return Verdict.at("geometry", _message("geometry", geometry_problems(gt_c, cand_c, al,
                                                                              lang=lang), lang),
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
                misplaced.extend(load_problems(gt_c, cand_c, al, tolerance, lang=lang))
                summary["load_resultants_match"] = not misplaced
                if misplaced:
                    result = replace(result, passed=False)
            results[name] = result
            checks["stages"][name] = summary
        return results[name]

    if stage("releases").passed and stage("loads").passed:
        return Verdict.at("perfect", render(phrase("message.perfect"), lang), checks)
    for name in STAGES:
        if not stage(name).passed:
            notes = _where(name, gt_c, cand_c, al, tolerance, results[name], misplaced, lang)
            return Verdict.at(name, _message(name, notes, lang), checks)
    raise AssertionError("unreachable: a stage failed above")  # pragma: no cover


def _where(name: str, gt: Model, cand: Model, al: Any, tol: float,
           result: StageResult, misplaced: list[str], lang: str) -> list[str]:
    notes: list[str] = []
    if result.mechanism:
        notes.append(render(phrase("mechanism.detail", what=phrase(f"mechanism.{name}"),
                                   detail=str(result.mechanism)), lang))
    if name == "geometry":
        notes += geometry_problems(gt, cand, al, lang=lang)
    elif name == "supports":
        notes += support_problems(gt, cand, al, lang=lang)
    elif name == "releases":
        notes += release_problems(gt, cand, al, lang=lang)
    else:
        notes += misplaced or load_problems(gt, cand, al, tol, lang=lang)
    if not notes:
        notes.append(render(_fallback(name, cand, result), lang))
    return notes


def _fallback(name: str, cand: Model, result: StageResult) -> Phrase:
    links = sorted({cand.links[m.cand_link].id for m in result.mismatches if m.cand_link >= 0})
    supports = sorted({cand.supports[m.cand_support].id for m in result.mismatches
                       if m.cand_support >= 0})
    where: list[Phrase] = []
    if links:
        where.append(phrase("place.links", ids=Listed(tuple(links[:8]))))
    if supports:
        where.append(phrase("place.supports", ids=Listed(tuple(supports[:8]))))
    place = Listed(tuple(where), "and") if where else phrase("place.structure")
    return phrase("fallback.note", what=phrase(f"fallback.{name}"), place=place)


def _message(stage: str, notes: list[str], lang: str) -> str:
    shown: list[Any] = list(notes[:6])
    if len(notes) > 6:
        shown.append(phrase("message.more", count=len(notes) - 6))
    return render(phrase("message.failed", label=phrase(f"stage.{stage}"),
                         notes=join(shown, lang, "notes")), lang)


__all__ = ["DEFAULT_TOLERANCE", "MechanismError", "score"]
