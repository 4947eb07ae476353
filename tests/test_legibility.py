"""Legibility rules: every shipped layout satisfies every rule, and each rule can fail.

The rules (:mod:`structeval.render.legibility`) read the layout record only, so the
failing cases are made by damaging a good record the way a bad drawing would be
(a small arrowhead, a text moved onto a member, an extension line cut short).
"""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import pytest

from structeval.dataset import DATA_DIR
from structeval.dataset.rawfile import presentation_of
from structeval.model import parse_model
from structeval.render import layout_model, render_model
from structeval.render.legibility import RULES, Record, check
from structeval.render.scene.glyphs import Glyph
from structeval.render.scene.layout import LayoutItem
from structeval.render.scene.shapes import Box

from .conftest import ROOT
from .shipped_figures import TIMINGS, ShippedFigure

FRAME = {  # a couple, a slanted force, a partial row, a slanted roller: every rule has work
    "points": [{"id": "A", "x": 0, "y": 0}, {"id": "B", "x": 0, "y": 4},
               {"id": "C", "x": 6, "y": 4}, {"id": "D", "x": 6, "y": 0}],
    "links": [{"id": "L1", "a": "A", "b": "B"}, {"id": "L2", "a": "B", "b": "C"},
              {"id": "L3", "a": "C", "b": "D"}],
    "supports": [{"id": "S1", "at": {"type": "point", "id": "A"}, "kind": "fixed"},
                 {"id": "S2", "at": {"type": "point", "id": "D"}, "kind": "roller",
                  "angleDeg": 30}],
    "loads": [{"id": "Q", "kind": "distributedLoad", "at": {"type": "link", "id": "L2"},
               "wStart": 5, "wEnd": 5, "fromStart": 1, "fromEnd": 2, "angleDeg": 270,
               "angleMode": "world", "flip": 1},
              {"id": "F", "kind": "pointLoad", "at": {"type": "link", "id": "L1"}, "value": 12,
               "angleDeg": 0, "angleMode": "world", "flip": 1, "refEnd": "A",
               "offsetMode": "m", "offset": 1.5},
              {"id": "P", "kind": "pointLoad", "at": {"type": "point", "id": "C"}, "value": 8,
               "angleDeg": 240, "angleMode": "world", "flip": 1},
              {"id": "M", "kind": "bendingMoment", "at": {"type": "link", "id": "L2"},
               "value": 20, "flip": -1, "refEnd": "A", "offsetMode": "m", "offset": 4.5}]}


@pytest.fixture(scope="module")
def frame() -> Record:
    return Record.of(layout_model(parse_model(FRAME), style="cad"))


def _rules(rec: Record, *names: str) -> list[str]:
    return [str(v) for v in check(rec, {n: RULES[n] for n in names})]


def _swap(rec: Record, old: LayoutItem, new: LayoutItem) -> Record:
    return Record([new if it is old else it for it in rec.items], rec.width, rec.height)


def _item(rec: Record, owner: str, role: str) -> LayoutItem:
    return next(it for it in rec.items if it.owner == owner and it.role == role)


def _reglyph(item: LayoutItem, **lengths: float) -> LayoutItem:
    assert item.glyph is not None
    g = item.glyph
    return replace(item, glyph=Glyph(g.type, g.points, g.paths, {**g.lengths, **lengths},
                                     g.facts))


def test_every_shipped_layout_satisfies_every_rule(shipped_figures: list[ShippedFigure]) -> None:
    start = time.perf_counter()
    broken = [f"{fig.id}: {v}" for fig in shipped_figures for v in check(fig.layout)]
    TIMINGS.add("rules", time.perf_counter() - start)
    assert not broken, f"{len(broken)} violation(s):\n" + "\n".join(broken[:30])


def test_the_test_figure_is_clean(frame: Record) -> None:
    assert check(frame) == []


def test_size_rule_fails_below_1600_px() -> None:
    small = layout_model(parse_model(FRAME), min_long_side=None)
    assert max(small.width, small.height) < 1600
    assert any(v.rule == "size" for v in check(small))
    assert not any(v.rule == "size" for v in check(layout_model(parse_model(FRAME))))


def test_couple_rule_fails_for_a_short_arc_a_small_head_or_a_crossing(frame: Record) -> None:
    arc = _item(frame, "M", "arc")
    g = arc.glyph
    assert g is not None
    short = replace(arc, glyph=Glyph(g.type, g.points, g.paths, g.lengths, {**g.facts,
                                                                        "sweep": 200.0}))
    assert any("sweeps 200" in v for v in _rules(_swap(frame, arc, short), "couples"))
    tiny = _reglyph(arc, head=3.0)
    assert any("arrowhead is 3.0 px" in v for v in _rules(_swap(frame, arc, tiny), "couples"))
    tip = g.points["tip"]
    crossing = LayoutItem("label", "X", "load", "value", (tip[0] - 3, tip[1] - 3, tip[0] + 3,
                                                          tip[1] + 3), (Box((tip[0] - 3,
                                                                              tip[1] - 3,
                                                                              tip[0] + 3,
                                                                              tip[1] + 3)),),
                          "X")
    rec = Record([*frame.items, crossing], frame.width, frame.height)
    assert any("crosses its arrowhead" in v for v in _rules(rec, "couples"))


def test_support_rule_fails_for_a_small_fixed_wall(frame: Record) -> None:
    wall = _item(frame, "S1", "fixed")
    thin = _reglyph(wall, hatch_len=6.0)
    assert any("a fixed needs 7 of 14 px" in v for v in _rules(_swap(frame, wall, thin),
                                                               "supports"))
    pin_like = _reglyph(_item(frame, "S2", "roller"), size=9.0)
    assert any("tall, less than" in v
               for v in _rules(_swap(frame, _item(frame, "S2", "roller"), pin_like),
                               "supports"))


def test_text_rules_fail_for_overlaps_and_ambiguous_labels(frame: Record) -> None:
    value = next(it for it in frame.labels if it.owner == "F")
    member = _item(frame, "L2", "member")
    assert member.glyph is not None
    (x, y), _ = member.glyph.paths["ends"]
    w, h = value.bbox[2] - value.bbox[0], value.bbox[3] - value.bbox[1]
    on_member = replace(value, bbox=(x + 40, y - h / 2, x + 40 + w, y + h / 2),
                        shapes=(Box((x + 40, y - h / 2, x + 40 + w, y + h / 2)),))
    rec = _swap(frame, value, on_member)
    assert any("overlaps member L2" in v for v in _rules(rec, "text-overlaps"))
    # the 12 kN text moved next to the other force's arrow
    other = _item(frame, "P", "arrow")
    assert other.glyph is not None
    tx, ty = other.glyph.points["tail"]
    beside = replace(value, bbox=(tx + 4, ty - h, tx + 4 + w, ty),
                     shapes=(Box((tx + 4, ty - h, tx + 4 + w, ty)),))
    assert any("cannot tell which it labels" in v
               for v in _rules(_swap(frame, value, beside), "text-association"))


def test_dimension_rule_fails_for_a_text_off_its_interval(frame: Record) -> None:
    text = next(it for it in frame.labels if it.owner == "x" and it.role == "value")
    chain = _item(frame, "x", "chain")
    assert chain.glyph is not None
    t0 = chain.glyph.paths["ticks"][0]
    w, h = text.bbox[2] - text.bbox[0], text.bbox[3] - text.bbox[1]
    off = replace(text, bbox=(t0[0] - w / 2, text.bbox[1], t0[0] + w / 2, text.bbox[1] + h),
                  shapes=(Box((t0[0] - w / 2, text.bbox[1], t0[0] + w / 2, text.bbox[1] + h)),))
    problems = _rules(_swap(frame, text, off), "dimensions")
    assert any("interval" in v and "has 0 texts" in v for v in problems)


def test_coordinate_rule_fails_when_an_extension_line_is_cut(frame: Record) -> None:
    chain = _item(frame, "y", "chain")
    g = chain.glyph
    assert g is not None
    ticks = list(g.paths["ticks"])
    cut = replace(chain, glyph=Glyph(g.type, g.points, {**g.paths, "ext_inner": tuple(ticks)},
                                     g.lengths, g.facts))
    problems = _rules(_swap(frame, chain, cut), "coordinates", "load-positions")
    assert any("its y is on no extension line" in v for v in problems)
    assert any("arrow of F" in v and "no extension line of a y chain" in v for v in problems)


def test_arrow_rule_fails_for_an_arrow_beside_its_place(frame: Record) -> None:
    arrow = _item(frame, "P", "arrow")
    g = arrow.glyph
    assert g is not None
    shifted = {k: (p[0] + 30.0, p[1]) for k, p in g.points.items()}
    moved = replace(arrow, glyph=Glyph(g.type, shifted, g.paths, g.lengths, g.facts))
    assert any("line of action misses its place" in v
               for v in _rules(_swap(frame, arrow, moved), "arrows"))


def test_arrow_rule_for_an_arrow_laid_beside_a_member(frame: Record) -> None:
    """Beside a member it runs parallel to, an arrow's tip is level with its place and
    nearer that member than any other (else a reader takes the other for the place)."""
    arrow = _item(frame, "P", "arrow")
    g, anchor = arrow.glyph, arrow.anchor
    assert g is not None and anchor is not None
    cx, cy = anchor.at[0]  # joint C: L2 runs left of it, L3 down from it

    def laid(dx: float, dy: float) -> list[str]:
        points = {**g.points, "tail": (cx + dx, cy + 60.0 + dy), "tip": (cx + dx, cy + dy)}
        moved = replace(arrow, glyph=Glyph(g.type, points, g.paths, g.lengths, g.facts))
        return _rules(_swap(frame, arrow, moved), "arrows")

    assert laid(14.0, 0.0) == []  # outside L3, pushing up, tip level with C
    assert any("px off its place's level" in v for v in laid(14.0, 5.0))
    assert any("nearer another member" in v for v in laid(-14.0, 0.0))  # tip on L2


# -- the layout-only path and the delivered files ----------------------------------------

def _sample(n_per_style: int = 2) -> list[Path]:
    picked: dict[str, list[Path]] = {}
    for path in sorted((DATA_DIR / "raw_models").glob("*.json")):
        style = json.loads(path.read_text())["problem"]["image"]["style"]
        if style == "sheet":
            continue  # re-drawn from its drawing block in test_sheets.py
        if len(picked.setdefault(style, [])) < n_per_style:
            picked[style].append(path)
    return [p for paths in picked.values() for p in paths]


SHIPPED_PILLOW = "13.0.0"  # the Pillow the shipped images were drawn with


@pytest.mark.parametrize("path", _sample(), ids=lambda p: p.stem)
def test_layout_only_path_and_shipped_image_match_the_full_render(path: Path) -> None:
    """The layout-only record is the full render's record, the same seed gives the same
    bytes, and (with the Pillow the data was drawn with) those are the shipped bytes."""
    import PIL

    raw = json.loads(path.read_text())
    block = raw["problem"]
    image = block["image"]
    task = {"seed": image["seed"], "presentation": presentation_of(block),
            "category": block["category"]}  # drawn as the dataset draws the task
    full = render_model(raw, **task)
    quick = layout_model(raw, **task)
    assert quick.layout == full.layout and quick.size == full.size
    fmt = "JPEG" if image["file"].endswith(".jpg") else "PNG"
    again = render_model(raw, **task).encode(fmt)
    assert full.encode(fmt) == again
    if PIL.__version__ == SHIPPED_PILLOW:
        assert (DATA_DIR / "images" / image["file"]).read_bytes() == again
    assert max(full.size) >= 1600


def test_check_drawings_tool_reports_and_exits(tmp_path: Path) -> None:
    import importlib.util

    from click.testing import CliRunner

    spec = importlib.util.spec_from_file_location("check_drawings_tool",
                                                  ROOT / "tools" / "check_drawings.py")
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    main = tool.main

    runner = CliRunner()
    done = runner.invoke(main, ["--filter", "beam-classic-gerber-*", "--json",
                                str(tmp_path / "r.json")])
    assert done.exit_code == 0, done.output
    assert "of 3 drawings satisfy every legibility rule" in done.output
    assert set(json.loads((tmp_path / "r.json").read_text())) == {
        "beam-classic-gerber-3span", "beam-classic-gerber-4span", "beam-classic-gerber-fixed"}
    assert runner.invoke(main, ["--filter", "no-such-task"]).exit_code == 2
