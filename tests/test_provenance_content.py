"""The dataset hash of a run covers the tasks it loaded, whatever their source (issue 19).

A run on a Hugging Face export used to record the hash of no file at all (the export
holds no ``raw_models/``), so ``--resume`` on a modified export was accepted and mixed two
ground truths. Now every loaded task carries the sha256 of its raw model, ground truth,
image and DXF bytes, the run records ``dataset.tasks_sha256`` over them, and ``--resume``
refuses any change — from a folder, an export or ``hf://``. No test here touches the
network.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install "
                                           "'structeval[hf]')")

from structeval.dataset import load_tasks  # noqa: E402
from structeval.harness import GradingSettings, RetryPolicy, RunDirError, Session  # noqa: E402
from structeval.harness.common.settings import TransportSettings  # noqa: E402
from tests.fakeserver import fixture as fx  # noqa: E402
from tests.fakeserver.process import common, run_eval  # noqa: E402
from tests.fakeserver.server import Answer, FakeOpenAI, Script  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
IDS = ("beam_t01", "frame_t01", "truss_t01", "beam_t02")
SPLIT_FILE = Path("data") / "test-00000-of-00001.parquet"


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> tuple[Path, Path, Script]:
    """The fixture folder (beam_t01 with a DXF drawing), its export written by
    tools/export_hf.py, and a script answering every task perfectly."""
    base = tmp_path_factory.mktemp("content")
    tasks = {t.id: t for t in fx.build_dataset(base / "data", dxf=["beam_t01"])}
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "export_hf.py"), "--out",
                           str(base / "export"), "--data-dir", str(base / "data"),
                           "--no-progress"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    script = Script()
    for task_id in IDS:
        script.on(fx.image_sha(tasks[task_id]), 1, Answer(fx.tagged(fx.GT_MODELS[task_id])))
    return base / "data", base / "export", script


def modified_export(export: Path, target: Path, task_id: str, change) -> Path:
    """A copy of ``export`` whose row ``task_id`` went through ``change(row)``."""
    import pyarrow.parquet as pq

    table = pq.read_table(export / SPLIT_FILE)
    rows = table.to_pylist()
    change(next(r for r in rows if r["id"] == task_id))
    (target / "data").mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), target / SPLIT_FILE)
    return target


def other_solution(row: dict) -> None:
    """The ground truth's solution edited (a reaction 1 kN larger): the model still hashes
    to the sha256 the meta records, so the loader accepts the row."""
    meta = json.loads(row["ground_truth"])
    meta["solution"]["reactions"][0]["value"] += 1
    row["ground_truth"] = json.dumps(meta, indent=2) + "\n"


def other_image(row: dict) -> None:
    """The drawing's bytes replaced by another valid PNG (a pixel changed)."""
    import io

    from PIL import Image

    image = Image.open(io.BytesIO(row["image"]["bytes"])).convert("RGB")
    image.putpixel((0, 0), (1, 2, 3))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    row["image"] = {**row["image"], "bytes": buffer.getvalue()}


def session(out: Path, server: FakeOpenAI, data_dir: Path | str, *, resume: bool) -> Session:
    return Session(out, grading=GradingSettings(model="fake-vlm", max_retries=1),
                   transport_settings=TransportSettings(api_base=server.base_url, timeout=10),
                   policy=RetryPolicy(tries=2, base_delay=0.001, max_delay=0.002),
                   api_key=fx.SECRET_KEY, resume=resume, data_dir=data_dir)


def run_on(out: Path, server: FakeOpenAI, data_dir: Path | str, *, resume: bool = False):
    return session(out, server, data_dir, resume=resume).run(
        load_tasks(data_dir), progress=False, echo=lambda _: None)


def test_the_same_tasks_hash_the_same_from_a_folder_and_its_export(dataset):
    from structeval.dataset.content_hash import tasks_content_sha256

    data, export, _ = dataset
    folder, exported = load_tasks(data), load_tasks(export)
    assert [t.content_sha256 for t in folder] == [t.content_sha256 for t in exported]
    assert len({t.content_sha256 for t in folder}) == len(IDS)  # one per task, all distinct
    assert tasks_content_sha256(folder) == tasks_content_sha256(exported)
    assert tasks_content_sha256(folder[:2]) != tasks_content_sha256(folder)
    edited = modified_export(export, data.parent / "gt", "truss_t01", other_solution)
    changed = {t.id: t.content_sha256 for t in load_tasks(edited)}
    assert [task_id for task_id in changed if changed[task_id] != next(
        t.content_sha256 for t in folder if t.id == task_id)] == ["truss_t01"]


def test_a_run_records_the_tasks_hash_whatever_the_source(dataset, tmp_path):
    from structeval.dataset.content_hash import tasks_content_sha256

    data, export, script = dataset
    with FakeOpenAI(script) as server:
        on_folder = run_on(tmp_path / "f", server, data).summary["provenance"]["dataset"]
        on_export = run_on(tmp_path / "e", server, export).summary["provenance"]["dataset"]
    assert on_folder["tasks_sha256"] == on_export["tasks_sha256"] == \
        tasks_content_sha256(load_tasks(data))
    assert len(on_folder["folder_sha256"]) == 64
    assert on_export["folder_sha256"] is None  # no data folder: not the hash of no file


@pytest.mark.parametrize("change", [other_solution, other_image], ids=["ground truth", "image"])
def test_resume_on_a_modified_export_is_refused(dataset, tmp_path, change):
    _, export, script = dataset
    edited = modified_export(export, tmp_path / "edited", "truss_t01", change)
    with FakeOpenAI(script) as server:
        run_on(tmp_path / "run", server, export)
        before = (tmp_path / "run" / "run.json").read_bytes()
        with pytest.raises(RunDirError, match=r"the selected tasks' raw models, ground truth, "
                                              r"images or DXF files changed since the run "
                                              r"began \(dataset tasks_sha256"):
            run_on(tmp_path / "run", server, edited, resume=True)
        sent = len(server.calls)
        outcome = run_on(tmp_path / "run", server, export, resume=True)
        assert len(server.calls) == sent  # the unmodified export: accepted, nothing asked
    assert (outcome.reused, outcome.ran) == (len(IDS), 0)
    assert json.loads(before)["sessions"][0] == json.loads(
        (tmp_path / "run" / "run.json").read_text())["sessions"][0]


def test_resume_on_a_modified_hub_dataset_is_refused(dataset, tmp_path, monkeypatch):
    """hf://owner/name@revision through a stand-in for datasets.load_dataset, which serves
    the export, then the edited export under the same reference."""
    datasets = pytest.importorskip("datasets", reason="datasets is not installed")
    _, export, script = dataset
    served = {"folder": export}
    real = datasets.load_dataset

    def fake_load_dataset(repo, revision=None, **kwargs):
        return real("parquet", data_files={"test": str(served["folder"] / SPLIT_FILE)},
                    cache_dir=str(tmp_path / "cache"))

    monkeypatch.setattr(datasets, "load_dataset", fake_load_dataset)
    reference = "hf://someone/structeval@v1"
    with FakeOpenAI(script) as server:
        first = run_on(tmp_path / "run", server, reference)
        assert first.summary["scored"] == len(IDS)
        served["folder"] = modified_export(export, tmp_path / "edited", "beam_t01", other_image)
        with pytest.raises(RunDirError, match="dataset tasks_sha256"):
            run_on(tmp_path / "run", server, reference, resume=True)


def test_run_eval_refuses_the_resume_with_exit_2_in_one_sentence(dataset, tmp_path):
    _, export, script = dataset
    edited = modified_export(export, tmp_path / "edited", "frame_t01", other_solution)
    with FakeOpenAI(script) as server:
        run_on(tmp_path / "run", server, export)  # as run_eval.py --max-retries 1 runs it
        again = run_eval(*common(server, edited, tmp_path / "run", "--resume"))
    assert again.returncode == 2
    assert "Traceback" not in again.stderr
    assert "--resume refuses to mix results of different code or data" in again.stderr
    assert "dataset tasks_sha256" in again.stderr
