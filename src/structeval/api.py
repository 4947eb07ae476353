"""The public one-call API: FrameCalc JSON in, a solution or a verdict out."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .fe import CaseSolution, Kernel, analyze
from .model import Model, parse_model

if TYPE_CHECKING:
    from .scoring import Verdict

ZERO_CHOP = 1e-12  # relative to the largest value of its kind, like FrameCalc's O5


def _chop(value: float, scale: float) -> float:
    return 0.0 if abs(value) <= ZERO_CHOP * scale else value


def solution_to_json(sol: CaseSolution, *, samples_per_segment: int = 11) -> dict[str, Any]:
    """The CLI/API form: reactions exactly as FrameCalc lists them, N/V/M samples per link
    (both sides of every jump), the exact max |M| and the nodal displacements."""
    r_scale = max((abs(r.value) for r in sol.reactions), default=0.0)
    links = []
    for index, link in enumerate(sol.model.links):
        samples = sol.link_samples(index, samples_per_segment)
        links.append({"linkId": link.id, "samples": samples})
    m_scale = sol.max_abs_moment
    for entry in links:
        for sample in entry["samples"]:
            sample["m"] = _chop(sample["m"], m_scale)
    where_link, where_s = sol.max_abs_moment_at
    return {
        "reactions": [{"atId": r.at_id, "type": r.type, "value": _chop(r.value, r_scale)}
                      for r in sol.reactions],
        "links": links,
        "max_abs_moment": m_scale,
        "max_abs_moment_at": {"linkId": where_link, "s": where_s},
        "displacements": sol.displacements(),
    }


def solve(model: Any, *, samples_per_segment: int = 11, spring: float = 0.0,
          kernel: Kernel | None = None) -> dict[str, Any]:
    """Solve a FrameCalc model (dict, JSON text or :class:`Model`).

    Raises ModelError (invalid input), MechanismError (unstable structure) or
    SolverError (kernel limits); all derive from StructEvalError.
    """
    parsed = model if isinstance(model, Model) else parse_model(model)
    solution = analyze(parsed, spring=spring, kernel=kernel)[0]
    return solution_to_json(solution, samples_per_segment=samples_per_segment)


def score(gt: Any, candidate: Any, *, tolerance: float | None = None) -> Verdict:
    """Grade ``candidate`` against the ground truth ``gt``; each a dict, JSON text or
    :class:`Model`. Returns the :class:`~structeval.scoring.Verdict` (``ratio``, ``stage``,
    ``message``, ``checks``; ``to_dict()``).

    An invalid candidate is a verdict (stage ``"invalid"``, ratio 0), never an error; an
    invalid or unstable ground truth raises ModelError / MechanismError (a
    StructEvalError), since that is the benchmark's fault and not the candidate's.
    ``tolerance`` defaults to the scorer's 2 %.
    """
    from .scoring import DEFAULT_TOLERANCE
    from .scoring import score as score_models

    truth = gt if isinstance(gt, Model) else parse_model(gt)
    return score_models(truth, candidate,
                        tolerance=DEFAULT_TOLERANCE if tolerance is None else tolerance)
