"""language=zh, style=sketch, style=exam-page: drawn, legible, read back exactly.

Each new value is drawn in pixels for a beam, a frame and a truss of the shipped set
and must satisfy every legibility rule and be rebuilt exactly by the symbolic reader
from its layout record. Then what each value promises: a zh and an en figure carry
the same information; pencil strokes vary in pressure and overshoot their ends on
textured paper; an exam page puts the figure between a statement that names it and
its caption, moved but never shrunk; a bare figure is byte for byte what it was.
"""

from __future__ import annotations

import json
import math
import random
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw

from structeval.dataset import DATA_DIR
from structeval.dataset.notes import task_notes
from structeval.dataset.paths import RAW_DIR
from structeval.dataset.rawfile import presentation_of, read_raw
from structeval.presentation import Presentation
from structeval.render import RenderError, layout_model, render_model
from structeval.render.compose.exam_page import PageFacts
from structeval.render.legibility import check
from structeval.render.paint.pencil import OVERSHOOT, Pencil
from structeval.scoring import score

from .symbolic_reader import read_drawing

CJK = re.compile(r"[\u4e00-\u9fff]")
#: small shipped tasks, one per category
SAMPLES = {"beam": "beam-s1-0135", "frame": "frame-s1-0007", "truss": "truss-s1-0044"}
#: the new value under test → the presentation it is drawn in (language per category)
VALUES = {"language=zh": lambda own, cat: own.with_(language="zh"),
          "style=sketch": lambda own, cat: own.with_(style="sketch",
                                                     language="en" if cat == "beam" else "zh"),
          "style=exam-page": lambda own, cat: own.with_(style="exam-page",
                                                        language="zh" if cat == "beam"
                                                        else "en")}


pytestmark = pytest.mark.usefixtures("drawing_fonts")


def _task(category: str) -> tuple[dict, object]:
    path = DATA_DIR / RAW_DIR / f"{SAMPLES[category]}.json"
    if not path.is_file():
        pytest.skip(f"{path.name} is not in the data folder")
    _, block, model = read_raw(path)
    return block, model


def _read(record: dict, model, notes: str) -> float:  # type: ignore[no-untyped-def]
    return score(model, read_drawing(json.loads(json.dumps(record)), notes)).ratio


@pytest.mark.parametrize("category", sorted(SAMPLES))
@pytest.mark.parametrize("value", sorted(VALUES))
def test_every_new_value_draws_legibly_and_reads_back(value: str, category: str) -> None:
    block, model = _task(category)
    shown = VALUES[value](presentation_of(block), category)
    res = render_model(model, seed=block["image"]["seed"], presentation=shown,
                       category=category)
    assert max(res.size) >= 1600
    assert [str(v) for v in check(res)] == []
    assert _read(res.layout_json(), model, task_notes(model, category, shown)) == 1.0
    notes = [it.text for it in res.layout if it.role == "note"]
    assert notes and all(bool(CJK.search(t)) == (shown.language == "zh") for t in notes)
    if shown.style != "cad":  # photographed or copied pages are JPEG, like scanned ones
        assert (res.jpeg is not None) == (shown.style in ("scanned", "sketch", "exam-page"))


def similarity_fit(a: list, b: list) -> tuple[float, float, float]:  # type: ignore[type-arg]
    """(scale, turn in degrees, worst miss in px) of the similarity taking the first and
    last of points ``a`` onto those of ``b``, applied to all of them."""
    (a0, a1), (b0, b1) = (a[0], a[-1]), (b[0], b[-1])
    k = math.dist(b0, b1) / math.dist(a0, a1)
    turn = math.atan2(b1[1] - b0[1], b1[0] - b0[0]) - math.atan2(a1[1] - a0[1], a1[0] - a0[0])
    co, si = k * math.cos(turn), k * math.sin(turn)
    worst = 0.0
    for p, q in zip(a, b, strict=True):
        dx, dy = p[0] - a0[0], p[1] - a0[1]
        worst = max(worst, math.dist((b0[0] + co * dx - si * dy, b0[1] + si * dx + co * dy), q))
    return k, math.degrees(turn), worst


def _glyph_points(lay, keep) -> list:  # type: ignore[no-untyped-def, type-arg]
    return [p for it in lay.layout if keep(it) and it.glyph is not None
            for p in it.glyph.points.values()] + [
        p for it in lay.layout if keep(it) and it.glyph is not None
        for ps in it.glyph.paths.values() for p in ps]


def test_a_zh_and_an_en_figure_carry_the_same_information() -> None:
    """Everything but the words is drawn identically (the same items, texts and glyph
    geometry, up to the enlargement to the delivered size); the words are the same notes."""
    block, model = _task("frame")
    own = presentation_of(block)
    en, zh = (layout_model(model, seed=block["image"]["seed"], presentation=own.with_(language=x))
              for x in ("en", "zh"))

    def drawn(lay) -> list:  # type: ignore[no-untyped-def, type-arg]
        return [(it.kind, it.role, it.text) for it in lay.layout if it.role != "note"]

    assert drawn(en) == drawn(zh)
    k, turn, worst = similarity_fit(*(_glyph_points(lay, lambda it: it.role != "note")
                                      for lay in (en, zh)))
    assert worst < 0.05 and abs(turn) < 1e-6 and k == pytest.approx(zh.zoom / en.zoom)
    en_notes = [it.text for it in en.layout if it.role == "note"]
    zh_notes = [it.text for it in zh.layout if it.role == "note"]
    assert len(en_notes) == len(zh_notes) >= 2
    assert en_notes[0] == "EI = constant" and zh_notes[0] == "EI = 常数"
    assert not any(CJK.search(t) for t in en_notes) and all(CJK.search(t) for t in zh_notes[1:])


def test_a_bare_figure_is_the_task_figure_without_its_notes() -> None:
    """Without a presentation the renderer draws the figure alone (reports, quick looks):
    exactly the task's figure minus the notes block printed under it, in each untilted
    style (a scanned page's tilt turns about the centre of a canvas the notes enlarge),
    at one scale (a task's figure is also refitted to the delivery profile, where its
    notes take room too: tests/test_delivery_profile.py)."""
    picked: dict[str, Path] = {}
    for path in sorted((DATA_DIR / RAW_DIR).glob("*.json")):
        _, block, _ = read_raw(path)
        if set(presentation_of(block).differs_from_default()) <= {"style"}:
            picked.setdefault(block["image"]["style"], path)
    assert {"cad", "textbook"} <= set(picked)
    for style in ("cad", "textbook"):
        _, block, model = read_raw(picked[style])
        seed = block["image"]["seed"]
        bare = layout_model(model, style=style, seed=seed).layout_json()["items"]
        task = layout_model(model, seed=seed, presentation=presentation_of(block),
                            category=block["category"], profile=None).layout_json()["items"]
        notes = [it for it in task if it["owner"] == "notes"]
        assert notes, picked[style].stem
        assert [it for it in task if it["owner"] != "notes"] == bare, picked[style].stem


@pytest.mark.parametrize("style", ["sketch", "exam-page"])
def test_same_seed_same_bytes_other_seed_other_bytes(style: str) -> None:
    _, model = _task("beam")
    shown = Presentation(language="zh", style=style)
    a, b, c = (render_model(model, seed=s, presentation=shown, category="beam").encode("JPEG")
               for s in (4, 4, 5))
    assert a == b and a != c


def _pencil_line(overshoot: bool) -> np.ndarray:
    zoom = 3.0  # the painter works in delivered pixels, supersampled 3×
    img = Image.new("RGB", (3 * 900, 3 * 120), (255, 255, 255))
    pencil = Pencil(ImageDraw.Draw(img), (255, 255, 255), random.Random(3), zoom)
    pencil.line([(100.0, 60.0), (800.0, 60.0)], 9.0, (40, 40, 40), overshoot=overshoot)
    return np.asarray(img.convert("L")).astype(float)


def test_pencil_pressure_varies_and_strokes_overshoot() -> None:
    ink = _pencil_line(True)
    columns = ink[:, 3 * 200:3 * 700:15]
    thickness = (columns < 200).sum(axis=0)
    darkness = columns.min(axis=0)
    assert thickness.max() - thickness.min() >= 4, "the width does not vary along the stroke"
    assert darkness.max() - darkness.min() >= 20, "the grey does not vary along the stroke"
    assert darkness.min() > 40, "graphite is grey, never black"

    def reach(arr: np.ndarray) -> float:
        xs = np.nonzero((arr < 200).any(axis=0))[0] / 3
        return max(100 - xs.min(), xs.max() - 800)

    capped = reach(_pencil_line(False))  # round ends only
    over = reach(ink)
    assert capped < over <= capped + OVERSHOOT * 3.0 + 0.5


def test_sketch_is_graphite_on_textured_paper() -> None:
    _, model = _task("frame")
    sketch = render_model(model, seed=2, presentation=Presentation(style="sketch"))
    cad = render_model(model, seed=2, presentation=Presentation(style="cad"))
    s = np.asarray(sketch.image.convert("L")).astype(float)
    c = np.asarray(cad.image.convert("L")).astype(float)
    assert (c == 255).mean() > 0.8 and (s == 255).mean() < 0.01  # paper, not white
    paper = s[s > np.percentile(s, 60)]
    assert paper.std() > 1.0  # grain
    assert s.min() > 15  # no pure black anywhere
    assert check(sketch) == []


def _page(category: str, language: str, dimensioning: str = "full") -> tuple:  # type: ignore[type-arg]
    block, model = _task(category)
    seed = block["image"]["seed"]
    shown = Presentation(language=language, style="exam-page", dimensioning=dimensioning)
    page = layout_model(model, seed=seed, presentation=shown, category=category)
    alone = layout_model(model, seed=seed, presentation=shown.with_(style="cad"))
    return page, alone, PageFacts.of(seed)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_exam_page_names_its_figure_and_frames_it(language: str) -> None:
    page, _, facts = _page("frame", language)
    words = {it.role: [] for it in page.layout if it.kind == "page"}
    for it in page.layout:
        if it.kind == "page" and it.text:
            words[it.role].append(it)
    assert set(words) >= {"header", "fields", "section", "statement", "caption", "question",
                          "page-number", "rule"}
    statement = " ".join(it.text for it in words["statement"])
    caption = words["caption"][0].text
    label = "Fig. " if language == "en" else "图 "
    assert caption == label + facts.figure
    assert (label + facts.figure) in statement  # the statement names the figure
    assert not any("Fig" in it.text or "图 " in it.text for it in words["question"])
    figure = [it for it in page.layout if it.kind != "page"]
    fy0, fy1 = min(it.bbox[1] for it in figure), max(it.bbox[3] for it in figure)
    # the page is tilted by at most 1.2°: "above" and "below" with that slack
    assert max(it.bbox[3] for it in words["statement"]) < fy0 + 30
    assert words["caption"][0].bbox[1] > fy1 - 30
    assert words["page-number"][0].bbox[1] > words["question"][-1].bbox[3]
    if language == "zh":
        assert all(CJK.search(it.text) for key in ("header", "statement", "question")
                   for it in words[key])
    else:
        assert statement.startswith(f"Problem {facts.number}. For the frame shown in Fig.")


def test_the_figure_is_moved_onto_the_page_not_shrunk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every glyph point of the figure maps onto its place on the page by one similarity
    whose scale is at least the standalone figure's zoom divided by its own (the figure is
    never reduced below its design size). The standalone figure is the cad one lettered at
    the size the page's figure took (a photocopied page letters its figure larger:
    tests/test_blurred_styles.py), so that both are laid out from the same design pixels."""
    from structeval.render.compose import figure
    from structeval.render.compose.figure import Wording, build_scene
    from structeval.render.legibility import DELIVERY_LONG_SIDE

    page, _, _ = _page("truss", "zh", "exam")
    block, model = _task("truss")
    seed = block["image"]["seed"]
    shown = Presentation(language="zh", style="exam-page", dimensioning="exam")
    scene, _ = build_scene(model, "exam-page", None, "normal", seed, Wording.of(shown, "truss"),
                           shown, profile=DELIVERY_LONG_SIDE)
    assert scene.style.text_scale > 1.0  # lettered larger than the cad figure's design
    real = figure.get_style
    monkeypatch.setattr(figure, "get_style", lambda name, scheme="normal": replace(
        real(name, scheme), text_scales=(scene.style.text_scale,)) if name == "cad"
        else real(name, scheme))
    alone = layout_model(model, seed=seed, presentation=shown.with_(style="cad"))
    a = _glyph_points(alone, lambda it: True)
    b = _glyph_points(page, lambda it: it.kind != "page")
    assert len(a) == len(b) > 10
    k, turn, worst = similarity_fit(a, b)
    assert worst < 0.05
    assert 0.3 <= abs(turn) <= 1.2 + 1e-9  # the photocopy's tilt, nothing else
    assert k == pytest.approx(page.zoom / alone.zoom)  # both from the same design pixels
    assert page.zoom >= 1.0  # never below the design size the rules were met at


def test_page_texts_are_items_of_their_own_kind_the_reader_ignores() -> None:
    page, alone, _ = _page("beam", "en")
    kinds = {it.kind for it in page.layout}
    assert "page" in kinds
    labels = sorted(it.text for it in page.layout if it.kind == "label")
    assert labels == sorted(it.text for it in alone.layout if it.kind == "label")
    record = page.layout_json()
    _, model = _task("beam")
    assert _read(record, model, "") == 1.0


def test_the_page_rule_sees_a_statement_over_the_figure() -> None:
    from dataclasses import replace

    from structeval.render.legibility import RULES, Record

    page, _, _ = _page("frame", "en")
    rec = Record.of(page)
    assert RULES["page-texts"](rec) == []
    member = next(it for it in page.layout if it.kind == "member")
    statement = next(it for it in page.layout if it.role == "statement")
    moved = replace(statement, shapes=member.shapes, bbox=member.bbox)
    items = [moved if it is statement else it for it in page.layout]
    found = RULES["page-texts"](Record(items, rec.width, rec.height))
    assert any("overlaps the figure's member" in v.reason for v in found)


def test_an_explicit_style_wins_and_a_bad_one_is_refused() -> None:
    _, model = _task("beam")
    with pytest.raises(RenderError, match="units must be one of m-kN, mm-kN"):
        render_model(model, presentation={"units": "inch-lbf"})
    # an explicit style wins over the presentation's
    assert layout_model(model, style="cad", presentation=Presentation(style="sketch")).style \
        == "cad"
    with pytest.raises(RenderError, match="unknown style"):
        layout_model(model, style="watercolour")
