"""The vectorised JSON form of a solution equals the per-link reference form, sample for
sample and byte for byte (issue 12, item 2: ``structeval.solve``'s output is unchanged)."""

from __future__ import annotations

import json

import pytest

from structeval import parse_model, solve
from structeval.fe import analyze
from structeval.fe.solution_json import solution_to_json

from .random_structures import random_models

ZERO_CHOP = 1e-12


def _chop(value: float, scale: float) -> float:
    return 0.0 if abs(value) <= ZERO_CHOP * scale else value


def reference_json(sol, *, samples_per_segment: int = 11) -> dict:
    """The form as it was built before (one link at a time through link_samples)."""
    r_scale = max((abs(r.value) for r in sol.reactions), default=0.0)
    links = []
    for index, link in enumerate(sol.model.links):
        links.append({"linkId": link.id,
                      "samples": sol.link_samples(index, samples_per_segment)})
    m_scale = sol.max_abs_moment
    for entry in links:
        for sample in entry["samples"]:
            sample["m"] = _chop(sample["m"], m_scale)
    where_link, where_s = sol.max_abs_moment_at
    return {"reactions": [{"atId": r.at_id, "type": r.type, "value": _chop(r.value, r_scale)}
                          for r in sol.reactions],
            "links": links, "max_abs_moment": m_scale,
            "max_abs_moment_at": {"linkId": where_link, "s": where_s},
            "displacements": sol.displacements()}


@pytest.fixture(scope="module")
def solutions():
    return [analyze(parse_model(doc))[0] for _, doc in random_models(2024, 120)]


@pytest.mark.parametrize("per_piece", [2, 5, 11, 40])
def test_vectorised_form_equals_the_reference(solutions, per_piece):
    jumps = 0
    for sol in solutions:
        ours = solution_to_json(sol, samples_per_segment=per_piece)
        theirs = reference_json(sol, samples_per_segment=per_piece)
        assert json.dumps(ours) == json.dumps(theirs)
        jumps += sum(a["s"] == b["s"] for link in ours["links"]
                     for a, b in zip(link["samples"], link["samples"][1:]))
    assert jumps > 50  # jumps at concentrated loads were part of the comparison


def test_solve_returns_the_reference_form(solutions):
    sol = solutions[7]
    from structeval.model import model_to_json

    doc = model_to_json(sol.model)
    assert json.dumps(solve(doc)) == json.dumps(reference_json(analyze(parse_model(doc))[0]))
