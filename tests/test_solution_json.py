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
                     for a, b in zip(link["samples"], link["samples"][1:], strict=False))
    assert jumps > 50  # jumps at concentrated loads were part of the comparison


def test_solve_returns_the_reference_form(solutions):
    sol = solutions[7]
    from structeval.model import model_to_json

    doc = model_to_json(sol.model)
    assert json.dumps(solve(doc)) == json.dumps(reference_json(analyze(parse_model(doc))[0]))


def _fresh(solutions):
    from structeval.model import model_to_json

    doc = model_to_json(solutions[3].model)
    return doc, json.loads(json.dumps(reference_json(analyze(parse_model(doc))[0])))


def test_samples_are_built_only_when_used(solutions):
    from structeval.fe.solution_json import PENDING

    doc, _ = _fresh(solutions)
    result = solve(doc)
    assert isinstance(result, dict)
    assert result["reactions"] and result["max_abs_moment"] > 0 and result["displacements"]
    assert dict.__getitem__(result, "links") is PENDING  # reading the rest built nothing
    assert result["links"][0]["samples"]
    assert dict.__getitem__(result, "links") is not PENDING


@pytest.mark.parametrize("use", [
    lambda r: json.loads(json.dumps(r)), lambda r: json.loads(json.dumps(r, indent=2)),
    dict, lambda r: {**r}, lambda r: __import__("copy").copy(r),
    lambda r: __import__("copy").deepcopy(r),
    lambda r: __import__("pickle").loads(__import__("pickle").dumps(r)),
    lambda r: dict(zip(r.keys(), r.values(), strict=True)), lambda r: dict(r.items()),
    lambda r: r.copy(), lambda r: r | {}, lambda r: {} | r,
    lambda r: {k: r[k] for k in r}, lambda r: {k: r.get(k) for k in list(r)},
], ids=["json", "json-indent", "dict", "unpack", "copy", "deepcopy", "pickle", "values",
        "items", "method-copy", "or", "ror", "iterate", "get"])
def test_every_way_of_reading_sees_the_samples(solutions, use):
    doc, expected = _fresh(solutions)
    got = use(solve(doc))
    assert type(got) is dict
    assert json.dumps(got) == json.dumps(expected)


def test_comparison_and_repr_build_the_samples(solutions):
    doc, expected = _fresh(solutions)
    assert solve(doc) == expected
    assert expected == solve(doc)
    assert (solve(doc) != expected) is False
    assert "'samples'" in repr(solve(doc))
    replaced = solve(doc)
    replaced["links"] = []
    assert replaced["links"] == [] and json.loads(json.dumps(replaced))["links"] == []
