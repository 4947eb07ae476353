"""Where the dataset lives and which names are safe to turn into paths.

Ids and image names come from JSON files that anyone can edit, so a name is
only ever joined to a folder after it passed :func:`is_safe_name`; that keeps a
meta from pointing the harness at files outside ``data/``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

#: The repository's ``data/`` folder (``STRUCTEVAL_DATA`` overrides it, e.g. for a copy).
DATA_DIR = Path(os.environ.get("STRUCTEVAL_DATA")
                or Path(__file__).resolve().parents[3] / "data")

RAW_DIR = "raw_models"
META_DIR = "ground_truth_meta"
IMAGE_DIR = "images"

CATEGORIES = ("beam", "frame", "truss")
DIFFICULTIES = (1, 2, 3, 4, 5)

_SAFE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,95}")


def is_safe_name(name: object) -> bool:
    """A plain file name: no separators, no '..', no hidden or absolute forms."""
    return isinstance(name, str) and bool(_SAFE.fullmatch(name)) and ".." not in name


def raw_path(data_dir: Path, problem_id: str) -> Path:
    return data_dir / RAW_DIR / f"{problem_id}.json"


def meta_path(data_dir: Path, problem_id: str) -> Path:
    return data_dir / META_DIR / f"{problem_id}.json"


def image_path(data_dir: Path, image_name: str) -> Path:
    return data_dir / IMAGE_DIR / image_name


def inside(base: Path, path: Path) -> bool:
    """True when ``path`` resolves (following symlinks) to a place under ``base``."""
    try:
        path.resolve().relative_to(base.resolve())
    except (ValueError, OSError):
        return False
    return True
