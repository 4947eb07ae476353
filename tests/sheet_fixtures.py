"""A small data folder of drawing-sheet tasks built from shipped raw models, for the tests of
sheet grading (the real sheets are generated and drawn elsewhere; these only need the
``problem.sheet`` interface).

The target frame ("grid line 3") is the shipped fixed-base portal; the sheet's other frames
are the three-hinged portal ("grid line 2": other geometry and hinges) and the target's
own frame under twice its loads ("grid line 4": the same structure, as when two grid lines
differ only in tributary width). The image is a small PNG drawn here; its sha256 is the
one the raw file records. A plain shipped task (a core beam, with its image) sits beside
it, so a run of the folder has a non-sheet task too.
"""

from __future__ import annotations

import copy
import hashlib
import io
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "data"
TARGET = "frame-classic-fixed-portal"
OTHER = "frame-classic-three-hinged-portal"
PLAIN = "beam-classic-gerber-3span"
SHEET_ID = "sheet-storey-s7-0003"


@dataclass(frozen=True)
class SheetFolder:
    root: Path
    sheet_id: str
    plain_id: str
    target: dict[str, Any]  # the target frame's FrameCalc document
    alternates: dict[str, dict[str, Any]]  # frame name → its FrameCalc document

    @property
    def image(self) -> Path:
        return self.root / "images" / f"{self.sheet_id}.png"


def model_document(task_id: str) -> dict[str, Any]:
    """A shipped raw model without its problem block."""
    doc = json.loads((SHIPPED / "raw_models" / f"{task_id}.json").read_text(encoding="utf-8"))
    doc.pop("problem", None)
    return doc


def doubled_loads(doc: dict[str, Any]) -> dict[str, Any]:
    """The same frame under twice its loads (another grid line's tributary width)."""
    out = copy.deepcopy(doc)
    for load in out["loads"]:
        for key in ("value", "wStart", "wEnd"):
            if key in load:
                load[key] = 2 * load[key]
    return out


def sheet_png() -> bytes:
    """A small, deterministic stand-in for a sheet image."""
    picture = Image.new("RGB", (320, 200), "white")
    pen = ImageDraw.Draw(picture)
    pen.rectangle((10, 10, 310, 190), outline="black", width=2)
    for x in (60, 160, 260):
        pen.line((x, 30, x, 170), fill="black", width=1)
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG", optimize=False, compress_level=6)
    return buffer.getvalue()


def sheet_block(image: bytes, alternates: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "frame": "3", "label": "grid line 3", "label_zh": "3 轴", "load_case": "1",
        "statement": "Model the frame on grid line 3 under load case 1.",
        "statement_zh": "按荷载工况 1 建立 3 轴框架的计算模型。",
        "alternates": [{"frame": name, "label": f"grid line {name}", "label_zh": f"{name} 轴",
                        "model": doc} for name, doc in alternates.items()],
        "image_sha256": hashlib.sha256(image).hexdigest(),
        "drawing": {"note": "fixture: not drawable"},
    }


def make_sheet_folder(root: Path, *, plain: bool = True) -> SheetFolder:
    """Write the fixture folder (raw models, images, ground truth) under ``root``."""
    from structeval.dataset.ground_truth import generate
    from structeval.dataset.rawfile import render_document
    from structeval.model import parse_model

    (root / "raw_models").mkdir(parents=True, exist_ok=True)
    (root / "images").mkdir(parents=True, exist_ok=True)
    target = model_document(TARGET)
    alternates = {"2": model_document(OTHER), "4": doubled_loads(target)}
    image = sheet_png()
    block = {"id": SHEET_ID, "category": "frame", "split": "sheets", "notes": "",
             "image": {"file": f"{SHEET_ID}.png", "style": "sheet", "seed": 7},
             "provenance": {"generator": "tests/sheet_fixtures.py"},
             "sheet": sheet_block(image, alternates)}
    (root / "raw_models" / f"{SHEET_ID}.json").write_text(
        render_document(block, parse_model(target)), encoding="utf-8", newline="\n")
    (root / "images" / f"{SHEET_ID}.png").write_bytes(image)
    if plain:
        shutil.copy(SHIPPED / "raw_models" / f"{PLAIN}.json", root / "raw_models")
        raw = json.loads((root / "raw_models" / f"{PLAIN}.json").read_text(encoding="utf-8"))
        shutil.copy(SHIPPED / "images" / raw["problem"]["image"]["file"], root / "images")
    report = generate(root)
    assert not report["errors"], report["errors"]
    return SheetFolder(root, SHEET_ID, PLAIN, target, alternates)
