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
from structeval.generation.sheets import FAMILIES, sheet_problem
from structeval.model import parse_model
from structeval.model.types import Model
from structeval.render import RenderError, layout_sheet, render_sheet
from structeval.render.legibility import check
from structeval.scoring import score

from .conftest import REPORTS
from .shipped_figures import rebuild_failures
from .symbolic_reader import ReadError
from .symbolic_reader.sheet import read_sheet
from .test_generator import equilibrium_residual

SHIPPED_PILLOW = "13.0.0"  # the Pillow the shipped images were drawn with
SHIPPED_SEED = 1  # python tools/synthesize.py --sheets --count 200 --seed 1
MIN_SHEETS = 200


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


@pytest.fixture(scope="module")
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
        members = len(s.model.links)
        assert 30 <= members <= 250, (s.id, members)
        assert 3500 <= max(s.layout.width, s.layout.height) <= 8000, s.id
        storeys = len({p.y for p in s.model.points}) - 1
        bays = len({p.x for p in s.model.points}) - 1
        assert 3 <= storeys <= 12 and 2 <= bays <= 8, s.id
        elevations = len(s.block["sheet"]["drawing"]["elevations"])
        assert 2 <= elevations <= 5 and elevations == len(s.block["sheet"]["alternates"]) + 1
        assert well_posed(s.model, expect_bending=True) is None, s.id
        assert equilibrium_residual(s.model) < 1e-9, s.id


def test_generation_is_deterministic_and_seeded() -> None:
    """The same seed and index give the same raw file; another seed another building."""
    shipped = _sheet_paths()
    if not shipped:
        pytest.skip("no sheet tasks shipped")
    _, block, _ = read_raw(shipped[0])
    seed, index = block["provenance"]["seed"], block["provenance"]["index"]
    again = sheet_problem(seed, index)
    fresh = {**again.block, "sheet": {**again.block["sheet"],
                                      "image_sha256": block["sheet"]["image_sha256"]}}
    assert render_document(fresh, again.model) == shipped[0].read_text(encoding="utf-8")
    assert sheet_problem(seed + 1000, index).block["sheet"]["drawing"] != block["sheet"]["drawing"]


@pytest.mark.parametrize("family", FAMILIES)
def test_every_family_renders_a_legible_sheet(family: str) -> None:
    """A fresh sheet of each family: the layout-only record is the full render's, and it
    satisfies the legibility rules at its native size."""
    problem = sheet_problem(4242, 0)
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
    s = shipped_sheets[0]
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
