"""The readability proof: every shipped task can be rebuilt exactly from its drawing.

The symbolic reader (``tests/symbolic_reader``, whose docstring states what it may
look at) reads each task's layout record and notes, writes a FrameCalc model, and
the scorer must give it exactly 1.0 against the ground truth. The second half shows
that the proof can fail: take information out of a drawing, or change it, and the
reader either refuses or scores below 1.
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable
from typing import Any

import pytest

from structeval.model import parse_model
from structeval.render import layout_model
from structeval.scoring import score

from .conftest import REPORTS
from .shipped_figures import TIMINGS, ShippedFigure, rebuild_failures
from .symbolic_reader import ReadError, read_drawing
from .symbolic_reader.view import reader_view


def test_every_shipped_task_is_rebuilt_exactly(shipped_figures: list[ShippedFigure]) -> None:
    start = time.perf_counter()
    failures = rebuild_failures(
        (fig.id, fig.model, lambda fig=fig: read_drawing(fig.record, fig.notes))
        for fig in shipped_figures)
    TIMINGS.add("read+score", time.perf_counter() - start)
    REPORTS.append(f"symbolic reader: {len(shipped_figures) - len(failures)} of "
                   f"{len(shipped_figures)} shipped tasks rebuilt exactly (score 1.0)")
    assert not failures, f"{len(failures)} task(s) not readable:\n" + "\n".join(failures[:20])


def test_the_reader_sees_only_the_picture(shipped_figures: list[ShippedFigure]) -> None:
    """What the reader is given has no ids, roles, anchors or scale; scrambling them in
    the record changes nothing it writes."""
    fig = next(f for f in shipped_figures if f.block["category"] == "frame")
    view = reader_view(fig.record)
    assert set(view) == {"width", "height", "items"}
    hidden = {"owner", "ownerType", "role", "anchor"}
    assert not any(hidden & set(it) for it in view["items"])
    scrambled = copy.deepcopy(fig.record)
    scrambled.update(scale=1.0, zoom=1.0, letters={})
    for i, it in enumerate(scrambled["items"]):
        it.update(owner=f"X{i}", ownerType="figure", role="value")
        it.pop("anchor", None)
    assert read_drawing(scrambled, fig.notes) == read_drawing(fig.record, fig.notes)


# -- the proof can fail ----------------------------------------------------------------------

def _pick(figures: list[ShippedFigure], wanted: Callable[[ShippedFigure], bool]) -> ShippedFigure:
    for fig in figures:
        if wanted(fig):
            return fig
    pytest.skip("no shipped task has what this test needs")


def _has(kind: str) -> Callable[[ShippedFigure], bool]:
    return lambda fig: any(ld.kind == kind for ld in fig.model.loads)


def _fails(fig: ShippedFigure, record: dict[str, Any]) -> str:
    """How the reader fails on a damaged record ("" when it still scores 1.0)."""
    try:
        candidate = read_drawing(record, fig.notes)
    except ReadError as exc:
        return f"refused: {exc}"
    verdict = score(fig.model, candidate)
    return "" if verdict.ratio == 1.0 else f"scored {verdict.ratio} ({verdict.stage})"


def _items(record: dict[str, Any], gtype: str) -> list[dict[str, Any]]:
    return [it for it in record["items"] if (it.get("glyph") or {}).get("type") == gtype]


def test_untouched_records_read_exactly(shipped_figures: list[ShippedFigure]) -> None:
    """The figures the damage tests start from are read exactly when intact."""
    for wanted in (_has("bendingMoment"), _has("distributedLoad"),
                   lambda f: bool(_items(f.record, "angle"))):
        fig = _pick(shipped_figures, wanted)
        assert _fails(fig, copy.deepcopy(fig.record)) == "", fig.id


def test_dropping_a_dimension_text_breaks_the_reading(
        shipped_figures: list[ShippedFigure]) -> None:
    fig = _pick(shipped_figures, lambda f: f.block["category"] == "frame")
    record = copy.deepcopy(fig.record)
    texts = [it for it in record["items"] if it["kind"] == "label"
             and str(it.get("text", "")).endswith(" m")]
    record["items"].remove(texts[0])
    assert _fails(fig, record)


def test_changing_a_dimension_value_changes_the_answer(
        shipped_figures: list[ShippedFigure]) -> None:
    """Numbers come from the texts: the same picture with another length text is read as
    another structure."""
    fig = _pick(shipped_figures, lambda f: f.block["category"] == "beam")
    record = copy.deepcopy(fig.record)
    text = next(it for it in record["items"] if it["kind"] == "label"
                and it.get("ownerType") == "dimension" and it.get("role") == "value")
    value = float(text["text"].split()[0])
    text["text"] = f"{value + 0.5:g} m"
    assert _fails(fig, record)


def test_removing_an_angle_mark_breaks_the_reading(shipped_figures: list[ShippedFigure]) -> None:
    fig = _pick(shipped_figures, lambda f: bool(_items(f.record, "angle")))
    record = copy.deepcopy(fig.record)
    mark = _items(record, "angle")[0]
    record["items"].remove(mark)
    text = min((it for it in record["items"] if str(it.get("text", "")).endswith("°")),
               key=lambda it: math.dist(_centre(it["bbox"]), mark["glyph"]["vertex"]))
    record["items"].remove(text)
    assert "refused" in _fails(fig, record)


def _centre(box: list[float]) -> tuple[float, float]:
    return ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)


def test_swapping_a_couples_sense_changes_the_answer(
        shipped_figures: list[ShippedFigure]) -> None:
    """Mirror a couple's arc and head across the line through its centre and tip: the
    picture now turns the other way, and so does the reading."""
    fig = _pick(shipped_figures, _has("bendingMoment"))
    record = copy.deepcopy(fig.record)
    g = _items(record, "couple")[0]["glyph"]
    c, tip = g["centre"], g["tip"]
    d = (tip[0] - c[0], tip[1] - c[1])
    n = math.hypot(*d)
    u = (d[0] / n, d[1] / n)

    def mirror(p: list[float]) -> list[float]:
        v = (p[0] - c[0], p[1] - c[1])
        along = v[0] * u[0] + v[1] * u[1]
        return [c[0] + 2 * along * u[0] - v[0], c[1] + 2 * along * u[1] - v[1]]

    g["head_base"], g["start"] = mirror(g["head_base"]), mirror(g["start"])
    g["sense"] = "cw" if g["sense"] == "ccw" else "ccw"
    assert "scored" in _fails(fig, record)


def test_removing_a_tick_breaks_the_reading(shipped_figures: list[ShippedFigure]) -> None:
    fig = _pick(shipped_figures, lambda f: f.block["category"] == "truss")
    record = copy.deepcopy(fig.record)
    chain = max(_items(record, "chain"), key=lambda it: len(it["glyph"]["ticks"]))
    g = chain["glyph"]
    for key in ("ticks", "ext_outer", "ext_inner"):
        del g[key][1]
    assert _fails(fig, record)


def test_shortening_an_extension_line_breaks_the_reading(
        shipped_figures: list[ShippedFigure]) -> None:
    """A tick whose extension line stops at the chain points at nothing: the place it
    dimensioned can no longer be read (unless another line reaches it)."""
    fig = _pick(shipped_figures, lambda f: f.block["category"] == "beam"
                and len(f.model.points) >= 3)
    record = copy.deepcopy(fig.record)
    for chain in _items(record, "chain"):
        g = chain["glyph"]
        if len(g["ticks"]) > 2:
            g["ext_inner"][1] = list(g["ticks"][1])
    assert _fails(fig, record)


def test_a_couple_drawn_at_another_place_is_not_read_where_it_was() -> None:
    """Positions come from the picture: the same record with a couple's arc moved onto
    another joint is read with the couple there (or refused: the line to where the arc
    was now stops short of its joint)."""
    raw = {"points": [{"id": "A", "x": 0, "y": 0}, {"id": "B", "x": 4, "y": 0},
                      {"id": "C", "x": 6, "y": 0}],
           "links": [{"id": "L1", "a": "A", "b": "B"}, {"id": "L2", "a": "B", "b": "C"}],
           "supports": [{"id": "S1", "at": {"type": "point", "id": "A"}, "kind": "pin"},
                        {"id": "S2", "at": {"type": "point", "id": "C"}, "kind": "roller"}],
           "loads": [{"id": "M", "kind": "bendingMoment", "at": {"type": "point", "id": "B"},
                      "value": 10, "flip": 1}]}
    model = parse_model(raw)
    record = layout_model(model).layout_json()
    assert score(model, read_drawing(record)).ratio == 1.0
    arc = _items(record, "couple")[0]["glyph"]
    joints = sorted({tuple(p) for it in _items(record, "member") for p in it["glyph"]["ends"]})
    dx = joints[0][0] - arc["centre"][0]
    for key in ("centre", "start", "tip", "head_base"):
        arc[key] = [arc[key][0] + dx, arc[key][1]]
    fig = ShippedFigure("moved", {"notes": ""}, model, layout_model(model), record)
    assert _fails(fig, record)
