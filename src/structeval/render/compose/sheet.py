"""``render_sheet``: a drawing sheet of one building, put together from its views.

A sheet holds the frame elevations side by side on top and, under them, the plan,
the load table with the general notes, and the title block; each view is built in
a scene of its own (:mod:`.sheet_views`, :mod:`.sheet_plan`) and moved onto the
sheet unscaled, its layout record with it, inside a border of its own (the view
border says which marks belong together). The sheet is then enlarged as a whole to
its native size (long side 3,600-7,600 px): the legibility rules and the
visibility proof run on that size, never on a shrunk copy.

Everything the sheet shows comes from the ``drawing`` block of the task's raw file
(``problem.sheet.drawing``), so the same block always gives the same bytes. The
image is painted in horizontal bands (the supersampled canvas of a whole sheet
would take over a gigabyte), each with the primitives that reach into it.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from PIL import Image

from ...model.parse import parse_model
from ..annotation.grid_marks import view_border
from ..paint.raster import Canvas, placed_items, rasterize
from ..scene.errors import RenderError
from ..scene.fonts import lettering
from ..scene.layout import Layout
from ..scene.result import FigureLayout, RenderResult
from ..scene.scene import Scene, absorb, drawn_box, prim_bbox
from ..scene.shapes import Similarity
from ..scene.styles import Style, get_style
from .figure import MIN_GAP_PX, check_drawable
from .sheet_plan import plan_view
from .sheet_views import elevation_view, notes_view, table_view, title_view

SIZES = {"bubble": 18.0, "level": 15.0, "view-title": 24.0, "table": 16.0, "notes": 16.0,
         "title": 17.0, "plan": 15.0}
PAD = 28.0  # px inside a view's border
GAP = 40.0  # px between views
MARGIN = 40.0  # px of paper around the sheet
MAX_ROW = 3400.0  # px: elevations wrap onto a second row beyond this width
ZOOM = 2.0  # the native enlargement, unless the sheet would leave 3,600-7,600 px
MIN_LONG, MAX_LONG = 3600, 7600
BAND = 512  # delivered rows painted at a time
BLEED = 16  # delivered px: what is painted this far outside a band still reaches into it
NOTES_WIDTH = 900.0
SHEET_STYLE = "sheet"
MAX_VIEW_PX = 12000.0  # design px: the largest grid extent a sheet lays out
MAX_COUNT = 40  # views, grid lines, table rows or notes a sheet can hold


@dataclass(frozen=True)
class View:
    name: str
    scene: Scene


def sheet_scale(drawing: dict[str, Any]) -> float:
    """Pixels per metre of every view: the shortest spacing of the building (bay, storey
    or grid) has room for its dimension text, as on any figure."""
    grids = [[float(v) for v in seq] for seq in (drawing["plan"]["x"], drawing["plan"]["y"],
                                                 *(e["levels"] for e in drawing["elevations"]))]
    gaps = [b - a for seq in grids for a, b in itertools.pairwise(seq)]
    if not gaps or not min(gaps) > 0 or not all(math.isfinite(g) for g in gaps):
        raise RenderError("a sheet's grid needs increasing positions")
    k = MIN_GAP_PX / min(gaps) * 1.15
    widest = max(seq[-1] - seq[0] for seq in grids) * k
    if widest > MAX_VIEW_PX:  # refuse before laying out a sheet nobody could open
        raise RenderError(f"the sheet's building is {widest:.0f} px across its grids at the "
                          f"scale its shortest spacing needs (at most {MAX_VIEW_PX:.0f})")
    return k


def check_counts(drawing: dict[str, Any]) -> None:
    """A drawing block within what a sheet can show (views, grid lines, table rows)."""
    counts = {"elevations": len(drawing["elevations"]), "lettered grid lines":
              len(drawing["plan"]["x"]), "numbered grid lines": len(drawing["plan"]["y"]),
              "load table rows": len(drawing["load_table"]["rows"]),
              "notes": len(drawing["notes"]["lines"])}
    for what, n in counts.items():
        if not 1 <= n <= MAX_COUNT:
            raise RenderError(f"a sheet shows 1 to {MAX_COUNT} {what}, this one {n}")
    for e in drawing["elevations"]:
        check_drawable(parse_model(e["model"]))


def views(drawing: dict[str, Any], style: Style) -> tuple[list[View], list[View]]:
    """The elevations (top) and the other views (bottom), each in its own scene."""
    check_counts(drawing)
    k = sheet_scale(drawing)
    letters = [str(t) for t in drawing["plan"]["letters"]]
    top = [View(f"elevation:{e['grid']}", elevation_view(e, letters, style, k, SIZES))
           for e in drawing["elevations"]]
    bottom = [View("plan", plan_view(drawing["plan"], style, k, SIZES)),
              View("loads", table_view(drawing["load_table"], style, SIZES)),
              View("notes", notes_view(drawing["notes"], style, SIZES, NOTES_WIDTH)),
              View("title", title_view(drawing["title_block"], style, SIZES))]
    return top, bottom


def _rows(top: list[View], bottom: list[View]) -> Iterator[list[View]]:
    """The elevations in rows (:func:`balanced_rows`), then the other views in one row."""
    for group in balanced_rows([_width(v) for v in top], MAX_ROW, GAP):
        yield [top[i] for i in group]
    yield bottom


def balanced_rows(widths: list[float], limit: float, gap: float) -> list[list[int]]:
    """The views (by their ``widths``, in order) in as few rows as keep each row within
    ``limit`` (a view wider than it stands alone), split where the widest row is
    narrowest: five elevations of one width wrap 3 + 2, never 4 + 1 with one left alone.
    Among equally narrow splits the one with the fullest first rows wins (filling each
    row in turn, when that is already as narrow)."""
    def width(group: tuple[int, ...]) -> float:
        return sum(widths[i] for i in group) + gap * (len(group) - 1)

    if not widths:
        return []
    count, row = 0, 0.0
    for w in widths:  # how many rows filling each in turn needs
        if count == 0 or row + gap + w > limit:
            count, row = count + 1, w
        else:
            row += gap + w
    n = len(widths)
    best: list[list[int]] = []
    best_width = math.inf
    for cuts in itertools.combinations(range(1, n), max(count - 1, 0)):
        bounds = (0, *cuts, n)
        groups = [tuple(range(a, b)) for a, b in itertools.pairwise(bounds)]
        if any(len(g) > 1 and width(g) > limit for g in groups):
            continue
        widest = max(width(g) for g in groups)
        if widest <= best_width + 1e-9:  # later cuts fill the first rows more
            best, best_width = [list(g) for g in groups], widest
    return best


def _width(v: View) -> float:
    x0, _, x1, _ = drawn_box(v.scene)
    return x1 - x0 + 2 * PAD


def compose(drawing: dict[str, Any], style: Style) -> Scene:
    """The whole sheet in design pixels: views in rows, each moved into place inside its
    border, and the sheet's own border around them all."""
    top, bottom = views(drawing, style)
    sheet = Scene(style, 1.0, Layout())
    y = MARGIN
    right = 0.0
    for row in _rows(top, bottom):
        x = MARGIN
        height = max(drawn_box(v.scene)[3] - drawn_box(v.scene)[1] for v in row) + 2 * PAD
        for v in row:
            bx0, by0, bx1, _by1 = drawn_box(v.scene)
            shift = Similarity.shift_zoom(x + PAD - bx0, y + PAD - by0, 1.0)
            absorb(sheet, v.scene, shift)
            view_border(sheet, (x, y, x + bx1 - bx0 + 2 * PAD, y + height), v.name)
            x += bx1 - bx0 + 2 * PAD + GAP
        right = max(right, x - GAP)
        y += height + GAP
    sheet.page = (0.0, 0.0, right + MARGIN, y - GAP + MARGIN)
    return sheet


def native_canvas(sheet: Scene) -> Canvas:
    """The sheet at its native size: ×ZOOM, kept within MIN_LONG-MAX_LONG px."""
    assert sheet.page is not None
    _, _, w, h = sheet.page
    zoom = min(max(ZOOM, MIN_LONG / max(w, h)), MAX_LONG / max(w, h))
    return Canvas(math.ceil(w * zoom), math.ceil(h * zoom), Similarity.shift_zoom(0, 0, zoom))


def _sheet(drawing: dict[str, Any]) -> tuple[Scene, Canvas]:
    if not isinstance(drawing, dict):
        raise RenderError("a sheet's drawing block must be an object")
    style = get_style(SHEET_STYLE)
    try:
        with lettering(style.lettering):
            sheet = compose(drawing, style)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise RenderError(f"the sheet's drawing block is incomplete or malformed "
                          f"({type(exc).__name__}: {exc})") from None
    return sheet, native_canvas(sheet)


def render_sheet(drawing: dict[str, Any], seed: int = 0) -> RenderResult:
    """The sheet's image and layout record (deterministic: same block, same bytes)."""
    sheet, canvas = _sheet(drawing)
    image = Image.new("RGB", (canvas.width, canvas.height), sheet.style.palette["paper"])
    boxes = [prim_bbox(p.prim) for p in sheet.painted]
    for top in range(0, canvas.height, BAND):
        rows = min(BAND, canvas.height - top)
        band = Canvas(canvas.width, rows, canvas.place.then(Similarity(ty=-float(top))))
        lo, hi = (top - BLEED) / canvas.zoom, (top + rows + BLEED) / canvas.zoom
        strip = replace(sheet, painted=[p for p, b in zip(sheet.painted, boxes, strict=True)
                                        if b[3] >= lo and b[1] <= hi])
        with lettering(sheet.style.lettering):
            image.paste(rasterize(strip, band, seed, {}), (0, top))
    return RenderResult(image, placed_items(sheet, canvas), {}, 1.0, SHEET_STYLE, seed,
                        canvas.zoom)


def layout_sheet(drawing: dict[str, Any], seed: int = 0) -> FigureLayout:
    """The layout record :func:`render_sheet` returns, without a pixel."""
    sheet, canvas = _sheet(drawing)
    return FigureLayout(placed_items(sheet, canvas), {}, 1.0, SHEET_STYLE, seed, canvas.width,
                        canvas.height, canvas.zoom)
