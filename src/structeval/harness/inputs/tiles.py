"""``--image-mode tiles``: the whole sheet downscaled, then overlapping crops at native scale.

A model that downsizes every image to its own working resolution loses the small
texts of a large sheet (dimension values, load magnitudes). Tiles give it both
views in one user message: first the overview (the sheet shrunk to
``--max-image-side``, or to :data:`OVERVIEW_SIDE` pixels when that is not given),
then crops of at most :data:`TILE_SIDE` × :data:`TILE_SIDE` native pixels that overlap
their neighbours by at least :data:`TILE_OVERLAP` pixels (so a text cut by one tile's
edge is whole in the next), each preceded by a text label giving its pixel box in
the frame of the native image.

The token budget: at most :data:`MAX_TILES` tiles. A sheet that would need more
native-scale tiles is covered by larger boxes (grown in steps of 1/8 of the tile
side, overlap grown with them) until :data:`MAX_TILES` suffice; each such crop is
shrunk to :data:`TILE_SIDE` and its label says so. With OpenAI's image rule a tile
costs at most 765 tokens and the overview at most 765 at its default side, so the
images of one request stay under ``(MAX_TILES + 1) × 765`` = 9,945 tokens
(docs/image-modes.md). Boxes, crops and PNG bytes are deterministic.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

from .images import (
    MAX_IMAGE_BYTES,
    EncodedImage,
    derived_png,
    encode_bytes,
    open_image,
    png_bytes,
    read_image,
    shrink,
)
from .prompts import feedback

TILE_SIDE = 768
TILE_OVERLAP = 96
MAX_TILES = 12
OVERVIEW_SIDE = 1024


@dataclass(frozen=True)
class Box:
    """A pixel box in the native image's frame: ``x, y`` its top-left corner."""

    x: int
    y: int
    width: int
    height: int

    def corners(self) -> tuple[int, int, int, int]:
        """(left, top, right, bottom) as Pillow's ``crop`` takes them."""
        return self.x, self.y, self.x + self.width, self.y + self.height


def axis_spans(length: int, span: int, overlap: int) -> list[tuple[int, int]]:
    """(start, size) of the fewest windows of ``span`` pixels covering ``0..length`` with
    neighbours overlapping by at least ``overlap``; the starts spread evenly, the first at 0
    and the last ending at ``length``."""
    if length <= span:
        return [(0, length)]
    count = math.ceil((length - overlap) / (span - overlap))
    return [(round(i * (length - span) / (count - 1)), span) for i in range(count)]


def tile_boxes(width: int, height: int, *, side: int = TILE_SIDE,
               overlap: int = TILE_OVERLAP, max_tiles: int = MAX_TILES) -> list[Box]:
    """The tile boxes of a ``width`` × ``height`` sheet, row by row: native ``side`` × ``side``
    windows, or the smallest larger windows (steps of ``side / 8``) of which ``max_tiles``
    cover the sheet."""
    step = 0
    while True:
        span = side + step * side // 8
        grow = overlap + step * overlap // 8
        columns = axis_spans(width, span, grow)
        rows = axis_spans(height, span, grow)
        if len(columns) * len(rows) <= max_tiles:
            return [Box(x, y, w, h) for y, h in rows for x, w in columns]
        step += 1


@dataclass(frozen=True)
class Tile:
    box: Box
    image: EncodedImage
    label: str


@dataclass(frozen=True)
class TiledSheet:
    """The overview, the tiles and the paragraph that explains them to the model."""

    overview: EncodedImage
    tiles: tuple[Tile, ...]
    intro: str

    def trace_fields(self) -> list[dict[str, Any]]:
        return [{"box": [t.box.x, t.box.y, t.box.width, t.box.height],
                 "sha256": t.image.sha256, "bytes": t.image.size,
                 "pixels": list(t.image.pixels) if t.image.pixels else None}
                for t in self.tiles]


def sheet_overview(path: Path, max_bytes: int, overview_side: int | None,
                   why: str) -> tuple[EncodedImage, Image.Image]:
    """(the overview as sent, the decoded native image) of a task image: what both tiles
    and zoom start from (ImageError when it cannot be read or decoded)."""
    data, mime = read_image(path, max_bytes)
    overview = encode_bytes(data, mime, overview_side or OVERVIEW_SIDE)
    return overview, open_image(data, why)


def tile_sheet(path: Path, max_bytes: int = MAX_IMAGE_BYTES, overview_side: int | None = None,
               lang: str = "en") -> TiledSheet:
    """The task image as an overview and tiles (ImageError when it cannot be read)."""
    overview, image = sheet_overview(path, max_bytes, overview_side, "cut it into tiles")
    width, height = image.size
    boxes = tile_boxes(width, height)
    tiles = []
    for index, box in enumerate(boxes, 1):
        crop = shrink(image.crop(box.corners()), TILE_SIDE)
        shown = derived_png(png_bytes(crop), overview)
        native = crop.size == (box.width, box.height)
        label = feedback("tile" if native else "tile.scaled", lang, index=index,
                         count=len(boxes), x0=box.x, x1=box.x + box.width, y0=box.y,
                         y1=box.y + box.height, w=crop.size[0], h=crop.size[1])
        tiles.append(Tile(box, shown, label))
    intro = feedback("tiles", lang, count=len(boxes), width=width, height=height)
    return TiledSheet(overview, tuple(tiles), intro)


__all__ = ["MAX_TILES", "OVERVIEW_SIDE", "TILE_OVERLAP", "TILE_SIDE", "Box", "Tile",
           "TiledSheet", "axis_spans", "sheet_overview", "tile_boxes", "tile_sheet"]
