"""A text's ink stays inside the box the layout record holds for it.

A layout measures a text at its design size and the record keeps that box enlarged
to the stored image; drawn at the enlarged size, the font's whole-pixel advances add
up differently, and a long line ran up to 15 px past its box (an exam statement's
"(10" at a line end was cut to "(1C" by the OCR proof's crop). The painter draws such
a text a little smaller (:func:`structeval.render.scene.fonts.fitted_size`).
"""

from __future__ import annotations

import pytest

from structeval.dataset.visibility import check_tasks
from structeval.render.legibility.visibility import ocr_available, reads_as
from structeval.render.scene.fonts import FIT_SHRINK, FIT_TOL, fitted_size, text_size
from structeval.render.scene.scene import Text, placed, prim_bbox
from structeval.render.scene.shapes import Similarity

from .conftest import ROOT

LINE = ("Problem 2. For the frame shown in Fig. 7-12, determine the support reactions and "
        "draw the bending-moment diagram. (10")
PRINT = "print"  # the lettering of the drawings (serif print)
ZOOMS = [1.0 + 0.05 * i for i in range(1, 21)]


def _overrun(size: float, zoom: float) -> float:
    laid = text_size(LINE, size, PRINT)[0] * zoom
    return text_size(LINE, size * zoom, PRINT)[0] - laid


def test_an_enlarged_line_runs_past_its_box_unless_fitted() -> None:
    """The premise (some enlargement of a long line overruns its box by pixels), and the
    fit: never more than FIT_TOL past it, never smaller than FIT_SHRINK allows."""
    overruns = [_overrun(14.0, z) for z in ZOOMS]
    assert max(overruns) > 3.0, overruns
    for zoom in ZOOMS:
        laid = text_size(LINE, 14.0, PRINT)[0] * zoom
        drawn = fitted_size(LINE, 14.0 * zoom, PRINT, laid)
        assert text_size(LINE, drawn, PRINT)[0] <= laid + FIT_TOL
        assert drawn >= 14.0 * zoom * (1 - FIT_SHRINK)
        assert drawn <= 14.0 * zoom


def test_a_placed_text_keeps_its_laid_out_width() -> None:
    """Placing a text on the canvas carries its design width, enlarged, as the width its
    ink must keep; the box a writer or a rule computes from it is that width."""
    zoom = max(ZOOMS, key=lambda z: _overrun(14.0, z))
    design = Text(10.0, 20.0, LINE, 14.0, lettering="print")
    on_canvas = placed(design, Similarity.shift_zoom(5.0, 5.0, zoom))
    assert isinstance(on_canvas, Text)
    x0, _, x1, _ = prim_bbox(on_canvas)
    laid = text_size(LINE, 14.0, PRINT)[0] * zoom
    assert on_canvas.fit == pytest.approx(laid)
    assert x1 - x0 <= laid + FIT_TOL
    assert on_canvas.drawn_size < on_canvas.size  # this one had to be made smaller


@pytest.mark.skipif(ocr_available() is not None, reason=f"OCR is not available: install "
                                                        f"{ocr_available()}")
def test_the_statement_line_end_reads_on_the_shipped_page() -> None:
    """The exam page whose statement line ends in "(10": read exactly at 1568 px."""
    path = ROOT / "data" / "raw_models" / "frame-hard-s22-0031.json"
    if not path.is_file():
        pytest.skip(f"{path} is not in this checkout")
    report = check_tasks([path], ROOT / "data", 1568)
    ends = [t for t in report.texts if t.role == "statement" and t.text.endswith("(10")]
    assert len(ends) == 1, [t.text for t in report.texts if t.role == "statement"]
    assert reads_as(ends[0].text, ends[0].read), ends[0].read
