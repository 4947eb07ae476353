"""The scorer on hand-made cases whose right verdict is known from mechanics."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Any

import pytest

from structeval.fe import analyze
from structeval.model import parse_model
from structeval.scoring import score

from .conftest import ROOT

SECTION = {"E": 2.1e8, "A": 0.01, "Iz": 1e-4}


def beam(supports: list[tuple[str, str, float]], loads: list[dict[str, Any]],
         hinges: dict[str, tuple[str, str]] | None = None) -> dict[str, Any]:
    """A 10 m beam A(0,0)–B(4,0)–C(10,0) on the given supports."""
    hinges = hinges or {}
    return {
        "points": [{"id": "A", "x": 0, "y": 0}, {"id": "B", "x": 4, "y": 0},
                   {"id": "C", "x": 10, "y": 0}],
        "links": [{"id": "L1", "a": "A", "b": "B", **SECTION,
                   "endA": hinges.get("L1", ("rigid", "rigid"))[0],
                   "endB": hinges.get("L1", ("rigid", "rigid"))[1]},
                  {"id": "L2", "a": "B", "b": "C", **SECTION,
                   "endA": hinges.get("L2", ("rigid", "rigid"))[0],
                   "endB": hinges.get("L2", ("rigid", "rigid"))[1]}],
        "supports": [{"id": f"S{i}", "at": {"type": "point", "id": at}, "kind": kind,
                      "angleDeg": ang} for i, (at, kind, ang) in enumerate(supports)],
        "loads": loads,
    }


DOWN_AT_B = {"id": "F", "kind": "pointLoad", "at": {"type": "point", "id": "B"}, "value": 12,
             "angleDeg": 270, "angleMode": "world", "flip": 1}
UDL_L2 = {"id": "Q", "kind": "distributedLoad", "at": {"type": "link", "id": "L2"},
          "wStart": 3, "wEnd": 3, "angleDeg": 90, "angleMode": "relative", "flip": -1}
SIMPLE = [("A", "pin", 0.0), ("C", "roller", 0.0)]


def test_identical_answer_is_perfect() -> None:
    gt = parse_model(beam(SIMPLE, [DOWN_AT_B, UDL_L2]))
    verdict = score(gt, beam(SIMPLE, [DOWN_AT_B, UDL_L2]))
    assert (verdict.ratio, verdict.stage) == (1.0, "perfect")


def test_roller_written_as_pin_is_a_support_fault_even_under_vertical_loads() -> None:
    """Vertical loads alone cannot tell pin from roller; the probes in every direction can."""
    gt = parse_model(beam(SIMPLE, [DOWN_AT_B]))
    wrong = beam([("A", "pin", 0.0), ("C", "pin", 0.0)], [DOWN_AT_B])
    gt_r = [r.value for r in analyze(gt)[0].reactions]
    wrong_r = [r.value for r in analyze(parse_model(wrong))[0].reactions]
    assert sorted(abs(v) for v in gt_r if abs(v) > 1e-9) == sorted(
        abs(v) for v in wrong_r if abs(v) > 1e-9)  # the original comparator saw no difference
    verdict = score(gt, wrong)
    assert (verdict.ratio, verdict.stage) == (0.25, "supports")
    assert "S1" in verdict.message


def test_mirrored_load_fools_sorted_values_but_not_matched_supports() -> None:
    """Load at 4 m vs at 6 m: the two supports swap their reactions."""
    gt = parse_model(beam(SIMPLE, [DOWN_AT_B]))
    mirrored = beam(SIMPLE, [])
    mirrored["points"][1]["x"] = 4  # same geometry ...
    mirrored["loads"] = [{"id": "F", "kind": "pointLoad", "at": {"type": "link", "id": "L2"},
                          "value": 12, "angleDeg": 270, "angleMode": "world", "flip": 1,
                          "refEnd": "A", "offsetMode": "m", "offset": 2}]  # ... load at 6 m
    g = sorted(abs(r.value) for r in analyze(gt)[0].reactions)
    c = sorted(abs(r.value) for r in analyze(parse_model(mirrored))[0].reactions)
    assert g == pytest.approx(c)  # sorted absolute values are identical
    verdict = score(gt, mirrored)
    assert verdict.stage == "loads" and verdict.ratio == 0.75


def test_reversed_load_is_a_load_fault() -> None:
    gt = parse_model(beam(SIMPLE, [DOWN_AT_B]))
    verdict = score(gt, beam(SIMPLE, [{**DOWN_AT_B, "flip": -1}]))
    assert verdict.stage == "loads"


def test_two_rollers_are_a_mechanism_at_the_supports_stage() -> None:
    gt = parse_model(beam(SIMPLE, [DOWN_AT_B]))
    verdict = score(gt, beam([("A", "roller", 0.0), ("C", "roller", 0.0)], [DOWN_AT_B]))
    assert verdict.stage == "supports"
    assert "mechanism" in verdict.message
    assert verdict.checks["stages"]["supports"]["mechanism"]


def test_missing_and_extra_members_are_geometry_faults() -> None:
    gt = parse_model(beam(SIMPLE, [DOWN_AT_B]))
    short = beam(SIMPLE, [DOWN_AT_B])
    short["links"] = short["links"][:1]
    short["points"] = short["points"][:2]
    short["supports"][1]["at"]["id"] = "B"
    v = score(gt, short)
    assert v.stage == "geometry" and "does not cover" in v.message
    extra = beam(SIMPLE, [DOWN_AT_B])
    extra["points"].append({"id": "D", "x": 4, "y": 3})
    extra["links"].append({"id": "L9", "a": "B", "b": "D", **SECTION})
    v = score(gt, extra)
    assert v.stage == "geometry" and "L9" in v.message


def test_a_moved_point_is_a_geometry_fault() -> None:
    gt = parse_model(beam(SIMPLE, [DOWN_AT_B]))
    moved = beam(SIMPLE, [DOWN_AT_B])
    moved["points"][1]["y"] = 1.0
    assert score(gt, moved).stage == "geometry"


def test_missing_gerber_hinge_is_a_release_fault() -> None:
    supports = [("A", "fixed", 0.0), ("C", "roller", 0.0)]
    gt = parse_model(beam(supports, [UDL_L2], hinges={"L2": ("hinge", "rigid")}))
    verdict = score(gt, beam(supports, [UDL_L2]))
    assert verdict.stage == "releases" and verdict.ratio == 0.5
    assert "hinge" in verdict.message


@pytest.mark.parametrize("hinges", [{"L1": ("rigid", "hinge")}, {"L1": ("rigid", "hinge"),
                                                                 "L2": ("hinge", "rigid")}])
def test_hinge_encodings_of_one_joint_are_equivalent(hinges: dict) -> None:
    """A hinge at B written on L2's end, on L1's end, or on both is the same joint (M5)."""
    supports = [("A", "fixed", 0.0), ("C", "roller", 0.0)]
    gt = parse_model(beam(supports, [UDL_L2], hinges={"L2": ("hinge", "rigid")}))
    assert score(gt, beam(supports, [UDL_L2], hinges=hinges)).ratio == 1.0


def test_hinge_written_at_a_pin_support_is_harmless() -> None:
    gt = parse_model(beam(SIMPLE, [DOWN_AT_B, UDL_L2]))
    cand = beam(SIMPLE, [DOWN_AT_B, UDL_L2], hinges={"L1": ("hinge", "rigid"),
                                                     "L2": ("rigid", "hinge")})
    assert score(gt, cand).ratio == 1.0


def test_fixed_support_under_all_hinged_ends_equals_a_pin() -> None:
    gt = parse_model(beam(SIMPLE, [DOWN_AT_B]))
    cand = beam([("A", "fixed", 0.0), ("C", "roller", 0.0)], [DOWN_AT_B],
                hinges={"L1": ("hinge", "rigid")})
    assert score(gt, cand).ratio == 1.0
    # ... but a hinge added at a genuinely fixed support is a hinge fault, not a support one
    fixed = [("A", "fixed", 0.0), ("C", "roller", 0.0)]
    gt_fixed = parse_model(beam(fixed, [DOWN_AT_B]))
    assert score(gt_fixed, beam(fixed, [DOWN_AT_B], hinges={"L1": ("hinge", "rigid")})
                 ).stage == "releases"


def test_invalid_candidate_gets_the_validation_message() -> None:
    gt = parse_model(beam(SIMPLE, [DOWN_AT_B]))
    broken = beam(SIMPLE, [DOWN_AT_B])
    broken["links"][1]["b"] = "Z"
    verdict = score(gt, broken)
    assert (verdict.ratio, verdict.stage) == (0.0, "invalid")
    assert "links[1].b" in verdict.message and "Z" in verdict.message
    assert score(gt, "not json at all {").stage == "invalid"


def test_tolerance_is_relative_and_configurable() -> None:
    gt = parse_model(beam(SIMPLE, [DOWN_AT_B]))
    near = beam(SIMPLE, [{**DOWN_AT_B, "value": 12 * 1.01}])
    assert score(gt, near).ratio == 1.0
    assert score(gt, near, tolerance=0.002).stage == "loads"
    with pytest.raises(ValueError):
        score(gt, near, tolerance=0)


def test_feedback_names_places_but_no_ground_truth_values() -> None:
    gt_json = beam(SIMPLE, [DOWN_AT_B, UDL_L2])
    gt = parse_model(gt_json)
    reactions = [r.value for r in analyze(gt)[0].reactions]
    wrong = beam(SIMPLE, [{**DOWN_AT_B, "value": 20}, UDL_L2])
    verdict = score(gt, wrong)
    assert verdict.stage == "loads"
    assert "point B" in verdict.message
    numbers = {float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", verdict.message)}
    secrets = {12.0, 3.0} | {round(abs(v), 2) for v in reactions if abs(v) > 1e-9}
    assert not numbers & secrets, verdict.message


def test_cli_score_prints_the_verdict(tmp_path) -> None:  # type: ignore[no-untyped-def]
    gt = tmp_path / "gt.json"
    cand = tmp_path / "cand.json"
    gt.write_text(json.dumps(beam(SIMPLE, [DOWN_AT_B])))
    cand.write_text(json.dumps(beam(SIMPLE, [{**DOWN_AT_B, "value": 12.5}])))
    run = subprocess.run([sys.executable, "-m", "structeval", "score", str(gt), str(cand)],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert set(out) == {"ratio", "stage", "message", "checks"}
    assert (out["ratio"], out["stage"]) == (0.75, "loads")
    run = subprocess.run([sys.executable, "-m", "structeval", "score", str(gt), str(cand),
                          "--tolerance", "0.1"], capture_output=True, text=True, cwd=ROOT,
                         timeout=120)
    assert json.loads(run.stdout)["stage"] == "perfect"
    gt.write_text("{}")
    run = subprocess.run([sys.executable, "-m", "structeval", "score", str(gt), str(cand)],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 2 and "ground truth" in run.stderr
