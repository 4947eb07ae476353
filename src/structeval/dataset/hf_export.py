"""The dataset as a Hugging Face ``datasets`` folder: write it, and load tasks back from it.

Why a second on-disk form: researchers load benchmarks with ``datasets`` and push
them to the Hub, where a folder of JSON files and images is not loadable. An
export is one parquet file per split (``data/<split>-00000-of-00001.parquet``)
whose ``image`` column is the ``datasets`` Image feature (a struct of bytes and
path), plus a dataset card README.md with YAML front matter. Nothing is lost: the
``model`` column is the raw problem file verbatim and ``ground_truth`` the meta
file verbatim, so the loader here rebuilds exactly the :class:`Task` objects the
folder loader gives (the meta's sha256 of the raw file still guards the pair).

The export is byte-deterministic: rows in id order, splits in name order, fixed
parquet writer options, no timestamps. ``pyarrow`` is needed to write or read a
local export, ``datasets`` only for ``hf://owner/name@revision`` references
(``pip install 'structeval[hf]'``).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..cachedir import cache_root
from ..model import ModelError, parse_model
from ..presentation import FACTORS, Presentation
from .errors import DatasetError
from .loader import Task, check_meta, select_metas
from .paths import HF_SCHEME, META_DIR, is_safe_name, meta_path, raw_path

LICENSE = "cc-by-4.0"
DATA_FOLDER = "data"
#: Columns in their order; presentation factors follow ``category … split``.
COLUMNS = ("id", "structure", "image", "model", "ground_truth", "category", "difficulty",
           "split", *FACTORS, "notes", "license", "dxf")
INSTALL_HINT = "pip install 'structeval[hf]'"


def _pyarrow() -> Any:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise DatasetError(f"reading or writing a Hugging Face export needs pyarrow: "
                           f"{INSTALL_HINT}") from None
    return pa, pq


def _features() -> dict[str, Any]:
    """The ``datasets`` feature of every column (stored in the parquet schema metadata, so
    ``load_dataset("parquet", …)`` decodes the image column as an Image)."""
    string = {"dtype": "string", "_type": "Value"}
    feats: dict[str, Any] = {name: dict(string) for name in COLUMNS}
    feats["image"] = {"_type": "Image"}
    feats["difficulty"] = {"dtype": "int64", "_type": "Value"}
    return feats


def _schema(pa: Any) -> Any:
    fields = []
    for name in COLUMNS:
        if name == "image":
            kind = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
        elif name == "difficulty":
            kind = pa.int64()
        else:
            kind = pa.string()
        fields.append(pa.field(name, kind))
    meta = json.dumps({"info": {"features": _features()}}, separators=(",", ":"))
    return pa.schema(fields, metadata={"huggingface": meta})


def split_file(split: str) -> str:
    return f"{DATA_FOLDER}/{split}-00000-of-00001.parquet"


@dataclass(frozen=True)
class ExportSummary:
    out: Path
    rows: dict[str, int]  # split → rows
    files: tuple[str, ...]  # relative paths written

    @property
    def total(self) -> int:
        return sum(self.rows.values())


def _row(data_dir: Path, task: Task) -> dict[str, Any]:
    """One task as an export row, read from the files the loader validated."""
    factors = task.presentation.to_json()
    return {"id": task.id, "structure": task.structure or task.id,
            "image": {"bytes": task.image_path.read_bytes(), "path": task.image_path.name},
            "model": raw_path(data_dir, task.id).read_text(encoding="utf-8"),
            "ground_truth": meta_path(data_dir, task.id).read_text(encoding="utf-8"),
            "category": task.category, "difficulty": int(task.difficulty), "split": task.split,
            **{k: factors[k] for k in FACTORS}, "notes": task.notes, "license": LICENSE,
            "dxf": task.dxf_path.read_text(encoding="utf-8") if task.dxf_path else None}


def export_dataset(data_dir: Path, out: Path, *, tasks: Sequence[Task] | None = None,
                   progress: Any = None) -> ExportSummary:
    """Write the tasks of ``data_dir`` (all of them unless ``tasks`` is given) to ``out``.

    The folder loader validates everything first (stale ground truth, missing images),
    so an export is never made of a dataset that would not load. Files are written
    atomically; other files in ``out`` are left alone, except that parquet files of
    splits this export does not have are removed from ``out/data`` (a stale split
    would otherwise be loaded with the new ones). ``progress`` wraps the task iterable
    (e.g. tqdm).
    """
    from .loader import load_tasks

    pa, pq = _pyarrow()
    data_dir = Path(data_dir)
    chosen = sorted(tasks if tasks is not None else load_tasks(data_dir), key=lambda t: t.id)
    if not chosen:
        raise DatasetError(f"{data_dir}: no task to export")
    by_split: dict[str, list[dict[str, Any]]] = {}
    for task in progress(chosen) if progress else chosen:
        by_split.setdefault(task.split, []).append(_row(data_dir, task))
    out = Path(out)
    (out / DATA_FOLDER).mkdir(parents=True, exist_ok=True)
    schema = _schema(pa)
    written = []
    for split in sorted(by_split):
        rows = by_split[split]
        table = pa.Table.from_pylist(rows, schema=schema)
        _atomic(out / split_file(split), lambda path, t=table: _write_parquet(pq, t, path))
        written.append(split_file(split))
    for stale in sorted((out / DATA_FOLDER).glob("*.parquet")):
        if f"{DATA_FOLDER}/{stale.name}" not in written:
            stale.unlink()
    card = dataset_card({s: len(r) for s, r in sorted(by_split.items())},
                        {t.presentation.language for t in chosen})
    _atomic(out / "README.md", lambda path: Path(path).write_text(card, encoding="utf-8"))
    return ExportSummary(out, {s: len(r) for s, r in sorted(by_split.items())},
                         (*written, "README.md"))


def _write_parquet(pq: Any, table: Any, path: str) -> None:
    """Fixed writer options, so the same rows give the same bytes (one row group, no
    statistics, no dictionary pages whose layout depends on value order)."""
    pq.write_table(table, path, compression="zstd", compression_level=9, use_dictionary=False,
                   write_statistics=False, row_group_size=max(table.num_rows, 1),
                   version="2.6", data_page_size=1 << 20, store_schema=True)


def _atomic(target: Path, write: Any) -> None:
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


_CARD_BODY = """\
# StructuralEval

A benchmark of vision-language models on structural-mechanics drawings. Each row is
one *task*: a drawing of a beam, frame or truss (`image`) that a model must write
down as FrameCalc JSON (points, links, supports, loads). Answers are graded by
physics, not by text: a finite-element solver computes the support reactions and
bending moments of the answer and of the ground truth, and a staged diagnosis
(geometry, supports, hinges, loads) gives partial credit 0 / 0.25 / 0.5 / 0.75 / 1,
weighted by difficulty 1-5.

## Columns

- `id`: task id (unique).
- `structure`: id of the structure shown; tasks of one structure share its ground truth.
- `image`: the drawing (PNG, or JPEG for the scanned style).
- `model`: the ground-truth FrameCalc model as JSON text, with a `problem` block
  (category, split, notes, image style and seed, provenance) that FrameCalc readers
  ignore.
- `ground_truth`: JSON text: reactions, max |M| and where, the moment at 11 stations
  per link, provenance, and the sha256 of `model`.
- `category`: `beam`, `frame` or `truss`; `difficulty`: 1-5; `split`.
- `dimensioning`, `values`, `units`, `language`, `symbols`, `style`: the presentation
  factors of the drawing.
- `notes`: the note shown to the model with the drawing (may be empty).
- `license`: `cc-by-4.0`.
- `dxf`: the drawing as DXF text for tasks that have one, else null.

Units: m, kN, kN/m, kN·m; x right, y up; angles in degrees counter-clockwise from +x.

## Use

```python
from datasets import load_dataset

ds = load_dataset("parquet", data_files={{"{first}": "data/{first}-*.parquet"}})
row = ds["{first}"][0]
row["image"]           # PIL image
row["model"]           # FrameCalc JSON of the ground truth
```

Grading needs the StructuralEval package: `structeval.score(row["model"], answer)`
returns the staged verdict, and `python run_eval.py --data-dir <this folder>` (or
`--data-dir hf://owner/name@revision`) runs the whole benchmark on this export.

## Licence

CC BY 4.0. The problems were generated or hand-authored by the StructuralEval
project; none of the original StructuralEval benchmark's problems are included.

## Citation

```bibtex
@misc{{structuraleval,
  title  = {{StructuralEval: grading vision-language models on structural drawings with a
            finite-element solver}},
  author = {{{{StructuralEval contributors}}}},
  year   = {{2026}},
  note   = {{Dataset, CC BY 4.0}}
}}
```
"""


def dataset_card(rows: Mapping[str, int], languages: Iterable[str] = ("en",)) -> str:
    """README.md of the export: YAML front matter (licence, the drawings' languages, one
    data_files entry per split, the features, split sizes) and the description, citation
    included."""
    lines = ["---", f"license: {LICENSE}", "language:", *(f"- {x}" for x in sorted(languages)),
             "pretty_name: StructuralEval",
             "task_categories:", "- image-to-text", "- visual-question-answering",
             "tags:", "- structural-engineering", "- finite-element", "- benchmark",
             "- vision-language", "size_categories:", f"- {_size_category(sum(rows.values()))}",
             "configs:", "- config_name: default", "  data_files:"]
    for split in rows:
        lines += [f"  - split: {split}", f"    path: {DATA_FOLDER}/{split}-*.parquet"]
    lines += ["dataset_info:", "  features:"]
    for name, feature in _features().items():
        dtype = "image" if feature["_type"] == "Image" else feature["dtype"]
        lines += [f"  - name: {name}", f"    dtype: {dtype}"]
    lines += ["  splits:"]
    for split, count in rows.items():
        lines += [f"  - name: {split}", f"    num_examples: {count}"]
    lines += ["---", ""]
    return "\n".join(lines) + _CARD_BODY.format(first=next(iter(rows)))


def _size_category(n: int) -> str:
    return "n<1K" if n < 1000 else "1K<n<10K" if n < 10000 else "10K<n<100K"


# ---------------------------------------------------------------- loading an export

def is_export(root: Path) -> bool:
    """A folder written by :func:`export_dataset` (parquet under data/, no metas)."""
    return (root.is_dir() and not (root / META_DIR).is_dir()
            and any((root / DATA_FOLDER).glob("*.parquet")))


def load_export_tasks(root: Path | str, *, split: str | None,
                      categories: Sequence[str] | None, difficulties: Sequence[int] | None,
                      id_filter: str | None,
                      presentation: Mapping[str, Iterable[str]] | None) -> list[Task]:
    """The tasks of an export folder or of an ``hf://owner/name@revision`` dataset, with
    the same filters, checks and order as the folder loader."""
    rows = _hub_rows(root) if isinstance(root, str) else _folder_rows(Path(root))
    where = str(root)
    problems: list[str] = []
    metas: list[dict[str, Any]] = []
    kept: dict[str, dict[str, Any]] = {}
    for index, row in enumerate(rows):
        label = f"{where} row {index} ({row.get('id')!r})"
        try:
            meta = check_meta(row.get("ground_truth") or "", label, row.get("id"))
        except DatasetError as exc:
            problems.extend(exc.problems)
            continue
        if meta["id"] in kept:
            problems.append(f"{label}: id {meta['id']!r} appears twice")
            continue
        kept[meta["id"]] = row
        metas.append(meta)
    tasks = []
    for meta in select_metas(metas, split=split, categories=categories,
                             difficulties=difficulties, id_filter=id_filter,
                             presentation=presentation):
        try:
            tasks.append(_task_from_row(where, kept[meta["id"]], meta))
        except DatasetError as exc:
            problems.extend(exc.problems)
    if problems:
        raise DatasetError(problems)
    return sorted(tasks, key=lambda t: t.id)


def _folder_rows(root: Path) -> Iterator[dict[str, Any]]:
    pa, pq = _pyarrow()
    for path in sorted((root / DATA_FOLDER).glob("*.parquet")):
        try:
            table = pq.read_table(path)
        except (OSError, pa.ArrowException) as exc:
            raise DatasetError(f"{path}: not a readable parquet file ({exc})") from None
        missing = [c for c in COLUMNS if c not in table.column_names]
        if missing:
            raise DatasetError(f"{path}: not a StructuralEval export (columns "
                               f"{', '.join(missing)} missing)")
        yield from table.to_pylist()


def parse_hub_reference(reference: str) -> tuple[str, str | None]:
    """``hf://owner/name@revision`` → (``owner/name``, revision or None)."""
    body = reference[len(HF_SCHEME):]
    repo, _, revision = body.partition("@")
    parts = repo.split("/")
    if len(parts) != 2 or not all(is_safe_name(p) for p in parts) or (
            revision and not is_safe_name(revision)):
        raise DatasetError(f"{reference!r} is not a Hugging Face dataset reference of the "
                           "form hf://owner/name or hf://owner/name@revision")
    return repo, revision or None


def _hub_rows(reference: str) -> Iterator[dict[str, Any]]:
    repo, revision = parse_hub_reference(reference)
    try:
        import datasets
    except ImportError:
        raise DatasetError(f"loading {reference} needs the `datasets` package: "
                           f"{INSTALL_HINT}") from None
    try:
        loaded = datasets.load_dataset(repo, revision=revision)
    except Exception as exc:  # offline, unknown repo, no access: all a user-facing reason
        first = (str(exc).splitlines() or [""])[0][:300]
        raise DatasetError(f"cannot load {reference} from the Hugging Face Hub "
                           f"({type(exc).__name__}: {first}); check the name, the revision "
                           "and the network, or export a local folder with "
                           "`python tools/export_hf.py --out DIR`") from None
    for split in sorted(loaded):
        part = loaded[split]
        if "image" in part.column_names:
            part = part.cast_column("image", datasets.Image(decode=False))
        yield from part


def _task_from_row(where: str, row: dict[str, Any], meta: dict[str, Any]) -> Task:
    pid = meta["id"]
    label = f"{where}: task {pid}"
    text = row.get("model")
    if not isinstance(text, str):
        raise DatasetError(f"{label}: the model column is empty")
    if hashlib.sha256(text.encode("utf-8")).hexdigest() != meta.get("raw_model_sha256"):
        raise DatasetError(f"{label}: model and ground truth disagree (the sha256 of the "
                           "model differs from the one its ground truth was computed for)")
    try:
        model = parse_model(text)
    except ModelError as exc:
        raise DatasetError([f"{label}: invalid FrameCalc model: {i}" for i in exc.issues]) from None
    shown = Presentation.from_json(meta.get("presentation"), style=meta.get("image_style"))
    columns = {"category": meta["category"], "difficulty": meta["difficulty"],
               "split": meta["split"], "structure": meta.get("structure", pid),
               "notes": meta.get("notes", ""), **shown.to_json()}
    for key, value in columns.items():
        if row.get(key) != value:
            raise DatasetError(f"{label}: column {key} {row.get(key)!r} disagrees with the "
                               f"ground truth's {value!r}")
    image = row.get("image")
    data = image.get("bytes") if isinstance(image, dict) else None
    if not isinstance(data, bytes | bytearray) or not data:
        raise DatasetError(f"{label}: the image column holds no bytes")
    image_file = _materialise(label, bytes(data), meta["image_filename"])
    dxf = None
    if meta.get("dxf_filename"):
        if not isinstance(row.get("dxf"), str):
            raise DatasetError(f"{label}: the ground truth names a DXF drawing, the dxf "
                               "column is empty")
        dxf = _materialise(label, row["dxf"].encode("utf-8"), meta["dxf_filename"])
    return Task(pid, meta["category"], int(meta["difficulty"]), meta["split"], image_file,
                model, meta, meta.get("notes", ""), str(columns["structure"]), shown, dxf)


def _materialise(label: str, data: bytes, name: str) -> Path:
    """Bytes of a drawing as a file (the harness and reports read paths), stored once in
    the cache under their sha256 with the task's file name."""
    digest = hashlib.sha256(data).hexdigest()
    folder = cache_root() / "images" / digest
    target = folder / name
    if target.is_file() and target.stat().st_size == len(data):
        return target
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _atomic(target, lambda path: Path(path).write_bytes(data))
    except OSError as exc:
        raise DatasetError(f"{label}: cannot write the image to the cache {folder} "
                           f"({exc.strerror}); set STRUCTEVAL_CACHE to a writable folder") from None
    return target


__all__ = ["COLUMNS", "ExportSummary", "dataset_card", "export_dataset", "is_export",
           "load_export_tasks", "parse_hub_reference", "split_file"]
