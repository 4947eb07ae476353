"""``--image-mode zoom``: the sheet downscaled, and a ``zoom(x, y, width, height)`` tool.

The model sees the overview (as ``tiles`` makes it, :func:`~.tiles.sheet_overview`:
``--max-image-side``, else :data:`~.tiles.OVERVIEW_SIDE` pixels) and may ask for any
box of the native image. This module holds what does not depend on the conversation: the tool's
definition (OpenAI function-calling shape), the prompt paragraph, and
:meth:`ZoomSheet.answer`, which turns one call's arguments into a crop — or into
an explanation of why there is none. Whatever the model sends is answered:
arguments that are not JSON, not numbers, a zero or negative size, a box wholly
outside the sheet (refused and said so) or partly outside (clamped and said so),
a function that does not exist. Nothing here raises on a model's input.

Crops larger than :data:`~.tiles.TILE_SIDE` are shrunk to it, like a tile, so one
crop costs at most 765 image tokens by OpenAI's rule. Crops and their PNG bytes
are deterministic (same box, same bytes), which is what lets the response cache
serve a whole rerun of an exchange.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

from .images import MAX_IMAGE_BYTES, EncodedImage, derived_png, png_bytes, shrink
from .prompts import feedback
from .tiles import TILE_SIDE, Box, sheet_overview

#: the tool's name, as the model calls it
ZOOM = "zoom"
#: --max-zooms: calls answered with a crop per attempt, by default and at most
DEFAULT_MAX_ZOOMS = 8
MAX_ZOOMS_LIMIT = 64
_FIELDS = ("x", "y", "width", "height")


@dataclass(frozen=True)
class ZoomAnswer:
    """What one call gets: the tool message's text, and for a crop the image with the
    label that precedes it in the user message that follows. ``outcome`` is cropped |
    clamped | outside | size | arguments | unknown | limit (answered with the limit
    message) | unanswered (a call after the limit message: the attempt ended)."""

    outcome: str
    text: str
    asked: Box | None = None  # the box as asked (rounded to pixels), when it was readable
    box: Box | None = None  # the box cropped
    image: EncodedImage | None = None
    label: str = ""

    def trace_fields(self) -> dict[str, Any]:
        out: dict[str, Any] = {"outcome": self.outcome}
        if self.asked is not None:
            out["asked"] = _listed(self.asked)
        if self.box is not None and self.image is not None:
            out["box"] = _listed(self.box)
            out["crop"] = {"sha256": self.image.sha256, "bytes": self.image.size,
                           "pixels": list(self.image.pixels) if self.image.pixels else None}
        return out


def _listed(box: Box) -> list[int]:
    return [box.x, box.y, box.width, box.height]


def _number(value: Any) -> float | None:
    """A finite number, else None (a bool, a text, NaN, an integer too large for a float)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


class ZoomSheet:
    """A task image in zoom mode: the overview sent first, the native pixels kept for
    crops (the image is decoded once per task)."""

    def __init__(self, overview: EncodedImage, native: Image.Image, lang: str, max_zooms: int):
        self.overview = overview
        self.native = native
        self.lang = lang
        self.max_zooms = max_zooms
        self.width, self.height = native.size

    def intro(self) -> str:
        """The paragraph before the overview: the native size and how to zoom."""
        w, h = self.overview.pixels or (self.width, self.height)
        return feedback("zoom", self.lang, width=self.width, height=self.height, w=w, h=h,
                        side=TILE_SIDE, limit=self.max_zooms)

    def tools(self) -> list[dict[str, Any]]:
        """The Chat Completions ``tools`` list: one function, coordinates in the native
        frame (the description says so, with the native size)."""
        properties = {name: {"type": "number", "description": feedback(f"zoom.{name}",
                                                                         self.lang)}
                      for name in _FIELDS}
        return [{"type": "function", "function": {
            "name": ZOOM,
            "description": feedback("zoom.tool", self.lang, width=self.width,
                                    height=self.height),
            "parameters": {"type": "object", "properties": properties,
                           "required": list(_FIELDS), "additionalProperties": False}}}]

    def limit_text(self) -> str:
        return feedback("zoom.limit", self.lang, limit=self.max_zooms)

    def answer(self, name: str, arguments: str, index: int) -> ZoomAnswer:
        """The answer to one call (``index``: its number among this attempt's crops)."""
        if name != ZOOM:
            shown = json.dumps(name[:60], ensure_ascii=True)
            return ZoomAnswer("unknown", feedback("zoom.unknown", self.lang, name=shown))
        values, problem = self._read(arguments)
        if values is None:
            return ZoomAnswer("arguments", feedback("zoom.arguments", self.lang,
                                                    problem=problem))
        x, y, width, height = (round(v) for v in values)
        if min(values[2], values[3]) <= 0 or width < 1 or height < 1:
            return ZoomAnswer("size", feedback("zoom.size", self.lang))
        asked = Box(x, y, width, height)
        sides = {"ax0": x, "ax1": x + width, "ay0": y, "ay1": y + height,
                 "width": self.width, "height": self.height}
        left, top = max(0, x), max(0, y)
        right, bottom = min(self.width, x + width), min(self.height, y + height)
        if right <= left or bottom <= top:
            return ZoomAnswer("outside", feedback("zoom.outside", self.lang, **sides), asked)
        box = Box(left, top, right - left, bottom - top)
        crop = shrink(self.native.crop(box.corners()), TILE_SIDE)
        image = derived_png(png_bytes(crop), self.overview)
        corners = {"x0": box.x, "x1": box.x + box.width, "y0": box.y,
                   "y1": box.y + box.height}
        text = feedback("zoom.done", self.lang, index=index, cw=box.width, ch=box.height,
                        **corners)
        clamped = box != asked
        if clamped:
            text = f"{text} {feedback('zoom.clamped', self.lang, **sides)}"
        label = feedback("zoom.label", self.lang, index=index, w=crop.size[0], h=crop.size[1],
                         **corners)
        return ZoomAnswer("clamped" if clamped else "cropped", text, asked, box, image, label)

    @staticmethod
    def _read(arguments: str) -> tuple[tuple[float, ...] | None, str]:
        """(x, y, width, height) from the call's JSON text, or (None, what is wrong)."""
        try:
            data = json.loads(arguments or "{}")
        except (ValueError, RecursionError):
            return None, "they are not valid JSON"
        if not isinstance(data, dict):
            return None, "they are not a JSON object"
        missing = [k for k in _FIELDS if k not in data]
        if missing:
            return None, f"missing: {', '.join(missing)}"
        values = tuple(_number(data[k]) for k in _FIELDS)
        bad = [k for k, v in zip(_FIELDS, values, strict=True) if v is None]
        if bad:
            return None, f"not a finite number: {', '.join(bad)}"
        return values, ""  # type: ignore[return-value]


def zoom_sheet(path: Path, max_bytes: int = MAX_IMAGE_BYTES, overview_side: int | None = None,
               lang: str = "en", max_zooms: int = DEFAULT_MAX_ZOOMS) -> ZoomSheet:
    """The task image as an overview and its native pixels (ImageError when it cannot be
    read or decoded)."""
    overview, native = sheet_overview(path, max_bytes, overview_side, "zoom into it")
    return ZoomSheet(overview, native, lang, max_zooms)


__all__ = ["DEFAULT_MAX_ZOOMS", "MAX_ZOOMS_LIMIT", "ZOOM", "ZoomAnswer", "ZoomSheet",
           "zoom_sheet"]
