"""Load the tasks of a ``data/`` folder, refusing any dataset that is unsafe, stale or incomplete.

A meta is untrusted input: its id and image name become paths only after they
passed :func:`paths.is_safe_name` and resolve inside ``data/``; a meta file (or a
raw model) that is a symbolic link resolving outside ``data/`` is refused too. A ground truth
whose recorded sha256 no longer matches its raw model was computed for a
different problem, so grading against it would be silently wrong; the loader
stops and says which command refreshes it.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..model.types import Model
from ..presentation import Presentation, PresentationError, matches
from .content_hash import read_part, task_content_sha256
from .errors import DatasetError
from .paths import (
    CATEGORIES,
    DIFFICULTIES,
    META_DIR,
    RAW_DIR,
    image_path,
    inside,
    is_safe_name,
    raw_path,
)
from .rawfile import presentation_of, read_raw, structure_of
from .sheets import Sheet, checked_sheet, image_problem

REFRESH = "run `python tools/generate_gt.py` to recompute the ground truth"


@dataclass(frozen=True)
class Task:
    """One structure in one presentation: what a model is shown and graded on.

    Tasks with the same ``structure`` share their model (the ground truth); only
    the drawing, its notes and the presentation factors differ.
    """

    id: str
    category: str
    difficulty: int
    split: str
    image_path: Path
    model: Model = field(repr=False)
    meta: dict[str, Any] = field(repr=False)
    notes: str = ""
    structure: str = ""
    presentation: Presentation = field(default_factory=Presentation)
    dxf_path: Path | None = None
    #: sha256 of the bytes the task was loaded from (:mod:`.content_hash`)
    content_sha256: str = field(default="", repr=False)
    #: a drawing-sheet task: the frame asked for and the other frames (:mod:`.sheets`)
    sheet: Sheet | None = field(default=None, repr=False)
    #: why the task cannot be shown (one sentence; a sheet image missing or not the one
    #: recorded), None when it can: the run counts it unavailable and goes on
    unavailable: str | None = None

    def factors(self) -> dict[str, str]:
        """The presentation factors, as results and reports group by them."""
        return self.presentation.to_json()


def _read_meta(path: Path) -> tuple[dict[str, Any], bytes]:
    """The checked meta and the bytes it was read from (hashed with the task)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DatasetError(f"{path}: cannot read ({exc.strerror})") from None
    return check_meta(data, str(path), path.stem), data


def check_meta(data: bytes | str, where: str, expected_id: str | None) -> dict[str, Any]:
    """A ground-truth meta (JSON text) checked field by field, or a DatasetError naming
    ``where``; ``expected_id`` is what its id must be (the file name), None to only
    require a plain name."""
    try:
        meta = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise DatasetError(f"{where}: not valid JSON ({exc}); {REFRESH}") from None
    if not isinstance(meta, dict):
        raise DatasetError(f"{where}: a ground-truth meta must be a JSON object; {REFRESH}")
    problems = []
    if not is_safe_name(meta.get("id")) or (expected_id is not None
                                            and meta.get("id") != expected_id):
        problems.append(f"id {meta.get('id')!r} must be a plain name equal to the file name "
                        f"{expected_id!r} (ids may not contain paths)")
    if not is_safe_name(meta.get("image_filename")):
        problems.append(f"image_filename {meta.get('image_filename')!r} must be a plain file "
                        "name inside data/images (no folders, no '..')")
    if meta.get("category") not in CATEGORIES:
        problems.append(f"category {meta.get('category')!r} is not one of {', '.join(CATEGORIES)}")
    level = meta.get("difficulty")
    if isinstance(level, bool) or level not in DIFFICULTIES:
        problems.append(f"difficulty {level!r} is not an integer 1-5")
    if not isinstance(meta.get("split"), str):
        problems.append("split is missing")
    if not isinstance(meta.get("notes", ""), str):
        problems.append("notes must be a string")
    if not isinstance(meta.get("solution"), dict):
        problems.append("solution is missing")
    if not is_safe_name(meta.get("structure", meta.get("id"))):
        problems.append(f"structure {meta.get('structure')!r} must be a plain name")
    try:
        Presentation.from_json(meta.get("presentation"), style=meta.get("image_style"))
    except PresentationError as exc:
        problems.append(str(exc))
    dxf = meta.get("dxf_filename")
    if dxf is not None and (not is_safe_name(dxf) or not str(dxf).endswith(".dxf")):
        problems.append(f"dxf_filename {dxf!r} must be a plain .dxf file name inside "
                        "data/images")
    if problems:
        raise DatasetError([f"{where}: {p}" for p in problems])
    return meta


def _matches(meta: dict[str, Any], split: str | None, categories: Sequence[str] | None,
             difficulties: Sequence[int] | None, id_filter: str | None,
             presentation: Mapping[str, Iterable[str]] | None = None) -> bool:
    if split is not None and meta["split"] not in split.split(","):
        return False
    if presentation and not matches(Presentation.from_json(
            meta.get("presentation"), style=meta.get("image_style")), presentation):
        return False
    if categories is not None and meta["category"] not in categories:
        return False
    if difficulties is not None and meta["difficulty"] not in difficulties:
        return False
    if id_filter:
        pattern = id_filter if any(c in id_filter for c in "*?[") else f"*{id_filter}*"
        return fnmatch.fnmatchcase(meta["id"], pattern)
    return True


def _task(data_dir: Path, meta_file: Path, meta: dict[str, Any], meta_bytes: bytes) -> Task:
    pid = meta["id"]
    image = image_path(data_dir, meta["image_filename"])
    if not inside(data_dir, image):
        raise DatasetError(f"{meta_file}: image {meta['image_filename']!r} resolves outside "
                           f"{data_dir}")
    if not image.is_file() and meta.get("sheet") is None:
        raise DatasetError(f"{meta_file}: image {image} is missing (render it with "
                           "`python tools/synthesize.py --render-missing`)")
    raw = raw_path(data_dir, pid)
    if not inside(data_dir, raw):
        raise DatasetError(f"{meta_file}: raw model of {pid!r} resolves outside {data_dir}")
    if not raw.is_file():
        raise DatasetError(f"{meta_file}: raw model {raw} is missing; restore it, or {REFRESH} "
                           "(it removes ground truth without a raw model)")
    if meta.get("raw_model", f"{RAW_DIR}/{raw.name}") != f"{RAW_DIR}/{raw.name}":
        raise DatasetError(f"{meta_file}: raw_model {meta.get('raw_model')!r} must be "
                           f"{RAW_DIR}/{raw.name}: a meta may not point at other files")
    data, block, model = read_raw(raw)
    if hashlib.sha256(data).hexdigest() != meta.get("raw_model_sha256"):
        raise DatasetError(f"{meta_file}: stale ground truth: {raw.name} changed since the ground "
                           f"truth was computed (sha256 differs); {REFRESH}")
    shown = presentation_of(block)
    for key, value in (("category", block["category"]), ("split", block["split"]),
                       ("image_filename", block["image"]["file"]),
                       ("structure", structure_of(block)),
                       ("presentation", shown.to_json()),
                       ("dxf_filename", (block.get("dxf") or {}).get("file"))):
        if meta.get(key) != value:
            raise DatasetError(f"{meta_file}: {key} {meta.get(key)!r} disagrees with the raw "
                               f"model's {value!r}; {REFRESH}")
    sheet = checked_sheet(block, meta.get("sheet"), str(meta_file))
    dxf = None
    if meta.get("dxf_filename"):
        dxf = image_path(data_dir, meta["dxf_filename"])
        if not inside(data_dir, dxf) or not dxf.is_file():
            raise DatasetError(f"{meta_file}: DXF drawing {dxf} is missing or outside "
                               f"{data_dir} (render it with `python tools/synthesize.py "
                               "--render-missing`)")
    picture = read_part(image, str(meta_file)) if image.is_file() else None
    content = task_content_sha256(pid, model=data, ground_truth=meta_bytes, image=picture,
                                  dxf=read_part(dxf, str(meta_file)) if dxf else None)
    unavailable = image_problem(pid, sheet, picture, image.name, data_dir) if sheet else None
    return Task(pid, meta["category"], int(meta["difficulty"]), meta["split"], image, model,
                meta, meta.get("notes", ""), structure_of(block), shown, dxf, content, sheet,
                unavailable)


def select_metas(metas: Iterable[dict[str, Any]], *, split: str | None,
                 categories: Sequence[str] | None, difficulties: Sequence[int] | None,
                 id_filter: str | None,
                 presentation: Mapping[str, Iterable[str]] | None) -> list[dict[str, Any]]:
    """The metas the filters keep (shared by the folder and the exported-dataset loader)."""
    return [m for m in metas
            if _matches(m, split, categories, difficulties, id_filter, presentation)]


def load_folder(data_dir: Path, *, split: str | None, categories: Sequence[str] | None,
                 difficulties: Sequence[int] | None, id_filter: str | None,
                 presentation: Mapping[str, Iterable[str]] | None) -> list[Task]:
    data_dir = Path(data_dir)
    meta_dir = data_dir / META_DIR
    if not meta_dir.is_dir():
        raise DatasetError(f"{meta_dir} does not exist: not a StructuralEval data folder")
    problems: list[str] = []
    tasks: list[Task] = []
    metas = sorted(meta_dir.glob("*.json"))
    for meta_file in metas:
        if not inside(data_dir, meta_file):
            problems.append(f"{meta_file}: a symbolic link to {meta_file.resolve()}, outside "
                            f"{data_dir}: refused (a meta may not point at other files)")
            continue
        try:
            meta, meta_bytes = _read_meta(meta_file)
            if _matches(meta, split, categories, difficulties, id_filter, presentation):
                tasks.append(_task(data_dir, meta_file, meta, meta_bytes))
        except DatasetError as exc:
            problems.extend(exc.problems)
    solved = {m.stem for m in metas}
    for raw in sorted((data_dir / RAW_DIR).glob("*.json")):
        if raw.stem not in solved:
            problems.append(f"{raw}: raw model has no ground truth yet; {REFRESH}")
    if problems:
        raise DatasetError(problems)
    return sorted(tasks, key=lambda t: t.id)
