"""What a render returns: the picture, its layout record and the joint letters.

``FigureLayout`` is the record alone (the layout-only path: the scene is built and
placed on its canvas, tilt included, but no pixel is drawn), so a check over a
thousand tasks costs milliseconds per task; ``RenderResult`` adds the image and
carries exactly the same record.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image

from .errors import RenderError
from .layout import LayoutItem

_FORMATS = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG"}
PNG_COLOURS = 16  # a line drawing needs paper, ink and the anti-aliasing steps between
JPEG_QUALITY = 80


class _Record:
    """The layout record's views, shared by the layout-only and the full result."""

    layout: list[LayoutItem]
    letters: dict[str, str]
    scale: float
    zoom: float
    style: str
    seed: int

    @property
    def size(self) -> tuple[int, int]:
        raise NotImplementedError

    def layout_json(self) -> dict[str, Any]:
        """The record as JSON: image pixels, y down. ``scale`` is design pixels per metre
        (the image shows ``scale × zoom`` pixels per metre)."""
        width, height = self.size
        return {"width": width, "height": height, "scale": self.scale, "zoom": self.zoom,
                "style": self.style, "seed": self.seed, "letters": self.letters,
                "items": [it.to_json() for it in self.layout]}

    def items(self, kind: str | None = None, owner: str | None = None) -> list[LayoutItem]:
        return [it for it in self.layout if (kind is None or it.kind == kind)
                and (owner is None or it.owner == owner)]


@dataclass(frozen=True)
class FigureLayout(_Record):
    """The layout record of a figure without its pixels (see :func:`layout_model`)."""

    layout: list[LayoutItem]
    letters: dict[str, str]
    scale: float
    style: str
    seed: int
    width: int
    height: int
    zoom: float = 1.0

    @property
    def size(self) -> tuple[int, int]:
        return (self.width, self.height)


@dataclass(frozen=True)
class RenderResult(_Record):
    """``layout`` lists every drawn thing with its owner, box and glyph (image pixels,
    y down); ``letters`` maps each letter shown to its point id; ``scale`` is design
    pixels per metre and ``zoom`` the enlargement to the delivered size (pass both back
    to draw another model at the same scale)."""

    image: Image.Image
    layout: list[LayoutItem]
    letters: dict[str, str]
    scale: float
    style: str
    seed: int
    zoom: float = 1.0
    jpeg: bytes | None = field(default=None, repr=False)  # a scanned page's own JPEG

    @property
    def size(self) -> tuple[int, int]:
        return self.image.size

    def encode(self, fmt: str = "PNG") -> bytes:
        """The image file's bytes; identical for identical inputs (no timestamps, fixed
        encoder settings). PNGs are stored with a small palette (a line drawing has
        paper, ink and anti-aliasing steps; quantising is deterministic), which keeps a
        1,600 px figure at tens of kilobytes. A scanned page is already a JPEG: its bytes
        are returned as they are."""
        buf = io.BytesIO()
        if fmt == "JPEG" and self.jpeg is not None:
            return self.jpeg
        if fmt == "JPEG":
            self.image.save(buf, format="JPEG", quality=JPEG_QUALITY, optimize=False)
        else:
            compact_png(self.image).save(buf, format="PNG", optimize=False, compress_level=9)
        return buf.getvalue()

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        fmt = _FORMATS.get(path.suffix.lower())
        if fmt is None:
            raise RenderError(f"cannot save {path.name}: use a .png, .jpg or .jpeg file name")
        path.write_bytes(self.encode(fmt))
        return path


def compact_png(image: Image.Image, colours: int = PNG_COLOURS) -> Image.Image:
    """The image with at most ``colours`` colours (median cut, no dithering: the same
    pixels always give the same palette)."""
    return image.convert("RGB").quantize(colors=colours, method=Image.Quantize.MEDIANCUT,
                                         dither=Image.Dither.NONE)
