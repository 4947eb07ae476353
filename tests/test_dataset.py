"""The shipped dataset and its loader: counts, validity, reproducible ground truth, refusals.

The shipped-data tests read the repository's ``data/``; the loader and
verification tests build a small dataset of their own in a temporary folder so
they can damage it.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from PIL import Image

from structeval.dataset import DATA_DIR, DatasetError, Task, load_tasks
from structeval.dataset.fingerprint import fingerprint
from structeval.dataset.ground_truth import generate
from structeval.dataset.notes import task_notes
from structeval.dataset.paths import CATEGORIES, DIFFICULTIES, META_DIR
from structeval.dataset.rawfile import read_raw
from structeval.dataset.store import write_problem
from structeval.dataset.verify import compare_solutions, verify_tasks
from structeval.generation.generator import synthesize
from structeval.model import DistributedLoad, Model
from structeval.note_keys import task_note_keys

from .test_generator import check_textbook_problem

# -- the shipped data -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def shipped() -> list[Task]:
    if not any((DATA_DIR / META_DIR).glob("*.json")):
        pytest.fail(f"no dataset in {DATA_DIR}: run tools/synthesize.py and tools/generate_gt.py")
    return load_tasks(DATA_DIR)


def test_shipped_counts(shipped: list[Task]) -> None:
    per_category = Counter(t.category for t in shipped)
    per_level = Counter(t.difficulty for t in shipped)
    assert len(shipped) >= 1000
    assert set(per_category) == set(CATEGORIES)
    assert min(per_category.values()) >= 300, per_category
    assert set(per_level) == set(DIFFICULTIES)
    assert min(per_level.values()) >= 90, per_level
    classics = [t for t in shipped if t.meta["provenance"] == "hand-authored"]
    assert len(classics) >= 12
    assert {t.category for t in classics} == set(CATEGORIES)


def test_shipped_problems_are_valid_stable_and_distinct(shipped: list[Task]) -> None:
    seen: dict[str, str] = {}  # structure → its fingerprint
    for task in shipped:
        if task.structure in seen:  # another presentation of a structure already checked
            assert fingerprint(task.model) == seen[task.structure], task.id
            continue
        if task.meta["split"] != "sheets":  # a sheet's frame: test_sheets.py checks it
            check_textbook_problem(task.model, task.category)
        seen[task.structure] = fingerprint(task.model)
    for task in shipped:
        keys = task_note_keys(task.model, task.category, task.presentation)
        inclined_line_load = any(
            isinstance(ld, DistributedLoad) and _inclined(task.model, ld.target.id)
            for ld in task.model.loads)
        assert ("note.truss" in keys) == (task.category == "truss"), task.id
        assert ("note.perpendicular" in keys) == inclined_line_load, task.id
        assert task.notes == task_notes(task.model, task.category, task.presentation), task.id
    prints = Counter(seen.values())
    assert max(prints.values()) == 1, [p for p, n in prints.items() if n > 1]


def _inclined(model: Model, link_id: str) -> bool:
    link = model.link(link_id)
    a, b = model.point(link.a), model.point(link.b)
    return a.x != b.x and a.y != b.y


def test_shipped_files_are_compact(shipped: list[Task]) -> None:
    figures = [t for t in shipped if t.meta["split"] != "sheets"]
    metas = [DATA_DIR / META_DIR / f"{t.id}.json" for t in figures]
    assert max(p.stat().st_size for p in metas) <= 30_000
    sizes = [t.image_path.stat().st_size for t in figures]
    assert sum(sizes) / len(sizes) <= 60_000
    # the largest: a 60-member frame on a pencil sketch or an exam page, ~3,000 px JPEG
    assert max(sizes) <= 400_000
    # a drawing sheet (up to 7,600 px of line art, 16-colour PNG) and its frame's solution
    sheets = [t for t in shipped if t.meta["split"] == "sheets"]
    if sheets:
        assert max(t.image_path.stat().st_size for t in sheets) <= 600_000
        assert max((DATA_DIR / META_DIR / f"{t.id}.json").stat().st_size
                   for t in sheets) <= 200_000
    # issue 18's bound on the repository's data: at most 150 MB in data/ in all
    total = sum(p.stat().st_size for p in DATA_DIR.rglob("*") if p.is_file())
    assert total <= 150 * 2**20, total


def test_shipped_ground_truth_is_reproducible(tmp_path: Path) -> None:
    report = generate(DATA_DIR, tmp_path, progress=False)
    assert report["errors"] == []
    ours = sorted((DATA_DIR / META_DIR).glob("*.json"))
    fresh = sorted((tmp_path / META_DIR).glob("*.json"))
    assert [p.name for p in ours] == [p.name for p in fresh]
    for a, b in zip(ours, fresh, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name


def test_debug_check_passes_on_shipped_data(shipped: list[Task]) -> None:
    report = verify_tasks(shipped, progress=False)
    assert report.ok, report.failures[:5]
    assert report.scorer == "available"
    assert "OVERALL" in report.table() and "100.0" in report.table()


# -- a small dataset to damage ----------------------------------------------------------------

@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pristine")
    for problem in synthesize(9, seed=77, split="test"):
        write_problem(problem, root, images=False)
    for problem in synthesize(3, seed=78, category="truss", split="extra"):
        write_problem(problem, root, images=False)
    for raw in sorted((root / "raw_models").glob("*.json")):
        _, block, _ = read_raw(raw)
        (root / "images").mkdir(exist_ok=True)
        Image.new("RGB", (40, 30), "white").save(root / "images" / block["image"]["file"])
    report = generate(root, progress=False)
    assert report["errors"] == [] and len(report["written"]) == 12
    return root


@pytest.fixture
def data(pristine: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "data"
    shutil.copytree(pristine, copy)
    return copy


def _meta_file(data: Path, pid: str) -> Path:
    return data / META_DIR / f"{pid}.json"


def _edit_meta(data: Path, pid: str, **changes: object) -> None:
    path = _meta_file(data, pid)
    meta = json.loads(path.read_text())
    meta.update(changes)
    path.write_text(json.dumps(meta))


def _refusal(data: Path) -> str:
    with pytest.raises(DatasetError) as info:
        load_tasks(data)
    return str(info.value)


def test_loader_reads_everything_sorted(data: Path) -> None:
    tasks = load_tasks(data)
    assert [t.id for t in tasks] == sorted(t.id for t in tasks) and len(tasks) == 12
    for t in tasks:
        assert t.image_path.is_file() and t.image_path.parent == data / "images"
        assert t.meta["id"] == t.id and t.difficulty == t.meta["difficulty"]
        assert t.notes == t.meta["notes"]


def test_loader_filters(data: Path) -> None:
    every = load_tasks(data)
    assert {t.id for t in load_tasks(data, split="extra")} == {
        t.id for t in every if t.split == "extra"} != set()
    trusses = load_tasks(data, categories=["truss"], difficulties=[1, 2])
    assert trusses and all(t.category == "truss" and t.difficulty in (1, 2) for t in trusses)
    assert [t.id for t in load_tasks(data, id_filter="s77-000")] == [
        t.id for t in every if "s77-000" in t.id]
    assert [t.id for t in load_tasks(data, id_filter="frame-*")] == [
        t.id for t in every if t.id.startswith("frame-")]
    assert load_tasks(data, id_filter="no-such-task") == []


def test_loader_refuses_stale_ground_truth(data: Path) -> None:
    pid = load_tasks(data)[0].id
    raw = data / "raw_models" / f"{pid}.json"
    doc = json.loads(raw.read_text())
    doc["loads"][0]["flip"] = -doc["loads"][0].get("flip", 1)
    raw.write_text(json.dumps(doc))
    message = _refusal(data)
    assert "stale ground truth" in message and pid in message
    assert "python tools/generate_gt.py" in message
    generate(data, progress=False)
    assert len(load_tasks(data)) == 12


@pytest.mark.parametrize("field,value", [
    ("image_filename", "../raw_models/x.png"),
    ("image_filename", "/etc/passwd"),
    ("image_filename", "..\\..\\secret.png"),
    ("id", "../../outside"),
    ("raw_model", "../../elsewhere.json"),
])
def test_loader_refuses_paths_outside_data(data: Path, field: str, value: str) -> None:
    pid = load_tasks(data)[0].id
    _edit_meta(data, pid, **{field: value})
    message = _refusal(data)
    assert pid in message and field in message


def test_loader_refuses_symlink_out_of_data(data: Path, tmp_path: Path) -> None:
    task = load_tasks(data)[0]
    outside = tmp_path / "outside.png"
    Image.new("RGB", (4, 4)).save(outside)
    task.image_path.unlink()
    task.image_path.symlink_to(outside)
    assert "outside" in _refusal(data)


def test_loader_refuses_missing_files(data: Path) -> None:
    tasks = load_tasks(data)
    tasks[0].image_path.unlink()
    (data / "raw_models" / f"{tasks[1].id}.json").unlink()
    message = _refusal(data)
    assert f"image {tasks[0].image_path} is missing" in message
    assert f"raw model {data / 'raw_models' / (tasks[1].id + '.json')} is missing" in message


def test_loader_refuses_unsolved_and_broken_files(data: Path) -> None:
    tasks = load_tasks(data)
    _meta_file(data, tasks[0].id).unlink()
    _meta_file(data, tasks[1].id).write_text("{not json")
    _edit_meta(data, tasks[2].id, difficulty=9)
    message = _refusal(data)
    assert f"{tasks[0].id}.json: raw model has no ground truth yet" in message
    assert f"{tasks[1].id}.json: not valid JSON" in message
    assert "difficulty 9 is not an integer 1-5" in message


def test_loader_refuses_meta_that_disagrees_with_raw(data: Path) -> None:
    pid = load_tasks(data)[0].id
    _edit_meta(data, pid, split="train")
    assert "disagrees with the raw model" in _refusal(data)


def test_generate_gt_reports_invalid_raw_models(data: Path) -> None:
    raw = data / "raw_models" / "beam-s77-0000.json"
    doc = json.loads(raw.read_text())
    doc["links"][0]["b"] = "nowhere"
    raw.write_text(json.dumps(doc))
    mech = data / "raw_models" / "beam-s77-0003.json"
    doc = json.loads(mech.read_text())
    doc["supports"] = doc["supports"][:1]
    doc["supports"][0]["kind"] = "roller"
    mech.write_text(json.dumps(doc))
    report = generate(data, progress=False)
    text = "\n".join(report["errors"])
    assert ("beam-s77-0000.json: invalid FrameCalc model: links[0].b: refers to unknown "
            "point") in text
    assert "beam-s77-0003.json: problem beam-s77-0003 is not stable: mechanism" in text
    assert len(report["errors"]) == 2 and len(report["unchanged"]) == 10


def test_generate_gt_check_mode(data: Path, tmp_path: Path) -> None:
    assert generate(data, check=True, progress=False)["stale"] == []
    meta = _meta_file(data, load_tasks(data)[0].id)
    meta.write_text(meta.read_text().replace('"split"', '"split" ', 1))
    assert generate(data, check=True, progress=False)["stale"] == [meta.stem]
    orphan = data / META_DIR / "orphan.json"
    orphan.write_text("{}")
    report = generate(data, progress=False)
    assert report["written"] == [meta.stem] and report["removed"] == ["orphan"]


# -- verification (the --debug check) -----------------------------------------------------

def test_verify_reports_tampered_solution_and_broken_image(data: Path) -> None:
    tasks = load_tasks(data)
    meta = json.loads(_meta_file(data, tasks[0].id).read_text())
    meta["solution"]["reactions"][-1]["value"] += 0.01
    tampered = Task(tasks[0].id, tasks[0].category, tasks[0].difficulty, tasks[0].split,
                    tasks[0].image_path, tasks[0].model, meta, tasks[0].notes)
    tasks[1].image_path.write_bytes(b"not an image")
    report = verify_tasks([tampered, *tasks[1:]], progress=False)
    failures = dict(report.failures)
    assert not report.ok
    assert "reaction" in failures[tasks[0].id]
    assert "does not open" in failures[tasks[1].id]
    assert len(failures) == 2
    table = report.table()
    assert "OVERALL" in table and f"{100 * 10 / 12:.1f}" in table


def test_compare_solutions_sees_every_kind_of_drift() -> None:
    fresh = {"reactions": [{"atId": "S1", "type": "uy", "value": 10.0}],
             "max_abs_moment": 20.0, "max_abs_moment_at": {"linkId": "L1", "s": 2.0},
             "moment_stations": {"L1": [0.0, -20.0, 0.0]}}
    same = json.loads(json.dumps(fresh))
    assert compare_solutions(same, fresh) == []
    drifted = json.loads(json.dumps(fresh))
    drifted["reactions"][0]["value"] = -10.0
    drifted["max_abs_moment"] = 20.001
    drifted["moment_stations"]["L1"][1] = 20.0
    problems = compare_solutions(drifted, fresh)
    assert len(problems) == 3
    renamed = json.loads(json.dumps(fresh))
    renamed["reactions"][0]["type"] = "ux"
    assert compare_solutions(renamed, fresh) == [
        "reactions list differs in supports or components"]
    assert compare_solutions(None, fresh) == ["stored solution is not an object"]
    junk = {"reactions": [fresh["reactions"][0], 5], "max_abs_moment": "20",
            "moment_stations": {"L1": "x"}}
    assert compare_solutions(junk, fresh) == [
        "reactions list differs in supports or components", "max |M|: stored 20, solver 20.0",
        "moment stations of link L1 differ"]
