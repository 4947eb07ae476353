"""The dataset as a Hugging Face ``datasets`` folder, ready to push to the Hub.

Why a second on-disk form: researchers load benchmarks with ``datasets`` and push
them to the Hub, where a folder of JSON files and images is not loadable. An
export is one parquet file per split (``data/<split>-00000-of-00001.parquet``)
whose ``image`` column is the ``datasets`` Image feature (a struct of bytes and
path), plus a dataset card README.md with YAML front matter. Nothing is lost: the
``model`` column is the raw problem file verbatim and ``ground_truth`` the meta
file verbatim, so :mod:`.hf_load` rebuilds exactly the :class:`Task` objects the
folder loader gives (the meta's sha256 of the raw file still guards the pair).

The export is byte-deterministic: rows in id order, splits in name order, fixed
parquet writer options, no timestamps. ``pyarrow`` is needed to write or read a
local export, ``datasets`` only for ``hf://owner/name@revision`` references
(``pip install 'structeval[hf]'``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..presentation import FACTORS
from .benchmark import benchmark_ids
from .errors import DatasetError
from .hf_card import SplitSize, dataset_card
from .hf_format import (
    DATA_FOLDER,
    LICENSE,
    pyarrow_modules,
    schema,
    split_file,
    write_atomically,
)
from .loader import Task
from .paths import meta_path, raw_path


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
    from .sources import load_tasks

    pa, pq = pyarrow_modules()
    data_dir = Path(data_dir)
    chosen = sorted(tasks if tasks is not None else load_tasks(data_dir), key=lambda t: t.id)
    if not chosen:
        raise DatasetError(f"{data_dir}: no task to export")
    unavailable = [t.unavailable for t in chosen if t.unavailable]
    if unavailable:  # an export carries every image: one not drawn yet cannot be exported
        raise DatasetError(unavailable)
    by_split: dict[str, list[dict[str, Any]]] = {}
    for task in progress(chosen) if progress else chosen:
        by_split.setdefault(task.split, []).append(_row(data_dir, task))
    out = Path(out)
    (out / DATA_FOLDER).mkdir(parents=True, exist_ok=True)
    table_schema = schema(pa)
    written = []
    sizes: dict[str, SplitSize] = {}
    for split in sorted(by_split):
        rows = by_split[split]
        table = pa.Table.from_pylist(rows, schema=table_schema)
        write_atomically(out / split_file(split), lambda path, t=table: _write_parquet(pq, t, path))
        written.append(split_file(split))
        sizes[split] = _split_size(pq, out / split_file(split))
    for stale in sorted((out / DATA_FOLDER).glob("*.parquet")):
        if f"{DATA_FOLDER}/{stale.name}" not in written:
            stale.unlink()
    card = dataset_card(sizes, {t.presentation.language for t in chosen},
                        len(benchmark_ids(chosen)))
    write_atomically(out / "README.md", lambda path: Path(path).write_text(card, encoding="utf-8"))
    return ExportSummary(out, {s: len(r) for s, r in sorted(by_split.items())},
                         (*written, "README.md"))


def _split_size(pq: Any, path: Path) -> SplitSize:
    """Rows and Arrow bytes of a written split as ``datasets`` will count them (it reads the
    file back: a table built in memory can differ by a validity bitmap), and its file size."""
    table = pq.read_table(path)
    return SplitSize(table.num_rows, table.nbytes, path.stat().st_size)


def _write_parquet(pq: Any, table: Any, path: str) -> None:
    """Fixed writer options, so the same rows give the same bytes (one row group, no
    statistics, no dictionary pages whose layout depends on value order)."""
    pq.write_table(table, path, compression="zstd", compression_level=9, use_dictionary=False,
                   write_statistics=False, row_group_size=max(table.num_rows, 1),
                   version="2.6", data_page_size=1 << 20, store_schema=True)
