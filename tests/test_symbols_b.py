"""Symbol set b (link bars): drawn as FORMAT.md defines the supports, legible, and read.

* every shipped structure re-drawn with ``symbols=b`` (layout-only path) satisfies every
  legibility rule and is rebuilt exactly by the symbolic reader; so are hard
  structures wherever their set a drawing is;
* the bars stand along the restrained direction n of FORMAT.md (S2 roller
  n = (−sin θ, cos θ), S3 slider n = (cos θ, sin θ)) for every angle tried;
* each rule of the set can fail, and a drawing whose bars say something else is read
  as something else (or refused).
"""

from __future__ import annotations

import copy
import json
import math
import time
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

from structeval.dataset.rawfile import presentation_of, render_document
from structeval.generation.generator import synthesize
from structeval.generation.selection import HARD
from structeval.model import Model, parse_model
from structeval.render import FigureLayout, RenderResult, layout_model, render_model
from structeval.render.legibility import RULES, Record, check
from structeval.render.scene.glyphs import Glyph
from structeval.render.scene.layout import LayoutItem
from structeval.render.symbols.link_supports import NAMES
from structeval.scoring import score

from .conftest import REPORTS
from .shipped_figures import TIMINGS_B, ShippedFigure
from .symbolic_reader import ReadError, read_drawing

SET_B = {"symbols": "b"}


def _record(model: Model | dict[str, Any], **kw: Any) -> dict[str, Any]:
    return json.loads(json.dumps(layout_model(model, presentation=SET_B, **kw).layout_json()))


def _read_score(model: Model, record: dict[str, Any], notes: str = "") -> str:
    """"" when the reader rebuilds the model exactly, else how it fails."""
    try:
        candidate = read_drawing(record, notes)
    except ReadError as exc:
        return f"refused: {exc}"
    verdict = score(model, candidate)
    return "" if verdict.ratio == 1.0 else f"scored {verdict.ratio} ({verdict.stage})"


def _symbols(layout: FigureLayout | RenderResult) -> list[LayoutItem]:
    """The support symbols of a figure (not the angle marks that belong to supports)."""
    return [it for it in layout.items("support") if it.glyph and it.glyph.type == "support"]


# -- every shipped structure in set b ----------------------------------------------------------

def test_every_shipped_structure_in_set_b_is_rebuilt_exactly(
        shipped_figures_b: list[ShippedFigure]) -> None:
    start = time.perf_counter()
    failures = [f"{fig.id}: {why}" for fig in shipped_figures_b
                if (why := _read_score(fig.model, fig.record, fig.notes))]
    TIMINGS_B.add("read+score", time.perf_counter() - start)
    REPORTS.append(f"symbol set b: {len(shipped_figures_b) - len(failures)} of "
                   f"{len(shipped_figures_b)} shipped structures rebuilt exactly (score 1.0)")
    assert not failures, f"{len(failures)} not readable:\n" + "\n".join(failures[:20])


def test_every_shipped_layout_in_set_b_satisfies_every_rule(
        shipped_figures_b: list[ShippedFigure]) -> None:
    start = time.perf_counter()
    broken = [f"{fig.id}: {v}" for fig in shipped_figures_b for v in check(fig.layout)]
    TIMINGS_B.add("rules", time.perf_counter() - start)
    assert not broken, f"{len(broken)} violation(s):\n" + "\n".join(broken[:30])


def test_set_b_draws_each_support_as_its_link_symbol(
        shipped_figures_b: list[ShippedFigure]) -> None:
    """Every support of every shipped structure is drawn in set b with its kind's symbol
    and bar count; the structures use all four kinds."""
    bars = {"link": 1, "two-links": 2, "parallel-links": 2, "wall": 0}
    kinds: Counter[str] = Counter()
    for fig in shipped_figures_b:
        drawn = Counter()
        for it in _symbols(fig.layout):
            g = it.glyph
            assert g is not None and g.facts["set"] == "b", fig.id
            assert len(g.paths.get("bar_joint", ())) == bars[str(g.facts["symbol"])], fig.id
            drawn[str(g.facts["symbol"])] += 1
        wanted = Counter(NAMES[s.kind] for s in fig.model.supports)
        assert drawn == wanted, fig.id
        kinds.update(s.kind.value for s in fig.model.supports)
    assert set(kinds) == {"pin", "roller", "fixed", "slider"}, kinds


# -- hard structures -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def hard_models() -> list[tuple[str, Model, dict[str, Any]]]:
    out = []
    for problem in synthesize(8, seed=5, selection=HARD):  # 11 to 66 members
        model = parse_model(render_document(problem.block, problem.model))
        out.append((problem.id, model, problem.block))
    return out


def test_hard_structures_read_in_set_b_wherever_set_a_reads(
        hard_models: list[tuple[str, Model, dict[str, Any]]]) -> None:
    """Set b never costs a hard structure its readability: each sampled one is rebuilt
    exactly in set b, or (a known limit of the dimensioning, not of the symbols) its set
    a drawing fails the same way."""
    read, worse = 0, []
    for pid, model, block in hard_models:
        image = block["image"]
        kw = {"style": image["style"], "seed": image["seed"]}
        shown = presentation_of(block)
        b = layout_model(model, presentation=shown.with_(symbols="b"), **kw)
        why_b = _read_score(model, json.loads(json.dumps(b.layout_json())), block["notes"])
        if not why_b:
            assert check(b) == [], pid
            read += 1
            continue
        a = layout_model(model, presentation=shown.with_(symbols="a"), **kw)
        why_a = _read_score(model, json.loads(json.dumps(a.layout_json())), block["notes"])
        if not why_a or why_a.split(":")[0] != why_b.split(":")[0]:
            worse.append(f"{pid}: set a {why_a or 'reads'}, set b {why_b}")
    REPORTS.append(f"symbol set b: {read} of {len(hard_models)} sampled hard structures "
                   "rebuilt exactly")
    assert not worse, "\n".join(worse)
    assert read >= len(hard_models) - 2  # the sample is mostly readable


def _first(category: str) -> tuple[str, Model, dict[str, Any]]:
    from structeval.dataset import DATA_DIR
    from structeval.dataset.rawfile import read_raw

    path = next(p for p in sorted((DATA_DIR / "raw_models").glob(f"{category}-s*.json")))
    _, block, model = read_raw(path)
    return block["id"], model, block


@pytest.mark.parametrize("style", ["cad", "textbook", "scanned"])
def test_set_b_images_render_for_beams_frames_trusses_and_hard_ones(
        style: str, hard_models: list[tuple[str, Model, dict[str, Any]]]) -> None:
    """Pixels, not only layouts: a beam, a frame and a truss (and, in cad, a hard frame)
    drawn in set b at ≥ 1,600 px satisfy every rule, the layout-only record is the full
    render's, and the same seed gives the same bytes."""
    picks = [_first(c) for c in ("beam", "frame", "truss")]
    if style == "cad":
        picks.append(next(h for h in hard_models if h[2]["category"] == "frame"))
    fmt = "JPEG" if style == "scanned" else "PNG"
    for pid, model, _ in picks:
        res = render_model(model, style=style, seed=11, presentation=SET_B)
        assert max(res.size) >= 1600 and check(res) == [], pid
        assert layout_model(model, style=style, seed=11, presentation=SET_B).layout == res.layout
        assert res.encode(fmt) == render_model(model, style=style, seed=11,
                                               presentation=SET_B).encode(fmt), pid
        assert any(it.glyph.facts["set"] == "b" for it in _symbols(res))  # type: ignore[union-attr]


# -- the bars follow FORMAT.md -------------------------------------------------------------------

def _beam_with(kind: str, angle: float) -> Model:
    return parse_model({
        "points": [{"id": "A", "x": 0, "y": 0}, {"id": "B", "x": 5, "y": 0}],
        "links": [{"id": "L1", "a": "A", "b": "B"}],
        "supports": [{"id": "S1", "at": {"type": "point", "id": "A"}, "kind": "fixed"},
                     {"id": "S2", "at": {"type": "point", "id": "B"}, "kind": kind,
                      "angleDeg": angle}],
        "loads": [{"id": "F", "kind": "pointLoad", "at": {"type": "link", "id": "L1"},
                   "value": 10, "angleDeg": 270, "angleMode": "world", "flip": 1,
                   "refEnd": "A", "offsetMode": "m", "offset": 2}]})


def _restrained(kind: str, angle: float) -> tuple[float, float]:
    t = math.radians(angle)
    return (-math.sin(t), math.cos(t)) if kind == "roller" else (math.cos(t), math.sin(t))


@pytest.mark.parametrize(("kind", "angle"), [
    ("roller", 0), ("roller", 30), ("roller", 90), ("roller", 135), ("roller", 200),
    ("roller", 270), ("slider", 0), ("slider", 45), ("slider", 90), ("slider", 180),
    ("slider", 300)])
def test_bars_lie_along_the_restrained_direction(kind: str, angle: float) -> None:
    """The bar of a roller and both bars of a slider run along n of FORMAT.md (within
    1e-9 of parallel, page y pointing down); the reader reads the support back exactly."""
    model = _beam_with(kind, angle)
    layout = layout_model(model, presentation=SET_B)
    it = next(i for i in _symbols(layout) if i.owner == "S2")
    g = it.glyph
    assert g is not None
    assert g.facts["symbol"] == NAMES[model.supports[1].kind]
    n = _restrained(kind, angle)
    for joint, foot in zip(g.paths["bar_joint"], g.paths["bar_ground"], strict=True):
        d = (joint[0] - foot[0], -(joint[1] - foot[1]))  # world axes
        length = math.hypot(*d)
        assert abs(abs(d[0] * n[0] + d[1] * n[1]) / length - 1.0) < 1e-9
    assert _read_score(model, json.loads(json.dumps(layout.layout_json()))) == ""
    assert check(layout) == []


def test_set_b_symbols_are_distinct_shapes() -> None:
    """One bar, two bars meeting at the joint, two parallel bars apart, none: each kind's
    picture differs from every other's, and from set a's."""
    model = parse_model({
        "points": [{"id": p, "x": 4 * i, "y": 0} for i, p in enumerate("ABCD")],
        "links": [{"id": f"L{i}", "a": a, "b": b} for i, (a, b) in enumerate(
            ("AB", "BC", "CD"))],
        "supports": [{"id": "S1", "at": {"type": "point", "id": "A"}, "kind": "pin"},
                     {"id": "S2", "at": {"type": "point", "id": "B"}, "kind": "roller"},
                     {"id": "S3", "at": {"type": "point", "id": "C"}, "kind": "slider",
                      "angleDeg": 90},
                     {"id": "S4", "at": {"type": "point", "id": "D"}, "kind": "fixed"}],
        "loads": [{"id": "F", "kind": "pointLoad", "at": {"type": "point", "id": "B"},
                   "value": 5, "angleDeg": 270, "angleMode": "world", "flip": 1}]})
    layout = layout_model(model, presentation=SET_B)
    g = {it.owner: it.glyph for it in _symbols(layout)}
    assert {k: v.facts["symbol"] for k, v in g.items()} == {
        "S1": "two-links", "S2": "link", "S3": "parallel-links", "S4": "wall"}
    (j1, f1), (j2, f2) = zip(g["S1"].paths["bar_joint"], g["S1"].paths["bar_ground"],
                             strict=True)
    assert math.dist(j1, j2) < 1e-9 and math.dist(f1, f2) > 2 * g["S1"].lengths["bar_r"] + 10
    (j1, f1), (j2, f2) = zip(g["S3"].paths["bar_joint"], g["S3"].paths["bar_ground"],
                             strict=True)
    assert math.dist(j1, j2) > 2 * g["S3"].lengths["bar_r"] + 5
    assert "bar_joint" not in g["S4"].paths
    assert check(layout) == []
    a = render_model(model).encode()
    b = render_model(model, presentation=SET_B)
    assert b.encode() != a and b.encode() == render_model(model, presentation=SET_B).encode()


# -- the rules of set b can fail ---------------------------------------------------------------

@pytest.fixture(scope="module")
def set_b_frame() -> Record:
    model = parse_model({
        "points": [{"id": "A", "x": 0, "y": 0}, {"id": "B", "x": 0, "y": 4},
                   {"id": "C", "x": 6, "y": 4}, {"id": "D", "x": 6, "y": 0},
                   {"id": "E", "x": 10, "y": 4}],
        "links": [{"id": "L1", "a": "A", "b": "B"}, {"id": "L2", "a": "B", "b": "C"},
                  {"id": "L3", "a": "C", "b": "D"}, {"id": "L4", "a": "C", "b": "E"}],
        "supports": [{"id": "S1", "at": {"type": "point", "id": "A"}, "kind": "pin"},
                     {"id": "S2", "at": {"type": "point", "id": "D"}, "kind": "roller",
                      "angleDeg": 30},
                     {"id": "S3", "at": {"type": "point", "id": "E"}, "kind": "slider",
                      "angleDeg": 180}],
        "loads": [{"id": "F", "kind": "pointLoad", "at": {"type": "point", "id": "B"},
                   "value": 8, "angleDeg": 0, "angleMode": "world", "flip": 1}]})
    return Record.of(layout_model(model, presentation=SET_B))


def _support(rec: Record, owner: str) -> LayoutItem:
    return next(it for it in rec.glyphs("support") if it.owner == owner)


def _bars_of(rec: Record, owner: str) -> tuple[LayoutItem, tuple[Any, ...], tuple[Any, ...]]:
    """A support symbol and its bars' joint-side and ground-side circle centres."""
    item = _support(rec, owner)
    assert item.glyph is not None
    return item, item.glyph.paths["bar_joint"], item.glyph.paths["bar_ground"]


def _with(rec: Record, item: LayoutItem, *, paths: dict[str, Any] | None = None,
          lengths: dict[str, float] | None = None, facts: dict[str, Any] | None = None,
          ) -> Record:
    g = item.glyph
    assert g is not None
    new = replace(item, glyph=Glyph(g.type, g.points, {**g.paths, **(paths or {})},
                                    {**g.lengths, **(lengths or {})},
                                    {**g.facts, **(facts or {})}))
    return Record([new if it is item else it for it in rec.items], rec.width, rec.height)


def _violations(rec: Record) -> list[str]:
    return [str(v) for v in check(rec, {"supports": RULES["supports"]})]


def _turned(p: tuple[float, float], about: tuple[float, float], deg: float,
            ) -> tuple[float, float]:
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    dx, dy = p[0] - about[0], p[1] - about[1]
    return (about[0] + c * dx - s * dy, about[1] + s * dx + c * dy)


def test_set_b_test_figure_is_clean(set_b_frame: Record) -> None:
    assert check(set_b_frame) == []


def test_rule_fails_for_a_wrong_bar_count_or_tiny_circles(set_b_frame: Record) -> None:
    link, joints, feet = _bars_of(set_b_frame, "S2")
    doubled = _with(set_b_frame, link, paths={"bar_joint": joints * 2, "bar_ground": feet * 2})
    assert any("has 2 bars; a link has 1" in v for v in _violations(doubled))
    tiny = _with(set_b_frame, link, lengths={"bar_r": 1.0})
    assert any("bar circles are 1.0 px" in v for v in _violations(tiny))
    (joint,), (foot,) = joints, feet
    stub = ((joint[0] + foot[0]) / 2, (joint[1] + foot[1]) / 2)
    short = _with(set_b_frame, link, paths={"bar_ground": (stub,)})
    assert any("less than 5 × their radius" in v for v in _violations(short))


def test_rule_fails_for_a_pin_whose_bars_close_up_or_part(set_b_frame: Record) -> None:
    pin, (j1, j2), (f1, f2) = _bars_of(set_b_frame, "S1")
    mid = ((f1[0] + f2[0]) / 2, (f1[1] + f2[1]) / 2)
    narrow = (_turned(mid, j1, -8.0), _turned(mid, j1, 8.0))
    closed = _with(set_b_frame, pin, paths={"bar_ground": narrow})
    assert any("less than 40°" in v for v in _violations(closed))
    parted = _with(set_b_frame, pin, paths={"bar_joint": (j1, (j2[0] + 6.0, j2[1]))})
    assert any("do not meet at the joint" in v for v in _violations(parted))


def test_rule_fails_for_a_slider_with_skew_or_close_bars(set_b_frame: Record) -> None:
    slider, (j1, j2), (f1, f2) = _bars_of(set_b_frame, "S3")
    skew = _with(set_b_frame, slider, paths={"bar_ground": (f1, _turned(f2, j2, 4.0))})
    assert any("not parallel" in v for v in _violations(skew))
    close = (j1[0] + 0.2 * (j2[0] - j1[0]), j1[1] + 0.2 * (j2[1] - j1[1]))
    shift = (close[0] - j2[0], close[1] - j2[1])
    near = _with(set_b_frame, slider, paths={
        "bar_joint": (j1, close), "bar_ground": (f1, (f2[0] + shift[0], f2[1] + shift[1]))})
    assert any("circles run together" in v for v in _violations(near))


def test_rule_fails_for_a_bar_off_square_or_off_its_ground(set_b_frame: Record) -> None:
    link, (joint,), (foot,) = _bars_of(set_b_frame, "S2")
    tilted = _with(set_b_frame, link, paths={"bar_ground": (_turned(foot, joint, 3.0),)})
    assert any("not square to its ground line" in v for v in _violations(tilted))
    k = 0.6  # the ground circle pulled up the bar, off the ground
    lifted = _with(set_b_frame, link, paths={"bar_ground": (
        (joint[0] + k * (foot[0] - joint[0]), joint[1] + k * (foot[1] - joint[1])),)})
    assert any("does not stand on its ground line" in v for v in _violations(lifted))


def test_rule_fails_when_a_figure_mixes_symbol_sets(set_b_frame: Record) -> None:
    mixed = _with(set_b_frame, _support(set_b_frame, "S1"), facts={"set": "a",
                                                                  "symbol": "pin"})
    assert any("mixes symbol sets a, b" in v for v in _violations(mixed))


# -- a drawing whose bars say something else is read as something else ---------------------

def _beam_record() -> tuple[Model, dict[str, Any]]:
    model = parse_model({
        "points": [{"id": "A", "x": 0, "y": 0}, {"id": "B", "x": 6, "y": 0}],
        "links": [{"id": "L1", "a": "A", "b": "B"}],
        "supports": [{"id": "S1", "at": {"type": "point", "id": "A"}, "kind": "pin"},
                     {"id": "S2", "at": {"type": "point", "id": "B"}, "kind": "roller"}],
        "loads": [{"id": "F", "kind": "pointLoad", "at": {"type": "link", "id": "L1"},
                   "value": 12, "angleDeg": 300, "angleMode": "world", "flip": 1,
                   "refEnd": "A", "offsetMode": "m", "offset": 2}]})
    return model, _record(model)


def _support_glyph(record: dict[str, Any], symbol: str) -> dict[str, Any]:
    return next(it["glyph"] for it in record["items"]
                if (it.get("glyph") or {}).get("symbol") == symbol)


def _shifted(glyph: dict[str, Any], dx: float, dy: float) -> dict[str, Any]:
    def move(v: Any) -> Any:
        if isinstance(v, list) and len(v) == 2 and all(isinstance(c, float | int) for c in v):
            return [v[0] + dx, v[1] + dy]
        if isinstance(v, list) and v and all(isinstance(p, list) for p in v):
            return [move(p) for p in v]
        return v

    return {k: move(v) for k, v in glyph.items()}


def test_reader_takes_the_restrained_direction_from_the_bar() -> None:
    """A beam with a roller restraining x (bar along the beam) is read exactly; put the
    bar of a roller restraining y there instead (drawn by the renderer for that model,
    moved onto the same joint) and the same picture otherwise reads as that structure."""
    along_x = _beam_with("roller", 90)
    record = _record(along_x)
    assert _read_score(along_x, record) == ""
    upright = _support_glyph(_record(_beam_with("roller", 0)), "link")
    mine = next(it for it in record["items"]
                if (it.get("glyph") or {}).get("symbol") == "link")
    (ax, ay), (bx, by) = mine["glyph"]["attach"], upright["attach"]
    mine["glyph"] = _shifted(upright, ax - bx, ay - by)
    assert "scored" in _read_score(along_x, record)


def test_reader_takes_the_kind_from_the_bars() -> None:
    """A second bar beside the roller's (the symbol renamed to match) makes it a guided
    support, which restrains the beam's rotation too: another structure."""
    model, record = _beam_record()
    g = _support_glyph(record, "link")
    (jx, jy), (fx, fy) = g["bar_joint"][0], g["bar_ground"][0]
    gap = 4 * g["bar_r"]
    g["bar_joint"] = [[jx - gap / 2, jy], [jx + gap / 2, jy]]
    g["bar_ground"] = [[fx - gap / 2, fy], [fx + gap / 2, fy]]
    g["symbol"] = "parallel-links"
    assert "scored" in _read_score(model, record)


def test_reader_refuses_bars_that_contradict_the_symbol() -> None:
    model, record = _beam_record()
    pin = _support_glyph(copy.deepcopy(record), "two-links")
    damaged = copy.deepcopy(record)
    g = _support_glyph(damaged, "two-links")
    g["bar_joint"], g["bar_ground"] = pin["bar_joint"][:1], pin["bar_ground"][:1]
    assert "refused" in _read_score(model, damaged)  # one bar is no pin
    renamed = copy.deepcopy(record)
    _support_glyph(renamed, "link")["symbol"] = "parallel-links"
    assert "refused" in _read_score(model, renamed)


def test_check_drawings_tool_checks_a_changed_symbol_set(tmp_path: Any) -> None:
    from click.testing import CliRunner

    from .tool_modules import load_tool

    tool = load_tool("check_drawings")
    runner = CliRunner()
    out = tmp_path / "r.json"
    done = runner.invoke(tool.main, ["--filter", "frame-classic-*", "--presentation",
                                     "symbols=b", "--json", str(out)])
    assert done.exit_code == 0, done.output
    assert "drawings satisfy every legibility rule" in done.output
    assert json.loads(out.read_text()) and not any(json.loads(out.read_text()).values())
    assert runner.invoke(tool.main, ["--presentation", "symbols=c"]).exit_code == 2
