"""Fonts: every character of every wording has a real glyph, and fonts are never guessed.

Two independent proofs that no Chinese string renders as missing-glyph boxes: the
character map of the font each character is routed to contains it (read by our
own cmap reader and, where fontTools is installed, by fontTools too), and the
character's rendered bitmap differs from the font's .notdef box. English text
must never need anything but the Latin face (DejaVu Serif, shipped by the pip package
matplotlib), and a missing font is a RenderError that names its package.
"""

from __future__ import annotations

import random
import string

import numpy as np
import pytest
from PIL import Image, ImageDraw

from structeval.phrasebook import LANGUAGES, PHRASES, placeholders, say
from structeval.render import RenderError, render_model
from structeval.render.paint.lettering import draw_text
from structeval.render.scene import fonts as F
from structeval.render.scene.cmap import FontFileError, mapped_characters

from .test_phrasebook import GABLE

SAMPLE = {"number": 3, "figure": "3-12", "points": 15, "year": 2024, "next": 2025, "page": 2,
          "pages": 6, "unit": "m"}


def wordings(lang: str) -> list[str]:
    """Every text the renderer can write in ``lang`` (placeholders filled with numbers)."""
    return [say(key, lang, **{k: SAMPLE[k] for k in placeholders(entry[lang])})
            for key, entry in PHRASES.items()]


#: values, units, letters and angles: the texts a figure writes in every language
VALUES = ["12 kN", "2.5 m", "7.5 kN/m", "20 kN·m", "30°", "AB", "M [kN·m]   max |M| = 3",
          *string.ascii_uppercase, *string.digits]


@pytest.fixture(scope="module")
def chinese(drawing_fonts: None) -> None:
    """The Chinese and hand-lettering fonts are installed (else the test skips)."""


def test_english_needs_only_the_latin_face() -> None:
    covered = F.coverage(F.LATIN)
    missing = sorted({ch for text in wordings("en") + VALUES for ch in text
                      if ord(ch) not in covered})
    assert not missing, f"English text with characters the Latin face lacks: {missing}"
    for text in wordings("en") + VALUES + ["3 × 2.5 m", "M = qa²", "▽ +3.600", "±0.000"]:
        assert F.runs(text, "print") == ((F.LATIN, text),)
        assert F.runs(text, "page") == ((F.LATIN, text),)


def test_the_latin_face_draws_i_l_and_1_apart() -> None:
    """The reason for a serif face: a capital I, a small l and a one are three glyphs (in
    a sans-serif face I and l are one, and "EI" reads as "El")."""
    font = F.font_of(F.LATIN, 48)
    drawn = {ch: _bitmap(font, ch) for ch in "Il1|"}
    assert len(set(drawn.values())) == 4


def _notdef(font) -> bytes:  # type: ignore[no-untyped-def]
    return _bitmap(font, chr(0x10FFFD))


def _bitmap(font, ch: str) -> bytes:  # type: ignore[no-untyped-def]
    img = Image.new("L", (80, 80), 0)
    ImageDraw.Draw(img).text((10, 10), ch, font=font, fill=255)
    return img.tobytes()


@pytest.mark.parametrize("lettering", ["print", "page", "hand"])
def test_no_chinese_character_renders_as_a_missing_glyph_box(chinese: None,
                                                             lettering: str) -> None:
    texts = wordings("zh") + VALUES
    used = sorted({ch for text in texts for ch in text if not ch.isspace()})
    boxes = []
    for ch in used:
        key = F.font_for(ch, lettering)  # raises if no font of the lettering has it
        assert ord(ch) in F.coverage(key)
        font = F.font_of(key, 48)
        if _bitmap(font, ch) == _notdef(font):
            boxes.append(ch)
    assert not boxes, f"drawn as .notdef boxes in {lettering}: {''.join(boxes)}"
    chinese_chars = [ch for ch in used if "\u4e00" <= ch <= "\u9fff"]
    assert len(chinese_chars) > 100  # the check saw the real vocabulary
    assert {F.font_for(ch, lettering) for ch in chinese_chars} == \
        {"print": {"cjk-sans"}, "page": {"cjk-serif"}, "hand": {"hand-cjk"}}[lettering]


def test_the_notdef_comparison_can_fail(chinese: None) -> None:
    """A character the font lacks does render as its .notdef box: the check above would
    catch it."""
    key = "hand-cjk"
    missing = next(c for c in range(0x4E00, 0x9FFF) if c not in F.coverage(key))
    font = F.font_of(key, 48)
    assert _bitmap(font, chr(missing)) == _notdef(font)
    assert _bitmap(font, "铰") != _notdef(font)


def test_our_cmap_reader_agrees_with_fonttools(chinese: None) -> None:
    ttlib = pytest.importorskip("fontTools.ttLib", reason="fontTools is not installed")
    for key in (F.LATIN, "cjk-sans", "hand-latin", "hand-cjk"):
        path, index = F.located(key)
        theirs = ttlib.TTFont(path, fontNumber=index, lazy=True).getBestCmap()
        assert F.coverage(key) == frozenset(theirs), key


def test_the_cmap_reader_refuses_what_is_no_font() -> None:
    with pytest.raises(FontFileError):
        mapped_characters(b"ttcf" + bytes(8), 0)
    with pytest.raises(FontFileError):
        mapped_characters(b"\x00\x01\x00\x00" + bytes(8), 3)


def _forget_fonts() -> None:
    """Drop every cached font lookup, so a patched :data:`FONT_FILES` entry is used."""
    for cached in (F.located, F.coverage, F.font_of, F.runs, F._ink_box):
        cached.cache_clear()


def test_a_missing_font_names_its_package(monkeypatch: pytest.MonkeyPatch) -> None:
    """Absent Chinese fonts stop a Chinese figure with the apt command, and do not touch an
    English one (it needs none of them)."""
    spec = F.FONT_FILES["cjk-sans"]
    monkeypatch.setitem(F.FONT_FILES, "cjk-sans",
                        F.FontFile(spec.family, ("/nonexistent/NotoSansCJK-Regular.ttc",),
                                   spec.package, spec.purpose))
    _forget_fonts()
    try:
        with pytest.raises(RenderError, match=r"apt-get install -y fonts-noto-cjk"):
            F.text_size("EI = 常数", 14, "print")
        from structeval.presentation import Presentation

        with pytest.raises(RenderError, match="fonts-noto-cjk"):
            render_model(GABLE, presentation=Presentation(language="zh"))
        assert max(render_model(GABLE, presentation=Presentation(language="en")).size) >= 1600
    finally:
        monkeypatch.undo()
        _forget_fonts()


def test_a_missing_latin_face_names_the_pip_package(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without matplotlib's DejaVu Serif every figure stops with the pip command."""
    spec = F.FONT_FILES[F.LATIN]
    monkeypatch.setitem(F.FONT_FILES, F.LATIN,
                        F.FontFile(spec.family, (), spec.package, spec.purpose, "pip"))
    _forget_fonts()
    try:
        with pytest.raises(RenderError, match=r"pip install matplotlib"):
            F.text_size("12.5 kN", 14, "print")
    finally:
        monkeypatch.undo()
        _forget_fonts()


def _ink(img: Image.Image) -> tuple[int, int, int, int]:
    arr = np.asarray(img.convert("L")) < 200
    ys, xs = np.nonzero(arr)
    return int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1


@pytest.mark.parametrize(("text", "lettering"), [
    ("12.5 kN", "print"), ("EI = 常数", "print"), ("除画有小圆圈的铰结点外（EI）。", "print"),
    ("3. 试求图 3-12 所示刚架", "page"), ("2.5 m", "hand"), ("EI = 常数", "hand")])
def test_text_ink_lands_in_its_recorded_box(chinese: None, text: str, lettering: str) -> None:
    """What a label's box records is where its pixels are (hand lettering: within the 3 px
    clearance kept around labels)."""
    size = 40.0
    left, top, right, bottom = F.ink_box(text, size, lettering)
    img = Image.new("RGB", (1800, 300), "white")
    draw_text(img, ImageDraw.Draw(img), 100.0, 100.0, text, size, lettering, (0, 0, 0),
              random.Random(5))
    x0, y0, x1, y1 = _ink(img)
    bx0, by0, bx1, by1 = 100, 100, 100 + right - left, 100 + bottom - top
    slack = 2 if lettering != "hand" else 3 * F.SUPERSAMPLE
    assert bx0 - slack <= x0 and by0 - slack <= y0 and x1 <= bx1 + slack \
        and y1 <= by1 + slack, ((x0, y0, x1, y1), (bx0, by0, bx1, by1))
    assert (x1 - x0) >= 0.85 * (bx1 - bx0) and (y1 - y0) >= 0.85 * (by1 - by0)


def test_hand_lettering_wobbles_with_the_seed(chinese: None) -> None:
    def drawn(seed: int) -> bytes:
        img = Image.new("RGB", (900, 200), "white")
        draw_text(img, ImageDraw.Draw(img), 20.0, 20.0, "12.5 kN/m", 40.0, "hand", (0, 0, 0),
                  random.Random(seed))
        return img.tobytes()

    assert drawn(1) == drawn(1)
    assert drawn(1) != drawn(2)


def test_every_language_has_a_lettering_for_each_style() -> None:
    from structeval.render.scene.styles import STYLES

    assert {s.lettering for s in STYLES.values()} <= set(F.LETTERINGS)
    assert set(LANGUAGES) == {"en", "zh"}
