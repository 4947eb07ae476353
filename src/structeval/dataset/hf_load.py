"""Tasks from a Hugging Face export: a local folder written by :mod:`.hf_export`, or
``hf://owner/name@revision`` loaded with ``datasets``.

Rows become the same :class:`Task` objects the folder loader gives, with the same
filters, checks and order: the meta is checked field by field, the model must hash
to the sha256 its ground truth was computed for, the columns must agree with the
meta, and the drawing's bytes are written once to the cache (the harness and the
reports read image files).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import private_folder
from ..cachedir import cache_root
from ..model import ModelError, parse_model
from ..presentation import Presentation
from .content_hash import task_content_sha256
from .errors import DatasetError
from .hf_format import (
    COLUMNS,
    DATA_FOLDER,
    INSTALL_HINT,
    column_problems,
    pyarrow_modules,
    write_atomically,
)
from .loader import Task, check_meta, select_metas
from .paths import HF_SCHEME, META_DIR, is_safe_name
from .rawfile import PROBLEM_KEY
from .sheets import checked_sheet, image_problem


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
    reported: set[str] = set()  # a badly typed column is named once, not once per row
    for index, row in enumerate(rows):
        label = f"{where} row {index}" + (f" ({row.get('id')!r:.80})"
                                          if isinstance(row, dict) else "")
        wrong = column_problems(row)
        if wrong:
            problems.extend(f"{label}: {text}" for name, text in wrong.items()
                            if name not in reported)
            reported.update(wrong)
            continue
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
    pa, pq = pyarrow_modules()
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
    sheet = checked_sheet(_problem_block(text), meta.get("sheet"), label)
    unavailable = image_problem(pid, sheet, bytes(data), meta["image_filename"], None) \
        if sheet else None
    image_file = _materialise(label, bytes(data), meta["image_filename"])
    dxf = dxf_bytes = None
    if meta.get("dxf_filename"):
        if not isinstance(row.get("dxf"), str):
            raise DatasetError(f"{label}: the ground truth names a DXF drawing, the dxf "
                               "column is empty")
        dxf_bytes = row["dxf"].encode("utf-8")
        dxf = _materialise(label, dxf_bytes, meta["dxf_filename"])
    content = task_content_sha256(pid, model=text.encode("utf-8"),
                                  ground_truth=str(row["ground_truth"]).encode("utf-8"),
                                  image=bytes(data), dxf=dxf_bytes)
    return Task(pid, meta["category"], int(meta["difficulty"]), meta["split"], image_file,
                model, meta, meta.get("notes", ""), str(columns["structure"]), shown, dxf,
                content, sheet, unavailable)


def _problem_block(text: str) -> dict[str, Any]:
    """The ``problem`` block of a model column (the raw file verbatim; its model already
    parsed, so this JSON is known to be an object)."""
    block = json.loads(text).get(PROBLEM_KEY)
    return block if isinstance(block, dict) else {}


def _materialise(label: str, data: bytes, name: str) -> Path:
    """Bytes of a drawing as a file (the harness and reports read paths), stored once in
    the cache under their sha256 with the task's file name. A stored file is reused only
    when it holds exactly these bytes, as a regular file in folders only this user can
    write (a planted or replaced file is written over, never shown to a model)."""
    digest = hashlib.sha256(data).hexdigest()
    folder = cache_root() / "images" / digest
    target = folder / name
    if _holds(cache_root(), ("images", digest), name, data):
        return target
    try:
        private_folder.make_private(folder)  # 0700 all the way (the caches trust no other)
        write_atomically(target, lambda path: Path(path).write_bytes(data))
    except OSError as exc:
        raise DatasetError(f"{label}: cannot write the image to the cache {folder} "
                           f"({exc.strerror}); set STRUCTEVAL_CACHE to a writable folder") from None
    return target


def _holds(root: Path, parts: Sequence[str], name: str, data: bytes) -> bool:
    """Whether ``root/parts…/name`` is a regular file of exactly ``data``, reached through
    private folders without following a link (:mod:`structeval.private_folder`)."""
    try:
        with private_folder.folder(root, parts, create=False) as fd:
            return private_folder.read_regular(fd, name, len(data)) == data
    except OSError:
        return False
