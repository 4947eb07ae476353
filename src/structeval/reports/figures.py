"""The input drawing of each task, as a small greyscale WebP data URI.

The report holds one input picture per task for up to a thousand tasks, so a
picture is decoded at reduced size where the format allows it (JPEG draft
mode), shrunk with a box filter and stored greyscale at moderate quality: the
drawings are black line art, which loses nothing visible in grey. WebP (every
current browser shows it) needs half JPEG's bytes for such pictures: ~2.5 kB
against 4.7 kB at 320 px, ~6.5 ms to encode (measured on the shipped tasks).
The structures themselves are drawn by the browser from numbers
(:mod:`.sketch`). A picture that cannot be made becomes a note, never an
exception.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from PIL import Image

from ..model.errors import StructEvalError

IMAGE_WIDTH = 360  # px, the widest a picture is stored by default
QUALITY = 50  # dimension labels stay legible at the stored width
WEBP_METHOD = 2  # encoder effort 0–6: 2 is within 5 % of 6's size at a quarter of its time
T = TypeVar("T")


@dataclass(frozen=True)
class Picture:
    """A data URI with its size, or the reason there is none."""

    uri: str | None
    width: int = 0
    height: int = 0
    note: str | None = None


def guarded(what: str, make: Callable[[], T]) -> tuple[T | None, str | None]:
    """``make()``, or (None, why) when it fails.

    Any exception is caught on purpose: the inputs are a model's answers and user
    files, and one the solver or the image decoder chokes on must cost that one
    figure, not the page.
    """
    try:
        return make(), None
    except StructEvalError as exc:
        return None, f"{what}: {exc}"
    except Exception as exc:  # deliberately broad: see the docstring
        return None, f"{what} failed ({type(exc).__name__}: {exc})"


def webp_uri(image: Image.Image, width: int = IMAGE_WIDTH) -> Picture:
    """Shrink to at most ``width`` pixels wide and encode; identical input, identical bytes."""
    grey = image.convert("L")
    factor = min(1.0, width / max(1, grey.width))
    if factor < 1.0:
        step = int(1 / factor) // 2  # a fast integer box reduction first, then the rest
        if step > 1:
            grey = grey.reduce(step)
        size = (max(1, round(image.width * factor)), max(1, round(image.height * factor)))
        grey = grey.resize(size, Image.Resampling.BILINEAR)
    buf = io.BytesIO()
    grey.save(buf, format="WEBP", quality=QUALITY, method=WEBP_METHOD)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return Picture(f"data:image/webp;base64,{data}", grey.width, grey.height)


def input_picture(path: Path | None, width: int = IMAGE_WIDTH) -> Picture:
    if path is None:
        return Picture(None, note="the task's image was not found in the dataset")

    def load() -> Picture:
        with Image.open(path) as img:
            full = img.size
            img.draft("L", (width, max(1, width * full[1] // max(1, full[0]))))
            img.load()
            picture = webp_uri(img, width)
        return picture

    picture, note = guarded(f"cannot read {Path(path).name}", load)
    return picture if picture is not None else Picture(None, note=note)
