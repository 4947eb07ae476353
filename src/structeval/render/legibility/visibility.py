"""The pixel-level visibility proof: what the record says is drawn can be *seen* in the pixels
a model receives.

The symbolic reader proves that a drawing holds every fact (it rebuilds the
structure from the layout record alone); the legibility rules prove that the
record's geometry keeps its sizes and clearances. Neither looks at pixels, so
neither sees what the style's degradation, the JPEG, the scanned tilt or the
pencil do, nor what happens when an API shrinks the image. This module does: it
scales the delivered image to a delivery profile (the long side an API shrinks it
to, :data:`.delivery.DELIVERY_LONG_SIDE`; images already smaller are not enlarged, as APIs do
not enlarge them) and then

* **texts** — every text of the record (joint letters, values, dimension texts,
  legend, notes, angles, units, page text) is cropped from its box with a small
  margin, turned upright (the scanned and exam-page tilt is known from the seed),
  enlarged for the OCR engine (enlarging adds no information: a text too small or
  too blurred to read stays unreadable) and read with Tesseract (``--psm 7`` for a
  line, ``--psm 10`` for a single character; Chinese texts with ``chi_sim``). The
  reading must equal the text exactly, after removing spaces and allowing the few
  glyphs an OCR engine spells otherwise (:func:`reads_as`: × as x, · as a dot or
  hyphen or nothing, ² as 2). Many crops go to one Tesseract process through a list
  file (one page per crop), which keeps a whole data folder within minutes.
* **glyphs** OCR cannot read — arrowheads, couple arcs and heads, hinge circles,
  support symbols — are measured: their drawn size (from the record, times the
  profile's scale) against :data:`GLYPH_MIN_PX`, and the ink contrast at their key
  points in the delivered pixels against :data:`MIN_CONTRAST`.

Faces Tesseract reads poorly by itself (the hand lettering of the ``sketch``
style) are not held to exact OCR: :data:`OCR_STYLES` lists the styles whose texts
must read exactly; the others' texts are checked by size and contrast, and their
OCR share is reported as a measurement (``tools/check_visibility.py``).

Tesseract comes from Debian's ``tesseract-ocr`` (+ ``tesseract-ocr-chi-sim``) and
is driven through ``pytesseract``; :func:`ocr_available` says whether both are
there, so tests can skip with the package name.
"""

from __future__ import annotations

import math
import os
import re
import tempfile
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps

from ..scene.layout import LayoutItem
from .delivery import profile_scale
from .glyph_sizes import MIN_ARROW_HEAD, MIN_COUPLE_HEAD, MIN_HINGE_R

#: Styles whose every text must be read exactly by OCR at the profile.
OCR_STYLES = frozenset({"cad", "textbook", "scanned", "exam-page"})
#: Pixels of margin around a text's box when it is cropped (at the profile's scale).
CROP_MARGIN = 2
#: Text crops are enlarged so their height is about this many pixels before OCR.
OCR_HEIGHT = 48
#: Smallest drawn size (delivered pixels) of the glyphs OCR cannot read.
GLYPH_MIN_PX = {"arrow": MIN_ARROW_HEAD,  # arrowhead length (the glyph-sizes rule's least)
                "couple": MIN_COUPLE_HEAD,  # the smaller of arc radius and arrowhead length
                "hinge": MIN_HINGE_R,  # circle radius
                "support": 12.0}  # joint to ground line
#: Least ink contrast (paper grey − ink grey, of 255) at a glyph's key points.
MIN_CONTRAST = 60
_PAPER_CUTOFF = 128  # darker pixels than this are ink when the paper grey is estimated
_CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")


class OcrUnavailable(RuntimeError):
    """Tesseract or pytesseract is missing (the message names the package to install)."""


def ocr_available() -> str | None:
    """None when OCR can run, else the package to install."""
    try:
        import pytesseract
    except ImportError:
        return "pytesseract (pip install pytesseract)"
    try:
        langs = set(pytesseract.get_languages(config=""))
    except (pytesseract.TesseractNotFoundError, OSError):
        return "tesseract-ocr (apt-get install tesseract-ocr tesseract-ocr-chi-sim)"
    if "chi_sim" not in langs:
        return "tesseract-ocr-chi-sim (apt-get install tesseract-ocr-chi-sim)"
    return None


# ------------------------------------------------------------------ the delivered image


def delivered(image: Image.Image, profile: int) -> tuple[Image.Image, float]:
    """(the greyscale image at the profile, its scale): resampled with a Lanczos filter, as
    image services shrink pictures."""
    grey = image.convert("L")
    scale = profile_scale(grey.size, profile)
    if scale >= 1.0:
        return grey, 1.0
    size = (max(1, round(grey.width * scale)), max(1, round(grey.height * scale)))
    return grey.resize(size, Image.Resampling.LANCZOS), scale


# ------------------------------------------------------------------ texts


@dataclass(frozen=True)
class TextReading:
    """One text of a drawing and what OCR read of it in the delivered pixels."""

    task: str
    style: str
    role: str
    text: str
    read: str
    height_px: float  # the text box's height at the profile

    @property
    def ok(self) -> bool:
        return reads_as(self.text, self.read)


def texts_of(items: Iterable[LayoutItem]) -> list[LayoutItem]:
    """The record's texts (every item that carries one)."""
    return [it for it in items if it.text is not None and it.text.strip()]


def crop_text(small: Image.Image, item: LayoutItem, scale: float,
              tilt_deg: float = 0.0) -> Image.Image:
    """A text's box from the delivered image, upright and enlarged for OCR."""
    x0, y0, x1, y1 = (v * scale for v in item.bbox)
    m = CROP_MARGIN
    box = (math.floor(x0) - m, math.floor(y0) - m, math.ceil(x1) + m, math.ceil(y1) + m)
    crop = small.crop(box)
    if tilt_deg:
        crop = crop.rotate(-tilt_deg, resample=Image.Resampling.BICUBIC, expand=True,
                           fillcolor=255)
    factor = max(1, round(OCR_HEIGHT / max(crop.height, 1)))
    if factor > 1:
        crop = crop.resize((crop.width * factor, crop.height * factor),
                           Image.Resampling.LANCZOS)
    return ImageOps.expand(crop, border=16, fill=255)


_DIGITS = "0123456789"
_VALUE = _DIGITS + "./×x·²kNmqPMa"  # numbers, units, the parametric symbols (q, P, M, a)
#: what a text of each role can hold, as a reader knows it before reading (a joint
#: letter is one capital; a load value is a number with kN or kN/m, never a capital K):
#: Tesseract is told the role's alphabet, never the text. Roles not listed (notes, the
#: legend, table cells, page texts) are read with the engine's whole alphabet.
ALPHABETS: dict[str, str] = {
    "letter": "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    **dict.fromkeys(("value", "value-start", "value-end", "far-value", "total-value",
                     "local-value"), _VALUE),
    "angle": _DIGITS + "°",
    "level-value": _DIGITS + "+-.±",
    **dict.fromkeys(("slope-run", "slope-rise"), _DIGITS),
    **dict.fromkeys(("plan-dim", "note-number"), _DIGITS + "."),
}


def _engine(text: str, role: str = "") -> tuple[str, str, str]:
    """(Tesseract language, page segmentation mode, alphabet: "" for the whole) for a
    text of ``role``."""
    lang = "chi_sim+eng" if _CJK.search(text) else "eng"
    alphabet = "" if _CJK.search(text) else ALPHABETS.get(role, "")
    return lang, "10" if len(text.strip()) == 1 else "7", alphabet


#: Crops per Tesseract process: a list of this many lines takes tens of seconds, so a
#: whole data folder is spread over every core and a stuck process is noticed.
CHUNK = 400


def read_crops(crops: Sequence[tuple[str, Image.Image]], *, timeout: float = 900.0,
               workers: int | None = None, roles: Sequence[str] | None = None) -> list[str]:
    """What Tesseract reads in each (expected text, crop), of ``roles`` (the record's role
    of each text: its :data:`ALPHABETS` entry; a crop the alphabet leaves without a
    reading is read again with the whole one). Crops are grouped by engine setting and
    fed to Tesseract as list files of :data:`CHUNK` crops (one process reads a whole
    list; its text output separates pages by form feeds), the processes spread over
    ``workers`` threads (default: every core). ``timeout`` bounds each process."""
    try:
        import pytesseract
    except ImportError:
        raise OcrUnavailable("pytesseract is not installed (pip install pytesseract)") from None
    engines = [_engine(text, roles[index] if roles else "")
               for index, (text, _) in enumerate(crops)]
    out = [""] * len(crops)
    with tempfile.TemporaryDirectory(prefix="structeval-ocr-") as folder:
        root = Path(folder)

        def run(job: tuple[tuple[str, str, str], list[int]], number: int) -> None:
            (lang, psm, alphabet), indices = job
            names = []
            for index in indices:
                path = root / f"crop-{index:06d}.png"
                crops[index][1].save(path)
                names.append(str(path))
            listing = root / f"list-{number:04d}.txt"
            listing.write_text("\n".join(names) + "\n", encoding="utf-8")
            try:
                config = f"--psm {psm}" + (f" -c tessedit_char_whitelist={alphabet}"
                                           if alphabet else "")
                text = pytesseract.image_to_string(str(listing), lang=lang, config=config,
                                                   timeout=timeout)
            except pytesseract.TesseractNotFoundError:
                raise OcrUnavailable("tesseract is not installed (apt-get install "
                                     "tesseract-ocr tesseract-ocr-chi-sim)") from None
            except RuntimeError as exc:  # pytesseract's own timeout
                raise OcrUnavailable(f"Tesseract did not read {len(indices)} crops within "
                                     f"{timeout:g} s ({exc})") from None
            for index, page in zip(indices, text.split("\f"), strict=False):
                out[index] = page.strip()

        def run_all(which: list[int], number: int) -> int:
            groups: dict[tuple[str, str, str], list[int]] = {}
            for index in which:
                groups.setdefault(engines[index], []).append(index)
            jobs = [(engine, indices[i:i + CHUNK]) for engine, indices in sorted(groups.items())
                    for i in range(0, len(indices), CHUNK)]
            with ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
                for future in [pool.submit(run, job, number + n) for n, job in enumerate(jobs)]:
                    future.result()
            return number + len(jobs)

        done = run_all(list(range(len(crops))), 0)
        # a role's alphabet can leave Tesseract with no reading at all (its best guess not
        # in it): such a crop is read once more with the whole alphabet, and that reading
        # is the one compared
        empty = [i for i, read in enumerate(out) if not read and engines[i][2]]
        for index in empty:
            engines[index] = (*engines[index][:2], "")
        run_all(empty, done)
    return out


_SPACES = re.compile(r"\s+")
_SPELLINGS = {"×": "[x×X]", "·": "[.·\\-•]?", "²": "[2²]", "−": "[-−]"}


def reads_as(expected: str, read: str) -> bool:
    """Whether OCR's ``read`` is ``expected`` exactly, spaces aside and with the × · ² −
    glyphs allowed in the spellings an OCR engine gives them."""
    pattern = "".join(_SPELLINGS.get(ch, re.escape(ch)) for ch in _SPACES.sub("", expected))
    return re.fullmatch(pattern, _SPACES.sub("", read)) is not None


# ------------------------------------------------------------------ glyphs


@dataclass(frozen=True)
class GlyphReading:
    """One glyph OCR cannot read: its drawn size and ink contrast at the profile."""

    task: str
    owner: str
    gtype: str
    size_px: float
    contrast: float

    @property
    def problems(self) -> list[str]:
        found = []
        least = GLYPH_MIN_PX[self.gtype]
        if self.size_px < least:
            found.append(f"{self.size_px:.1f} px drawn, at least {least:g} px needed")
        if self.contrast < MIN_CONTRAST:
            found.append(f"ink contrast {self.contrast:.0f}, at least {MIN_CONTRAST} needed")
        return found


def paper_grey(small: Image.Image) -> float:
    """The paper's grey level: the median of the light pixels (most of a drawing)."""
    arr = np.asarray(small, dtype=np.uint8)
    light = arr[arr >= _PAPER_CUTOFF]
    return float(np.median(light)) if light.size else 255.0


def _ink_at(arr: np.ndarray, point: tuple[float, float], scale: float, reach: int = 2
            ) -> float:
    """The darkest grey within ``reach`` px of a point (given in record pixels)."""
    x, y = round(point[0] * scale), round(point[1] * scale)
    h, w = arr.shape
    window = arr[max(0, y - reach):min(h, y + reach + 1), max(0, x - reach):min(w, x + reach + 1)]
    return float(window.min()) if window.size else 255.0


def _key_points(item: LayoutItem) -> tuple[float, list[tuple[float, float]]]:
    """(drawn size in record px, the points where its ink must show) of a glyph."""
    g = item.glyph
    assert g is not None
    if g.type == "arrow":  # the middle of the head, on the shaft's line
        head, tip, tail = g.lengths.get("head", 0.0), g.points["tip"], g.points["tail"]
        along = math.dist(tip, tail) or 1.0
        t = min(1.0, head / 2 / along)
        return head, [(tip[0] + (tail[0] - tip[0]) * t, tip[1] + (tail[1] - tip[1]) * t)]
    if g.type == "couple":  # the head (between its tip and base) and the arc's start
        size = min(g.lengths.get("r", 0.0), g.lengths.get("head", 0.0))
        tip, base = g.points["tip"], g.points.get("head_base", g.points["tip"])
        return size, [((tip[0] + base[0]) / 2, (tip[1] + base[1]) / 2), g.points["start"]]
    if g.type == "hinge":
        r, (cx, cy) = g.lengths.get("r", 0.0), g.points["centre"]
        return r, [(cx + r * math.cos(a), cy + r * math.sin(a))
                   for a in (0.0, math.pi / 2, math.pi, 3 * math.pi / 2)]
    # a support: the symbol's extent (attach → ground line; a fixed end: its hatching) and
    # its ground line, away from the members' ink
    size = g.lengths.get("size") or g.lengths.get("hatch_len", 0.0)
    line = g.paths.get("ground_line") or ()
    if len(line) >= 2:
        (ax, ay), (bx, by) = line[0], line[-1]
        return size, [((ax + bx) / 2, (ay + by) / 2)]
    return size, [g.points["attach"]]


def glyph_readings(task: str, small: Image.Image, items: Iterable[LayoutItem],
                   scale: float) -> list[GlyphReading]:
    """Size and contrast of every arrow, couple, hinge and support glyph at the profile."""
    arr = np.asarray(small, dtype=np.uint8)
    paper = paper_grey(small)
    out = []
    for item in items:
        if item.glyph is None or item.glyph.type not in GLYPH_MIN_PX:
            continue
        size, points = _key_points(item)
        ink = max(_ink_at(arr, p, scale) for p in points)  # the faintest key point counts
        out.append(GlyphReading(task, item.owner, item.glyph.type, size * scale, paper - ink))
    return out
