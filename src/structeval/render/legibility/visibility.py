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
  legend, notes, angles, units, page text, a sheet's tables) is cut from the image
  upright at its own size (:func:`crop_text`: the scanned and exam-page tilt is known
  from the seed), on white paper, scaled to a fixed capital height (scaling adds no
  information: a text too small or too blurred to read stays unreadable) and read
  with Tesseract (``--psm 7`` for a line, ``--psm 10`` for a single character;
  Chinese texts with ``chi_sim`` alone), told the alphabet its role allows
  (:data:`ALPHABETS`, :func:`reading_roles`); a crop that does not read as its text
  is read again with :data:`SECOND_READINGS`. The reading must equal the text
  exactly, after removing spaces and allowing the few glyphs
  an OCR engine spells otherwise (:func:`reads_as`: × as x, · as a dot or hyphen or
  nothing, ² as 2, and a character the engine's model has no class for as any one
  character or none). Many crops go to one Tesseract process through a list file
  (one page per crop), which keeps a whole data folder within minutes.
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
import shlex
import string
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps

from ..scene.layout import LayoutItem
from .delivery import profile_scale
from .glyph_sizes import MIN_ARROW_HEAD, MIN_COUPLE_HEAD, MIN_HINGE_R, MIN_TEXT_CAP

#: Styles whose every text must be read exactly by OCR at the profile (a sheet at its
#: native size).
OCR_STYLES = frozenset({"cad", "textbook", "scanned", "exam-page", "sheet"})
#: Pixels of the delivered image kept around a text's box when it is cropped (upright);
#: what lies further out is paper to the reader (a neighbouring stroke is not the text).
CROP_MARGIN = 1
#: A text is enlarged (or reduced) so that its capitals are this many pixels high before a
#: line is read; a single character is read at :data:`OCR_CAP_SINGLE`, binarised. Both
#: were measured on the shipped drawings (docs/visibility-proof.md): the engine misreads
#: a DejaVu Serif "5" as "9" in a line enlarged by a whole factor to 60 px, and reads
#: lone capitals best smaller and in black and white.
OCR_CAP = 32.0
OCR_CAP_SINGLE = 24.0
#: White paper added round every crop before it is read.
OCR_BORDER = 16
#: Smallest drawn size (delivered pixels) of the glyphs OCR cannot read.
GLYPH_MIN_PX = {"arrow": MIN_ARROW_HEAD,  # arrowhead length (the glyph-sizes rule's least)
                "couple": MIN_COUPLE_HEAD,  # the smaller of arc radius and arrowhead length
                "hinge": MIN_HINGE_R,  # circle radius
                "support": 12.0}  # joint to ground line
#: Least ink contrast (paper grey − ink grey, of 255) at a glyph's key points, and of a
#: text's darkest ink.
MIN_CONTRAST = 60
#: Least stroke width of a text in the delivered pixels, in pixels of black a stroke
#: crosses (:func:`text_ink`). Measured over every shipped text: the exact-OCR styles
#: cross 0.78 or more (a textbook text, read exactly), the sheets 1.26; the sketch
#: style's grey pencil down to 0.58, and its texts of 0.6-0.7 px read by OCR as often as
#: its others (97.5 %). A hairline shrunk below a pixel (a 1 px outline at a quarter of
#: its size) crosses 0.44
MIN_TEXT_STROKE = 0.5
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


def engine_version() -> str:
    """Tesseract's version, as a proof record names the reader it was read with."""
    try:
        import pytesseract

        return str(pytesseract.get_tesseract_version())
    except (OSError, RuntimeError, ValueError) as exc:  # not found, not runnable, no version
        raise OcrUnavailable(f"the Tesseract version cannot be read ({exc})") from None


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
    setting: int = 0  # which reader setting read it: 0 the first, n the n-th of SECOND_READINGS

    @property
    def ok(self) -> bool:
        return reads_as(self.text, self.read)


def texts_of(items: Iterable[LayoutItem]) -> list[LayoutItem]:
    """The record's texts (every item that carries one)."""
    return [it for it in items if it.text is not None and it.text.strip()]


def upright_size(width: float, height: float, tilt_deg: float) -> tuple[float, float]:
    """The size of a text box before it was turned by ``tilt_deg`` (its record box is the
    axis-aligned box round the turned one): a long line tilted 1° is 20 px taller as
    recorded, and a crop of that height holds the next line's ink."""
    t = math.radians(abs(tilt_deg))
    c, s_ = math.cos(t), math.sin(t)
    det = c * c - s_ * s_
    if det <= 0.5:  # never for a page's few degrees; keep the record's box
        return width, height
    return max(1.0, (width * c - height * s_) / det), max(1.0, (height * c - width * s_) / det)


def _cap_px(item: LayoutItem, scale: float, height: float) -> float:
    """The text's capital height at the profile (from its glyph record), else its box's."""
    cap = item.glyph.lengths.get("cap", 0.0) if item.glyph is not None else 0.0
    return cap * scale if cap > 0 else height


def _binarised(crop: Image.Image) -> Image.Image:
    """Black ink on white paper, split at Otsu's threshold (the grey that best separates
    the crop's two populations)."""
    arr = np.asarray(crop, dtype=np.uint8)
    hist = np.bincount(arr.ravel(), minlength=256).astype(np.float64)
    weight = hist.cumsum()
    mean = (hist * np.arange(256)).cumsum()
    total, mean_total = weight[-1], mean[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        between = (mean_total * weight / total - mean) ** 2 / (weight * (total - weight))
    threshold = int(np.nanargmax(between)) if np.isfinite(between).any() else 127
    return Image.fromarray(np.where(arr > threshold, 255, 0).astype(np.uint8))


def upright_crop(small: Image.Image, item: LayoutItem, scale: float,
                 tilt_deg: float = 0.0) -> tuple[Image.Image, float]:
    """(a text's box cut upright from the delivered image with :data:`CROP_MARGIN` px
    round it, on white paper, at the delivered size; the paper's grey it was divided by).

    Why each step: the paper of the scanned, pencil and page styles is grey, and a crop
    pasted on a white border then shows an edge the engine reads as a mark; the region
    is turned upright before the box is cut, so a long tilted line does not bring its
    neighbours' ink; only :data:`CROP_MARGIN` px round the box are kept, since a
    reader does not take a nearby tick or member for part of a text."""
    x0, y0, x1, y1 = (v * scale for v in item.bbox)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    w, h = upright_size(x1 - x0, y1 - y0, tilt_deg)
    reach = math.ceil(max(x1 - x0, y1 - y0) / 2) + 8
    region = small.crop((math.floor(cx) - reach, math.floor(cy) - reach,
                         math.floor(cx) + reach + 1, math.floor(cy) + reach + 1))
    arr = np.asarray(region, dtype=np.float32)
    paper = float(np.percentile(arr, 90)) if arr.size else 255.0
    region = Image.fromarray(np.clip(arr * (255.0 / max(paper, 1.0)), 0, 255).astype(np.uint8))
    ox, oy = cx - (math.floor(cx) - reach), cy - (math.floor(cy) - reach)  # its centre there
    if tilt_deg:
        region = region.rotate(-tilt_deg, resample=Image.Resampling.BICUBIC, fillcolor=255,
                               center=(ox, oy))
    m = CROP_MARGIN
    return region.crop((round(ox - w / 2 - m), round(oy - h / 2 - m),
                        round(ox + w / 2 + m), round(oy + h / 2 + m))), paper


def crop_text(small: Image.Image, item: LayoutItem, scale: float,
              tilt_deg: float = 0.0) -> Image.Image:
    """A text's box from the delivered image (:func:`upright_crop`), at the size the
    engine reads best: set from the text's capital height, not its box, as a page
    line's box holds its leading. None of this adds information: a text too small or
    too blurred to read in the delivered pixels stays unreadable."""
    crop, _ = upright_crop(small, item, scale, tilt_deg)
    h = upright_size((item.bbox[2] - item.bbox[0]) * scale, (item.bbox[3] - item.bbox[1]) * scale,
                     tilt_deg)[1]
    single = len((item.text or "").strip()) == 1
    factor = (OCR_CAP_SINGLE if single else OCR_CAP) / max(_cap_px(item, scale, h), 1.0)
    crop = crop.resize((max(1, round(crop.width * factor)), max(1, round(crop.height * factor))),
                       Image.Resampling.LANCZOS)
    if single:
        crop = _binarised(crop)
    return ImageOps.expand(crop, border=OCR_BORDER, fill=255)


_DIGITS = "0123456789"
_CAPITALS = string.ascii_uppercase
_SMALL = string.ascii_lowercase
_VALUE = _DIGITS + "./×x·²kNmqPMa"  # numbers, units, the parametric symbols (q, P, M, a)
#: what a text of each role can hold, as a reader knows it before reading (a joint
#: letter is one capital; a load value is a number with kN or kN/m, never a capital K):
#: Tesseract is told the role's alphabet, never the text. Roles not listed (a page's
#: texts, a table's descriptions) are read with the engine's whole alphabet; a text with
#: Chinese characters always is (:func:`_engine`).
ALPHABETS: dict[str, str] = {
    "letter": _CAPITALS,
    **dict.fromkeys(("value", "value-start", "value-end", "far-value", "total-value",
                     "local-value"), _VALUE),
    "angle": _DIGITS + "°",
    "level-value": _DIGITS + "+-.±",
    **dict.fromkeys(("slope-run", "slope-rise"), _DIGITS),
    **dict.fromkeys(("plan-dim", "note-number"), _DIGITS + "."),
    "legend": _VALUE + "=,",  # the parameters' values: "q = 20 kN/m, P = 20 kN, a = 1.5 m"
    # a sheet's grid bubble holds a grid line's letter or number; a load table's cell is
    # read as its column says (:func:`reading_roles`): a reference ("Q1"), a value, a factor
    "bubble-label": _CAPITALS + _DIGITS,
    "cell-ref": _CAPITALS + _DIGITS,
    "cell-value": _VALUE + "sdrwn",  # "7.5 kN/m²", or "as drawn" for the drawn loads
    "cell-factor": _DIGITS + ".—",
    "drawing-number": _CAPITALS + _DIGITS + "-",
    # a figure's or a sheet's notes: English prose that states its units in SI symbols,
    # which have no capital K (kN is never KN). Read with the whole alphabet, the engine
    # doubled the k of "kN, kN/m and kN/m²" on 72 sheets even drawn clean at 32 px
    # capitals (docs/visibility-proof.md)
    "note": _CAPITALS.replace("K", "") + _SMALL + _DIGITS + ".,;:()/-'=²",
}
#: a load table's column heading → the role its cells are read with
_COLUMNS = {"REF": "cell-ref", "VALUE": "cell-value", "LC": "cell-factor"}
#: a title block's label → the role of the value beside it (a lone "C" is a capital only
#: by its place: drawn alone, a serif C and c differ in size alone)
_TITLE_LABELS = {"REVISION": "letter", "DRAWING NO.": "drawing-number"}


def reading_roles(items: Sequence[LayoutItem]) -> list[str]:
    """The role each text is read with (its :data:`ALPHABETS` entry): the record's role,
    but for a load-table cell the role of its column, told by the heading it stands
    under (left edges aligned), and for a title-block value the role its label on the
    same row gives it, as a reader reads the heading or the label first."""
    headings = [it for it in items if it.role == "header" and it.text]
    labels = [it for it in items if it.role == "title-cell" and it.text in _TITLE_LABELS]
    out = []
    for it in items:
        role = it.role
        if role == "title-cell":
            beside = [lab for lab in labels if lab.bbox[2] <= it.bbox[0]
                      and abs((lab.bbox[1] + lab.bbox[3]) - (it.bbox[1] + it.bbox[3])) <= 6.0]
            if beside:
                role = _TITLE_LABELS[max(beside, key=lambda lab: lab.bbox[2]).text or ""]
        elif role == "cell":
            above = [h for h in headings if abs(h.bbox[0] - it.bbox[0]) <= 2.0
                     and h.bbox[3] <= it.bbox[1]]
            if above:
                heading = max(above, key=lambda h: h.bbox[3]).text or ""
                role = _COLUMNS.get(heading.split(" ")[0], role)
        out.append(role)
    return out


def _engine(text: str, role: str = "") -> tuple[str, str, str]:
    """(Tesseract language, page segmentation mode, alphabet: "" for the whole) for a
    text of ``role``."""
    # a text with Chinese characters is read with the Chinese model alone (it holds Latin
    # letters and digits too): given both, the engine reads a Chinese note as English
    # garbage ("AHIR im A BIR." for 本桁架各杆两端均为铰接。)
    lang = "chi_sim" if _CJK.search(text) else "eng"
    alphabet = "" if _CJK.search(text) else ALPHABETS.get(role, "")
    return lang, "10" if len(text.strip()) == 1 else "7", alphabet


#: Crops per Tesseract process: a list of this many lines takes tens of seconds, so a
#: whole data folder is spread over every core and a stuck process is noticed.
CHUNK = 400


#: The reader settings tried, in order, on a crop the first one does not read as drawn:
#: (page segmentation mode, image form) for a line, and for a single character. The
#: engine's line mode has blind spots of its own on clean text (measured on the shipped
#: drawings: a crisp 22 px "2.5 m" read as "2.9m", "Part III" as "' Part III"), which its
#: word mode or a black-and-white copy of the same crop do not share; a text that is not
#: in the pixels is read by none of them (tests/test_visibility.py pairs crops with other
#: texts, and with their own texts given a doubled digit or a decimal point, and finds no
#: false reading).
SECOND_READINGS: dict[bool, tuple[tuple[str, str], ...]] = {
    False: (("7", "binary"), ("8", "grey"), ("7", "smaller"), ("7", "larger"),  # a line
            ("7", "wider"), ("10", "glyphs")),
    True: (("7", "grey"), ("8", "grey"), ("10", "smaller"), ("10", "larger")),  # one character
}
#: the "smaller" image form: the crop reduced to this share (a sheet's "7.5" is read as
#: "7.9" at the first size and as drawn at three quarters of it)
SMALLER = 0.75
#: the "larger" image form: the crop enlarged by this factor (a crisp 17 px joint letter
#: "X" got no reading at the first size and every other setting, "1 m" of 12 px read as
#: "m"; both read as drawn half as large again)
LARGER = 1.5
#: the "wider" image form: the crop stretched sideways by this factor, its height kept.
#: The engine's decoder merges two like characters or drops a small point that sit close
#: together: a clean 18 px "7.5" on a sheet read as "Vine" or "75" and a note number "5."
#: as ".", both read as drawn once the characters stand further apart
WIDER = 1.5


_SINGLE = OCR_CAP_SINGLE / OCR_CAP  # a line's crop → a single character's size


def glyph_pieces(crop: Image.Image) -> list[Image.Image]:
    """The "glyphs" image form: the crop cut at every column without ink into the
    glyphs (or runs of touching glyphs) it holds, left to right, each on white paper of
    its own and at the size and in the black and white a single character is read at
    (:data:`OCR_CAP_SINGLE`), to be read one by one.

    Why: in a line, the engine reads DejaVu Serif "11a" as "lla" (or, told a value's
    alphabet, "1a"), drawn crisp at any size from 13 to 24 px; a glyph read on its own
    is not taken for part of a word. A piece with no reading makes the whole reading
    none (:func:`join_pieces`), so a decimal point the engine does not read alone is
    never dropped: "1.5" cannot read as "15" this way."""
    ink = np.asarray(_binarised(crop), dtype=np.uint8) < 128
    columns = ink.any(axis=0)
    pieces: list[Image.Image] = []
    x = 0
    while x < len(columns):
        if not columns[x]:
            x += 1
            continue
        start = x
        while x < len(columns) and columns[x]:
            x += 1
        piece = crop.crop((max(0, start - 1), 0, min(crop.width, x + 1), crop.height))
        piece = piece.resize((max(1, round(piece.width * _SINGLE)),
                              max(1, round(piece.height * _SINGLE))), Image.Resampling.LANCZOS)
        pieces.append(ImageOps.expand(_binarised(piece), border=OCR_BORDER, fill=255))
    return pieces


#: the image forms that change a glyph's shape or its context: stretched sideways, or
#: cut out of its line (:func:`may_reshape`)
RESHAPED = frozenset({"wider", "glyphs"})


def may_reshape(alphabet: str) -> bool:
    """Whether a text whose role is read with ``alphabet`` (:data:`ALPHABETS`; "" the
    whole) may be read in a :data:`RESHAPED` form: only when that alphabet holds no
    capital I and no small l (a value, a dimension, a legend, a plan's bay). A bare
    upright stroke stretched, or alone, is read as whatever the engine likes best:
    "EI = constant" in a sans-serif face, whose I is also an l, reads "El" in its line
    and "EI" stretched. With an alphabet that leaves only the 1, or in its line, the
    reader has the context a person has."""
    return bool(alphabet) and "I" not in alphabet and "l" not in alphabet


def join_pieces(readings: Sequence[str]) -> str:
    """One reading of a text read glyph by glyph: the pieces' readings in order, or none
    when a piece had none (or when there was no piece)."""
    if not readings or not all(readings):
        return ""
    return "".join(readings)


def _image_forms(image: Image.Image, form: str) -> list[Image.Image]:
    """The image(s) the engine is given for a crop in ``form``."""
    if form == "binary":
        return [_binarised(image)]
    if form in ("smaller", "larger"):
        k = SMALLER if form == "smaller" else LARGER
        return [image.resize((max(1, round(image.width * k)), max(1, round(image.height * k))),
                             Image.Resampling.LANCZOS)]
    if form == "wider":
        return [image.resize((max(1, round(image.width * WIDER)), image.height),
                             Image.Resampling.LANCZOS)]
    if form == "glyphs":
        return glyph_pieces(image)
    return [image]

Engine = tuple[str, str, str, str]  # language, page segmentation mode, alphabet, image form


def read_crops(crops: Sequence[tuple[str, Image.Image]], *, timeout: float = 900.0,
               workers: int | None = None, roles: Sequence[str] | None = None) -> list[str]:
    """What Tesseract reads in each (expected text, crop): :func:`read_crops_detailed`
    without which setting read it."""
    return [read for read, _ in read_crops_detailed(crops, timeout=timeout, workers=workers,
                                                    roles=roles)]


def read_crops_detailed(crops: Sequence[tuple[str, Image.Image]], *, timeout: float = 900.0,
                        workers: int | None = None, roles: Sequence[str] | None = None,
                        ) -> list[tuple[str, int]]:
    """(what Tesseract reads, which setting read it: 0 the first) in each (expected text,
    crop), of ``roles`` (the record's role of each text: its :data:`ALPHABETS` entry; a
    crop the alphabet leaves without a reading is read again with the whole one).

    A crop whose reading is not its text is read again with each of
    :data:`SECOND_READINGS` in turn, and the first exact reading is the one returned
    (else the first reading). Crops are grouped by engine setting and fed to Tesseract
    as list files of :data:`CHUNK` crops (one process reads a whole list; its text output
    separates pages by form feeds), the processes spread over ``workers`` threads
    (default: every core). ``timeout`` bounds each process."""
    try:
        import pytesseract
    except ImportError:
        raise OcrUnavailable("pytesseract is not installed (pip install pytesseract)") from None
    engines: list[Engine] = [(*_engine(text, roles[index] if roles else ""), "grey")
                             for index, (text, _) in enumerate(crops)]
    out = [""] * len(crops)
    with tempfile.TemporaryDirectory(prefix="structeval-ocr-") as folder:
        root = Path(folder)

        def run(job: tuple[Engine, list[int]], number: int, into: list[str]) -> None:
            (lang, psm, alphabet, form), indices = job
            names: list[str] = []
            owners: list[int] = []  # the crop each listed image belongs to
            for index in indices:
                for n, image in enumerate(_image_forms(crops[index][1], form)):
                    path = root / f"crop-{number:04d}-{index:06d}-{n:03d}.png"
                    image.save(path)
                    names.append(str(path))
                    owners.append(index)
            if not names:
                return
            listing = root / f"list-{number:04d}.txt"
            listing.write_text("\n".join(names) + "\n", encoding="utf-8")
            try:
                # pytesseract splits the config as a shell would: the alphabet is quoted
                config = f"--psm {psm}" + (
                    " -c " + shlex.quote(f"tessedit_char_whitelist={alphabet}")
                    if alphabet else "")
                text = pytesseract.image_to_string(str(listing), lang=lang, config=config,
                                                   timeout=timeout)
            except pytesseract.TesseractNotFoundError:
                raise OcrUnavailable("tesseract is not installed (apt-get install "
                                     "tesseract-ocr tesseract-ocr-chi-sim)") from None
            except RuntimeError as exc:  # pytesseract's own timeout
                raise OcrUnavailable(f"Tesseract did not read {len(indices)} crops within "
                                     f"{timeout:g} s ({exc})") from None
            pages: dict[int, list[str]] = {}
            for index, page in zip(owners, text.split("\f"), strict=False):
                pages.setdefault(index, []).append(page.strip())
            for index in indices:
                read = pages.get(index, [])
                into[index] = join_pieces(read) if form == "glyphs" else "".join(read[:1])

        def run_all(which: list[int], number: int, into: list[str]) -> int:
            groups: dict[Engine, list[int]] = {}
            for index in which:
                groups.setdefault(engines[index], []).append(index)
            jobs = [(engine, indices[i:i + CHUNK]) for engine, indices in sorted(groups.items())
                    for i in range(0, len(indices), CHUNK)]
            with ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
                for future in [pool.submit(run, job, number + n, into)
                               for n, job in enumerate(jobs)]:
                    future.result()
            return number + len(jobs)

        done = run_all(list(range(len(crops))), 0, out)
        told = [engine[2] for engine in engines]  # each crop's role alphabet ("" the whole)
        # a role's alphabet can leave Tesseract with no reading at all (its best guess not
        # in it): such a crop is read once more with the whole alphabet, and that reading
        # is the one compared
        empty = [i for i, read in enumerate(out) if not read and engines[i][2]]
        for index in empty:
            engines[index] = (engines[index][0], engines[index][1], "", engines[index][3])
        done = run_all(empty, done, out)
        which = [0] * len(crops)
        first = list(engines)
        for setting in range(max(len(v) for v in SECOND_READINGS.values())):
            missed = [i for i, (text, _) in enumerate(crops)
                      if not which[i] and not reads_as(text, out[i])
                      and setting < len(SECOND_READINGS[len(text.strip()) == 1])
                      and (SECOND_READINGS[len(text.strip()) == 1][setting][1] not in RESHAPED
                           or may_reshape(told[i]))]
            again = [""] * len(crops)
            for i in missed:
                psm, form = SECOND_READINGS[len(crops[i][0].strip()) == 1][setting]
                engines[i] = (first[i][0], psm, first[i][2], form)
            done = run_all(missed, done, again)
            for i in missed:
                if reads_as(crops[i][0], again[i]):
                    out[i], which[i] = again[i], setting + 1
    return list(zip(out, which, strict=True))


#: what a reader skips: spaces (an exam page's blanks to fill in are ruled lines, not
#: underscores, so no allowance is needed for them)
_SKIPPED = re.compile(r"\s+")
_SUPERSCRIPTS = frozenset("⁰¹²³⁴⁵⁶⁷⁸⁹")
_SPELLINGS = {"×": "[x×X]", "·": "[.·\\-•]?", "²": "[2²]", "−": "[-−]"}


def _tessdata() -> Path | None:
    """The folder of Tesseract's language models (from ``tesseract --list-langs``)."""
    try:
        listing = subprocess.run(["tesseract", "--list-langs"], capture_output=True,
                                 text=True, timeout=30, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.search(r'"([^"]+)"', listing)
    return Path(found[1]) if found else None


@cache
def engine_characters(lang: str) -> frozenset[str] | None:
    """Every character the engine's recogniser for ``lang`` ("eng", "chi_sim") can put
    out, read from the model's own character set (``combine_tessdata -u``); None when the
    model or the tool is not there."""
    folder = _tessdata()
    model = folder / f"{lang}.traineddata" if folder else None
    if model is None or not model.is_file():
        return None
    with tempfile.TemporaryDirectory(prefix="structeval-unicharset-") as tmp:
        prefix = Path(tmp) / lang
        try:
            subprocess.run(["combine_tessdata", "-u", str(model), str(prefix)],
                           capture_output=True, timeout=60, check=True)
            lines = (Path(f"{prefix}.lstm-unicharset").read_text(encoding="utf-8")
                     .splitlines())
        except (OSError, subprocess.SubprocessError, UnicodeDecodeError):
            return None
    return frozenset(line.split(" ", 1)[0] for line in lines[1:] if line.strip())


def unreadable(text: str) -> frozenset[str]:
    """The characters of ``text`` the engine that reads it has no class for: it cannot
    put them out, so each is allowed to read as any one character but a Latin letter or
    digit (a superscript digit as any but a letter), or none (or as one of its
    :data:`_SPELLINGS`): the engine drops a "²" it has no class for as often as it
    spells it "2". Measured on the shipped texts: × · ² − ± (the English model),
    ± 铰 桁 （ ） — (the Chinese model); see docs/visibility-proof.md. Without the
    engine's character set (no ``combine_tessdata``), only the spellings are allowed."""
    known = engine_characters(_engine(text)[0])
    if known is None:
        return frozenset()
    return frozenset(ch for ch in _SKIPPED.sub("", text) if ch not in known)


def _pattern(ch: str, lacking: frozenset[str]) -> str:
    # a character the engine lacks may come out as another one of its kind: a superscript
    # digit as any character but a letter (the engine reads a small raised 2 as 7), any
    # other as a sign, never a Latin letter or digit ("2 × 2a" read "22a" must not pass
    # for "2 × a", nor a level "±0.000" read "20.000")
    spelt = _SPELLINGS.get(ch, re.escape(ch))
    if ch not in lacking:
        return spelt
    return f"(?:{spelt}|{'[^A-Za-z]' if ch in _SUPERSCRIPTS else '[^0-9A-Za-z]'})?"


def reads_as(expected: str, read: str) -> bool:
    """Whether OCR's ``read`` is ``expected`` exactly: spaces aside, the × · ² − glyphs
    allowed in the spellings an OCR engine gives them, and a character the engine cannot
    put out (:func:`unreadable`) read as any one character that is not a Latin letter or
    digit (a superscript digit: not a letter), or as none."""
    lacking = unreadable(expected)
    pattern = "".join(_pattern(ch, lacking) for ch in _SKIPPED.sub("", expected))
    return re.fullmatch(pattern, _SKIPPED.sub("", read)) is not None


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


@dataclass(frozen=True)
class TextInk:
    """One text's ink at the profile: what the proof holds a text to in a face OCR does
    not read reliably (the hand lettering), and measures for every other text too."""

    task: str
    style: str
    text: str
    cap_px: float  # its capital height (from the record) at the profile
    stroke_px: float  # its strokes' width (:func:`text_ink`)
    contrast: float  # paper grey − its darkest ink

    @property
    def problems(self) -> list[str]:
        out = []
        if self.cap_px < MIN_TEXT_CAP:
            out.append(f"capitals {self.cap_px:.1f} px < {MIN_TEXT_CAP:g}")
        if self.stroke_px < MIN_TEXT_STROKE:
            out.append(f"strokes {self.stroke_px:.2f} px < {MIN_TEXT_STROKE:g}")
        if self.contrast < MIN_CONTRAST:
            out.append(f"ink contrast {self.contrast:.0f} < {MIN_CONTRAST}")
        return out


def text_ink(task: str, style: str, small: Image.Image, item: LayoutItem, scale: float,
             tilt_deg: float = 0.0) -> TextInk:
    """A text's size, stroke width and contrast in the delivered pixels.

    The stroke width is the ink a row of the upright crop crosses per stroke, in pixels
    of black: each ink pixel counts by its darkness against the paper (1 for black),
    summed and divided by the strokes the rows cross (runs of ink in the black-and-white
    crop). What a reader sees of a stroke is that integral, not its outline: a
    hairline shrunk below a pixel, or a pencil stroke that fades, crosses less than a
    pixel of black even where its outline survives the threshold."""
    crop, paper = upright_crop(small, item, scale, tilt_deg)
    arr = np.asarray(crop, dtype=np.float64)
    darkest = float(np.percentile(arr, 2)) if arr.size else 255.0
    mask = np.asarray(_binarised(crop), dtype=np.uint8) < 128
    runs = int((mask[:, 1:] & ~mask[:, :-1]).sum() + mask[:, :1].sum()) if mask.size else 0
    darkness = (255.0 - arr) / 255.0  # of black on this paper: 1 a black pixel
    stroke = float(darkness[mask].sum()) / runs if runs else 0.0  # the text's own ink only
    cap = _cap_px(item, scale, (item.bbox[3] - item.bbox[1]) * scale)
    return TextInk(task, style, item.text or "", cap, stroke,
                   (255.0 - darkest) * paper / 255.0)


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
