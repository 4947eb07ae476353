"""Presentation factors: parsing, defaults, selectors, and how the store and loader carry them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from structeval.dataset import DATA_DIR, DatasetError, load_tasks
from structeval.dataset.ground_truth import generate
from structeval.dataset.rawfile import check_block
from structeval.harness.command.cli import main as run_eval_main
from structeval.presentation import (
    FACTORS,
    Presentation,
    PresentationError,
    matches,
    parse_selectors,
)


def test_defaults_are_the_v1_look_and_round_trip() -> None:
    p = Presentation()
    assert p.to_json() == {name: values[0] for name, values in FACTORS.items()}
    assert Presentation.from_json(p.to_json()) == p
    assert Presentation.from_json(None, style="scanned").style == "scanned"
    assert Presentation.from_json({"style": "textbook"}, style="cad").style == "textbook"
    assert Presentation(language="zh").differs_from_default() == {"language": "zh"}


@pytest.mark.parametrize("block, fragment", [
    ({"language": "fr"}, "language must be one of en, zh"),
    ({"colour": "red"}, "unknown factor(s) colour"),
    (["en"], "must be an object"),
])
def test_bad_presentation_blocks_are_refused(block: object, fragment: str) -> None:
    with pytest.raises(PresentationError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        Presentation.from_json(block)


def test_selectors_and_and_or() -> None:
    sel = parse_selectors(["language=zh", "style=cad,sketch", "style=textbook"])
    assert sel == {"language": frozenset({"zh"}),
                   "style": frozenset({"cad", "sketch", "textbook"})}
    assert matches(Presentation(language="zh", style="sketch"), sel)
    assert not matches(Presentation(language="en", style="sketch"), sel)
    assert not matches(Presentation(language="zh", style="scanned"), sel)
    for bad in ("language", "=zh", "colour=red", "language=fr"):
        with pytest.raises(PresentationError):
            parse_selectors([bad])


def _task_block(**changes: object) -> dict[str, object]:
    block: dict[str, object] = {
        "id": "beam-x", "category": "beam", "split": "test", "notes": "",
        "image": {"file": "beam-x.png", "style": "cad", "seed": 1},
        "provenance": "hand-authored"}
    block.update(changes)
    return block


def test_raw_block_checks_structure_presentation_and_dxf() -> None:
    assert check_block(_task_block(), "beam-x") == []
    assert check_block(_task_block(structure="beam-s", presentation={"language": "zh"}),
                       "beam-x") == []
    assert any("disagrees with problem.image.style" in p for p in check_block(
        _task_block(presentation={"style": "textbook"}), "beam-x"))
    assert any("presentation.units" in p for p in check_block(
        _task_block(presentation={"units": "ft"}), "beam-x"))
    assert any("problem.structure" in p for p in check_block(
        _task_block(structure="../x"), "beam-x"))
    assert any("problem.dxf" in p for p in check_block(
        _task_block(dxf={"file": "beam-x.png"}), "beam-x"))


@pytest.fixture(scope="module")
def two_presentations(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data folder with one shipped structure shown twice (cad and a zh textbook copy)."""
    root = tmp_path_factory.mktemp("data")
    source = sorted((DATA_DIR / "raw_models").glob("beam-s1-*.json"))[0]
    doc = json.loads(source.read_text(encoding="utf-8"))
    image = DATA_DIR / "images" / doc["problem"]["image"]["file"]
    for sub in ("raw_models", "images"):
        (root / sub).mkdir()
    for suffix, presentation in (("a", {"language": "en"}), ("b", {"language": "zh"})):
        task = json.loads(json.dumps(doc))
        tid = f"{source.stem}-{suffix}"
        task["problem"].update(id=tid, structure=source.stem, presentation=presentation)
        task["problem"]["image"]["file"] = tid + image.suffix
        shutil.copy(image, root / "images" / (tid + image.suffix))
        (root / "raw_models" / f"{tid}.json").write_text(json.dumps(task), encoding="utf-8")
    report = generate(root)
    assert not report["errors"]
    return root


def test_loader_carries_and_filters_presentations(two_presentations: Path) -> None:
    tasks = load_tasks(two_presentations)
    assert [t.structure for t in tasks] == [tasks[0].structure] * 2
    assert [t.presentation.language for t in tasks] == ["en", "zh"]
    zh = load_tasks(two_presentations, presentation=parse_selectors(["language=zh"]))
    assert [t.id for t in zh] == [tasks[1].id]
    metas = [json.loads((two_presentations / "ground_truth_meta" / f"{t.id}.json").read_text())
             for t in tasks]
    # matched presentations share the ground truth byte for byte
    assert json.dumps(metas[0]["solution"]) == json.dumps(metas[1]["solution"])
    assert metas[1]["presentation"]["language"] == "zh"


def test_loader_refuses_a_meta_whose_presentation_disagrees(two_presentations: Path,
                                                             tmp_path: Path) -> None:
    copy = tmp_path / "data"
    shutil.copytree(two_presentations, copy)
    meta_file = sorted((copy / "ground_truth_meta").glob("*.json"))[1]
    meta = json.loads(meta_file.read_text())
    meta["presentation"]["language"] = "en"
    meta_file.write_text(json.dumps(meta))
    with pytest.raises(DatasetError, match=r"presentation .* disagrees"):
        load_tasks(copy)


def test_run_eval_presentation_flag(two_presentations: Path) -> None:
    runner = CliRunner()
    bad = runner.invoke(run_eval_main, ["--debug", "--data-dir", str(two_presentations),
                                        "--presentation", "language=fr"])
    assert bad.exit_code == 2 and "language has no value 'fr'" in bad.output
    good = runner.invoke(run_eval_main, ["--debug", "--data-dir", str(two_presentations),
                                         "--presentation", "language=zh"])
    assert good.exit_code == 0, good.output
    assert "OVERALL" in good.output and " 1 " in good.output.split("OVERALL")[1]
