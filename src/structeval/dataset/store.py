"""Write problems into a data folder, and find what a folder already holds.

Raw files are written with ``\\n`` line ends and fixed formatting, so the same
problem always gives the same bytes (and the same sha256 in its ground truth).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from .errors import DatasetError
from .fingerprint import fingerprint
from .images import block_presentation, render_image
from .paths import IMAGE_DIR, RAW_DIR, image_path, raw_path
from .problem import Problem
from .rawfile import read_raw, render_document


def write_problem(problem: Problem, out_dir: Path, *, images: bool) -> Path:
    path = raw_path(out_dir, problem.id)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_document(problem.block, problem.model), encoding="utf-8",
                    newline="\n")
    if images:
        image = problem.block["image"]
        render_image(problem.model, image["style"], image["seed"],
                     image_path(out_dir, image["file"]), block_presentation(problem.block))
    return path


def fingerprints_in(out_dir: Path, *, except_ids: Iterable[str] = ()) -> set[str]:
    """Fingerprints of the raw problems already in ``out_dir`` (other than ``except_ids``),
    so a new run does not repeat a problem shipped by an earlier one."""
    skip = set(except_ids)
    found = set()
    for path in sorted((out_dir / RAW_DIR).glob("*.json")):
        if path.stem in skip:
            continue
        try:
            _, _, model = read_raw(path)
        except DatasetError:
            continue  # an invalid file is generate_gt's to report, not a duplicate
        found.add(fingerprint(model))
    return found


def render_missing(out_dir: Path, *, force: bool = False, progress: bool = False) -> list[str]:
    """Draw the image of every raw problem that has none (all of them with ``force``)."""
    paths: Iterable[Path] = sorted((out_dir / RAW_DIR).glob("*.json"))
    if progress:
        from tqdm import tqdm

        paths = tqdm(paths, desc="images", unit="image")
    drawn = []
    (out_dir / IMAGE_DIR).mkdir(parents=True, exist_ok=True)
    for path in paths:
        _, block, model = read_raw(path)
        image = block["image"]
        target = image_path(out_dir, image["file"])
        if force or not target.is_file():
            render_image(model, image["style"], image["seed"], target,
                         block_presentation(block))
            drawn.append(block["id"])
    return drawn
