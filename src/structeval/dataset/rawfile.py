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
from . import jsonfmt
from .errors import DatasetError
from .paths import CATEGORIES, DIFFICULTIES, is_safe_name

PROBLEM_KEY = "problem"
STYLES = ("cad", "textbook", "scanned")
WIDTH = 150  # one link or load per line


def render_document(block: dict[str, Any], model: Model) -> str:
    return jsonfmt.dumps({PROBLEM_KEY: block, **model_to_json(model)}, width=WIDTH)


def check_block(block: Any, stem: str | None = None) -> list[str]:
    """What is wrong with a ``problem`` block (empty when nothing)."""
    if not isinstance(block, dict):
        return [f'has no "{PROBLEM_KEY}" object (id, category, split, image, provenance)']
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
    return out


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
    block = doc.get(PROBLEM_KEY) if isinstance(doc, dict) else None
    problems = check_block(block, path.stem)
    if problems:
        raise DatasetError([f"{path}: {p}" for p in problems])
    try:
        model = parse_model(doc)
    except ModelError as exc:
        raise DatasetError([f"{path}: invalid FrameCalc model: {issue}"
                            for issue in exc.issues]) from None
    return data, block, model
