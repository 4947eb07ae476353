"""The public one-call API: FrameCalc JSON in, a solution or a verdict out."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .fe import Kernel, analyze
from .fe.analyze import analyze_columns
from .fe.solution_json import MAX_SAMPLES, OutputTooLarge, columns_to_json, solution_to_json
from .model import Model, parse_model
from .model.canonical import Columns
from .model.geometry import REL_TOL
from .model.parse import checked_model, parse_for_solve

if TYPE_CHECKING:
    from .scoring import Verdict

__all__ = ["MAX_SAMPLES", "OutputTooLarge", "score", "solution_to_json", "solve"]


def solve(model: Any, *, samples_per_segment: int = 11, spring: float = 0.0,
          kernel: Kernel | None = None, max_samples: int = MAX_SAMPLES) -> dict[str, Any]:
    """Solve a FrameCalc model (dict, JSON text or :class:`Model`).

    Raises ModelError (invalid input), MechanismError (unstable structure),
    SolverError (kernel limits) or OutputTooLarge; all derive from StructEvalError.
    """
    parsed = model if isinstance(model, Model) else parse_for_solve(model)
    if isinstance(parsed, Columns):
        # a canonical document: compiled for the kernel from its columns, no Model built,
        # its layout confirmed by the kernel in the same call (the same answer, several
        # times faster on a drawing-sized model)
        block = analyze_columns(parsed, spring=spring, kernel=kernel, layout_check=REL_TOL)
        if block is not None:
            return columns_to_json(parsed, block, samples_per_segment=samples_per_segment,
                                   max_samples=max_samples)
        parsed = checked_model(parsed)  # a layout the kernel could not confirm
    solution = analyze(parsed, spring=spring, kernel=kernel)[0]
    return solution_to_json(solution, samples_per_segment=samples_per_segment,
                            max_samples=max_samples)


def score(gt: Any, candidate: Any, *, tolerance: float | None = None,
          lang: str = "en") -> Verdict:
    """Grade ``candidate`` against the ground truth ``gt``; each a dict, JSON text or
    :class:`Model`. Returns the :class:`~structeval.scoring.Verdict` (``ratio``, ``stage``,
    ``message``, ``checks``; ``to_dict()``).

    An invalid candidate is a verdict (stage ``"invalid"``, ratio 0), never an error; an
    invalid or unstable ground truth raises ModelError / MechanismError (a
    StructEvalError), since that is the benchmark's fault and not the candidate's.
    ``tolerance`` defaults to the scorer's 2 %; ``lang`` (en | zh) is the language of the
    message only.
    """
    from .scoring import DEFAULT_TOLERANCE
    from .scoring import score as score_models

    truth = gt if isinstance(gt, Model) else parse_model(gt)
    return score_models(truth, candidate,
                        tolerance=DEFAULT_TOLERANCE if tolerance is None else tolerance,
                        lang=lang)
