"""The visibility proof over a data folder: every task's record, its shipped image, OCR.

:mod:`structeval.render.legibility.visibility` reads one drawing's pixels; this
module walks a data folder (raw problems, their images), lays each task out
exactly as its image was drawn (the layout-only path of ``structeval.render``:
style, seed and presentation from the raw file) and gathers every text crop of
every task first, so that Tesseract runs once per engine setting for the whole
folder rather than once per text (the cost that decides whether a full pass fits
in minutes).
"""

from __future__ import annotations

import fnmatch
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image

from ..render.legibility.visibility import (
    OCR_STYLES,
    GlyphReading,
    TextInk,
    TextReading,
    crop_text,
    delivered,
    glyph_readings,
    read_crops_detailed,
    reading_roles,
    text_ink,
    texts_of,
)
from ..render.paint.degrade import tilt_deg
from ..render.scene.styles import STYLES
from .images import SHEET_STYLE, layout_drawing
from .paths import IMAGE_DIR, RAW_DIR
from .rawfile import presentation_of, read_raw


@dataclass
class VisibilityReport:
    """Every text reading and glyph measurement of the tasks checked."""

    profile: int
    tasks: int = 0
    texts: list[TextReading] = field(default_factory=list)
    glyphs: list[GlyphReading] = field(default_factory=list)
    inks: list[TextInk] = field(default_factory=list)  # every text's size, strokes, contrast
    #: task → (style, the image file read): what a stored proof record names and hashes
    images: dict[str, tuple[str, Path]] = field(default_factory=dict)

    def text_misses(self, styles: Iterable[str] = OCR_STYLES) -> list[TextReading]:
        """Texts of the exact-OCR styles that did not read as drawn."""
        chosen = set(styles)
        return [t for t in self.texts if t.style in chosen and not t.ok]

    def glyph_problems(self) -> list[tuple[GlyphReading, list[str]]]:
        return [(g, g.problems) for g in self.glyphs if g.problems]

    def ink_problems(self) -> list[tuple[TextInk, list[str]]]:
        """Texts (of every style) below a size, stroke or contrast minimum: the check
        that holds the hand lettering OCR does not read reliably."""
        return [(t, t.problems) for t in self.inks if t.problems]

    def shares(self) -> dict[str, tuple[int, int]]:
        """Style → (texts read exactly, texts)."""
        ok: Counter[str] = Counter()
        total: Counter[str] = Counter()
        for t in self.texts:
            total[t.style] += 1
            ok[t.style] += t.ok
        return {style: (ok[style], total[style]) for style in sorted(total)}


def raw_paths(data_dir: Path, pattern: str = "*") -> list[Path]:
    return [p for p in sorted((data_dir / RAW_DIR).glob("*.json"))
            if fnmatch.fnmatchcase(p.stem, pattern)]


def style_of(path: Path) -> str:
    """The style a raw problem file's image is drawn in."""
    _, block, _ = read_raw(path)
    return presentation_of(block).style


def check_tasks(paths: Sequence[Path], data_dir: Path, profile: int) -> VisibilityReport:
    """The proof over the tasks of ``paths`` (raw problem files of ``data_dir``)."""
    report = VisibilityReport(profile)
    pending: list[tuple[str, str, str, str, float]] = []  # task, style, role, text, height
    crops: list[tuple[str, Image.Image]] = []
    roles: list[str] = []  # the role each text is read with
    for path in paths:
        _, block, model = read_raw(path)
        image = block["image"]
        shown = presentation_of(block)
        record = layout_drawing(model, block)
        with Image.open(data_dir / IMAGE_DIR / image["file"]) as picture:
            # a sheet is read at its native size: the harness sends it whole or in tiles
            native = max(picture.size) if shown.style == SHEET_STYLE else profile
            small, scale = delivered(picture, native)
        style = STYLES[shown.style]
        tilt = tilt_deg(image["seed"]) if style.scanned or style.page else 0.0
        texts = texts_of(record.layout)
        for item, reading_role in zip(texts, reading_roles(texts), strict=True):
            crops.append((item.text or "", crop_text(small, item, scale, tilt)))
            pending.append((block["id"], shown.style, item.role, item.text or "",
                            (item.bbox[3] - item.bbox[1]) * scale))
            roles.append(reading_role)
            report.inks.append(text_ink(block["id"], shown.style, small, item, scale, tilt))
        report.glyphs += glyph_readings(block["id"], small, record.layout, scale)
        report.images[block["id"]] = (shown.style, data_dir / IMAGE_DIR / image["file"])
        report.tasks += 1
    readings = read_crops_detailed(crops, roles=roles)
    for (task, style, role, text, height), (read, setting) in zip(pending, readings,
                                                                  strict=True):
        report.texts.append(TextReading(task, style, role, text, read, height, setting))
    return report
