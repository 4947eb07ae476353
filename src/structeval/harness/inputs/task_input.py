"""What the model is shown of a task: its drawing as an image, or as the text of its DXF file.

``--modality image`` (the default) sends the task image as a data URL, optionally
downscaled (:mod:`.images`). ``--modality dxf`` sends no image at all: the user
message carries the task text with a paragraph saying that a DXF file follows
(:func:`.prompts.task_text`), then the file's text as a second text part. Tasks
without a DXF file are skipped by the session (and counted).

DXF files are read up to :data:`MAX_DXF_BYTES` (1 MiB by default, ``--max-dxf-kb``;
a drawing of a benchmark structure is 20–200 KB, and 1 MiB of DXF is already some
300,000 tokens); a larger file, a binary DXF or a file that is not text makes the
task unavailable with the reason, and nothing is sent: "text" means UTF-8 or
cp1252 (the ANSI files of old AutoCAD versions) without control bytes, starting
with a group code, so random or binary bytes are never sent as mojibake. The
text is sent as read. Traces store a
placeholder with the size and sha256 instead of the text, as they do for images.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...model.errors import StructEvalError
from ...safe_files import FileAccessError, FileTooLarge, read_capped
from .images import MAX_IMAGE_BYTES, EncodedImage, ImageError, encode_image
from .tiles import TiledSheet, tile_sheet
from .zoom import DEFAULT_MAX_ZOOMS, ZoomSheet, zoom_sheet

MAX_DXF_BYTES = 1 << 20
#: how an image is shown (--image-mode): as one picture, an overview and tiles (.tiles), or
#: an overview and a zoom tool (.zoom)
IMAGE_MODES = ("fit", "tiles", "zoom")
_BINARY_DXF = b"AutoCAD Binary DXF"


class DxfError(StructEvalError):
    """A task's DXF file is missing, too large, binary or not text."""


@dataclass(frozen=True)
class DxfText:
    text: str
    sha256: str  # of the text as sent (UTF-8)
    size: int  # bytes of the file

    @property
    def identity(self) -> str:
        return self.sha256

    def placeholder(self) -> str:
        return f"<dxf {self.size} bytes {len(self.text)} characters sha256={self.sha256}>"


def read_dxf(path: Path, max_bytes: int = MAX_DXF_BYTES) -> DxfText:
    """The DXF file's text; DxfError with one sentence when it cannot be sent."""
    try:
        data = read_capped(path, max_bytes, "DXF file")
    except FileTooLarge as exc:
        raise DxfError(f"{exc} (raise it with --max-dxf-kb)") from None
    except FileAccessError as exc:
        raise DxfError(str(exc)) from None
    if data.startswith(_BINARY_DXF) or b"\0" in data:
        raise DxfError(f"{path} is a binary DXF file; only text (ASCII) DXF can be sent")
    text = _dxf_text(data)
    if text is not None and not text.strip():
        raise DxfError(f"{path} is empty")
    if text is None or not _GROUP_CODE.fullmatch(
            text.lstrip("\ufeff \t\r\n").split("\n", 1)[0].strip()):
        raise DxfError(f"{path} is not a text DXF file (it should be UTF-8 or cp1252 text "
                       "of group-code and value lines, starting with a group code such as 0)")
    return DxfText(text, hashlib.sha256(text.encode("utf-8")).hexdigest(), len(data))


#: bytes no text DXF holds: C0 controls other than tab, LF and CR, and DEL (a DOS end-of-file
#: mark, Ctrl-Z, is allowed at the very end); random or binary data is full of them
_CONTROL = re.compile(rb"[\x01-\x08\x0b\x0c\x0e-\x1f\x7f]")
_GROUP_CODE = re.compile(r"\d{1,4}")


def _dxf_text(data: bytes) -> str | None:
    """The file's text in UTF-8, else in cp1252 (the ANSI files of old AutoCAD versions);
    None when it holds control bytes or is neither.

    Why strict: cp1252 maps almost every byte to a character, so decoding any bytes with
    replacement "succeeds" and a binary or random file would be sent as mojibake."""
    if _CONTROL.search(data.rstrip(b"\x1a")):
        return None
    for encoding in ("utf-8", "cp1252"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    return None


@dataclass(frozen=True)
class TaskInput:
    """The encoded input of one task and how it appears in requests and traces."""

    modality: str  # image | dxf
    shown: EncodedImage | DxfText  # with tiles: the overview
    tiled: TiledSheet | None = None  # --image-mode tiles
    zoom: ZoomSheet | None = None  # --image-mode zoom

    @property
    def identity(self) -> str:
        """sha256 of what identifies the input (the original image file, the DXF text)."""
        return self.shown.identity

    def parts(self, text: str, *, traced: bool = False) -> list[dict[str, Any]]:
        """The user message's content: the task text, then the image or the DXF text (a
        placeholder when ``traced``)."""
        first = {"type": "text", "text": text}
        if isinstance(self.shown, DxfText):
            body = self.shown.placeholder() if traced else self.shown.text
            return [first, {"type": "text", "text": body}]
        parts = [first, image_part(self.shown, traced)]
        if self.zoom is not None:
            parts.insert(1, {"type": "text", "text": self.zoom.intro()})
        if self.tiled is not None:
            parts.insert(1, {"type": "text", "text": self.tiled.intro})
            for tile in self.tiled.tiles:
                parts += [{"type": "text", "text": tile.label}, image_part(tile.image, traced)]
        return parts

    def trace_fields(self) -> dict[str, Any]:
        if isinstance(self.shown, DxfText):
            return {"dxf": {"sha256": self.shown.sha256, "bytes": self.shown.size,
                            "characters": len(self.shown.text)}}
        if self.tiled is not None:
            return {"image": self.shown.trace_fields(), "tiles": self.tiled.trace_fields()}
        if self.zoom is not None:
            return {"image": self.shown.trace_fields(),
                    "zoom": {"native_pixels": [self.zoom.width, self.zoom.height],
                             "max_zooms": self.zoom.max_zooms}}
        return {"image": self.shown.trace_fields()}

    def image_pixels(self) -> tuple[int, int] | None:
        return self.shown.pixels if isinstance(self.shown, EncodedImage) else None

    def image_sizes(self) -> dict[int, tuple[int, int]]:
        """Sent size of each image part by its position (0, 1, ...), for token estimates."""
        images: list[EncodedImage] = [self.shown] if isinstance(self.shown, EncodedImage) else []
        if self.tiled is not None:
            images += [tile.image for tile in self.tiled.tiles]
        return {i: image.pixels for i, image in enumerate(images) if image.pixels}


def image_part(image: EncodedImage, traced: bool) -> dict[str, Any]:
    """An image content part: the data URL, or in a trace its placeholder."""
    url = image.placeholder() if traced else image.data_url
    return {"type": "image_url", "image_url": {"url": url}}


def prepare_input(task: Any, modality: str, *, max_image_bytes: int = MAX_IMAGE_BYTES,
                  max_image_side: int | None = None,
                  max_dxf_bytes: int = MAX_DXF_BYTES, image_mode: str = "fit",
                  lang: str = "en", max_zooms: int | None = None) -> TaskInput:
    """Encode a task's input; ImageError / DxfError (both StructEvalError) when it cannot be
    sent. ``image_mode="tiles"`` adds the tiles (labelled in ``lang``) after the overview;
    ``"zoom"`` sends the overview with the zoom paragraph and keeps the native image for
    the crops (at most ``max_zooms`` per attempt).
    A task the loader found unshowable (``task.unavailable``: a sheet image missing or not
    the one recorded) raises ImageError with the loader's sentence, so every path that
    shows a task (run, dry run, batch, rescore, inspect) counts it unavailable."""
    unavailable = getattr(task, "unavailable", None)
    if isinstance(unavailable, str) and unavailable:
        raise ImageError(unavailable)
    if modality == "dxf":
        path = getattr(task, "dxf_path", None)
        if path is None:
            raise DxfError(f"task {task.id} has no DXF file")
        return TaskInput("dxf", read_dxf(Path(path), max_dxf_bytes))
    if image_mode == "tiles":
        tiled = tile_sheet(Path(task.image_path), max_image_bytes, max_image_side, lang)
        return TaskInput("image", tiled.overview, tiled)
    if image_mode == "zoom":
        sheet = zoom_sheet(Path(task.image_path), max_image_bytes, max_image_side, lang,
                           max_zooms or DEFAULT_MAX_ZOOMS)
        return TaskInput("image", sheet.overview, zoom=sheet)
    return TaskInput("image", encode_image(task.image_path, max_image_bytes, max_image_side))


def task_statement(task: Any, lang: str = "en") -> str | None:
    """What a drawing-sheet task asks (which frame, which load case) in ``lang``; None for
    a task that is no sheet. Only the statement leaves the task: the prompt never sees
    the sheet's other frames."""
    sheet = getattr(task, "sheet", None)
    statement_in = getattr(sheet, "statement_in", None)
    return statement_in(lang) if callable(statement_in) else None


def has_input(task: Any, modality: str) -> bool:
    """Whether the task can be shown in this modality (a DXF run skips tasks without one)."""
    return modality != "dxf" or getattr(task, "dxf_path", None) is not None


__all__ = ["IMAGE_MODES", "MAX_DXF_BYTES", "DxfError", "DxfText", "ImageError", "TaskInput",
           "has_input", "image_part", "prepare_input", "read_dxf", "task_statement"]
