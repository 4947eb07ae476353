"""Where the dataset lives and which names are safe to turn into paths.

Ids and image names come from JSON files that anyone can edit, so a name is
only ever joined to a folder after it passed :func:`is_safe_name`; that keeps a
meta from pointing the harness at files outside ``data/``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

#: ``data/`` of a checkout (``src/structeval/dataset/paths.py`` → ``data/``). In an
#: installed wheel this names a folder that does not exist, and :func:`resolve_data_dir`
#: says how to point at a dataset instead.
CHECKOUT_DATA = Path(__file__).resolve().parents[3] / "data"

#: The default dataset root at import time (``STRUCTEVAL_DATA`` overrides the checkout's
#: ``data/``). Kept for the checkout tools; code that may run from a wheel calls
#: :func:`resolve_data_dir`, which also reads the variable at call time.
DATA_DIR = Path(os.environ.get("STRUCTEVAL_DATA") or CHECKOUT_DATA)

#: Scheme of a dataset on the Hugging Face Hub: ``hf://owner/name@revision``.
HF_SCHEME = "hf://"

NOT_FOUND = ("no StructuralEval dataset found: pass --data-dir DIR (a data/ folder, an "
             "exported Hugging Face folder or hf://owner/name@revision), set "
             "STRUCTEVAL_DATA=DIR, or write an export with `python tools/export_hf.py --out "
             "DIR` in a checkout")

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


def resolve_data_dir(data_dir: str | os.PathLike[str] | None = None) -> Path | str:
    """The dataset to load: ``data_dir`` when given, else ``STRUCTEVAL_DATA``, else the
    checkout's ``data/``; an ``hf://`` reference is returned as the string it is.

    Why a function and not only :data:`DATA_DIR`: an installed wheel has no ``data/``
    beside it, and a user who has not said where the dataset is must be told the three
    ways to say it (:data:`NOT_FOUND`) instead of meeting a path inside site-packages.
    Raises DatasetError when nothing was given and no checkout dataset exists.
    """
    from .errors import DatasetNotFound

    chosen = data_dir if data_dir not in (None, "") else os.environ.get("STRUCTEVAL_DATA")
    if chosen not in (None, ""):
        text = os.fspath(chosen)  # type: ignore[arg-type]
        return text if text.startswith(HF_SCHEME) else Path(text)
    if (CHECKOUT_DATA / META_DIR).is_dir():
        return CHECKOUT_DATA
    raise DatasetNotFound(NOT_FOUND)
