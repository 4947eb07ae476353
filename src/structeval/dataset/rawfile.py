"""The raw problem file: a FrameCalc model plus a ``problem`` block describing the task.

One file per problem keeps the model and what the benchmark says about it
(category, split, notes, image, provenance) under one sha256, so editing either
makes the stored ground truth stale. The extra key is ignored by every FrameCalc
reader (FORMAT.md §2), so the file still solves as is:
``python -m structeval solve data/raw_models/<id>.json``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..model import Model, ModelError, model_to_json, parse_model
from ..presentation import FACTORS, Presentation, PresentationError
from . import jsonfmt
from .errors import DatasetError
from .paths import CATEGORIES, DIFFICULTIES, is_safe_name
from .sheets import SHEET_KEY, check_sheet

PROBLEM_KEY = "problem"
STYLES = FACTORS["style"]
WIDTH = 150  # one link or load per line


def render_document(block: dict[str, Any], model: Model) -> str:
    return jsonfmt.dumps({PROBLEM_KEY: block, **model_to_json(model)}, width=WIDTH)


def check_block(block: Any, stem: str | None = None) -> list[str]:
    """What is wrong with a ``problem`` block (empty when nothing)."""
    if not isinstance(block, dict):
        return [f'"{PROBLEM_KEY}" must be an object (id, category, split, image, provenance)']
    out = []
    pid = block.get("id")
    if not is_safe_name(pid):
        out.append(f"problem.id {pid!r} is not a plain name (letters, digits, '_', '-', '.')")
    elif stem is not None and pid != stem:
        out.append(f'problem.id "{pid}" does not match the file name "{stem}.json"')
    if block.get("category") not in CATEGORIES:
        out.append(f"problem.category must be one of {', '.join(CATEGORIES)}, "
                   f"got {block.get('category')!r}")
    level = block.get("difficulty")
    if level is not None and (isinstance(level, bool) or level not in DIFFICULTIES):
        out.append(f"problem.difficulty must be an integer 1-5 (or absent), got {level!r}")
    if not is_safe_name(block.get("split")):
        out.append(f"problem.split must be a plain name, got {block.get('split')!r}")
    if not isinstance(block.get("notes", ""), str):
        out.append("problem.notes must be a string")
    image = block.get("image")
    if not isinstance(image, dict) or not is_safe_name(image.get("file")):
        out.append('problem.image must be {"file": <plain file name>, "style", "seed"}')
    elif image.get("style") not in STYLES or not isinstance(image.get("seed"), int):
        out.append(f"problem.image.style must be one of {', '.join(STYLES)} and "
                   "problem.image.seed an integer")
    if not isinstance(block.get("provenance"), (dict, str)):
        out.append('problem.provenance must be an object or "hand-authored"')
    structure = block.get("structure", pid)
    if not is_safe_name(structure):
        out.append(f"problem.structure {structure!r} must be a plain name (the id of the "
                   "structure this task shows; tasks showing one structure share its model)")
    out += _presentation_problems(block)
    dxf = block.get("dxf")
    if dxf is not None and (not isinstance(dxf, dict) or not is_safe_name(dxf.get("file"))
                            or not str(dxf.get("file")).endswith(".dxf")):
        out.append('problem.dxf must be {"file": <plain file name ending in .dxf>}')
    style = image.get("style") if isinstance(image, dict) else None
    out += check_sheet(block.get(SHEET_KEY), style)
    return out


def _presentation_problems(block: dict[str, Any]) -> list[str]:
    image = block.get("image") if isinstance(block.get("image"), dict) else {}
    try:
        shown = presentation_of(block)
    except PresentationError as exc:
        return [f"problem.{exc}"]
    if image.get("style") is not None and shown.style != image.get("style"):
        return [f"problem.presentation.style {shown.style!r} disagrees with "
                f"problem.image.style {image.get('style')!r}"]
    return []


def presentation_of(block: dict[str, Any]) -> Presentation:
    """The task's presentation; factors a v1 file does not name take their defaults and the
    style is the image's."""
    image = block.get("image") if isinstance(block.get("image"), dict) else {}
    style = image.get("style") if isinstance(image.get("style"), str) else None
    return Presentation.from_json(block.get("presentation"), style=style)


def structure_of(block: dict[str, Any]) -> str:
    """The id of the structure a task shows (a v1 file shows its own)."""
    return str(block.get("structure", block["id"]))


def read_raw(path: Path) -> tuple[bytes, dict[str, Any], Model]:
    """(file bytes, problem block, validated model), or a DatasetError naming the file."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DatasetError(f"{path}: cannot read raw model ({exc.strerror})") from None
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise DatasetError(f"{path}: not valid JSON ({exc})") from None
    try:
        model = parse_model(doc)
    except ModelError as exc:
        raise DatasetError([f"{path}: invalid FrameCalc model: {issue}"
                            for issue in exc.issues]) from None
    block = doc.get(PROBLEM_KEY) if isinstance(doc, dict) else None
    if block is None:
        block = inferred_block(path, model)
    problems = check_block(block, path.stem)
    if problems:
        raise DatasetError([f"{path}: {p}" for p in problems])
    return data, block, model


IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")


def inferred_block(path: Path, model: Model) -> dict[str, Any]:
    """The task description of a plain FrameCalc file a user dropped into raw_models/.

    So that adding a problem is just "model + image, then tools/generate_gt.py": the id
    is the file name, the category comes from the id's prefix or else the structure
    (every link hinged at both ends: truss; all points on one line: beam; otherwise
    frame), the image is ``images/<id>.png|.jpg|.jpeg`` (drawn by
    ``tools/synthesize.py --render-missing`` when absent), the difficulty follows the
    rule, and the provenance is "hand-authored".
    """
    from .notes import task_notes

    stem = path.stem
    prefix = stem.split("-")[0].split("_")[0].lower()
    if prefix in CATEGORIES:
        category = prefix
    elif all(lk.hinge_a and lk.hinge_b for lk in model.links):
        category = "truss"
    elif _collinear(model):
        category = "beam"
    else:
        category = "frame"
    images = path.parent.parent / "images"
    found = [stem + sfx for sfx in IMAGE_SUFFIXES if (images / (stem + sfx)).is_file()]
    return {"id": stem, "category": category, "split": "custom",
            "notes": task_notes(model, category),
            "image": {"file": found[0] if found else stem + ".png", "style": "cad", "seed": 0},
            "provenance": "hand-authored"}


def _collinear(model: Model) -> bool:
    p0 = model.points[0]
    far = max(model.points, key=lambda p: (p.x - p0.x) ** 2 + (p.y - p0.y) ** 2)
    dx, dy = far.x - p0.x, far.y - p0.y
    norm = (dx * dx + dy * dy) ** 0.5 or 1.0
    return all(abs((p.x - p0.x) * dy - (p.y - p0.y) * dx) / norm <= 1e-9 * norm
               for p in model.points)
