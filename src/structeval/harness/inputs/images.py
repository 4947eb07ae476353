"""Task images as data URLs, typed by their bytes rather than their file names.

A ``.png`` that is really a JPEG (a scanned-style render saved under the wrong
name) would be rejected by strict endpoints if the MIME type were guessed from
the suffix, so the magic number decides. An image larger than the cap (default 20 MB, the
usual API limit per image) is refused before it is read whole, let alone
base64-encoded into a request a third larger.

``--max-image-side PX`` downscales an image whose longer side exceeds PX before it
is sent (Lanczos, aspect kept, re-encoded as PNG with fixed settings, so the same
image and Pillow give the same bytes); the trace records the original and the sent
size and the sent image's sha256, and the cache key uses the sent image. The
task's identity (its resume fingerprint) stays the original file's sha256.
"""

from __future__ import annotations

import base64
import hashlib
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image, UnidentifiedImageError

from ...model.errors import StructEvalError
from ...safe_files import FileAccessError, FileTooLarge, read_capped

MAX_IMAGE_BYTES = 20 << 20

_MAGIC = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"),
          (b"GIF87a", "image/gif"), (b"GIF89a", "image/gif"))


class ImageError(StructEvalError):
    """A task image is missing, unreadable or not an image format the APIs accept."""


@dataclass(frozen=True)
class EncodedImage:
    data_url: str
    sha256: str  # of the bytes sent
    mime: str
    size: int  # bytes sent
    original_sha256: str = ""  # of the task's file ("" = the same as sha256)
    original_size: int = 0
    original_pixels: tuple[int, int] | None = None  # (width, height); None if not decoded
    pixels: tuple[int, int] | None = None  # as sent

    @property
    def identity(self) -> str:
        """The task image's sha256 (before any downscaling): part of the task fingerprint."""
        return self.original_sha256 or self.sha256

    def placeholder(self) -> str:
        """What traces store instead of the (large) data URL."""
        return f"<image {self.mime} {self.size} bytes sha256={self.sha256}>"

    def trace_fields(self) -> dict[str, Any]:
        """Original and sent image (sizes, sha256) for the attempt record."""
        def side(pixels: tuple[int, int] | None) -> list[int] | None:
            return list(pixels) if pixels else None

        return {"original": {"sha256": self.identity, "bytes": self.original_size or self.size,
                             "pixels": side(self.original_pixels or self.pixels)},
                "sent": {"sha256": self.sha256, "bytes": self.size, "mime": self.mime,
                         "pixels": side(self.pixels)}}


def sniff_mime(data: bytes) -> str | None:
    for magic, mime in _MAGIC:
        if data.startswith(magic):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def _pixels(data: bytes) -> tuple[int, int] | None:
    try:
        with Image.open(io.BytesIO(data)) as image:
            return image.size
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        return None


def shrink(image: Image.Image, max_side: int) -> Image.Image:
    """The image scaled so that its longer side is ``max_side`` (itself when it already
    fits): Lanczos, aspect kept, RGB(A); one rule for a downscaled sheet and a tile."""
    width, height = image.size
    mode = "RGBA" if "A" in image.getbands() else "RGB"
    if max(width, height) <= max_side:
        return image.convert(mode)
    scale = max_side / max(width, height)
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    return image.convert(mode).resize(size, Image.Resampling.LANCZOS)


def png_bytes(image: Image.Image) -> bytes:
    """PNG bytes with fixed settings, so the same pixels and Pillow give the same bytes."""
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False, compress_level=6)
    return out.getvalue()


def open_image(data: bytes, why: str) -> Image.Image:
    """The decoded image (loaded, so the bytes may go); ImageError naming ``why`` otherwise."""
    try:
        with Image.open(io.BytesIO(data)) as image:
            image.load()
            return image.copy()
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError) as exc:
        raise ImageError(f"the image cannot be decoded to {why} ({exc})") from None


def downscale(data: bytes, max_side: int) -> bytes | None:
    """PNG bytes of the image shrunk so that its longer side is ``max_side`` (None when it
    already fits). Deterministic: Lanczos, RGB(A) kept, fixed PNG settings."""
    image = open_image(data, "downscale it")
    if max(image.size) <= max_side:
        return None
    return png_bytes(shrink(image, max_side))


def derived_png(data: bytes, source: EncodedImage) -> EncodedImage:
    """An image made from the task's (a tile, a downscaled sheet) as PNG ``data``: its own
    sha256 and size, the task file's identity."""
    return EncodedImage(_data_url("image/png", data), hashlib.sha256(data).hexdigest(),
                        "image/png", len(data), source.identity,
                        source.original_size or source.size,
                        source.original_pixels or source.pixels, _pixels(data))


def read_image(path: Path, max_bytes: int = MAX_IMAGE_BYTES) -> tuple[bytes, str]:
    """(bytes, MIME type) of a task image; ImageError when unreadable, not an image or over
    the cap."""
    try:
        data = read_capped(path, max_bytes, "task image")
    except FileTooLarge as exc:
        raise ImageError(f"{exc} (raise it with --max-image-mb; the API may refuse "
                         "large images anyway)") from None
    except FileAccessError as exc:
        raise ImageError(str(exc)) from None
    mime = sniff_mime(data)
    if mime is None:
        raise ImageError(f"{path} is not a PNG, JPEG, GIF or WebP image")
    return data, mime


def encode_bytes(data: bytes, mime: str, max_side: int | None = None) -> EncodedImage:
    """The image's bytes as a data URL (downscaled to ``max_side`` pixels when given and
    larger)."""
    original = hashlib.sha256(data).hexdigest()
    pixels = _pixels(data)
    whole = EncodedImage(_data_url(mime, data), original, mime, len(data), original,
                         len(data), pixels, pixels)
    small = downscale(data, max_side) if max_side is not None else None
    return whole if small is None else derived_png(small, whole)


def encode_image(path: Path, max_bytes: int = MAX_IMAGE_BYTES,
                 max_side: int | None = None) -> EncodedImage:
    """The image as a data URL (downscaled to ``max_side`` pixels when given and larger);
    ImageError when unreadable, not an image or over the cap."""
    data, mime = read_image(path, max_bytes)
    return encode_bytes(data, mime, max_side)


def _data_url(mime: str, data: bytes) -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
