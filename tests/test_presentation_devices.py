"""Each device of the exam, parametric and mm presentations: drawn, read exactly, and
able to fail.

For every device a small model shows it (``tests/exam_models.py``); the drawing must be
read back to 1.0 by the symbolic reader and break no legibility rule. Then the device
is damaged the way a bad drawing would be (the "6 ×" dropped, a symmetry mark on
asymmetric loads, a level text changed, a chord kinked, a wrong legend value, the
"Dimensions in mm" note missing …): the reader must then refuse or score below 1, or
a legibility rule must flag it.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from structeval.dataset.notes import MILLIMETRES, PARAMETRIC, task_notes
from structeval.model import parse_model
from structeval.model.types import Model
from structeval.presentation import Presentation
from structeval.render import layout_model, render_model
from structeval.render.legibility import RULES, Record, check
from structeval.render.reading import exam as exam_module
from structeval.render.reading.value_text import short_ratio, term
from structeval.scoring import score

from .exam_models import building_frame, pitched_portal, roof_truss, symmetric_beam
from .symbolic_reader import ReadError, read_drawing
from .symbolic_reader.texts import ExpressionError, expression, lexicon

EXAM = {"dimensioning": "exam"}
PARAMETRIC_MM = {"values": "parametric", "units": "mm-kN"}
ALL_THREE = {"dimensioning": "exam", "values": "parametric", "units": "mm-kN"}
TRUSS_NOTES = "All members of this truss are pin-jointed (hinged at both ends)."


def _record(model: Model, shown: dict[str, str]) -> dict[str, Any]:
    return layout_model(model, presentation=shown).layout_json()


def _reading(model: Model, record: dict[str, Any], notes: str = "") -> str:
    """"" when the record is read back exactly, else how the reader fails."""
    try:
        verdict = score(model, read_drawing(record, notes))
    except ReadError as exc:
        return f"refused: {exc}"
    return "" if verdict.ratio == 1.0 else f"scored {verdict.ratio} ({verdict.stage})"


def _violations(model: Model, shown: dict[str, str], **patch: Any) -> list[str]:
    return [str(v) for v in check(layout_model(model, presentation=shown))]


def _texts(record: dict[str, Any], pattern: str) -> list[dict[str, Any]]:
    return [it for it in record["items"] if it["kind"] == "label"
            and re.search(pattern, str(it.get("text", "")))]


def _numbers(record: dict[str, Any]) -> int:
    """Texts that state a number (what a reader must read off the drawing)."""
    return len(_texts(record, r"\d"))


@pytest.fixture(scope="module")
def beam() -> Model:
    return parse_model(symmetric_beam())


@pytest.fixture(scope="module")
def truss() -> Model:
    return parse_model(roof_truss())


@pytest.fixture(scope="module")
def frame() -> Model:
    return parse_model(building_frame())


@pytest.fixture(scope="module")
def portal() -> Model:
    return parse_model(pitched_portal())


@pytest.mark.parametrize("shown", [{}, EXAM, PARAMETRIC_MM, ALL_THREE,
                                   {"values": "parametric"}, {"units": "mm-kN"}])
@pytest.mark.parametrize("which", ["beam", "truss", "frame", "portal"])
def test_each_device_model_reads_exactly_and_legibly(which: str, shown: dict[str, str],
                                                     request: pytest.FixtureRequest) -> None:
    model = request.getfixturevalue(which)
    notes = TRUSS_NOTES if which == "truss" else ""
    layout = layout_model(model, presentation=shown)
    assert [str(v) for v in check(layout)] == []
    assert _reading(model, layout.layout_json(), notes) == ""


def test_exam_drawings_show_fewer_numbers(beam: Model, truss: Model, frame: Model,
                                          portal: Model) -> None:
    for model in (beam, truss, frame, portal):
        assert _numbers(_record(model, EXAM)) < _numbers(_record(model, {}))


# -- repeated spacings ------------------------------------------------------------------

def test_repeated_spacings_are_written_once(frame: Model) -> None:
    record = _record(frame, EXAM)
    assert [it["text"] for it in _texts(record, "×")] == ["2 × 6 m"]
    assert len(_record(frame, {})["items"]) > len(record["items"])


def test_dropping_the_count_of_a_repeat_breaks_the_reading(frame: Model) -> None:
    record = _record(frame, EXAM)
    _texts(record, "×")[0]["text"] = "6 m"
    assert _reading(frame, record)
    layout = layout_model(frame, presentation=EXAM)
    rec = Record.of(layout)
    items = [it if it.text != "2 × 6 m" else type(it)(**{**it.__dict__, "text": "6 m"})
             for it in rec.items]
    broken = Record(items, rec.width, rec.height)
    assert check(broken, {"dimensions": RULES["dimensions"]})


# -- symmetry ---------------------------------------------------------------------------

def test_a_symmetric_figure_gets_an_axis_and_one_half_dimensioned(beam: Model) -> None:
    record = _record(beam, EXAM)
    axes = [it for it in record["items"] if (it.get("glyph") or {}).get("type") == "symmetry"]
    assert len(axes) == 1
    x_ticks = [t for it in record["items"] if (it.get("glyph") or {}).get("type") == "chain"
               for t in it["glyph"]["ticks"]]
    assert max(t[0] for t in x_ticks) == pytest.approx(axes[0]["glyph"]["line"][0][0], abs=0.01)


def test_no_axis_when_the_loads_are_not_symmetric() -> None:
    lopsided = parse_model(symmetric_beam(right_load=12.0))
    assert exam_module.symmetry_axis(lopsided) is None
    record = _record(lopsided, EXAM)
    assert not [it for it in record["items"]
                if (it.get("glyph") or {}).get("type") == "symmetry"]
    assert _reading(lopsided, record) == ""


def test_a_symmetry_mark_on_asymmetric_loads_is_flagged_and_misread(
        beam: Model, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the mark while the loads lose their symmetry: the rule flags the drawing, and
    the reader (who trusts the mark) cannot rebuild it."""
    extra = {"id": "LDX", "kind": "pointLoad", "at": {"type": "link", "id": "L4"},
             "value": 7, "angleDeg": 270, "angleMode": "world", "flip": 1, "refEnd": "A",
             "offsetMode": "m", "offset": 1.0}  # at x = 7, with no image at x = 1
    lopsided = parse_model({**symmetric_beam(), "loads": symmetric_beam()["loads"] + [extra]})
    monkeypatch.setattr(exam_module, "symmetry_axis", lambda model: 4.0)
    layout = layout_model(lopsided, presentation=EXAM)
    assert any("symmetry" in str(v) for v in check(layout))
    assert _reading(lopsided, layout.layout_json())
    different = parse_model(symmetric_beam(right_load=12.0))  # same places, another value
    layout = layout_model(different, presentation=EXAM)
    assert any("differs in value" in str(v) for v in check(layout))


def test_an_axis_without_a_tick_is_refused(beam: Model) -> None:
    record = _record(beam, EXAM)
    for it in record["items"]:
        g = it.get("glyph") or {}
        if g.get("type") == "symmetry":
            g["line"] = [[p[0] + 30, p[1]] for p in g["line"]]
    assert "refused" in _reading(beam, record)


# -- levels -----------------------------------------------------------------------------

def test_a_building_frame_is_dimensioned_by_levels(frame: Model) -> None:
    record = _record(frame, EXAM)
    levels = sorted(it["text"] for it in _texts(record, r"^[±+-]\d+\.\d{3}$"))
    assert levels == ["+10.500", "+3.500", "+7.000", "±0.000"]
    assert not [it for it in record["items"] if (it.get("glyph") or {}).get("type") == "chain"
                and it["glyph"]["axis"] == "y"]


def test_a_changed_level_changes_the_reading(frame: Model) -> None:
    record = _record(frame, EXAM)
    _texts(record, r"^\+7\.000$")[0]["text"] = "+7.500"
    assert "scored" in _reading(frame, record)


def test_a_level_text_between_two_marks_is_flagged(frame: Model) -> None:
    rec = Record.of(layout_model(frame, presentation=EXAM))
    marks = sorted((it for it in rec.items if it.role == "level"),
                   key=lambda it: it.glyph.points["tip"][1])  # type: ignore[union-attr]
    lab = next(it for it in rec.items if it.text == "+7.000")
    mid = (marks[0].glyph.points["tip"][1] + marks[1].glyph.points["tip"][1]) / 2  # type: ignore[union-attr]
    h = lab.bbox[3] - lab.bbox[1]
    moved = type(lab)(**{**lab.__dict__, "bbox": (lab.bbox[0], mid - h / 2, lab.bbox[2],
                                                  mid + h / 2)})
    broken = Record([moved if it is lab else it for it in rec.items], rec.width, rec.height)
    assert check(broken, {"levels": RULES["levels"]})


# -- heights implied by a straight chord ------------------------------------------------

def test_heights_on_a_straight_chord_are_not_dimensioned(truss: Model) -> None:
    assert exam_module.implied_heights(truss, None) == frozenset({"F", "H"})
    full, exam = _record(truss, {}), _record(truss, EXAM)
    y_ticks = [len(it["glyph"]["ticks"]) for r in (full, exam) for it in r["items"]
               if (it.get("glyph") or {}).get("type") == "chain" and it["glyph"]["axis"] == "y"]
    assert y_ticks and sum(y_ticks[:len(y_ticks) // 2 or 1]) >= 2
    assert _reading(truss, exam, TRUSS_NOTES) == ""


def test_a_kinked_chord_implies_nothing(truss: Model) -> None:
    """Move joint F off the line A–G on the page (every member end there): the picture no
    longer shows F on a straight chord, so its height is not known."""
    record = _record(truss, EXAM)
    letters = {v: k for k, v in record["letters"].items()}
    f = next(it for it in record["items"] if it.get("role") == "letter"
             and it.get("text") == letters["F"])["anchor"]["at"][0]
    for it in record["items"]:
        g = it.get("glyph") or {}
        for key, value in list(g.items()):
            if isinstance(value, list) and value and isinstance(value[0], list):
                g[key] = [[p[0], p[1] - 6] if abs(p[0] - f[0]) < 0.5 and abs(p[1] - f[1]) < 0.5
                          else p for p in value]
            elif isinstance(value, list) and len(value) == 2 and abs(value[0] - f[0]) < 0.5 \
                    and abs(value[1] - f[1]) < 0.5:
                g[key] = [value[0], value[1] - 6]
    assert _reading(truss, record, TRUSS_NOTES)


# -- slopes -----------------------------------------------------------------------------

def _slope_items(record: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    tri = next(it for it in record["items"] if (it.get("glyph") or {}).get("type") == "slope")
    return tri, [it for it in record["items"] if str(it.get("role", "")).startswith("slope-")]


def test_a_ridge_height_is_given_by_the_slope(portal: Model) -> None:
    record = _record(portal, EXAM)
    _, numbers = _slope_items(record)
    assert sorted(it["text"] for it in numbers) == ["1", "4"]
    heights = [t for it in record["items"] if (it.get("glyph") or {}).get("type") == "chain"
               and it["glyph"]["axis"] == "y" for t in it["glyph"]["ticks"]]
    assert len(heights) == 2  # ground and eaves: the ridge follows from 1:4
    assert _reading(portal, _record(portal, ALL_THREE)) == ""


def test_a_wrong_or_missing_slope_breaks_the_reading(portal: Model) -> None:
    record = _record(portal, EXAM)
    _, numbers = _slope_items(record)
    next(it for it in numbers if it["text"] == "4")["text"] = "3"
    assert "scored" in _reading(portal, record)
    record = _record(portal, EXAM)
    tri, numbers = _slope_items(record)
    for it in [tri, *numbers]:
        record["items"].remove(it)
    assert "refused" in _reading(portal, record)


def test_a_slope_triangle_off_its_member_is_flagged(portal: Model) -> None:
    rec = Record.of(layout_model(portal, presentation=EXAM))
    tri = next(it for it in rec.items if it.role == "slope")
    g = tri.glyph
    assert g is not None
    moved = {k: (p[0], p[1] + 12.0) for k, p in g.points.items()}
    shifted = type(tri)(**{**tri.__dict__, "glyph": type(g)(g.type, moved, g.paths, g.lengths,
                                                              g.facts)})
    broken = Record([shifted if it is tri else it for it in rec.items], rec.width, rec.height)
    assert any("does not sit on a member" in str(v)
               for v in check(broken, {"slopes": RULES["slopes"]}))


# -- parametric values ------------------------------------------------------------------

def test_parametric_labels_are_short_exact_expressions(frame: Model) -> None:
    record = _record(frame, {"values": "parametric"})
    legend = [it["text"] for it in record["items"] if it.get("role") == "legend"]
    assert legend == ["q = 8 kN/m, P = 12 kN, a = 3.5 m"]
    loads = sorted(it["text"] for it in record["items"] if it.get("ownerType") == "load"
                   and it["kind"] == "label")
    assert loads == ["5P/4", "5q/4", "P", "q"]
    assert short_ratio(1.75, 3.5) == 0.5 and term(short_ratio(1.75, 3.5), "a") == "a/2"  # type: ignore[arg-type]
    assert short_ratio(1.0, 3.0 ** 0.5) is None  # never a rounded expression


def test_a_wrong_legend_value_changes_the_reading(frame: Model) -> None:
    record = _record(frame, {"values": "parametric"})
    leg = next(it for it in record["items"] if it.get("role") == "legend")
    leg["text"] = leg["text"].replace("q = 8 kN/m", "q = 9 kN/m")
    assert "scored" in _reading(frame, record)


def test_a_symbol_defined_twice_or_not_at_all_is_refused_and_flagged(frame: Model) -> None:
    layout = layout_model(frame, presentation={"values": "parametric"})
    record = layout.layout_json()
    leg = next(it for it in record["items"] if it.get("role") == "legend")
    twice = copy.deepcopy(record)
    next(it for it in twice["items"] if it.get("role") == "legend")["text"] += ", q = 8 kN/m"
    assert "refused" in _reading(frame, twice)
    record["items"].remove(leg)
    assert _reading(frame, record)
    rec = Record.of(layout)
    gone = Record([it for it in rec.items if it.role != "legend"], rec.width, rec.height)
    assert any("defines it nowhere" in str(v) for v in check(gone, {"legend": RULES["legend"]}))
    doubled = Record([type(it)(**{**it.__dict__, "text": f"{it.text}, P = 3 kN"})
                      if it.role == "legend" else it for it in rec.items], rec.width,
                     rec.height)
    assert any("defined 2 times" in str(v) for v in check(doubled, {"legend": RULES["legend"]}))


def test_the_expression_parser() -> None:
    lex = lexicon(["q = 10 kN/m, P = 2qa, a = 2 m"])
    assert lex.symbols["P"] == (40.0, (1, 0))
    assert lex.parse("qa²/2").value == 20.0 and lex.parse("qa²/2").kind == "couple"  # type: ignore[union-attr]
    assert lex.parse("1.5a").value == 3.0 and lex.parse("1.5a").kind == "length"  # type: ignore[union-attr]
    assert lex.parse("2P·a").value == 160.0  # type: ignore[union-attr]
    assert lex.parse("3q/4").kind == "intensity"  # type: ignore[union-attr]
    assert lex.parse("6 × a").count == 6  # type: ignore[union-attr]
    assert lex.parse("A") is None and lex.parse("x") is None
    for bad in ("2q+a", "a/1.5", "", "q^2", "__import__('os')"):
        with pytest.raises(ExpressionError):
            expression(bad, lex.symbols)
    with pytest.raises(ValueError, match="twice"):
        lexicon(["a = 2 m", "a = 3 m"])


def _long_truss() -> Model:
    """16 joints: enough that the 14th joint would be lettered P (A … Z skip I and O)."""
    points = ([{"id": f"B{i}", "x": 2 * i, "y": 0} for i in range(9)]
              + [{"id": f"T{i}", "x": 2 * i, "y": 2} for i in range(1, 8)])
    pairs = ([(f"B{i}", f"B{i + 1}") for i in range(8)]
             + [(f"T{i}", f"T{i + 1}") for i in range(1, 7)]
             + [(f"B{i}", f"T{i}") for i in range(1, 8)] + [("B0", "T1"), ("T7", "B8")]
             + [(f"T{i}", f"B{i + 1}") for i in range(1, 4)]
             + [(f"B{i}", f"T{i + 1}") for i in range(4, 7)])
    return parse_model({
        "points": points, "links": [{"id": f"L{n}", "a": a, "b": b}
                                    for n, (a, b) in enumerate(pairs)],
        "supports": [{"id": "S1", "at": {"type": "point", "id": "B0"}, "kind": "pin"},
                     {"id": "S2", "at": {"type": "point", "id": "B8"}, "kind": "roller"}],
        "loads": [{"id": f"F{i}", "kind": "pointLoad", "at": {"type": "point", "id": f"T{i}"},
                   "value": 10 * (1 + i % 2), "angleDeg": 270, "angleMode": "world",
                   "flip": 1} for i in range(1, 8)]})


def test_legend_symbols_are_not_joint_letters() -> None:
    record = _record(_long_truss(), {"values": "parametric"})
    legend = next(it["text"] for it in record["items"] if (it.get("text") or "").startswith("P ="))
    letters = list(record["letters"])
    assert legend == "P = 20 kN, a = 2 m" and len(letters) == 16
    assert "P" not in letters and letters[12:14] == ["N", "Q"]  # P is the legend's force
    assert not any(c in "IO" for name in letters for c in name)


# -- millimetres ------------------------------------------------------------------------

def test_mm_drawings_write_bare_millimetres_and_say_so(frame: Model) -> None:
    record = _record(frame, {"units": "mm-kN"})
    dims = {it["text"] for it in record["items"] if it.get("ownerType") == "dimension"
            and it["kind"] == "label"}
    assert "3500" in dims and "6000" in dims
    assert [it["text"] for it in record["items"]
            if it.get("role") == "note" and it["owner"] == "figure"] == ["Dimensions in mm"]
    notes = task_notes(frame, "frame", Presentation(units="mm-kN", values="parametric"))
    assert MILLIMETRES in notes and PARAMETRIC in notes
    assert task_notes(frame, "frame") == ""


def test_a_missing_mm_note_is_refused_and_flagged(frame: Model) -> None:
    layout = layout_model(frame, presentation={"units": "mm-kN"})
    record = layout.layout_json()
    record["items"] = [it for it in record["items"] if it.get("role") != "note"]
    assert "refused" in _reading(frame, record)
    rec = Record.of(layout)
    gone = Record([it for it in rec.items if it.role != "note"], rec.width, rec.height)
    assert any("no note" in str(v) for v in check(gone, {"legend": RULES["legend"]}))


# -- determinism ------------------------------------------------------------------------

def test_same_presentation_same_bytes(truss: Model) -> None:
    a = render_model(truss, presentation=ALL_THREE, min_long_side=None).encode()
    b = render_model(truss, presentation=ALL_THREE, min_long_side=None).encode()
    assert a == b
    assert a != render_model(truss, min_long_side=None).encode()


def test_synthesize_draws_the_new_presentations(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`tools/synthesize.py --presentation` writes drawn tasks whose notes and images follow
    the presentation (and the same arguments give the same bytes)."""
    import importlib.util
    import json

    from click.testing import CliRunner

    from .conftest import ROOT

    spec = importlib.util.spec_from_file_location("synthesize", ROOT / "tools" / "synthesize.py")
    tool = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(tool)  # type: ignore[union-attr]
    args = ["--count", "2", "--seed", "3", "--category", "frame", "--presentation",
            "dimensioning=exam", "--presentation", "units=mm-kN", "--presentation",
            "values=parametric"]
    images = []
    for out in (tmp_path / "a", tmp_path / "b"):
        result = CliRunner().invoke(tool.main, [*args, "--out", str(out)])
        assert result.exit_code == 0, result.output
        images.append(sorted((out / "images").iterdir()))
    for path in sorted((tmp_path / "a" / "raw_models").glob("*.json")):
        block = json.loads(path.read_text())["problem"]
        assert block["presentation"]["units"] == "mm-kN" and MILLIMETRES in block["notes"]
    assert [p.read_bytes() for p in images[0]] == [p.read_bytes() for p in images[1]]


def test_the_repeat_sign_is_full_size_in_every_lettering() -> None:
    """"3 × a" must not read as "3 · a" (one interval of 3a): in every lettering the
    cross is at least as tall as a lower-case x (the brush face's own is dot-sized)."""
    from structeval.render.scene.fonts import LETTERINGS, text_size

    for name in LETTERINGS:
        cross, x = text_size("×", 20, name), text_size("x", 20, name)
        assert cross[1] >= x[1] and cross[0] >= x[0], (name, cross, x)
