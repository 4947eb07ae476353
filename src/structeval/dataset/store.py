"""Write problems into a data folder, and find what a folder already holds.

Raw files are written with ``\\n`` line ends and fixed formatting, so the same
problem always gives the same bytes (and the same sha256 in its ground truth).
A problem's drawings (its image and, when ``problem.dxf`` asks for one, its DXF file)
are written beside each other in ``images/``.
"""

from __future__ import annotations

import fnmatch
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..safe_text import one_line
from .errors import DatasetError
from .fingerprint import fingerprint
from .images import render_drawings
from .paths import IMAGE_DIR, RAW_DIR, image_path, raw_path
from .problem import Problem
from .rawfile import read_raw, render_document
from .sheets import read_sheet


def dxf_target(out_dir: Path, block: dict[str, Any]) -> Path | None:
    """Where the problem's DXF file goes, or None when its block asks for none."""
    dxf = block.get("dxf")
    return image_path(out_dir, dxf["file"]) if isinstance(dxf, dict) else None


def write_problem(problem: Problem, out_dir: Path, *, images: bool) -> Path:
    """The raw file, and with ``images`` its drawings (the image, and the DXF when the
    problem block asks for one)."""
    path = raw_path(out_dir, problem.id)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_document(problem.block, problem.model), encoding="utf-8",
                    newline="\n")
    if images:
        render_drawings(problem.model, problem.block,
                        image_path(out_dir, problem.block["image"]["file"]),
                        dxf_target(out_dir, problem.block))
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


def dxf_block(problem_id: str) -> dict[str, str]:
    """The ``problem.dxf`` block of a task whose DXF file sits beside its image."""
    return {"file": f"{problem_id}.dxf"}


def with_dxf(problem: Problem) -> Problem:
    """The problem with a ``problem.dxf`` block (it keeps one it has)."""
    if problem.block.get("dxf") is not None:
        return problem
    return Problem({**problem.block, "dxf": dxf_block(problem.id)}, problem.model)


def add_dxf(out_dir: Path, pattern: str = "*") -> list[str]:
    """Give every raw problem matching ``pattern`` that has no ``problem.dxf`` one
    (the file is rewritten with that one key added, every other byte kept, so its
    sha256 changes: run ``tools/generate_gt.py`` afterwards). Returns the ids changed."""
    changed = []
    for path in _raw_files(out_dir, pattern):
        _, block, model = read_raw(path)
        if block.get("dxf") is None:
            block["dxf"] = dxf_block(block["id"])
            path.write_text(render_document(block, model), encoding="utf-8", newline="\n")
            changed.append(block["id"])
    return changed


def _raw_files(out_dir: Path, pattern: str) -> list[Path]:
    return [p for p in sorted((out_dir / RAW_DIR).glob("*.json"))
            if fnmatch.fnmatchcase(p.stem, pattern)]


@dataclass(frozen=True)
class DrawReport:
    """What :func:`draw_missing` did: the ids drawn, and one sentence per raw file that could
    not be drawn (or whose drawn sheet image is not the one its raw file records)."""

    drawn: list[str]
    failed: list[str]


def render_missing(out_dir: Path, *, force: bool = False, progress: bool = False,
                   pattern: str = "*") -> list[str]:
    """Draw the image, and the DXF its block asks for, of every raw problem (matching
    ``pattern``) that lacks them (all of them with ``force``); drawings already there are
    left untouched. Returns the ids drawn; a DatasetError lists the files that could not be
    drawn (the others are drawn all the same)."""
    report = draw_missing(out_dir, force=force, progress=progress, pattern=pattern)
    if report.failed:
        raise DatasetError(report.failed)
    return report.drawn


def draw_missing(out_dir: Path, *, force: bool = False, progress: bool = False,
                 pattern: str = "*") -> DrawReport:
    """:func:`render_missing` that goes on past a file it cannot draw and reports it.

    Why it never stops at one: a raw file is a user's (or a generator's) file, and one
    that cannot be drawn — invalid, or of a style this checkout's renderer does not draw —
    must not keep the others from being drawn. A sheet image is checked against the
    sha256 its raw file records (``problem.sheet.image_sha256``): one that differs is
    removed and reported, since the loader would refuse it anyway."""
    paths: Iterable[Path] = _raw_files(out_dir, pattern)
    if progress:
        from tqdm import tqdm

        paths = tqdm(paths, desc="drawings", unit="problem")
    drawn: list[str] = []
    failed: list[str] = []
    (out_dir / IMAGE_DIR).mkdir(parents=True, exist_ok=True)
    for path in paths:
        try:
            if _draw_one(out_dir, path, force):
                drawn.append(path.stem)
        except DatasetError as exc:
            failed.extend(exc.problems)
    return DrawReport(drawn, failed)


def _draw_one(out_dir: Path, path: Path, force: bool) -> bool:
    """Draw what one raw problem lacks; False when it lacks nothing. DatasetError (one
    sentence) when it cannot be drawn or its sheet image is not the one recorded."""
    _, block, model = read_raw(path)
    sheet = read_sheet(block, str(path))
    image = image_path(out_dir, block["image"]["file"])
    dxf = dxf_target(out_dir, block)
    want_image = force or not image.is_file()
    want_dxf = dxf is not None and (force or not dxf.is_file())
    if not (want_image or want_dxf):
        return False
    try:
        render_drawings(model, block, image if want_image else None,
                        dxf if want_dxf else None)
    except Exception as exc:  # a renderer refusal or fault: this file's, not the run's
        style = block["image"]["style"]
        detail = one_line(str(exc))[:300] or type(exc).__name__
        raise DatasetError(f"{path}: its {style} image cannot be drawn by this checkout's "
                           f"renderer ({type(exc).__name__}: {detail})") from None
    if sheet is not None and want_image:
        found = hashlib.sha256(image.read_bytes()).hexdigest()
        if found != sheet.image_sha256:
            image.unlink()
            raise DatasetError(f"{path}: the drawn sheet image has sha256 {found[:12]}…, not "
                               f"the {sheet.image_sha256[:12]}… its raw file records (another "
                               "renderer, font or library version than the dataset's); not kept")
    return True
