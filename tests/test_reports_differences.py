"""Which elements the report colours for each kind of fault.

The faulty answers are the harness fixture's edits of the ground truth, whose
effect is known by construction (a removed hinge, a changed support, a scaled
load, a moved point), so each test states which ids must be marked and how.
"""

from __future__ import annotations

import copy

import pytest

from structeval import parse_model
from structeval.reports.differences import DIFFERS, EXTRA, MISSING, find_differences
from tests.fakeserver import fixture as fx


def diff(task_id: str, answer: dict):
    return find_differences(parse_model(fx.GT_MODELS[task_id]), parse_model(answer), 0.02)


@pytest.mark.parametrize("task_id", list(fx.GT_MODELS))
def test_an_equivalent_answer_marks_nothing(task_id):
    d = diff(task_id, fx.equivalent(task_id))
    assert d.gt_marks == {} and d.cand_marks == {}
    assert not d.any


def test_a_changed_support_is_marked_on_both_sides():
    d = diff("beam_t01", fx.support_kind("beam_t01", "S2", "pin"))
    assert d.gt_marks == {"support:S2": DIFFERS}
    assert d.cand_marks == {"support:S2": DIFFERS}
    assert d.notes["supports"] and not d.notes["members"]


def test_a_missing_and_an_extra_support():
    answer = copy.deepcopy(fx.GT_MODELS["beam_t01"])
    answer["supports"][1]["at"] = {"type": "point", "id": "B"}  # roller moved from C to B
    answer["supports"][1]["id"] = "R9"
    d = diff("beam_t01", answer)
    assert d.gt_marks["support:S2"] == MISSING
    assert d.cand_marks["support:R9"] == EXTRA


def test_a_removed_hinge_marks_the_joint():
    d = diff("frame_t01", fx.released("frame_t01", "L2", "endB", "rigid"))
    assert d.gt_marks["hinge:L2:B"] == DIFFERS  # the hinge the answer lacks
    assert d.gt_marks["point:C"] == DIFFERS and d.cand_marks["point:C"] == DIFFERS
    assert not any(k.startswith(("link:", "support:", "load:")) for k in d.gt_marks)
    assert d.notes["hinges"]


def test_a_scaled_load_differs_and_nothing_else():
    d = diff("frame_t01", fx.scaled_load("frame_t01", "Q1", 1.5))
    assert d.gt_marks == {"load:Q1": DIFFERS}
    assert d.cand_marks == {"load:Q1": DIFFERS}


def test_a_dropped_load_is_missing_and_an_invented_one_extra():
    answer = copy.deepcopy(fx.GT_MODELS["truss_t01"])
    answer["loads"] = [ld for ld in answer["loads"] if ld["id"] != "F2"]
    answer["loads"].append({"id": "F9", "kind": "pointLoad", "at": {"type": "point", "id": "B"},
                            "value": 3, "angleDeg": 0, "angleMode": "world", "flip": 1})
    d = diff("truss_t01", answer)
    assert d.gt_marks == {"load:F2": MISSING}
    assert d.cand_marks == {"load:F9": EXTRA}


def test_a_split_load_with_the_same_resultants_is_not_marked():
    """Two 10 kN forces for one 20 kN force at the same point: same physics."""
    answer = copy.deepcopy(fx.GT_MODELS["beam_t01"])
    answer["loads"][0]["value"] = 10
    answer["loads"].append({**answer["loads"][0], "id": "F1b"})
    d = diff("beam_t01", answer)
    assert d.gt_marks == {} and d.cand_marks == {}


def test_a_moved_corner_marks_members():
    """Frame corner C moved 1 m right: the column C–D of the drawing is covered by no link
    of the answer, and the answer's beam B–C′ and column C′–D lie on no drawn member."""
    d = diff("frame_t01", fx.moved_point("frame_t01", "C", 1.0))
    assert d.gt_marks["link:L3"] == MISSING
    assert "link:L1" not in d.gt_marks and "link:L2" not in d.gt_marks
    assert (d.cand_marks["link:L2"], d.cand_marks["link:L3"]) == (EXTRA, EXTRA)
    assert "link:L1" not in d.cand_marks
    assert len(d.notes["members"]) == 3
