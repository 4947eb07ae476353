"""Task images as data URLs, typed by their bytes rather than their file names.

A ``.png`` that is really a JPEG (a scanned-style render saved under the wrong
name) would be rejected by strict endpoints if the MIME type were guessed from
the suffix, so the magic number decides. An image larger than the cap (default 20 MB, the
usual API limit per image) is refused before it is read whole, let alone
base64-encoded into a request a third larger.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from pathlib import Path

from ..model.errors import StructEvalError
from ..safe_files import FileAccessError, FileTooLarge, read_capped

MAX_IMAGE_BYTES = 20 << 20

_MAGIC = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"),
          (b"GIF87a", "image/gif"), (b"GIF89a", "image/gif"))


class ImageError(StructEvalError):
    """A task image is missing, unreadable or not an image format the APIs accept."""


@dataclass(frozen=True)
class EncodedImage:
    data_url: str
    sha256: str
    mime: str
    size: int  # bytes

    def placeholder(self) -> str:
        """What traces store instead of the (large) data URL."""
        return f"<image {self.mime} {self.size} bytes sha256={self.sha256}>"


def sniff_mime(data: bytes) -> str | None:
    for magic, mime in _MAGIC:
        if data.startswith(magic):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def encode_image(path: Path, max_bytes: int = MAX_IMAGE_BYTES) -> EncodedImage:
    """The image as a data URL; ImageError when unreadable, not an image or over the cap."""
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
    return EncodedImage(f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}",
                        hashlib.sha256(data).hexdigest(), mime, len(data))
