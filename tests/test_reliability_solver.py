"""Diagnostics that tell the truth: near-mechanisms refused, overflow named, failures listed.

* a point 1e-9 m off the line of a two-bar truss solves — with reactions of 5e8 times
  the load, i.e. round-off — so ``generate_gt.py``, ``run_eval.py --debug`` and the
  generator's screen must refuse it with the reason, while the same truss with a real
  rise passes;
* links with E = Iz = 1e300 overflow f64: the message must say so and name the link,
  not claim that hinges let a point rotate;
* ``--debug`` names every failing task with its reason, and exits 1.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from structeval import solve
from structeval.dataset.ground_truth import generate
from structeval.dataset.wellposed import near_mechanism, well_posed
from structeval.fe import MechanismError, SolverError, analyze
from structeval.harness.answers.grading import grade_answer
from structeval.model import parse_model
from tests.fakeserver import fixture as fx
from tests.fakeserver.process import ROOT, run_eval

_BAR = {"endA": "hinge", "endB": "hinge"}


def two_bar_truss(rise: float) -> dict:
    """Pins at A and C 2 m apart, joint B at mid-span ``rise`` above the line, 10 kN down."""
    return {"points": [{"id": "A", "x": 0, "y": 0}, {"id": "B", "x": 1, "y": rise},
                       {"id": "C", "x": 2, "y": 0}],
            "links": [{"id": "L1", "a": "A", "b": "B", **_BAR},
                      {"id": "L2", "a": "B", "b": "C", **_BAR}],
            "supports": [{"id": "S1", "at": {"type": "point", "id": "A"}, "kind": "pin"},
                         {"id": "S2", "at": {"type": "point", "id": "C"}, "kind": "pin"}],
            "loads": [{"id": "F", "kind": "pointLoad", "at": {"type": "point", "id": "B"},
                       "value": 10, "angleDeg": 270, "angleMode": "world"}]}


def overflowing_beam(e: float, a: float, iz: float) -> dict:
    return {"points": [{"id": "A", "x": 0, "y": 0}, {"id": "B", "x": 1, "y": 0},
                       {"id": "C", "x": 2, "y": 0}],
            "links": [{"id": "L1", "a": "A", "b": "B", "E": e, "A": a, "Iz": iz},
                      {"id": "L2", "a": "B", "b": "C", "E": e, "A": a, "Iz": iz}],
            "supports": [{"id": "S1", "at": {"type": "point", "id": "A"}, "kind": "pin"},
                         {"id": "S2", "at": {"type": "point", "id": "C"}, "kind": "roller"}],
            "loads": [{"id": "F", "kind": "pointLoad", "at": {"type": "point", "id": "B"},
                       "value": 10, "angleDeg": 270, "angleMode": "world"}]}


def test_a_near_mechanism_solves_to_round_off_and_every_screen_refuses_it():
    near = parse_model(two_bar_truss(1e-9))
    reactions = {(r.at_id, r.type): r.value for r in analyze(near)[0].reactions}
    assert abs(reactions[("S1", "ux")]) > 1e8  # 10 kN load, ~5e9 kN thrust: round-off
    reason = near_mechanism(near, analyze(near)[0])
    assert reason is not None and reason.startswith("near-mechanism: reaction S1.ux")
    assert "more than 100× the loads" in reason
    assert well_posed(near, expect_bending=False).startswith("near-mechanism")
    real = parse_model(two_bar_truss(1.0))  # a genuine truss: 5 kN thrust
    assert near_mechanism(real, analyze(real)[0]) is None
    assert well_posed(real, expect_bending=False) is None


def _data_dir(root: Path, models: dict[str, dict]) -> Path:
    for sub in ("raw_models", "images", "ground_truth_meta"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    for pid, model in models.items():
        block = {"id": pid, "category": "truss", "split": "test", "notes": "",
                 "image": {"file": f"{pid}.png", "style": "cad", "seed": 0},
                 "provenance": "hand-authored"}
        (root / "raw_models" / f"{pid}.json").write_text(json.dumps({"problem": block,
                                                                     **model}))
        Image.new("RGB", (40, 30), "white").save(root / "images" / f"{pid}.png")
    return root


def test_generate_gt_refuses_a_near_mechanism_with_the_reason(tmp_path):
    data = _data_dir(tmp_path / "data", {"truss-near": two_bar_truss(1e-9),
                                         "truss-real": two_bar_truss(1.0)})
    proc = subprocess.run([sys.executable, "tools/generate_gt.py", "--data", str(data),
                           "--no-progress"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "truss-near is ill-conditioned" in proc.stderr
    assert "near-mechanism: reaction S1.ux" in proc.stderr
    assert "truss-real" not in proc.stderr
    assert sorted(p.name for p in (data / "ground_truth_meta").iterdir()) == ["truss-real.json"]


def test_debug_names_an_ill_conditioned_ground_truth(tmp_path, monkeypatch):
    data = _data_dir(tmp_path / "data", {"truss-near": two_bar_truss(1e-9),
                                         "truss-real": two_bar_truss(1.0)})
    # a meta written before generate_gt screened problems (or by hand)
    monkeypatch.setattr("structeval.dataset.ground_truth.near_mechanism", lambda m, s: None)
    assert generate(data)["errors"] == []
    proc = run_eval("--debug", "--data-dir", str(data), env_key=None)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "FAILED: 1 task(s)" in proc.stdout
    assert "truss-near: ground truth is ill-conditioned: near-mechanism" in proc.stdout
    assert "truss-real:" not in proc.stdout


def test_debug_names_every_failing_task_and_its_reason(tmp_path):
    data = tmp_path / "data"
    fx.build_dataset(data)
    (data / "images" / "truss_t01.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"garbage" * 10)
    meta_file = data / "ground_truth_meta" / "beam_t01.json"
    meta = json.loads(meta_file.read_text())
    meta["solution"]["reactions"][1]["value"] += 1.0
    meta_file.write_text(json.dumps(meta))
    proc = run_eval("--debug", "--data-dir", str(data), env_key=None)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    lines = proc.stdout.splitlines()
    assert "FAILED: 2 task(s)" in lines
    failing = {line.split(":")[0].strip() for line in lines if line.startswith("  ")}
    assert failing == {"truss_t01", "beam_t01"}
    assert any("truss_t01: image truss_t01.png does not open" in line for line in lines)
    assert any("beam_t01: reaction S1.uy: stored" in line for line in lines)


def test_overflowed_stiffness_is_named_not_blamed_on_hinges():
    with pytest.raises(SolverError) as info:
        solve(overflowing_beam(1e300, 0.0078, 1e300))
    message = str(info.value)
    assert message.startswith('link "L1": its stiffness overflows double precision')
    assert "E = 1e+300" in message and "hinge" not in message
    with pytest.raises(SolverError) as info:  # every element finite, their sum is not
        solve(overflowing_beam(1e308, 1.0, 1e-6))
    assert "assembled stiffness overflows" in str(info.value)
    assert not isinstance(info.value, MechanismError)


def test_an_overflowing_candidate_is_told_the_cause():
    gt = parse_model(overflowing_beam(2e8, 1e-2, 1e-4))
    candidate = copy.deepcopy(overflowing_beam(1e300, 0.0078, 1e300))
    graded = grade_answer(gt, fx.tagged(candidate), tolerance=0.02)
    # the scorer's stages 1-3 use one material; the candidate's own sections enter last
    assert graded.grade.stage == "loads"
    assert 'link "L1": its stiffness overflows' in graded.grade.message
    assert "rotate freely" not in graded.grade.message
    assert graded.solver == {"ok": False, "error": "SolverError",
                             "message": graded.solver["message"]}
    assert "overflows" in graded.solver["message"]


def test_solve_cli_reports_the_overflow_in_one_sentence(tmp_path):
    path = tmp_path / "overflow.json"
    path.write_text(json.dumps(overflowing_beam(1e300, 0.0078, 1e300)))
    proc = subprocess.run([sys.executable, "-m", "structeval", "solve", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "stiffness overflows" in proc.stderr and "rotate freely" not in proc.stderr
