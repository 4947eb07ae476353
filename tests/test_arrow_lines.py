"""Two force arrows never share one line (rule ``arrow-lines``).

Found in review of ``truss-s21-0017``: 12 kN at N pointing left and 50 kN at O
pointing right, each laid beside the chord with its head at its joint, met tail to
tail and were drawn as one double-headed arrow. The rule must refuse such a pair (and
arrows that follow each other, or run side by side, too close to tell apart), and the
renderer must part them: shorter arrows first, more room when that is not enough.
"""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from structeval.dataset import DATA_DIR
from structeval.dataset.rawfile import presentation_of, read_raw
from structeval.render import layout_model
from structeval.render.compose import figure
from structeval.render.compose.figure import lay_out
from structeval.render.legibility import RULES, Record, check
from structeval.render.legibility.arrow_lines import clashes
from structeval.render.scene.glyphs import Glyph
from structeval.render.scene.layout import LayoutItem
from structeval.render.scene.styles import get_style
from structeval.render.symbols.loads import ARROW_LEN

TASK = "truss-s21-0017-ref"  # LD3: 12 kN at N, pointing left; LD5: 50 kN at O, pointing right


@pytest.fixture(scope="module")
def shipped() -> tuple[dict, object]:
    path = DATA_DIR / "raw_models" / f"{TASK}.json"
    if not path.is_file():
        pytest.skip(f"{path} is not in this checkout")
    _, block, model = read_raw(path)
    return block, model


def _arrow(rec: Record, owner: str) -> LayoutItem:
    return next(it for it in rec.glyphs("arrow") if it.owner == owner)


def _length(item: LayoutItem) -> float:
    g = item.glyph
    assert g is not None
    return math.dist(g.points["tail"], g.points["tip"])


def _moved(item: LayoutItem, tail: tuple[float, float], tip: tuple[float, float]) -> LayoutItem:
    g = item.glyph
    assert g is not None
    return replace(item, glyph=Glyph(g.type, {**g.points, "tail": tail, "tip": tip}, g.paths,
                                     g.lengths, g.facts))


def _lines(items: list[LayoutItem]) -> list[str]:
    return [str(v) for v in check(Record(items, 2000, 1000), {"arrow-lines": RULES["arrow-lines"]})]


def test_the_shipped_task_draws_the_two_forces_apart(shipped: tuple[dict, object]) -> None:
    block, model = shipped
    layout = layout_model(model, seed=block["image"]["seed"],
                          presentation=presentation_of(block), category=block["category"])
    rec = Record.of(layout)
    assert check(layout, profile=1568) == []
    n3, n5 = _arrow(rec, "LD3"), _arrow(rec, "LD5")
    assert n3.glyph is not None and n5.glyph is not None
    # still two opposite arrows beside the chord, on one level, each with its head at its joint
    assert abs(n3.glyph.points["tip"][1] - n5.glyph.points["tip"][1]) < 0.5
    assert n3.glyph.points["tip"][0] < n3.glyph.points["tail"][0]
    assert n5.glyph.points["tip"][0] > n5.glyph.points["tail"][0]
    # parted by more than an arrowhead along their line
    assert n5.glyph.points["tail"][0] - n3.glyph.points["tail"][0] > n3.glyph.lengths["head"]


def test_without_shorter_arrows_they_run_together(shipped: tuple[dict, object],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The retry with shorter arrows is what parts them at the figure's first scale."""
    block, model = shipped
    style = get_style("cad")
    k = layout_model(model, seed=block["image"]["seed"], presentation=presentation_of(block),
                     category=block["category"]).scale  # the scale the task is drawn at
    scene, _ = lay_out(model, style, k)
    parted = Record(scene.layout.items, 0, 0, on_page=False)
    assert clashes(parted) == []
    assert _length(_arrow(parted, "LD3")) == pytest.approx(0.75 * ARROW_LEN, abs=0.01)
    monkeypatch.setattr(figure, "SHORTER_ARROWS", ())
    scene, _ = lay_out(model, style, k)
    together = Record(scene.layout.items, 0, 0, on_page=False)
    assert {(a.owner, b.owner) for a, b, _ in clashes(together)} == {("LD3", "LD5")}
    assert _length(_arrow(together, "LD3")) == pytest.approx(ARROW_LEN, abs=0.01)


def test_the_rule_refuses_one_line_and_passes_two(shipped: tuple[dict, object]) -> None:
    block, model = shipped
    rec = Record.of(layout_model(model, seed=block["image"]["seed"],
                                 presentation=presentation_of(block),
                                 category=block["category"]))
    a, b = _arrow(rec, "LD3"), _arrow(rec, "LD5")
    y = 100.0

    def pair(b_tail: float, b_tip: float, b_y: float = y) -> list[str]:
        return _lines([_moved(a, (200.0, y), (150.0, y)), _moved(b, (b_tail, b_y), (b_tip, b_y))])

    # tail to tail, sharing 30 px of one line: one double-headed arrow
    found = pair(170.0, 220.0)
    assert len(found) == 1 and "LD3 and LD5" in found[0] and "share 30 px" in found[0]
    assert pair(205.0, 255.0) != []  # 5 px of paper between the tails: less than a head
    assert pair(230.0, 280.0) == []  # 30 px between them: two arrows
    assert pair(170.0, 220.0, y + 4.0) != []  # side by side, closer than a head is wide
    assert pair(170.0, 220.0, y + 30.0) == []  # two rows
    # one across the other is not one line
    crossing = _lines([_moved(a, (200.0, y), (150.0, y)), _moved(b, (175.0, 60.0), (175.0, 140.0))])
    assert crossing == []
