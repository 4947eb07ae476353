"""A user adds a problem the way the README says: a plain FrameCalc file and an image.

No "problem" block is needed: generate_gt infers id, category, notes and image from
the file and the structure, the loader serves it, and --debug verifies it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from structeval.dataset import DatasetError, load_tasks
from structeval.dataset.ground_truth import generate
from structeval.dataset.verify import verify_tasks

from .conftest import ROOT

SECTION = {"E": 2.1e8, "A": 0.01, "Iz": 1e-4}


def _truss() -> dict:
    pts = [("A", 0, 0), ("B", 4, 0), ("C", 2, 2)]
    links = [("L1", "A", "B"), ("L2", "B", "C"), ("L3", "C", "A")]
    return {"points": [{"id": i, "x": x, "y": y} for i, x, y in pts],
            "links": [{"id": i, "a": a, "b": b, "endA": "hinge", "endB": "hinge", **SECTION}
                      for i, a, b in links],
            "supports": [{"id": "S1", "at": {"type": "point", "id": "A"}, "kind": "pin"},
                         {"id": "S2", "at": {"type": "point", "id": "B"}, "kind": "roller"}],
            "loads": [{"id": "F", "kind": "pointLoad", "at": {"type": "point", "id": "C"},
                       "value": 10, "angleDeg": 270, "angleMode": "world"}]}


def _data(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    for sub in ("raw_models", "images", "ground_truth_meta"):
        (data / sub).mkdir(parents=True)
    return data


def test_plain_framecalc_file_plus_image_becomes_a_task(tmp_path: Path) -> None:
    data = _data(tmp_path)
    (data / "raw_models" / "roof_1.json").write_text(json.dumps(_truss()))
    image = next((ROOT / "data" / "images").glob("*.png"))
    shutil.copy(image, data / "images" / "roof_1.png")
    report = generate(data)
    assert report["errors"] == [] and report["written"] == ["roof_1"]
    meta = json.loads((data / "ground_truth_meta" / "roof_1.json").read_text())
    assert meta["category"] == "truss" and meta["provenance"] == "hand-authored"
    assert "pin-jointed" in meta["notes"] and meta["image_filename"] == "roof_1.png"
    reactions = {(r["atId"], r["type"]): r["value"] for r in meta["solution"]["reactions"]}
    assert reactions[("S1", "uy")] == pytest.approx(5.0)
    assert reactions[("S2", "normal")] == pytest.approx(5.0)
    (task,) = load_tasks(data)
    assert task.id == "roof_1" and task.category == "truss" and 1 <= task.difficulty <= 5
    assert verify_tasks([task], progress=False).ok


def test_missing_image_is_refused_clearly(tmp_path: Path) -> None:
    data = _data(tmp_path)
    (data / "raw_models" / "beam-mine.json").write_text(json.dumps(_truss()))
    assert generate(data)["errors"] == []
    with pytest.raises(DatasetError, match="image"):
        load_tasks(data)
