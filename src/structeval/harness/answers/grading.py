"""One answer → one graded outcome: extract, validate, solve, score.

This is the single place where the harness meets the scorer
(:func:`structeval.scoring.score`); everything else handles a :class:`Grade`.
Model failures (no JSON, invalid JSON, a wrong structure) become stages with
credit 0…1. A failure of *our* code while grading is not the model's fault, so
it surfaces as :class:`GradingCrash` and the task becomes unavailable instead
of being scored.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from ...fe import analyze
from ...model import Model, ModelError, StructEvalError, parse_model
from ...scoring.frames import Frame, frame_note, wrong_frame
from ..inputs.prompts import feedback, no_json_message
from .extract import Extraction, extract_json

#: Stages from worst to best; "no_json" is the harness's own, the rest the scorer's.
STAGES = ("no_json", "invalid", "geometry", "supports", "releases", "loads", "perfect")


@dataclass(frozen=True)
class Grade:
    ratio: float
    stage: str
    message: str
    checks: dict[str, Any] | None = None
    #: a drawing sheet's other frame that the answer models (its name, e.g. "2"), if any
    wrong_frame: str | None = None


class SheetFrames(Protocol):
    """The frames of a drawing sheet, as :class:`structeval.dataset.sheets.Sheet` holds them."""

    target: Frame
    alternates: Sequence[Frame]


@dataclass(frozen=True)
class GradedAnswer:
    extraction: Extraction
    grade: Grade
    validation: dict[str, Any] = field(default_factory=dict)
    solver: dict[str, Any] | None = None

    def trace_fields(self) -> dict[str, Any]:
        return {"extraction": self.extraction.to_json(), "validation": self.validation,
                "solver": self.solver,
                "verdict": {"ratio": self.grade.ratio, "stage": self.grade.stage,
                            "message": self.grade.message, "checks": self.grade.checks,
                            **({"wrong_frame": self.grade.wrong_frame}
                               if self.grade.wrong_frame else {})}}


class GradingCrash(StructEvalError):
    """The scorer failed on an answer: a bug on our side, not a model failure."""


Grader = Callable[[Model, Model, float], Grade]


def scorer_grade(gt: Model, candidate: Model, tolerance: float, lang: str = "en") -> Grade:
    """The staged physics-equivalence diagnosis of :mod:`structeval.scoring`, its message in
    ``lang`` (the verdict itself does not depend on the language)."""
    from ...scoring import score

    verdict = score(gt, candidate, tolerance=tolerance, lang=lang)
    details = verdict.to_json() if hasattr(verdict, "to_json") else {}
    checks = details.get("checks", getattr(verdict, "checks", None))
    return Grade(float(verdict.ratio), str(verdict.stage), str(verdict.message or ""), checks)


def solver_summary(candidate: Model) -> dict[str, Any]:
    """The candidate's own reactions and max |M| (evidence for the trace, not for the score)."""
    try:
        solution = analyze(candidate)[0]
    except StructEvalError as exc:
        return {"ok": False, "error": type(exc).__name__, "message": str(exc)}
    return {"ok": True, "reactions": [r.to_json() for r in solution.reactions],
            "max_abs_moment": solution.max_abs_moment}


def language_grader(lang: str) -> Grader:
    """The scorer with its messages in ``lang`` (``en`` is :func:`scorer_grade` itself)."""
    if lang == "en":
        return scorer_grade
    return functools.partial(scorer_grade, lang=lang)


def grade_answer(gt: Model, text: str, *, tolerance: float,
                 grader: Grader = scorer_grade, lang: str = "en",
                 sheet: SheetFrames | None = None) -> GradedAnswer:
    """Extract, validate, solve and grade one answer. ``lang`` is the language of the
    harness's own messages (no JSON, not analysable); the grader speaks its own. For a
    drawing-sheet task (``sheet``), an answer short of 1.0 that models another frame of
    the sheet is told so first (:mod:`structeval.scoring.frames`); its credit stands."""
    extraction = extract_json(text)
    if extraction.document is None:
        return GradedAnswer(extraction, Grade(0.0, "no_json",
                                              no_json_message(extraction.reason or "none", lang)))
    try:
        candidate = parse_model(extraction.document)
    except ModelError as exc:
        issues = [{"path": i.path, "message": i.message} for i in exc.issues]
        return GradedAnswer(extraction, Grade(0.0, "invalid", exc.describe()),
                            {"ok": False, "issues": issues})
    solver = solver_summary(candidate)
    try:
        grade = grader(gt, candidate, tolerance)
    except StructEvalError as exc:  # e.g. a candidate too large for the kernel's limits
        grade = Grade(0.0, "invalid", feedback("analysis_failed", lang, error=exc))
    except Exception as exc:
        raise GradingCrash(f"grading failed with {type(exc).__name__}: {exc}") from exc
    if grade.stage not in STAGES:
        raise GradingCrash(f"the scorer returned an unknown stage {grade.stage!r}")
    if sheet is not None and grade.ratio < 1.0:
        grade = _frame_checked(grade, candidate, sheet, tolerance, lang)
    return GradedAnswer(extraction, grade, {"ok": True, "issues": []}, solver)


def _frame_checked(grade: Grade, candidate: Model, sheet: SheetFrames, tolerance: float,
                   lang: str) -> Grade:
    """The grade with the wrong-frame note in front of its message when the answer models
    another frame of the sheet (a crash of that check is ours, like the scorer's)."""
    try:
        match = wrong_frame(candidate, grade.stage, sheet.alternates, tolerance=tolerance)
    except Exception as exc:
        raise GradingCrash(f"the wrong-frame check failed with {type(exc).__name__}: "
                           f"{exc}") from exc
    if match is None:
        return grade
    note = frame_note(match, sheet.target, lang)
    return replace(grade, message=f"{note} {grade.message}".strip(),
                   wrong_frame=match.frame.frame)
