"""The ``sheets`` split: drawing sheets render, re-draw byte for byte, are legible at
their native size, and are fair by proof (the symbolic reader rebuilds every shipped
sheet task from the layout record alone and scores 1.0), and the proof can fail.

The layout records of every shipped sheet come from the layout-only path
(``layout_sheet``: no pixels) once per module; only the re-drawing tests paint.
"""

from __future__ import annotations

import copy
import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from structeval.dataset import DATA_DIR
from structeval.dataset.images import render_drawings
from structeval.dataset.paths import IMAGE_DIR, RAW_DIR
from structeval.dataset.rawfile import read_raw, render_document
from structeval.dataset.wellposed import well_posed
from structeval.generation.sheet_gerber import CASES as GERBER_CASES
from structeval.generation.sheets import FAMILIES, sheet_problem
from structeval.model import parse_model
from structeval.model.types import Model
from structeval.render import RenderError, layout_sheet, render_sheet
from structeval.render.compose.sheet import balanced_rows
from structeval.render.legibility import check
from structeval.scoring import score

from .conftest import REPORTS
from .shipped_figures import rebuild_failures
from .symbolic_reader import ReadError
from .symbolic_reader.sheet import read_sheet
from .test_generator import equilibrium_residual

SHIPPED_PILLOW = "13.0.0"  # the Pillow the shipped images were drawn with
SHIPPED_SEED = 1  # python tools/synthesize.py --sheets --count 200 --seed 1
MIN_SHEETS = 200  # of the storey family
MIN_PER_FAMILY = 40  # python tools/synthesize.py --sheets --family gerber --family portal ...


@dataclass(frozen=True)
class Sheet:
    id: str
    block: dict[str, Any]
    model: Model
    record: dict[str, Any]  # layout_json(): what a reader of the file is given
    layout: Any

    @property
    def statement(self) -> str:
        return str(self.block["sheet"]["statement"])


def _sheet_paths() -> list[Path]:
    return sorted((DATA_DIR / RAW_DIR).glob("sheet-*.json"))


@pytest.fixture(scope="session")  # one xdist worker builds it once (conftest's groups)
def shipped_sheets() -> list[Sheet]:
    paths = _sheet_paths()
    if not paths:
        pytest.fail(f"no sheet tasks in {DATA_DIR}: run tools/synthesize.py --sheets")
    out = []
    start = time.perf_counter()
    for path in paths:
        _, block, model = read_raw(path)
        layout = layout_sheet(block["sheet"]["drawing"], block["image"]["seed"])
        out.append(Sheet(block["id"], block, model, json.loads(json.dumps(layout.layout_json())),
                         layout))
    REPORTS.append(f"sheets: {len(out)} layouts in {time.perf_counter() - start:.1f} s")
    return out


def _reads(sheet: Sheet, record: dict[str, Any] | None = None) -> float:
    """The reader's score on the sheet (0 when it cannot rebuild it)."""
    try:
        candidate = read_sheet(record or sheet.record, sheet.statement)
    except ReadError:
        return 0.0
    return score(sheet.model, candidate).ratio


# -- the split -----------------------------------------------------------------------------

def test_the_sheets_split_is_shipped(shipped_sheets: list[Sheet]) -> None:
    assert len(shipped_sheets) >= MIN_SHEETS
    for s in shipped_sheets:
        assert s.block["split"] == "sheets" and s.block["image"]["style"] == "sheet", s.id
        assert s.block["sheet"]["alternates"], s.id
        assert 3500 <= max(s.layout.width, s.layout.height) <= 8000, s.id
        _has_the_family_shape(s)
        elevations = len(s.block["sheet"]["drawing"]["elevations"])
        assert 2 <= elevations <= 5 and elevations == len(s.block["sheet"]["alternates"]) + 1
        assert well_posed(s.model, expect_bending=True) is None, s.id
        assert equilibrium_residual(s.model) < 1e-9, s.id


def _family(s: Sheet) -> str:
    return str(s.block["provenance"]["family"])


def _has_the_family_shape(s: Sheet) -> None:
    """The structure the family promises: a multi-storey frame (3-12 storeys, 2-8 bays,
    30-250 members), a girder over 3-5 spans with Gerber hinges, or a portal of one or
    two bays carrying pin-jointed roof trusses."""
    points, links = s.model.points, s.model.links
    family = _family(s)
    if family == "storey":
        assert 30 <= len(links) <= 250, (s.id, len(links))
        storeys = len({p.y for p in points}) - 1
        bays = len({p.x for p in points}) - 1
        assert 3 <= storeys <= 12 and 2 <= bays <= 8, s.id
    elif family == "gerber":
        assert {p.y for p in points} == {0.0} and s.block["category"] == "beam", s.id
        assert 4 <= len(s.model.supports) <= 6, s.id
        assert any(lk.hinge_a or lk.hinge_b for lk in links), s.id
    else:
        assert family == "portal", s.id
        pinned = [lk for lk in links if lk.hinge_a and lk.hinge_b]
        assert len(pinned) >= 15 and len(links) - len(pinned) in (4, 6), s.id
        assert len({p.y for p in points}) >= 5, s.id  # a pitched top chord


def test_every_sheet_family_is_shipped(shipped_sheets: list[Sheet]) -> None:
    counts = {f: sum(_family(s) == f for s in shipped_sheets) for f in FAMILIES}
    assert counts["storey"] >= MIN_SHEETS and min(counts.values()) >= MIN_PER_FAMILY, counts


def _first(shipped: list[Sheet], family: str, case: str | None = None) -> Sheet:
    return next(s for s in shipped if _family(s) == family
                and case in (None, s.block["sheet"]["load_case"]))


def test_generation_is_deterministic_and_seeded() -> None:
    """The same seed and index give the same raw file; another seed another building."""
    shipped = _sheet_paths()
    if not shipped:
        pytest.skip("no sheet tasks shipped")
    firsts = {}
    for path in shipped:
        firsts.setdefault(path.name.split("-")[1], path)
    for path in firsts.values():
        _, block, _ = read_raw(path)
        seed, index = block["provenance"]["seed"], block["provenance"]["index"]
        family = block["provenance"]["family"]
        again = sheet_problem(seed, index, family)
        fresh = {**again.block, "sheet": {**again.block["sheet"],
                                          "image_sha256": block["sheet"]["image_sha256"]}}
        assert render_document(fresh, again.model) == path.read_text(encoding="utf-8")
        other = sheet_problem(seed + 1000, index, family).block["sheet"]["drawing"]
        assert other != block["sheet"]["drawing"], path.name
    with pytest.raises(ValueError, match="unknown sheet family 'tower'"):
        sheet_problem(1, 0, "tower")


@pytest.mark.parametrize("family", FAMILIES)
def test_every_family_renders_a_legible_sheet(family: str) -> None:
    """A fresh sheet of each family: the layout-only record is the full render's, and it
    satisfies the legibility rules at its native size."""
    problem = sheet_problem(4242, 0, family)
    assert problem.block["provenance"]["family"] == family
    drawing, seed = problem.block["sheet"]["drawing"], problem.block["image"]["seed"]
    full = render_sheet(drawing, seed)
    quick = layout_sheet(drawing, seed)
    assert quick.layout == full.layout and quick.size == full.size
    assert 3500 <= max(full.size) <= 8000
    assert check(full) == []


def test_shipped_sheets_are_redrawn_byte_for_byte(tmp_path: Path) -> None:
    """Through the one drawing entry (``render_drawings``), a sample of shipped sheets is
    drawn again: its bytes hash to the raw file's ``image_sha256`` and (with the Pillow
    the data was drawn with) are the shipped file."""
    import PIL

    paths = _sheet_paths()
    if not paths:
        pytest.skip("no sheet tasks shipped")
    for path in (paths[0], paths[len(paths) // 2]):
        _, block, model = read_raw(path)
        out = tmp_path / block["image"]["file"]
        render_drawings(model, block, out, None)
        data = out.read_bytes()
        if PIL.__version__ == SHIPPED_PILLOW:
            assert hashlib.sha256(data).hexdigest() == block["sheet"]["image_sha256"], block["id"]
            assert (DATA_DIR / IMAGE_DIR / block["image"]["file"]).read_bytes() == data


@pytest.mark.parametrize(("widths", "rows"), [
    ([800.0] * 5, [[0, 1, 2], [3, 4]]),  # filling each row in turn leaves one alone: 4 + 1
    ([1000.0, 1000.0, 1200.0, 300.0], [[0, 1], [2, 3]]),  # 3 + 1 by filling
    ([1000.0] * 5, [[0, 1, 2], [3, 4]]),
    ([3000.0, 500.0, 500.0], [[0], [1, 2]]),
    ([4000.0, 900.0], [[0], [1]]),  # wider than a row: alone
    ([800.0, 800.0], [[0, 1]]),
    ([], []),
])
def test_elevations_wrap_into_balanced_rows(widths: list[float], rows: list[list[int]]) -> None:
    assert balanced_rows(widths, 3400.0, 40.0) == rows


def test_a_malformed_drawing_block_is_a_render_error() -> None:
    problem = sheet_problem(4242, 0)
    broken = copy.deepcopy(problem.block["sheet"]["drawing"])
    del broken["plan"]["x"]
    with pytest.raises(RenderError, match="incomplete or malformed"):
        layout_sheet(broken)
    with pytest.raises(RenderError, match="must be an object"):
        layout_sheet(["not", "a", "block"])  # type: ignore[arg-type]


# -- legibility at the native size ---------------------------------------------------------

LEGIBILITY_SAMPLE = 20  # sheets checked by every run (about 1 s each); all by check_drawings


def test_shipped_sheets_are_legible_at_native_size(shipped_sheets: list[Sheet]) -> None:
    """A spread of the shipped sheets (``tools/check_drawings.py --filter 'sheet-*'``
    checks them all) satisfies every legibility rule at its native size."""
    step = max(1, len(shipped_sheets) // LEGIBILITY_SAMPLE)
    bad = {s.id: [str(v) for v in check(s.layout)] for s in shipped_sheets[::step]}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, json.dumps(dict(list(bad.items())[:5]), indent=1)


def test_legibility_catches_an_undimensioned_elevation(shipped_sheets: list[Sheet]) -> None:
    """Take the height chains out of one elevation: its storey heights are written beside
    no chain, and the rules say so for that view alone."""
    s = _first(shipped_sheets, "storey")
    view = f"elevation:{s.block['sheet']['frame']}"
    rect = next(it.bbox for it in s.layout.layout
                if it.glyph is not None and it.glyph.type == "view"
                and it.glyph.facts["view"] == view)
    kept = [it for it in s.layout.layout
            if not (it.glyph is not None and it.glyph.type == "chain"
                    and it.glyph.facts["axis"] == "y"
                    and rect[0] <= it.bbox[0] <= rect[2] and rect[1] <= it.bbox[1] <= rect[3])]
    assert len(kept) < len(s.layout.layout)
    damaged = type(s.layout)(kept, {}, s.layout.scale, "sheet", s.layout.seed, s.layout.width,
                             s.layout.height, s.layout.zoom)
    found = [str(v) for v in check(damaged)]
    assert found and all(v.split(": ")[1] == view for v in found), found[:3]
    assert any("lies beside no chain" in v for v in found), found[:3]


# -- fair by proof -------------------------------------------------------------------------

def test_every_shipped_sheet_is_rebuilt_exactly(shipped_sheets: list[Sheet]) -> None:
    start = time.perf_counter()
    failures = rebuild_failures((s.id, s.model, lambda s=s: read_sheet(s.record, s.statement))
                                for s in shipped_sheets)
    REPORTS.append(f"sheet reader: {len(shipped_sheets) - len(failures)} of "
                   f"{len(shipped_sheets)} shipped sheets rebuilt exactly "
                   f"({time.perf_counter() - start:.1f} s)")
    assert not failures, "\n".join(failures[:20])


def test_the_statement_in_chinese_names_the_same_frame(shipped_sheets: list[Sheet]) -> None:
    s = shipped_sheets[0]
    assert score(s.model, read_sheet(s.record, s.block["sheet"]["statement_zh"])).ratio == 1.0


def _without(record: dict[str, Any], drop) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    out = copy.deepcopy(record)
    out["items"] = [it for it in out["items"] if not drop(it)]
    return out


def _row_of(record: dict[str, Any], ref: str) -> float:
    """The centre height of the load table row whose REF cell reads ``ref``."""
    cell = next(it for it in record["items"] if it.get("kind") == "page"
                and it.get("text") == ref and it.get("role") == "cell")
    return (cell["bbox"][1] + cell["bbox"][3]) / 2


def test_a_sheet_without_a_load_table_row_is_not_read(shipped_sheets: list[Sheet]) -> None:
    """The floor imposed load's row taken out of the table: its load is not on the sheet,
    and the frame the reader builds is not the ground truth."""
    s = next(s for s in shipped_sheets if s.block["sheet"]["load_case"] == "1")
    y = _row_of(s.record, "Q1")
    damaged = _without(s.record, lambda it: it.get("kind") == "page" and it.get("text")
                       and it.get("role") == "cell"
                       and it["bbox"][1] <= y <= it["bbox"][3])
    assert _reads(s) == 1.0
    assert _reads(s, damaged) < 1.0


@pytest.mark.parametrize(("family", "ref"), [("gerber", "G1"), ("gerber", "P"),
                                           ("portal", "S"), ("portal", "G2")])
def test_a_derived_load_needs_its_table_row(shipped_sheets: list[Sheet], family: str,
                                            ref: str) -> None:
    """A bridge girder's deck load or parapet line load, a shed frame's snow or services
    load: each follows from its load table row, and without the row it is not on the
    sheet (the reader's frame differs from the ground truth)."""
    s = next(s for s in shipped_sheets if _family(s) == family
             and (ref != "P" or _is_edge(s))
             and (ref != "S" or s.block["sheet"]["load_case"] == "1"))
    y = _row_of(s.record, ref)
    damaged = _without(s.record, lambda it: it.get("kind") == "page" and it.get("text")
                       and it.get("role") == "cell"
                       and it["bbox"][1] <= y <= it["bbox"][3])
    assert _reads(s) == 1.0
    assert _reads(s, damaged) < 1.0


def test_a_bridge_girder_reads_its_cross_girders_from_the_plan(
        shipped_sheets: list[Sheet]) -> None:
    """A cross girder framing into the named girder hands it a point load at mid-span:
    without the dashed line on the plan the reader misses it."""
    s = next(s for s in shipped_sheets if _family(s) == "gerber"
             and "XG" in GERBER_CASES[s.block["sheet"]["load_case"]]
             and any(s.block["sheet"]["frame"] in (str(i), str(i + 1)) for i in _spans(s)))
    damaged = _without(s.record, lambda it: (it.get("glyph") or {}).get("type") == "secondary")
    assert _reads(s) == 1.0
    assert _reads(s, damaged) < 1.0


def _is_edge(s: Sheet) -> bool:
    numbers = s.block["sheet"]["drawing"]["plan"]["numbers"]
    return s.block["sheet"]["frame"] in (numbers[0], numbers[-1])


def _spans(s: Sheet) -> list[int]:
    """1-based numbers of the first girder of each cross girder's pair."""
    ys = s.block["sheet"]["drawing"]["plan"]["y"]
    return [ys.index(c["y0"]) + 1 for c in s.block["sheet"]["drawing"]["plan"]["secondary"]]


def test_a_sheet_without_a_plan_spacing_is_not_read(shipped_sheets: list[Sheet]) -> None:
    s = shipped_sheets[0]
    first = next(it for it in s.record["items"] if it.get("role") == "plan-dim")
    damaged = _without(s.record, lambda it: it == first)
    with pytest.raises(ReadError, match="spacing texts between grid lines"):
        read_sheet(damaged, s.statement)


def test_a_swapped_title_is_not_read_as_the_named_frame(shipped_sheets: list[Sheet]) -> None:
    """Swap the titles of the named elevation and another one: the reader takes the other
    frame's elevation for the named one, and its model is not the ground truth."""
    s = shipped_sheets[0]
    target = s.block["sheet"]["frame"]
    other = s.block["sheet"]["alternates"][0]["frame"]
    damaged = copy.deepcopy(s.record)
    titles = {f"ELEVATION ON GRID {target}": f"ELEVATION ON GRID {other}",
              f"ELEVATION ON GRID {other}": f"ELEVATION ON GRID {target}"}
    swapped = 0
    for it in damaged["items"]:
        if it.get("kind") == "page" and it.get("text") in titles:
            it["text"] = titles[it["text"]]
            swapped += 1
    assert swapped == 2
    assert _reads(s) == 1.0
    assert _reads(s, damaged) < 1.0


def test_the_wrong_frame_is_another_frame_of_the_sheet(shipped_sheets: list[Sheet]) -> None:
    """Each alternate is what a reader of the sheet models for that frame (the reader,
    told to model it, scores exactly 1.0 against it), and never the named frame."""
    for s in shipped_sheets[:: max(1, len(shipped_sheets) // 20)]:
        case = s.block["sheet"]["load_case"]
        for alt in s.block["sheet"]["alternates"]:
            told = f"Model the frame on grid line {alt['frame']} under load case {case}."
            candidate = read_sheet(s.record, told)
            assert score(parse_model(alt["model"]), candidate).ratio == 1.0, (s.id, alt["frame"])
            assert score(s.model, candidate).ratio < 1.0, (s.id, alt["frame"])


def test_a_drawing_block_beyond_a_sheet_is_refused_before_layout() -> None:
    """A raw file is untrusted: a grid no sheet can hold, or too many views, is a typed,
    explained refusal, not an hour of layout."""
    problem = sheet_problem(4242, 0)
    drawing = problem.block["sheet"]["drawing"]
    crowded = copy.deepcopy(drawing)
    crowded["plan"]["x"] = [0.0, 0.001, *crowded["plan"]["x"][1:]]
    with pytest.raises(RenderError, match="px across its grids"):
        layout_sheet(crowded)
    many = copy.deepcopy(drawing)
    many["elevations"] = many["elevations"] * 30
    with pytest.raises(RenderError, match="a sheet shows 1 to"):
        layout_sheet(many)


def test_every_sheet_text_is_read_with_an_alphabet_that_holds_it(
        shipped_sheets: list[Sheet]) -> None:
    """The visibility proof reads a load-table cell with its column's alphabet (a
    reference "Q1", a value "7.5 kN/m²" or "as drawn", a factor "1.35"), told by the heading
    above it, a grid bubble with capitals and digits, and a general note without a capital
    K: every shipped text of those roles is in its alphabet, and each column of every load
    table got its own."""
    from structeval.render.legibility.visibility import ALPHABETS, reading_roles

    outside: dict[str, set[str]] = {}
    columns: set[str] = set()
    for sheet in shipped_sheets:
        texts = [it for it in sheet.layout.layout if it.text and it.text.strip()]
        for item, role in zip(texts, reading_roles(texts), strict=True):
            if item.role == "cell":
                columns.add(role)
            alphabet = ALPHABETS.get(role)
            if alphabet:
                extra = set(item.text) - set(alphabet) - {" "}
                if extra:
                    outside.setdefault(role, set()).update(extra)
    assert not outside, outside
    assert {"cell-ref", "cell-value", "cell-factor", "cell"} <= columns  # "cell": LOAD
