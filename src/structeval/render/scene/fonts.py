"""Text in fixed fonts: DejaVu Serif (from matplotlib) for Latin, named Debian fonts for the rest.

System fonts differ between machines and would make the same model render to
different bytes, so no font is ever looked up by name or by fallback: Latin
letters and digits are drawn in the DejaVu Serif file matplotlib ships (a pip
dependency, so every install on every platform has the same bytes), and the few
other faces (Chinese, hand lettering) are files installed by a named Debian package
and found at fixed paths (:data:`FONT_FILES`); when one is missing the render stops
with a :class:`RenderError` naming the package.

Why a serif face: the visibility proof (``render.legibility.visibility``) reads every
text back with Tesseract, and in a sans-serif face the capital I and the small l are
one glyph ("EI" reads as "El"), and a thin leading 1 or a decimal point is lost at
the sizes a model receives. DejaVu Serif draws I, l and 1 apart and a sturdier point.

A *lettering* (:data:`LETTERINGS`) is an ordered list of fonts: each character of
a text is drawn in the first one that has a glyph for it (read from the font's
``cmap``, :mod:`.cmap`), so "EI = 常数" is drawn as "EI = " in the Latin face and
"常数" in the Chinese one, on one baseline. A text all of whose characters the Latin
face has is measured and drawn in one piece.

Drawing happens at ``SUPERSAMPLE`` times the final size and is then reduced
(Pillow draws lines without anti-aliasing); text is measured at that same size so
a label's recorded box is the box of its pixels. Which lettering measures a text
is set for a whole figure with :func:`lettering` (a context variable, so the
layout code that sizes texts does not need to be told), and each drawn text
remembers its lettering.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from PIL import ImageFont

from .cmap import FontFileError, mapped_characters
from .errors import RenderError

SUPERSAMPLE = 3
LATIN = "latin"


@dataclass(frozen=True)
class FontFile:
    """A font installed by a package, at one of a few fixed paths."""

    family: str  # the family name the face reports (picks the face of a collection)
    paths: tuple[str, ...]  # where distributions install it, tried in this order
    package: str  # the package that installs it
    purpose: str  # what needs it, for the error message
    installer: str = "apt"  # "apt" (a Debian package) or "pip" (a Python package)


def _in_python_package(package: str, relative: str) -> tuple[str, ...]:
    """Where ``relative`` lies inside the installed Python ``package`` (found without
    importing it), or nothing when the package is not installed."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return ()
    return tuple(os.path.join(d, relative) for d in spec.submodule_search_locations)


_NOTO = ("/usr/share/fonts/opentype/noto", "/usr/share/fonts/noto-cjk",
         "/usr/share/fonts/google-noto-cjk", "/usr/share/fonts/opentype/noto-cjk")

FONT_FILES: dict[str, FontFile] = {
    LATIN: FontFile("DejaVu Serif",
                    _in_python_package("matplotlib", "mpl-data/fonts/ttf/DejaVuSerif.ttf"),
                    "matplotlib", "Latin text", "pip"),
    "cjk-sans": FontFile("Noto Sans CJK SC", tuple(f"{d}/NotoSansCJK-Regular.ttc" for d in _NOTO),
                         "fonts-noto-cjk", "Chinese text"),
    "cjk-serif": FontFile("Noto Serif CJK SC",
                          tuple(f"{d}/NotoSerifCJK-Regular.ttc" for d in _NOTO),
                          "fonts-noto-cjk", "Chinese text on an exam page"),
    "hand-latin": FontFile("Comic Neue",
                           ("/usr/share/fonts/opentype/comic-neue/ComicNeue-Regular.otf",),
                           "fonts-comic-neue", "hand lettering (style sketch)"),
    "hand-cjk": FontFile("AR PL UKai CN", ("/usr/share/fonts/truetype/arphic/ukai.ttc",),
                         "fonts-arphic-ukai", "Chinese hand lettering (style sketch)"),
}

#: lettering → its fonts, in the order a character is looked up
LETTERINGS: dict[str, tuple[str, ...]] = {
    "print": (LATIN, "cjk-sans"),
    "page": (LATIN, "cjk-serif"),
    "hand": ("hand-latin", "hand-cjk", LATIN, "cjk-sans"),
}
#: lettering → characters drawn in another of its fonts than the first that has them:
#: the Chinese brush face's "×" is a dot-sized cross, so a hand-written repeat count
#: ("3 × a") takes the print face's full-size one
PREFERRED: dict[str, dict[str, str]] = {"hand": {"×": "cjk-sans"}}
#: letterings drawn character by character with a small seeded wobble (see lettering.py)
HANDWRITTEN = frozenset({"hand"})
#: extra room either side of these characters in hand lettering, of the font size: a
#: written decimal point sits apart from its digits ("3.5", never "35")
HAND_ROOM = {".": 0.14, ",": 0.1}

_current: ContextVar[str] = ContextVar("lettering", default="print")


@contextmanager
def lettering(name: str) -> Iterator[None]:
    """Measure (and record on every text drawn) in lettering ``name`` inside the block."""
    if name not in LETTERINGS:
        raise RenderError(f"unknown lettering {name!r}; one of {', '.join(LETTERINGS)}")
    token = _current.set(name)
    try:
        yield
    finally:
        _current.reset(token)


def current_lettering() -> str:
    return _current.get()


def _missing(spec: FontFile, why: str) -> RenderError:
    how = (f"the Python package {spec.package} (pip install {spec.package})"
           if spec.installer == "pip" else
           f"the Debian package {spec.package} (apt-get install -y {spec.package})")
    where = ", ".join(spec.paths) or f"{spec.package} is not installed"
    return RenderError(f"{spec.purpose} needs the font {spec.family} ({why}): install {how}; "
                       f"looked in {where}")


@cache
def located(key: str) -> tuple[str, int]:
    """(path, face index) of a named font file, or a RenderError naming its package."""
    spec = FONT_FILES[key]
    path = next((p for p in spec.paths if os.path.isfile(p)), None)
    if path is None:
        raise _missing(spec, "not installed")
    for index in range(32):
        try:
            face = ImageFont.truetype(path, 12, index=index)
        except OSError:
            break
        if face.getname()[0] == spec.family:
            return path, index
    raise _missing(spec, f"{path} has no face of that name")


def _font_bytes(key: str) -> tuple[bytes, int]:
    path, index = located(key)
    return Path(path).read_bytes(), index


@cache
def coverage(key: str) -> frozenset[int]:
    """The code points font ``key`` has a glyph for."""
    data, index = _font_bytes(key)
    try:
        return mapped_characters(data, index)
    except FontFileError as exc:
        raise RenderError(f"cannot read the character map of font {key!r}: {exc}") from exc


@lru_cache(maxsize=256)
def font_of(key: str, pixel_size: int) -> ImageFont.FreeTypeFont:
    """Font ``key`` (a :data:`FONT_FILES` key) at ``pixel_size``."""
    path, index = located(key)
    return ImageFont.truetype(path, pixel_size, index=index)


def font_for(ch: str, name: str) -> str:
    """The font of lettering ``name`` that draws character ``ch``."""
    preferred = PREFERRED.get(name, {}).get(ch)
    if preferred is not None:
        return preferred
    for key in LETTERINGS[name]:
        if ord(ch) in coverage(key):
            return key
    raise RenderError(f"no font of the {name} lettering has the character {ch!r} "
                      f"(U+{ord(ch):04X})")


@lru_cache(maxsize=8192)
def runs(text: str, name: str) -> tuple[tuple[str, str], ...]:
    """The text cut into (font, piece) runs of characters drawn in the same font."""
    out: list[tuple[str, str]] = []
    for ch in text:
        key = font_for(ch, name)
        if out and out[-1][0] == key:
            out[-1] = (key, out[-1][1] + ch)
        else:
            out.append((key, ch))
    return tuple(out)


def single_run(text: str, name: str) -> str | None:
    """The font of a text drawn in one font as one piece (the way plain Latin text always
    was), or None when it is drawn run by run on a common baseline."""
    parts = runs(text, name)
    if name in HANDWRITTEN or len(parts) != 1:
        return None
    return parts[0][0]


def pieces(text: str, px: int, name: str) -> list[tuple[str, str, float]]:
    """(font, piece, x of its baseline origin) for text drawn run by run at ``px``;
    hand lettering places every character on its own (with :data:`HAND_ROOM`)."""
    out: list[tuple[str, str, float]] = []
    x = 0.0
    hand = name in HANDWRITTEN
    for key, run in runs(text, name):
        f = font_of(key, px)
        for piece in (run if hand else [run]):
            room = HAND_ROOM.get(piece, 0.0) * px if hand else 0.0
            out.append((key, piece, x + room))
            x += f.getlength(piece) + 2 * room
    return out


@lru_cache(maxsize=8192)
def _ink_box(text: str, size: float, name: str) -> tuple[float, float, float, float]:
    px = round(size * SUPERSAMPLE)
    one = single_run(text, name)
    if one is not None or not text.strip():
        f = font_of(one or LETTERINGS[name][0], px)
        return tuple(float(v) for v in f.getbbox(text))  # type: ignore[return-value]
    box: tuple[float, float, float, float] | None = None
    for key, piece, x in pieces(text, px, name):
        if piece.isspace():
            continue
        left, top, right, bottom = (float(v) for v in font_of(key, px).getbbox(piece,
                                                                               anchor="ls"))
        here = (x + left, top, x + right, bottom)
        box = here if box is None else (min(box[0], here[0]), min(box[1], here[1]),
                                        max(box[2], here[2]), max(box[3], here[3]))
    assert box is not None
    return box


def ink_box(text: str, size: float, name: str | None = None) -> tuple[float, float, float, float]:
    """(left, top, right, bottom) of the text's ink relative to its drawing origin, in
    supersampled pixels (the origin is the top-left anchor for one-piece text, the
    baseline start for text drawn run by run)."""
    return _ink_box(text, size, name or current_lettering())


def text_size(text: str, size: float, name: str | None = None) -> tuple[float, float]:
    """Width and height of the text's ink in final pixels."""
    left, top, right, bottom = ink_box(text, size, name)
    return (right - left) / SUPERSAMPLE, (bottom - top) / SUPERSAMPLE


#: final px a text's ink may run past the width it was laid out at (the OCR proof crops a
#: text with this much margin, :data:`..legibility.visibility.CROP_MARGIN`)
FIT_TOL = 1.0
#: at most this share of its size a text is made smaller to keep inside its width
FIT_SHRINK = 0.05


def fitted_size(text: str, size: float, name: str, fit: float | None) -> float:
    """The size to draw ``text`` at so that its ink is no wider than ``fit`` final px
    (None: ``size`` itself), a supersampled pixel smaller at a time.

    Why: a layout measures a text at its design size, and the record keeps that box
    enlarged to the stored image. Drawn enlarged, the font's whole-pixel advances at the
    new size add up differently: a 98-character note drawn at 1.7× ran 7.7 px past its
    box, outside what the legibility rules check and the OCR proof crops (it lost the
    final full stop). The size found is within a few per cent of ``size``."""
    if fit is None:
        return size
    least = size * (1.0 - FIT_SHRINK)
    step = 1.0 / SUPERSAMPLE
    drawn = size
    while text_size(text, drawn, name)[0] > fit + FIT_TOL and drawn - step >= least:
        drawn -= step
    return drawn


def cap_height(size: float, name: str | None = None) -> float:
    """Height of a capital letter's ink in final pixels: how big text looks, the yardstick
    the legibility rules measure arrowheads against."""
    return text_size("H", size, name)[1]
