"""The public one-call API: FrameCalc JSON in, FrameCalc-style solution out."""

from __future__ import annotations

from typing import Any

import numpy as np

from .fe import CaseSolution, Kernel, analyze
from .model import Model, parse_model
from .model.errors import StructEvalError

ZERO_CHOP = 1e-12  # relative to the largest value of its kind, like FrameCalc's O5
MAX_SAMPLES = 500_000  # N/V/M samples in one solution (~45 MB of JSON); past it: an error


class OutputTooLarge(StructEvalError):
    """The requested output would be too large to build (samples × links)."""


def sample_count(sol: CaseSolution, samples_per_segment: int) -> int:
    """How many N/V/M samples :func:`solution_to_json` would produce (at most; equal
    neighbours are merged), computed without producing them."""
    pieces = sol.raw.pieces
    return int(np.count_nonzero(pieces[:, 2] > pieces[:, 1])) * samples_per_segment


def _chop(value: float, scale: float) -> float:
    return 0.0 if abs(value) <= ZERO_CHOP * scale else value


def solution_to_json(sol: CaseSolution, *, samples_per_segment: int = 11,
                     max_samples: int = MAX_SAMPLES) -> dict[str, Any]:
    """The CLI/API form: reactions exactly as FrameCalc lists them, N/V/M samples per link
    (both sides of every jump), the exact max |M| and the nodal displacements.

    OutputTooLarge when the samples would exceed ``max_samples`` (checked before any is
    made, so ``--samples 10000`` on a 5,000-link chain is a sentence, not the OOM killer).
    """
    needed = sample_count(sol, samples_per_segment)
    if needed > max_samples:
        raise OutputTooLarge(
            f"{samples_per_segment} samples per stretch over {len(sol.model.links):,} links "
            f"would make {needed:,} samples, more than the cap of {max_samples:,}; lower "
            "--samples (or raise --max-samples)")
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
          kernel: Kernel | None = None, max_samples: int = MAX_SAMPLES) -> dict[str, Any]:
    """Solve a FrameCalc model (dict, JSON text or :class:`Model`).

    Raises ModelError (invalid input), MechanismError (unstable structure),
    SolverError (kernel limits) or OutputTooLarge; all derive from StructEvalError.
    """
    parsed = model if isinstance(model, Model) else parse_model(model)
    solution = analyze(parsed, spring=spring, kernel=kernel)[0]
    return solution_to_json(solution, samples_per_segment=samples_per_segment,
                            max_samples=max_samples)
