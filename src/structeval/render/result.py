"""What a render returns: the picture, its layout record and the joint letters."""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

from .errors import RenderError
from .layout import LayoutItem

_FORMATS = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG"}


@dataclass(frozen=True)
class RenderResult:
    """``layout`` lists every drawn thing with its owner and box (image pixels, y down);
    ``letters`` maps each letter shown to its point id; ``scale`` is pixels per metre
    (pass it back to draw another model at the same scale)."""

    image: Image.Image
    layout: list[LayoutItem]
    letters: dict[str, str]
    scale: float
    style: str
    seed: int

    def encode(self, fmt: str = "PNG") -> bytes:
        """The image file's bytes; identical for identical inputs (no timestamps, fixed
        encoder settings)."""
        buf = io.BytesIO()
        if fmt == "JPEG":
            self.image.save(buf, format="JPEG", quality=92, optimize=False)
        else:
            self.image.save(buf, format="PNG", optimize=False, compress_level=6)
        return buf.getvalue()

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        fmt = _FORMATS.get(path.suffix.lower())
        if fmt is None:
            raise RenderError(f"cannot save {path.name}: use a .png, .jpg or .jpeg file name")
        path.write_bytes(self.encode(fmt))
        return path

    def layout_json(self) -> dict[str, Any]:
        return {"width": self.image.width, "height": self.image.height, "scale": self.scale,
                "style": self.style, "seed": self.seed, "letters": self.letters,
                "items": [it.to_json() for it in self.layout]}

    def items(self, kind: str | None = None, owner: str | None = None) -> list[LayoutItem]:
        return [it for it in self.layout if (kind is None or it.kind == kind)
                and (owner is None or it.owner == owner)]
