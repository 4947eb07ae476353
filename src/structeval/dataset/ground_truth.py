"""Raw problem → ground-truth meta: the stored answer the benchmark grades against.

The meta is small on purpose (the original's were up to 3.5 MB): reactions as
FrameCalc reports them, the exact max |M| and where it occurs, and the moment at
11 stations per link (s = k·L/10, the value just past a load sitting exactly on
a station, like the conformance corpus). Numbers go through :func:`jsonfmt.fixed`
so a meta is the same bytes on every machine.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from ..fe import CaseSolution, MechanismError, SolverError, analyze
from ..model.geometry import model_scale
from ..model.types import Model
from ..safe_files import FileAccessError, inside_folder, is_symlink, write_atomic
from . import jsonfmt
from .difficulty import features
from .errors import DatasetError
from .loadscale import load_scales
from .paths import META_DIR, RAW_DIR, meta_path
from .rawfile import presentation_of, read_raw, structure_of
from .sheets import Sheet, read_sheet, sheet_fields
from .wellposed import near_mechanism

STATIONS = 11


def solution_summary(model: Model, solution: CaseSolution | None = None) -> dict[str, Any]:
    """Reactions, max |M| (value and place) and moment stations of the model's own loads."""
    solution = solution or analyze(model)[0]
    force, moment = load_scales(model)
    size = model_scale(model)
    r_max = max((abs(r.value) for r in solution.reactions if r.type != "rz"), default=0.0)
    m_max = solution.max_abs_moment
    f_scale, m_scale = max(r_max, force), max(m_max, moment)
    reactions = [{"atId": r.at_id, "type": r.type,
                  "value": jsonfmt.fixed(r.value, m_scale if r.type == "rz" else f_scale)}
                 for r in solution.reactions]
    peak = jsonfmt.fixed(m_max, m_scale)
    where = None
    if peak != 0:
        link_id, s = solution.max_abs_moment_at
        where = {"linkId": link_id, "s": jsonfmt.fixed(s, size)}
    stations: dict[str, list[float | int]] = {}
    k = np.arange(STATIONS, dtype=float)
    for index, link in enumerate(model.links):
        length = float(solution.lengths[index])
        _, _, m = solution.evaluate(np.full(STATIONS, index), length * k / (STATIONS - 1),
                                    side="right")
        stations[link.id] = [jsonfmt.fixed(float(v), m_scale) for v in m]
    return {"reactions": reactions, "max_abs_moment": peak, "max_abs_moment_at": where,
            "moment_stations": stations}


def build_meta(path: Path) -> dict[str, Any]:
    """The meta of one raw problem file; DatasetError when the file cannot make one."""
    data, block, model = read_raw(path)
    pid = block["id"]
    try:
        solution = analyze(model)[0]
    except MechanismError as exc:
        raise DatasetError(f"{path}: problem {pid} is not stable: {exc}") from None
    except SolverError as exc:
        raise DatasetError(f"{path}: problem {pid} cannot be solved: {exc}") from None
    reason = near_mechanism(model, solution)
    if reason is not None:
        raise DatasetError(f"{path}: problem {pid} is ill-conditioned, its answer would be "
                           f"round-off: {reason}")
    summary = solution_summary(model, solution)
    shown = presentation_of(block)
    rule = features(model, shown)
    image = block["image"]
    meta: dict[str, Any] = {
        "id": pid,
        "structure": structure_of(block),
        "presentation": shown.to_json(),
        "category": block["category"],
        "difficulty": block.get("difficulty") or rule.level(),
        "difficulty_rule": rule.level(),
        "difficulty_points": {term: n for term, n in rule.points().items() if n},
        "split": block["split"],
        "image_filename": image["file"],
        "image_style": image["style"],
        "notes": block.get("notes", ""),
        "raw_model": f"{RAW_DIR}/{path.name}",
        "raw_model_sha256": hashlib.sha256(data).hexdigest(),
        "provenance": block["provenance"],
        "units": {"force": "kN", "moment": "kN*m", "length": "m"},
        "solution": summary,
    }
    if block.get("dxf"):
        meta["dxf_filename"] = block["dxf"]["file"]
    sheet = read_sheet(block, str(path))
    if sheet is not None:
        meta["sheet"] = sheet_meta(sheet, str(path), pid)
    return meta


def sheet_meta(sheet: Sheet, where: str, pid: str) -> dict[str, Any]:
    """The sheet as the ground truth records it: the target's frame, label, load case,
    statements and image sha256, and every alternate frame with its solution (summarised
    like the target's), so that what a wrong-frame answer would have got is on record."""
    out = sheet_fields(sheet)
    for entry, alternate in zip(out["alternates"], sheet.alternates, strict=True):
        try:
            entry["solution"] = solution_summary(alternate.model)
        except (MechanismError, SolverError) as exc:
            raise DatasetError(f"{where}: problem {pid}: the frame {alternate.frame} of the "
                               f"sheet cannot be solved: {exc}") from None
    return out


def render_meta(path: Path) -> str:
    return jsonfmt.dumps(build_meta(path))


def raw_files(data_dir: Path) -> list[Path]:
    return sorted((data_dir / RAW_DIR).glob("*.json"))


def generate(data_dir: Path, out_dir: Path | None = None, *, check: bool = False,
             progress: bool = False) -> dict[str, list[str]]:
    """Write (or with ``check`` only compare) the meta of every raw model of ``data_dir``.

    ``out_dir`` defaults to ``data_dir`` (metas go to ``<out>/ground_truth_meta``).
    Returns id lists {"written", "unchanged", "stale", "removed"} and "errors": one
    message per raw file that could not be turned into a meta (the others are
    still written), each naming the file and the problem.
    """
    out_dir = out_dir or data_dir
    report: dict[str, list[str]] = {"written": [], "unchanged": [], "stale": [], "removed": []}
    errors: list[str] = []
    files = raw_files(data_dir)
    folder = out_dir / META_DIR
    if is_symlink(folder):  # every meta, and the removal of orphans, would go through it
        report["errors"] = [f"{folder}: is a symbolic link to {folder.resolve()}; refusing to "
                            "write the ground truth through it (make it a real folder)"]
        return report
    folder.mkdir(parents=True, exist_ok=True)
    for path in _progress(files, progress):
        target = meta_path(out_dir, path.stem)
        try:
            _check_links(data_dir, path, target)
            text = render_meta(path)
        except DatasetError as exc:
            errors.extend(exc.problems)
            continue
        current = target.read_text(encoding="utf-8") if target.is_file() else None
        if current == text:
            report["unchanged"].append(path.stem)
        elif check:
            report["stale"].append(path.stem)
        else:
            try:
                write_atomic(target, text.encode("utf-8"), mode=0o644)
            except FileAccessError as exc:
                errors.append(f"{target}: {exc}")
                continue
            report["written"].append(path.stem)
    wanted = {p.stem for p in files}
    for orphan in sorted((out_dir / META_DIR).glob("*.json")):
        if orphan.stem not in wanted:
            if check:
                report["stale"].append(orphan.stem)
            else:
                orphan.unlink()
                report["removed"].append(orphan.stem)
    report["errors"] = errors
    return report


def _check_links(data_dir: Path, raw: Path, meta: Path) -> None:
    """A raw model must not be a link leading outside ``data_dir`` (as the loader demands),
    and a meta is never written through a link (it could point anywhere)."""
    if not inside_folder(data_dir, raw):
        raise DatasetError(f"{raw}: a symbolic link to {raw.resolve()}, outside {data_dir}: "
                           "refused (copy the file into raw_models/ instead)")
    if is_symlink(meta):
        raise DatasetError(f"{meta}: is a symbolic link; refusing to write the ground truth "
                           "through it (remove the link, then run generate_gt.py again)")


def _progress(items: list[Path], enabled: bool) -> Iterable[Path]:
    if not enabled:
        return items
    from tqdm import tqdm

    return tqdm(items, desc="ground truth", unit="problem")
