"""The blurred styles (scanned, exam-page) are lettered so that blur cannot take a text.

The visibility proof found that a photocopy takes the decimal point or the thin 1 off a
10 px capital: such figures are lettered 1.3 times larger, stepping down only where a
figure has no room at the delivery profile; an exam page rules its candidate fields
instead of typesetting underscores, and keeps its toner specks off every text.
"""

from __future__ import annotations

import numpy as np
from PIL import Image

from structeval.dataset import DATA_DIR
from structeval.dataset.paths import RAW_DIR
from structeval.dataset.rawfile import presentation_of, read_raw
from structeval.render import layout_model
from structeval.render.compose.figure import Wording, build_scene
from structeval.render.legibility import DELIVERY_LONG_SIDE, check
from structeval.render.paint.photocopy import SPECK_CLEAR, photocopy
from structeval.render.scene.styles import BLURRED_TEXT_SCALES, DESIGN_SIZES, get_style

#: a scanned core beam with room for large texts; an exam-page hard frame that has none
#: at 1.3 times (its 1.3-times page breaks the text rules at 1568 px); an exam-dimensioned
#: scanned beam in mm, lettered larger like the rest (the symbolic reader rebuilds it:
#: tests/test_readability.py)
ROOMY, CRAMPED, EXAM = "beam-s1-0054", "frame-hard-s22-0247", "beam-hard-s22-0117"


def _scene(task: str):  # type: ignore[no-untyped-def]
    _, block, model = read_raw(DATA_DIR / RAW_DIR / f"{task}.json")
    shown = presentation_of(block)
    scene, _ = build_scene(model, shown.style, None, "normal", block["image"]["seed"],
                           Wording.of(shown, block["category"]), shown,
                           profile=DELIVERY_LONG_SIDE)
    return scene, model, block


def _text_sizes(scene) -> set[float]:  # type: ignore[no-untyped-def]
    return {round(it.glyph.lengths["size"], 3) for it in scene.layout.items
            if it.glyph is not None and it.glyph.type == "text" and it.kind == "label"}


def test_the_blurred_styles_letter_larger_and_step_down_only_without_room() -> None:
    for name in ("scanned", "exam-page"):
        assert get_style(name).text_scales == BLURRED_TEXT_SCALES
    assert get_style("cad").text_scales == (1.0,)
    roomy, _, _ = _scene(ROOMY)
    assert roomy.style.name == "scanned" and roomy.style.text_scale == BLURRED_TEXT_SCALES[0]
    assert round(BLURRED_TEXT_SCALES[0] * DESIGN_SIZES["load"], 3) in _text_sizes(roomy)
    cramped, model, block = _scene(CRAMPED)
    assert cramped.style.name == "exam-page"
    assert cramped.style.text_scale < BLURRED_TEXT_SCALES[0]
    # the step it took keeps every rule at the profile, as the shipped image must
    record = layout_model(model, seed=block["image"]["seed"],
                          presentation=presentation_of(block), category=block["category"])
    assert check(record, profile=DELIVERY_LONG_SIDE) == []
    exam, _, block = _scene(EXAM)
    assert presentation_of(block).dimensioning == "exam" and exam.style.name == "scanned"
    assert exam.style.text_scale == BLURRED_TEXT_SCALES[0]


def test_an_exam_page_rules_its_blanks_instead_of_typing_underscores() -> None:
    for language, task in (("en", "frame-hard-s22-0043"), ("zh", "truss-hard-s22-0149")):
        scene, _, block = _scene(task)
        assert presentation_of(block).language == language
        fields = [it for it in scene.layout.items if it.role == "fields"]
        blanks = [it for it in scene.layout.items if it.role == "blank"]
        assert len(fields) == len(blanks) == 3, (task, [it.text for it in fields])
        assert not any("_" in (it.text or "") for it in scene.layout.items)
        for label, blank in zip(fields, blanks, strict=True):  # each blank follows its label
            assert blank.bbox[0] > label.bbox[2]
            assert label.bbox[1] < blank.bbox[1] < label.bbox[3] + 4


def test_toner_specks_keep_clear_of_every_text() -> None:
    page = Image.new("RGB", (2000, 2000), (255, 255, 255))
    top = (0.0, 0.0, 2000.0, 1000.0)  # a "text" box over the top half
    seed = 7
    free = np.asarray(photocopy(page, seed)[0].convert("L"), dtype=int)
    kept = np.asarray(photocopy(page, seed, texts=[top])[0].convert("L"), dtype=int)
    assert (free[:1000] < 200).any(), "the unconstrained copy has specks in the top half"
    # the copy is tilted by at most 1.2°: 42 px at the far edge of a 2000 px page
    assert not (kept[: 1000 - 50] < 200).any(), "a speck landed in the text box"
    edge = int(1000 + SPECK_CLEAR + 50)
    # below the box and its margin both copies are the same page
    assert np.array_equal(free[edge:], kept[edge:])
