"""Text in the only font every Pillow ≥ 10.1 install has: the bundled TrueType face.

System fonts differ between machines and would make the same model render to
different bytes, so they are never used. Drawing happens at ``SUPERSAMPLE``
times the final size and is then reduced (Pillow draws lines without
anti-aliasing); text is measured at that same size so a label's recorded box
is the box of its pixels.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import ImageFont

from . import typeset
from .errors import RenderError

SUPERSAMPLE = 3


@lru_cache(maxsize=64)
def font(pixel_size: int) -> ImageFont.FreeTypeFont:
    try:
        f = ImageFont.load_default(size=pixel_size)
    except (OSError, TypeError, ValueError) as exc:  # pragma: no cover - old Pillow
        raise RenderError(f"Pillow cannot load its bundled TrueType font: {exc}") from exc
    if not isinstance(f, ImageFont.FreeTypeFont):  # pragma: no cover - Pillow without FreeType
        raise RenderError("Pillow was built without FreeType; scalable labels need it "
                          "(install a Pillow wheel from PyPI)")
    return f


@lru_cache(maxsize=4096)
def ink_box(text: str, size: float) -> tuple[float, float, float, float]:
    """(left, top, right, bottom) of the text's ink relative to its drawing origin, in
    supersampled pixels."""
    face = font(round(size * SUPERSAMPLE))
    if typeset.has_special(text):  # "×", "²": set in runs (the face lacks them)
        return typeset.ink_box(text, face)
    return tuple(float(v) for v in face.getbbox(text))  # type: ignore[return-value]


def text_size(text: str, size: float) -> tuple[float, float]:
    """Width and height of the text's ink in final pixels."""
    left, top, right, bottom = ink_box(text, size)
    return (right - left) / SUPERSAMPLE, (bottom - top) / SUPERSAMPLE


def cap_height(size: float) -> float:
    """Height of a capital letter's ink in final pixels: how big text looks, the yardstick
    the legibility rules measure arrowheads against."""
    return text_size("H", size)[1]
