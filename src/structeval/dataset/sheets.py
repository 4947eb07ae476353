"""The ``problem.sheet`` block of a drawing-sheet task: which frame of the sheet the task asks
for, the other frames a reader could take for it, and the sheet image's sha256.

A sheet task is an ordinary task whose raw model is the target frame; the block adds what
grading and loading need and nothing about how the sheet is drawn (``drawing`` is the
renderer's, kept opaque here). Why the image's sha256 is part of the task: sheet images
are large and may be drawn on the user's machine by ``tools/synthesize.py
--render-missing`` instead of shipped, so the loader must know that the picture on disk is
the one the ground truth was made for before a model is shown it.
"""

from __future__ import annotations

import hashlib
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..model import ModelError, parse_model
from ..scoring.frames import FRAME_NAME, MEMBERS, Frame
from .errors import DatasetError

SHEET_KEY = "sheet"
SHEET_STYLE = "sheet"
#: the longest statement and label a sheet may carry (they reach prompts and terminals)
MAX_STATEMENT = 400
MAX_LABEL = 80
_SHA256 = re.compile(r"[0-9a-f]{64}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
#: the keys of ``problem.sheet`` (besides ``drawing``) that the ground truth repeats
META_KEYS = ("frame", "label", "label_zh", "load_case", "statement", "statement_zh",
             "image_sha256")
DRAW_COMMAND = "python tools/synthesize.py --render-missing"


@dataclass(frozen=True)
class Sheet:
    """What grading and loading need of a sheet task."""

    target: Frame
    load_case: str
    statement: str
    statement_zh: str
    image_sha256: str
    alternates: tuple[Frame, ...]

    def statement_in(self, lang: str) -> str:
        """The task's statement in ``lang`` (English when the sheet has none in it)."""
        return self.statement_zh if lang == "zh" and self.statement_zh else self.statement


def _text_problem(value: Any, name: str, limit: int, *, required: bool = True) -> str | None:
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > limit \
            or _CONTROL.search(value):
        return (f"problem.sheet.{name} must be a one-line text of 1-{limit} characters"
                + ("" if required else " (or absent)"))
    return None


def check_sheet(sheet: Any, style: Any) -> list[str]:
    """What is wrong with a ``problem.sheet`` block (empty when nothing); ``style`` is the
    image's: a sheet block belongs to style ``sheet`` and style ``sheet`` needs one."""
    if sheet is None:
        return [f'problem.image.style "{SHEET_STYLE}" needs a problem.sheet block'] \
            if style == SHEET_STYLE else []
    if not isinstance(sheet, dict):
        return ["problem.sheet must be an object (frame, label, load_case, statement, "
                "alternates, image_sha256, drawing)"]
    out = [] if style == SHEET_STYLE else [
        f'problem.sheet belongs to an image of style "{SHEET_STYLE}", not {style!r}']
    frames = [sheet.get("frame")]
    if not isinstance(sheet.get("frame"), str) or not FRAME_NAME.fullmatch(sheet["frame"]):
        out.append(f"problem.sheet.frame {sheet.get('frame')!r:.40} must be a short name "
                   "(letters, digits, '_', '-', '.', \"'\"; up to 16)")
    for name, limit, required in (("label", MAX_LABEL, True), ("label_zh", MAX_LABEL, False),
                                  ("load_case", MAX_LABEL, True),
                                  ("statement", MAX_STATEMENT, True),
                                  ("statement_zh", MAX_STATEMENT, False)):
        problem = _text_problem(sheet.get(name), name, limit, required=required)
        if problem:
            out.append(problem)
    if not isinstance(sheet.get("image_sha256"), str) \
            or not _SHA256.fullmatch(sheet["image_sha256"]):
        out.append("problem.sheet.image_sha256 must be the 64 lowercase hex digits of the "
                   "image's sha256")
    if not isinstance(sheet.get("drawing", {}), dict):
        out.append("problem.sheet.drawing must be an object (what the renderer draws)")
    alternates = sheet.get("alternates")
    if not isinstance(alternates, list) or not alternates:
        out.append("problem.sheet.alternates must list the other frames of the sheet (>= 1)")
        return out
    for index, item in enumerate(alternates):
        where = f"problem.sheet.alternates[{index}]"
        if not isinstance(item, dict) or not isinstance(item.get("model"), dict):
            out.append(f"{where} must be an object with frame, label and model")
            continue
        if not isinstance(item.get("frame"), str) or not FRAME_NAME.fullmatch(item["frame"]):
            out.append(f"{where}.frame must be a short name like the target's")
        for name, required in (("label", True), ("label_zh", False)):
            problem = _text_problem(item.get(name), name, MAX_LABEL, required=required)
            if problem:
                out.append(problem.replace("problem.sheet.", f"{where}."))
        frames.append(item.get("frame"))
    named = [f for f in frames if isinstance(f, str)]
    if len(set(named)) != len(named):
        out.append("problem.sheet: the target and its alternates must name different frames")
    return out


def read_sheet(block: dict[str, Any], where: str) -> Sheet | None:
    """The sheet of a checked ``problem`` block (None for a task that is no sheet), its
    alternates' models parsed; a DatasetError naming ``where`` for an invalid one."""
    sheet = block.get(SHEET_KEY)
    if sheet is None:
        return None
    image = block.get("image")
    problems = check_sheet(sheet, image.get("style") if isinstance(image, dict) else None)
    if problems:
        raise DatasetError([f"{where}: {p}" for p in problems])
    member = MEMBERS.get(str(block.get("category")), "frame")
    alternates = []
    for index, item in enumerate(sheet["alternates"]):
        try:
            model = parse_model(item["model"])
        except ModelError as exc:
            raise DatasetError([f"{where}: problem.sheet.alternates[{index}] (frame "
                                f"{item['frame']}): invalid FrameCalc model: {issue}"
                                for issue in exc.issues]) from None
        alternates.append(Frame(item["frame"], item["label"], model, item.get("label_zh", ""),
                                member))
    target = Frame(sheet["frame"], sheet["label"], None, sheet.get("label_zh", ""), member)
    return Sheet(target, sheet["load_case"], sheet["statement"], sheet.get("statement_zh", ""),
                 sheet["image_sha256"], tuple(alternates))


def sheet_fields(sheet: Sheet) -> dict[str, Any]:
    """The sheet as the ground truth records it, without the alternates' solutions (the
    loader compares a meta's sheet with its raw file's on these)."""
    fields: dict[str, Any] = {"frame": sheet.target.frame, "label": sheet.target.label,
                              "label_zh": sheet.target.label_zh, "load_case": sheet.load_case,
                              "statement": sheet.statement, "statement_zh": sheet.statement_zh,
                              "image_sha256": sheet.image_sha256}
    out = {k: fields[k] for k in META_KEYS if fields[k] != ""}
    out["alternates"] = [{"frame": a.frame, "label": a.label,
                          **({"label_zh": a.label_zh} if a.label_zh else {})}
                         for a in sheet.alternates]
    return out


def checked_sheet(block: dict[str, Any], recorded: Any, where: str) -> Sheet | None:
    """The sheet of a raw file's ``problem`` block, held against the ``sheet`` its ground
    truth recorded (``recorded``; None when it has none): a DatasetError when they differ,
    since then the ground truth was made for another sheet (or edited by hand)."""
    sheet = read_sheet(block, where)
    if _recorded_fields(recorded) != (sheet_fields(sheet) if sheet else None):
        raise DatasetError(f"{where}: the ground truth's sheet disagrees with the raw model's "
                           "problem.sheet; run `python tools/generate_gt.py` to recompute "
                           "the ground truth")
    return sheet


def _recorded_fields(meta_sheet: Any) -> Any:
    """A meta's ``sheet`` with the alternates' solutions left out (compared with
    :func:`sheet_fields` of the raw file)."""
    if not isinstance(meta_sheet, dict) or not isinstance(meta_sheet.get("alternates"), list):
        return meta_sheet
    return {**meta_sheet, "alternates": [
        {k: v for k, v in a.items() if k != "solution"} if isinstance(a, dict) else a
        for a in meta_sheet["alternates"]]}


def image_problem(task_id: str, sheet: Sheet, image: bytes | None, name: str,
                  data_dir: Path | str | None) -> str | None:
    """Why a sheet task's image cannot be shown (one sentence), or None when it is the one
    its ground truth was made for. ``image`` is None when the file is absent; ``data_dir``
    (a data folder) goes into the command that draws it, None for an export."""
    where = f" --data-dir {shlex.quote(str(data_dir))}" if isinstance(data_dir, Path) else ""
    if image is None:
        return (f"task {task_id}: its sheet image {name} is missing; draw it with "
                f"`{DRAW_COMMAND}{where}`")
    found = hashlib.sha256(image).hexdigest()
    if found == sheet.image_sha256:
        return None
    redraw = (f"; redraw it with `{DRAW_COMMAND} --force --filter {shlex.quote(task_id)}"
              f"{where}`" if where else "")
    return (f"task {task_id}: its sheet image {name} is not the one its ground truth was made "
            f"for (sha256 {found[:12]}… instead of {sheet.image_sha256[:12]}…){redraw}")

