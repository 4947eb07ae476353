"""Hugging Face export: loadable by ``datasets``, lossless, byte-deterministic, and a
dataset ``run_eval.py`` accepts (local folder and, through a stand-in for the Hub,
``hf://owner/name@revision``). No test here touches the network."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# Tests never use the network: datasets and huggingface_hub stay offline (read at import).
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install "
                                           "'structeval[hf]')")
datasets = pytest.importorskip("datasets", reason="datasets is not installed (pip install "
                                                  "'structeval[hf]')")

from structeval.dataset import DatasetError, load_tasks  # noqa: E402
from structeval.dataset import hf_export as hf  # noqa: E402
from structeval.dataset.hf_format import COLUMNS  # noqa: E402
from structeval.dataset.paths import DATA_DIR  # noqa: E402
from tests.fakeserver import fixture as fx  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    """A small dataset: the harness fixture plus a few shipped tasks of other splits'
    kinds (a JPEG scanned drawing among them), so images of both formats and more than
    one split round-trip."""
    root = tmp_path_factory.mktemp("hfsrc") / "data"
    fx.build_dataset(root)
    shipped = sorted((DATA_DIR / "ground_truth_meta").glob("*.json"))
    if shipped:
        picks = [m for m in shipped if json.loads(m.read_text())["image_style"] == "scanned"][:1]
        picks += shipped[:2]
        for meta in picks:
            doc = json.loads(meta.read_text())
            for sub, name in (("ground_truth_meta", meta.name), ("raw_models", meta.name),
                              ("images", doc["image_filename"])):
                (root / sub / name).write_bytes((DATA_DIR / sub / name).read_bytes())
    # a second split: one fixture task moved to "dev" (its ground truth recomputed)
    raw = root / "raw_models" / "beam_t02.json"
    doc = json.loads(raw.read_text())
    doc["problem"]["split"] = "dev"
    raw.write_text(json.dumps(doc, indent=2) + "\n")
    from structeval.dataset.ground_truth import generate

    assert not generate(root)["errors"]
    return root


def splits_of(root: Path) -> list[str]:
    """The splits a data folder's tasks belong to (the shipped ones change as it grows)."""
    return sorted({json.loads(m.read_text())["split"]
                   for m in (root / "ground_truth_meta").glob("*.json")})


@pytest.fixture(scope="module")
def export(source, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("hfout") / "export"
    summary = hf.export_dataset(source, out)
    assert summary.rows["dev"] == 1
    return out


def test_export_is_byte_deterministic(source, export, tmp_path):
    again = hf.export_dataset(source, tmp_path / "again")
    files = sorted(p.relative_to(export) for p in export.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(again.out) for p in again.out.rglob("*")
                           if p.is_file())
    assert [str(f) for f in files] == ["README.md"] + [
        f"data/{s}-00000-of-00001.parquet" for s in splits_of(source)]
    for name in files:
        assert (export / name).read_bytes() == (again.out / name).read_bytes(), name


def test_datasets_loads_rows_images_and_ground_truth_exactly(source, export, tmp_path):
    loaded = datasets.load_dataset(
        "parquet", data_files={s: str(export / "data" / f"{s}-*.parquet")
                               for s in splits_of(source)}, cache_dir=str(tmp_path / "cache"))
    tasks = {t.id: t for t in load_tasks(source)}
    seen = []
    for split in splits_of(source):
        part = loaded[split]
        assert part.features["image"] == datasets.Image()
        assert list(part.features) == list(COLUMNS)
        raw = part.cast_column("image", datasets.Image(decode=False))
        for row, raw_row in zip(part, raw, strict=True):
            task = tasks[row["id"]]
            seen.append(row["id"])
            assert row["split"] == split == task.split
            assert raw_row["image"]["bytes"] == task.image_path.read_bytes()
            assert raw_row["image"]["path"] == task.image_path.name
            assert row["image"].size == __import__("PIL.Image").Image.open(task.image_path).size
            assert row["model"] == (source / "raw_models" / f"{task.id}.json").read_text()
            assert row["ground_truth"] == (source / "ground_truth_meta"
                                           / f"{task.id}.json").read_text()
            assert json.loads(row["ground_truth"]) == task.meta
            assert (row["category"], row["difficulty"], row["notes"], row["structure"]) == (
                task.category, task.difficulty, task.notes, task.structure)
            assert {k: row[k] for k in task.factors()} == task.factors()
            assert row["license"] == "cc-by-4.0" and row["dxf"] is None
    assert sorted(seen) == sorted(tasks)


def test_loader_gives_the_same_tasks_from_the_export(source, export):
    ours = load_tasks(export)
    theirs = load_tasks(source)
    assert [t.id for t in ours] == [t.id for t in theirs]
    for a, b in zip(ours, theirs, strict=True):
        assert (a.model, a.meta, a.category, a.difficulty, a.split, a.notes, a.structure,
                a.presentation) == (b.model, b.meta, b.category, b.difficulty, b.split,
                                    b.notes, b.structure, b.presentation)
        assert a.image_path.read_bytes() == b.image_path.read_bytes()
        assert a.image_path.name == b.image_path.name
    assert [t.id for t in load_tasks(export, split="dev")] == ["beam_t02"]
    assert [t.id for t in load_tasks(export, categories=["truss"], id_filter="t01")] == [
        "truss_t01"]


def test_run_eval_debug_passes_on_the_export(export):
    proc = subprocess.run([sys.executable, str(ROOT / "run_eval.py"), "--debug", "--data-dir",
                           str(export)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "OVERALL" in proc.stdout and "100.0" in proc.stdout


def test_dataset_card_front_matter(export):
    card = (export / "README.md").read_text()
    head, _, body = card[4:].partition("\n---\n")
    assert card.startswith("---\n")
    assert "license: cc-by-4.0" in head
    assert "  - split: dev\n    path: data/dev-*.parquet" in head
    assert "  - split: test\n    path: data/test-*.parquet" in head
    assert "  - name: image\n    dtype: image" in head
    assert "  - name: test\n    num_bytes:" in head and "    num_examples:" in head
    assert "@misc{structuraleval" in body and "CC BY 4.0" in body


def test_the_card_gives_datasets_the_split_sizes_in_bytes(export):
    """``datasets`` ignores a ``splits`` field without ``num_bytes`` (with a warning, and its
    sizes unknown): the builder must read rows and bytes from the card as the parquet
    files hold them (Arrow size of each split as read back, parquet bytes)."""
    import pyarrow.parquet as pq

    info = datasets.load_dataset_builder(str(export)).info
    files = sorted((export / "data").glob("*.parquet"))
    for path in files:
        split = path.name.split("-")[0]
        table = pq.read_table(path)
        assert info.splits[split].num_examples == table.num_rows
        assert info.splits[split].num_bytes == table.nbytes > 0
    assert info.dataset_size == sum(pq.read_table(p).nbytes for p in files)
    assert info.download_size == sum(p.stat().st_size for p in files)


def test_the_card_states_the_benchmark_selection_and_the_limitations(export):
    from structeval.dataset.benchmark import benchmark_ids

    body = (export / "README.md").read_text().partition("\n---\n")[2]
    selection = " ".join(body.partition("## Benchmark selection")[2].partition("\n## ")[0]
                         .split())
    expected = len(benchmark_ids(load_tasks(export)))
    assert expected > 0  # the fixture includes shipped tasks of core/hard/matched
    assert f"on this export it holds {expected} task(s)." in selection
    assert "`--split all`" in selection and "sha256(\"benchmark|\" + id)" in selection
    limits = body.partition("## Limitations")[2]
    assert "not photographs or scans of real" in limits and "linear-elastic" in limits


def test_a_tampered_export_is_refused(export, tmp_path):
    import pyarrow.parquet as pq

    table = pq.read_table(export / "data" / "test-00000-of-00001.parquet")
    rows = table.to_pylist()
    target = next(r for r in rows if r["id"] == "beam_t01")
    assert '"x": 2' in target["model"]
    target["model"] = target["model"].replace('"x": 2', '"x": 2.5', 1)
    bad = tmp_path / "bad"
    (bad / "data").mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema),
                   bad / "data" / "test-00000-of-00001.parquet")
    with pytest.raises(DatasetError, match="sha256"):
        load_tasks(bad)
    pq.write_table(table.drop_columns(["ground_truth"]),
                   bad / "data" / "test-00000-of-00001.parquet")
    with pytest.raises(DatasetError, match="ground_truth missing"):
        load_tasks(bad)


def test_hub_reference_through_datasets(source, export, monkeypatch, tmp_path):
    """hf://owner/name@revision goes to datasets.load_dataset(repo, revision=...); here a
    stand-in serves the local export, so the whole path runs without a network."""
    asked = []
    real = datasets.load_dataset

    def fake_load_dataset(repo, revision=None, **kwargs):
        asked.append((repo, revision))
        return real("parquet", data_files={
            s: str(export / "data" / f"{s}-*.parquet") for s in splits_of(source)},
            cache_dir=str(tmp_path / "cache"))

    monkeypatch.setattr(datasets, "load_dataset", fake_load_dataset)
    tasks = load_tasks("hf://someone/structeval@v1.0")
    assert asked == [("someone/structeval", "v1.0")]
    assert [t.id for t in tasks] == [t.id for t in load_tasks(export)]
    assert all(a.model == b.model for a, b in zip(tasks, load_tasks(export), strict=True))


def test_hub_failures_are_explained(monkeypatch):
    def offline(repo, revision=None, **kwargs):
        raise ConnectionError("Couldn't reach 'someone/structeval' on the Hub")

    monkeypatch.setattr(datasets, "load_dataset", offline)
    with pytest.raises(DatasetError, match=r"cannot load hf://someone/structeval from the "
                                           r"Hugging Face Hub \(ConnectionError"):
        load_tasks("hf://someone/structeval")
    with pytest.raises(DatasetError, match="not a Hugging Face dataset reference"):
        load_tasks("hf://no-slash")
    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(DatasetError, match=r"needs the `datasets` package: pip install "
                                           r"'structeval\[hf\]'"):
        load_tasks("hf://someone/structeval@main")


def test_export_tool_and_run_eval_cli_errors(source, tmp_path):
    out = tmp_path / "tool"
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "export_hf.py"), "--out",
                           str(out), "--data-dir", str(source), "--split", "dev",
                           "--no-progress"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "exported 1 tasks (dev 1)" in proc.stdout
    proc = subprocess.run([sys.executable, str(ROOT / "run_eval.py"), "--debug", "--data-dir",
                           "hf://bad"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "not a Hugging Face dataset reference" in proc.stderr
    assert "Traceback" not in proc.stderr


# ------------------------------------------------------------ badly typed columns

#: a ground_truth column of every non-text type a hand-made export may carry
GT_TYPES = {"int": (pa.int64(), 5, "an integer"), "float": (pa.float64(), 2.5, "a number"),
            "list": (pa.list_(pa.string()), ["{}"], "a list"),
            "struct": (pa.struct([("id", pa.string())]), {"id": "beam_t01"}, "a struct")}


def _retyped(export: Path, out: Path, column: str, kind, value) -> Path:
    import pyarrow.parquet as pq

    (out / "data").mkdir(parents=True)
    for path in sorted((export / "data").glob("*.parquet")):
        table = pq.read_table(path)
        at = table.column_names.index(column)
        table = table.set_column(at, pa.field(column, kind),
                                 pa.array([value] * table.num_rows, type=kind))
        pq.write_table(table, out / "data" / path.name)
    return out


@pytest.fixture(scope="module")
def finished_run(export, tmp_path_factory) -> Path:
    """A short run on the good export, for report.py to be pointed at a bad one."""
    from tests.fakeserver.process import common, run_eval
    from tests.fakeserver.server import Answer, FakeOpenAI, Script

    out = tmp_path_factory.mktemp("hfrun") / "run"
    with FakeOpenAI(Script(Answer("no JSON here"))) as server:
        proc = run_eval(*common(server, export, out, "--split", "dev", "--max-retries",
                                "0"))
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.mark.parametrize("name", sorted(GT_TYPES))
def test_a_ground_truth_column_that_is_not_text_is_one_sentence_everywhere(
        export, finished_run, tmp_path, name):
    """int, float, list or struct where the ground truth's JSON text belongs: the loader,
    run_eval.py (a run and --debug) and report.py say so in one sentence, no traceback."""
    kind, value, said = GT_TYPES[name]
    bad = _retyped(export, tmp_path / "bad", "ground_truth", kind, value)
    sentence = f"column ground_truth holds {said}, not text"
    with pytest.raises(DatasetError) as caught:
        load_tasks(bad)
    assert len(caught.value.problems) == 1 and sentence in caught.value.problems[0]
    runs = {"--debug": ["--debug"],
            "a run": ["--model", "m", "--api-base", "http://127.0.0.1:9/v1"]}
    for what, args in runs.items():
        proc = subprocess.run([sys.executable, str(ROOT / "run_eval.py"), *args, "--data-dir",
                               str(bad)], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2 and sentence in proc.stderr, (what, proc.stderr)
        assert "Traceback" not in proc.stderr and "TypeError" not in proc.stderr, what
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "report.py"), str(finished_run),
                           "--data-dir", str(bad), "-o", str(tmp_path / "r.html")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and sentence in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("column,kind,value,said", [
    ("model", pa.int64(), 7, "an integer"), ("difficulty", pa.string(), "3", "text"),
    ("image", pa.string(), "x.png", "text"), ("dxf", pa.list_(pa.string()), ["0"], "a list"),
    ("notes", pa.float64(), 1.5, "a number")])
def test_every_column_is_checked_for_its_type(export, tmp_path, column, kind, value, said):
    bad = _retyped(export, tmp_path / "bad", column, kind, value)
    with pytest.raises(DatasetError) as caught:
        load_tasks(bad)
    assert [p for p in caught.value.problems if f"column {column} holds {said}" in p]
    assert len(caught.value.problems) == 1  # once for the column, not once per row


def test_a_planted_image_in_the_image_cache_is_written_over(export, monkeypatch, tmp_path):
    """The image cache reuses a file only if it holds exactly the row's bytes: a file of the
    same size but other bytes, or a link to one, is replaced, never shown to a model."""
    monkeypatch.setenv("STRUCTEVAL_CACHE", str(tmp_path / "cache"))
    first = {t.id: t.image_path for t in load_tasks(export)}
    path = first["beam_t01"]
    real = path.read_bytes()
    path.write_bytes(b"\x89PNG" + b"x" * (len(real) - 4))  # the same size, other bytes
    assert load_tasks(export, id_filter="beam_t01")[0].image_path.read_bytes() == real
    elsewhere = tmp_path / "planted.png"
    elsewhere.write_bytes(b"\x89PNG" + b"y" * (len(real) - 4))
    path.unlink()
    path.symlink_to(elsewhere)
    again = load_tasks(export, id_filter="beam_t01")[0].image_path
    assert not again.is_symlink() and again.read_bytes() == real
