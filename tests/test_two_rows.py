"""A long beam drawn in two rows (structeval.render.compose.rows).

A beam that no scale keeps legible at the delivery profile is cut at one joint and
drawn in two rows, the cut joint at the end of the upper row and the start of the lower
one with a break mark in both. What is shown here: such a beam keeps every rule at
1568 px in two rows and breaks them in one; the break marks stand where they say; the
symbolic reader rebuilds the beam from the two rows and refuses a drawing that lost one
mark; the cut never falls where a couple acts and prefers a joint with nothing of its
own in the middle third; a frame is never cut. (The DXF drawing of a two-row beam is
checked against its image in test_dxf.py.)
"""

from __future__ import annotations

import copy

import pytest

from structeval.dataset.rawfile import presentation_of, read_raw
from structeval.model import parse_model
from structeval.render import layout_model
from structeval.render.compose.rows import cut_joints, halves
from structeval.render.legibility import DELIVERY_LONG_SIDE, check
from structeval.scoring import score

from .conftest import ROOT
from .symbolic_reader import ReadError, read_drawing

TASK = "beam-hard-s22-0000"  # 25 m, eleven joints, intervals of 0.5 m: too long for one row


@pytest.fixture(scope="module")
def shipped():
    _, block, model = read_raw(ROOT / "data" / "raw_models" / f"{TASK}.json")
    return block, model


def _layout(block, model, profile=DELIVERY_LONG_SIDE):
    return layout_model(model, seed=block["image"]["seed"], presentation=presentation_of(block),
                        category=block["category"], profile=profile)


def test_a_beam_too_long_for_one_row_is_legible_in_two(shipped) -> None:
    block, model = shipped
    two = _layout(block, model)
    assert check(two, profile=DELIVERY_LONG_SIDE) == []
    marks = two.items("break")
    assert len(marks) == 2
    one = _layout(block, model, profile=None)  # not fitted: the long strip
    assert not one.items("break")
    assert check(one, profile=DELIVERY_LONG_SIDE)


def test_the_break_marks_end_the_upper_row_and_start_the_lower(shipped) -> None:
    block, model = shipped
    layout = _layout(block, model)
    up, down = sorted(layout.items("break"),
                      key=lambda it: it.glyph.points["at"][1])
    assert up.owner == down.owner  # one joint, cut
    assert up.glyph.points["end"][0] > up.glyph.points["at"][0]  # runs on to the right
    assert down.glyph.points["end"][0] < down.glyph.points["at"][0]  # comes in from the left
    members = [it.glyph.paths["ends"] for it in layout.items("member")]
    upper = [e for e in members if abs(e[0][1] - up.glyph.points["at"][1]) < 1]
    lower = [e for e in members if abs(e[0][1] - down.glyph.points["at"][1]) < 1]
    assert upper and lower and len(upper) + len(lower) == len(model.links)
    assert max(p[0] for e in upper for p in e) == pytest.approx(up.glyph.points["at"][0])
    assert min(p[0] for e in lower for p in e) == pytest.approx(down.glyph.points["at"][0])
    letters = [it for it in layout.items("label", up.owner) if it.role == "letter"]
    assert len(letters) == 2 and letters[0].text == letters[1].text


def test_the_reader_rebuilds_the_beam_from_its_two_rows(shipped) -> None:
    block, model = shipped
    record = _layout(block, model).layout_json()
    assert score(model, read_drawing(record, block.get("notes", ""))).ratio == 1.0
    lost = copy.deepcopy(record)
    first = next(i for i, it in enumerate(lost["items"]) if it["kind"] == "break")
    del lost["items"][first]
    with pytest.raises(ReadError, match="break marks"):
        read_drawing(lost, block.get("notes", ""))


def _beam(xs: list[float], supports: dict[int, str], couple_at: int | None = None,
          force_at: int | None = None, hinge_at: int | None = None) -> dict:
    points = [{"id": f"P{i + 1}", "x": x, "y": 0} for i, x in enumerate(xs)]
    links = [{"id": f"L{i + 1}", "a": f"P{i + 1}", "b": f"P{i + 2}",
              **({"endB": "hinge"} if hinge_at == i + 1 else {})} for i in range(len(xs) - 1)]
    sups = [{"id": f"S{n}", "at": {"type": "point", "id": f"P{i + 1}"}, "kind": kind}
            for n, (i, kind) in enumerate(supports.items(), 1)]
    loads = []
    if couple_at is not None:
        loads.append({"id": "M1", "kind": "bendingMoment",
                      "at": {"type": "point", "id": f"P{couple_at + 1}"}, "value": 5})
    if force_at is not None:
        loads.append({"id": "F1", "kind": "pointLoad", "at": {"type": "point",
                      "id": f"P{force_at + 1}"}, "value": 5, "angleDeg": 270,
                      "angleMode": "world"})
    return {"points": points, "links": links, "supports": sups, "loads": loads}


def test_the_cut_prefers_a_free_joint_in_the_middle_third_and_never_a_couple() -> None:
    xs = [0, 4, 9, 10, 12, 20]  # the middle is 10
    plain = parse_model(_beam(xs, {0: "pin", 5: "roller"}))
    assert cut_joints(plain)[0] == "P4"
    supported = parse_model(_beam(xs, {0: "pin", 3: "roller", 5: "roller"}))
    assert cut_joints(supported)[0] == "P3"  # free, 1 m off the middle, beats the support
    turned = parse_model(_beam(xs, {0: "pin", 5: "roller"}, couple_at=3))
    assert "P4" not in cut_joints(turned)
    hinged = parse_model(_beam(xs, {0: "pin", 2: "roller", 5: "roller"}, hinge_at=3))
    assert cut_joints(hinged)[0] == "P5"  # 12 m: P4 is hinged, P3 supported


def test_what_stands_at_the_cut_is_drawn_once_in_the_upper_row() -> None:
    model = parse_model(_beam([0, 5, 10], {0: "pin", 1: "roller", 2: "roller"}, force_at=1))
    left, right = halves(model, "P2")
    assert [s.at for s in left.supports] == ["P1", "P2"] and [ld.id for ld in left.loads] == ["F1"]
    assert [s.at for s in right.supports] == ["P3"] and not right.loads
    assert [p.id for p in left.points] == ["P1", "P2"] and [p.id for p in right.points] == [
        "P2", "P3"]


def test_a_frame_is_never_cut() -> None:
    frame = _beam([0, 4, 8], {0: "fixed", 2: "fixed"})
    frame["points"][1]["y"] = 3
    assert cut_joints(parse_model(frame)) == []
