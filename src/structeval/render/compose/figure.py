"""``render_model``: a FrameCalc model drawn as a textbook exercise figure."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ...model.parse import parse_model
from ...model.types import Model
from ...presentation import Presentation, PresentationError
from ..annotation.dimensions import draw_dimensions, plan_dimensions
from ..annotation.figure_notes import draw_notes
from ..annotation.legend import draw_legend
from ..annotation.letters import joint_names, place_letters
from ..annotation.placement import RADII, place_label
from ..legibility import DELIVERY_LONG_SIDE, RULES, Record, check
from ..legibility.arrow_lines import clashes
from ..legibility.delivery import profile_scale
from ..legibility.record import box_distance, glyph_segments
from ..legibility.texts import NEAREST_PAD, NEAREST_RATIO, labelled_type
from ..paint.degrade import MAX_TILT_DEG, degrade, tilt_map
from ..paint.pencil import on_paper
from ..paint.photocopy import photocopy
from ..paint.raster import Canvas, canvas_for, placed_items, rasterize
from ..reading.stations import distinct, features
from ..reading.value_text import value_text
from ..scene.errors import RenderError
from ..scene.fonts import lettering
from ..scene.glyphs import Glyph
from ..scene.layout import LayoutItem
from ..scene.result import FigureLayout, RenderResult
from ..scene.scene import Scene
from ..scene.shapes import XY, Rect, Similarity
from ..scene.styles import RGB, Style, get_style, parse_colour
from ..symbols.arrows import LabelRequest
from ..symbols.breaks import draw_break
from ..symbols.loads import draw_loads
from ..symbols.members import draw_hinges, draw_members
from ..symbols.supports import draw_supports
from .exam_page import compose_page
from .rows import Row, cut_joints, halves, stack

MAX_ELEMENTS = 2000  # beyond this a figure cannot be legible; refuse rather than crawl
TARGET_SPAN_PX = 560.0  # the larger side of the structure
MIN_GAP_PX = 58.0  # the shortest dimension fits its "0.25 m" between its ticks
MAX_SPAN_PX = 2400.0
MAX_CANVAS_PX = 6000
MIN_LONG_SIDE = 1600  # px: delivered figures are at least this large on their long side
ROOMIER = (1.0, 1.3, 1.7)  # scale factors tried in turn while a layout is too crowded
MAX_GROWN_PX = 3000.0  # the larger side of a structure enlarged for room


@dataclass(frozen=True)
class Wording:
    """The words a figure carries besides its values and letters: the notes block under
    it (in ``language``, when ``notes``) and, on an exam page, the statement of a
    ``category`` problem (beam, frame, truss; a generic "structure" when unknown)."""

    language: str = "en"
    notes: bool = False
    category: str | None = None

    @classmethod
    def of(cls, presentation: Presentation | None, category: str | None) -> Wording:
        """A task's figure (a presentation given) carries its notes in its language; a
        bare figure (reports, quick looks) carries none."""
        if presentation is None:
            return cls(category=category)
        return cls(presentation.language, True, category)


def resolve_style(style: str | None, presentation: Presentation | None) -> str:
    """The style to draw: an explicit ``style`` (it wins over the presentation's, so one
    task can be drawn in every style), else the presentation's, else cad."""
    if presentation is None:
        return style or "cad"
    if not isinstance(presentation, Presentation):
        raise RenderError("presentation must be a structeval.presentation.Presentation")
    return style or presentation.style


def auto_scale(model: Model) -> float:
    """Pixels per metre: the structure about TARGET_SPAN_PX wide, enlarged (up to a limit)
    until the shortest dimension has room for its text."""
    pts = features(model)
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    span = max(max(xs) - min(xs), max(ys) - min(ys))
    if not span > 0:
        return 100.0
    tol = 1e-6 * span
    gaps = [b - a for values in (distinct(xs, tol), distinct(ys, tol))
            for a, b in itertools.pairwise(values)]
    k = TARGET_SPAN_PX / span
    if gaps:
        k = max(k, MIN_GAP_PX / min(gaps))
    return min(k, MAX_SPAN_PX / span)


def as_model(model: Model | Mapping[str, Any] | str) -> Model:
    return model if isinstance(model, Model) else parse_model(model)  # type: ignore[arg-type]


def check_drawable(model: Model) -> None:
    count = len(model.points) + len(model.links) + len(model.supports) + len(model.loads)
    if count > MAX_ELEMENTS:
        raise RenderError(f"the model has {count} elements; at most {MAX_ELEMENTS} can be drawn")


def resolve_scale(model: Model, scale: float | None) -> float:
    if scale is None:
        return auto_scale(model)
    if not isinstance(scale, int | float) or not math.isfinite(scale) or scale <= 0:
        raise RenderError(f"scale must be a positive number of pixels per metre, got {scale!r}")
    xs, ys = [p.x for p in model.points], [p.y for p in model.points]
    span = max(max(xs) - min(xs), max(ys) - min(ys)) * scale
    if span > MAX_CANVAS_PX:  # refuse before laying out a figure nobody could open
        raise RenderError(f"at {scale:g} px/m the structure alone is {span:.0f} px across "
                          f"(at most {MAX_CANVAS_PX} px); use a smaller scale")
    return float(scale)


def parse_highlight(highlight: Mapping[str, Any] | None) -> dict[str, RGB]:
    if not highlight:
        return {}
    if not isinstance(highlight, Mapping):
        raise RenderError("highlight must map element ids to colours")
    return {str(key): parse_colour(value, str(key)) for key, value in highlight.items()}


def nearest_own(scene: Scene, req: LabelRequest) -> Callable[[Rect], bool] | None:
    """For a value text: accept only places where it is clearly nearest to its own glyph
    (a reader gives a value to the nearest arrow, row, arc or angle mark)."""
    gtype = labelled_type(scene.layout.items, req.owner, req.owner_type, req.role)
    if gtype is None:
        return None
    mine, others, own_glyphs, other_glyphs = [], [], [], []
    for it in scene.layout.items:
        if it.glyph is not None and it.glyph.type == gtype:
            (mine if it.owner == req.owner else others).append(glyph_segments(it))
            (own_glyphs if it.owner == req.owner else other_glyphs).append(it.glyph)
    ends = _row_ends(own_glyphs, req.role) if gtype == "row" else None
    if not mine or (not others and ends is None):
        return None

    def accept(rect: Rect) -> bool:
        d_own = min(box_distance(rect, segs) for segs in mine)
        if not all(box_distance(rect, segs) >= NEAREST_RATIO * d_own + NEAREST_PAD
                   for segs in others):
            return False
        if gtype == "couple" and not _nearest_arc(rect, own_glyphs, other_glyphs):
            return False
        return ends is None or _at_its_end(rect, *ends)

    return accept


def _row_ends(rows: list[Glyph], role: str) -> tuple[XY, XY] | None:
    """(its own end, the other end) of a varying row's end value, or None for a text that
    labels a whole row."""
    if role not in ("value-start", "value-end") or not rows:
        return None
    tails = rows[0].paths["tails"]
    return (tails[0], tails[-1]) if role == "value-start" else (tails[-1], tails[0])


def _at_its_end(rect: Rect, own: XY, other: XY) -> bool:
    """An end value of a varying row sits nearer its own end than the other end (a reader
    pairs the two values with the two ends by distance)."""
    centre = ((rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2)
    return math.dist(centre, own) < math.dist(centre, other)


def _arc_gap(rect: Rect, glyph: Glyph) -> float:
    """How far a text's nearest corner lies outside a couple's circle."""
    c, r = glyph.points["centre"], glyph.lengths["r"]
    corners = ((rect[0], rect[1]), (rect[2], rect[1]), (rect[0], rect[3]), (rect[2], rect[3]))
    return max(0.0, min(math.dist(c, q) for q in corners) - r)


def _nearest_arc(rect: Rect, own: list[Glyph], others: list[Glyph]) -> bool:
    """A couple's value is nearer its own circle than any other couple's, measured from
    the circle as well as from the arc's strokes (two couples at neighbouring joints
    overlap, and a reader weighs the whole circle)."""
    mine = min(_arc_gap(rect, g) for g in own)
    return all(_arc_gap(rect, g) > mine for g in others)


def place_requests(scene: Scene, requests: list[LabelRequest]) -> None:
    for req in requests:
        place_label(scene, req.text, scene.style.sizes[req.size_key], req.owner, req.owner_type,
                    req.role, anchor=req.anchor, prefer=req.prefer, colour_role=req.colour_role,
                    radii=[req.first_gap + r - RADII[0] for r in RADII],
                    accept=nearest_own(scene, req), also=req.also)


def stored_canvas(scene: Scene, style: Style, min_long_side: int | None,
                  zoom: float | None = None) -> Canvas:
    """The canvas the scene is stored on (room for the tilt of a scanned or page style)."""
    return canvas_for(scene, tilt_room=style.scanned or style.page,
                      min_long_side=min_long_side, zoom=zoom)


def delivered(scene: Scene, style: Style, seed: int, min_long_side: int | None,
              zoom: float | None) -> tuple[Canvas, list[LayoutItem]]:
    """The canvas and the layout record in delivered pixels (after the scanned tilt)."""
    canvas = stored_canvas(scene, style, min_long_side, zoom)
    return canvas, _tilted(placed_items(scene, canvas), canvas, style, seed)


def _tilted(items: list[LayoutItem], canvas: Canvas, style: Style, seed: int
            ) -> list[LayoutItem]:
    """The record on the canvas turned by the seed's tilt, for a scanned or page style."""
    if not (style.scanned or style.page):
        return items
    turn = tilt_map(canvas.width, canvas.height, seed)
    return [it.mapped(turn) for it in items]


def finish(scene: Scene, style: Style, seed: int, highlight: Mapping[str, RGB],
           letters: dict[str, str], *, min_long_side: int | None = None,
           zoom: float | None = None) -> RenderResult:
    """Rasterise, degrade for the scanned style (lay on paper for the sketch, photocopy
    for the exam page), and package the result."""
    canvas = stored_canvas(scene, style, min_long_side, zoom)
    placed = placed_items(scene, canvas)
    items = _tilted(placed, canvas, style, seed)
    image = rasterize(scene, canvas, seed, highlight)
    jpeg = None
    if style.scanned:
        image, jpeg = degrade(image, seed, style.palette["paper"], canvas.zoom)
    elif style.pencil:
        image, jpeg = on_paper(image, seed, canvas.zoom)
    elif style.page:
        image, jpeg = photocopy(image, seed, canvas.zoom, [it.bbox for it in placed if it.text])
    return RenderResult(image, items, letters, scene.k, style.name, seed, canvas.zoom, jpeg)


def lay_out(model: Model, style: Style, k: float, shown: Presentation | None = None, *,
            lettered: bool = True, row: Row | None = None) -> tuple[Scene, dict[str, str]]:
    """Every primitive and the layout record of the figure at ``k`` px/m, in design pixels,
    in the presentation ``shown`` (its dimensioning, values and units); without joint
    letters when not ``lettered`` (a sheet's elevations: its grid letters name places).
    A ``row`` of a beam drawn in two (:mod:`.rows`) takes the whole beam's values and
    letters, draws its break mark and leaves the legend to the whole."""
    shown = shown or Presentation()
    scene, requests = _structure_and_loads(model, style, k, shown, row)
    plans = plan_dimensions(scene, model)  # before labels: they keep off extension lines
    letters = {}
    if lettered:
        letters = (place_letters(scene, model) if row is None else
                   place_letters(scene, model, row.names, {row.cut: (float(row.outward), 0.0)}))
    place_requests(scene, requests)
    draw_dimensions(scene, model, plans)  # last: chains go outside everything, labels included
    if row is None:
        draw_legend(scene)  # legend and unit note, below it all
    return scene, letters


#: shares of their usual length, in turn, that two force arrows running together on one
#: line are drawn at (a short bay between opposite forces laid beside its member)
SHORTER_ARROWS = (0.75, 0.6)


def _structure_and_loads(model: Model, style: Style, k: float, shown: Presentation,
                         row: Row | None) -> tuple[Scene, list[LabelRequest]]:
    """The members, hinges, break mark, supports and loads of :func:`lay_out`, and the
    requests for their value texts.

    Two opposite forces at neighbouring joints, each laid beside the member between them,
    meet tail to tail and read as one double-headed arrow (rule ``arrow-lines``). Which
    arrows run together shows only once all are drawn, so the drawing starts again with
    those two shorter, then shorter still; when that does not part them, the layout is
    left to the rule, which calls it crowded and gives the figure more room."""
    shorter: dict[str, float] = {}
    for share in (*SHORTER_ARROWS, None):
        scene = Scene(style, k, values=row.values if row else value_text(model, shown),
                      shown=shown)
        draw_members(scene, model)
        draw_hinges(scene, model)
        if row is not None:
            cut = model.point(row.cut)
            draw_break(scene, scene.px(cut.x, cut.y), row.cut, row.outward)
        requests = draw_supports(scene, model)
        requests += draw_loads(scene, model, shorter)
        pairs = clashes(Record(scene.layout.items, 0, 0, on_page=False))
        if not pairs or share is None:
            break
        shorter.update({it.owner: share for a, b, _ in pairs for it in (a, b)})
    return scene, requests


def lay_out_rows(model: Model, style: Style, k: float, shown: Presentation | None,
                 cut: str) -> tuple[Scene, dict[str, str]]:
    """The beam in two rows cut at joint ``cut`` (:mod:`.rows`), one legend under both."""
    shown = shown or Presentation()
    whole = Scene(style, k, values=value_text(model, shown), shown=shown)
    names = joint_names(whole, model)
    left, right = halves(model, cut)
    upper, up = lay_out(left, style, k, shown, row=Row(whole.values, names, cut, 1))
    lower, down = lay_out(right, style, k, shown, row=Row(whole.values, names, cut, -1))
    stack(whole, upper, lower)
    draw_legend(whole)
    return whole, {**up, **down}


def crowded(scene: Scene) -> bool:
    """Whether the layout breaks a legibility rule that more room could mend."""
    rec = Record(scene.layout.items, 0, 0, on_page=False)
    return bool(check(rec, {k: v for k, v in RULES.items() if k != "size"}))


def as_presentation(presentation: Presentation | Mapping[str, str] | None) -> Presentation:
    if presentation is None or isinstance(presentation, Presentation):
        return presentation or Presentation()
    try:
        return Presentation.from_json(presentation)
    except PresentationError as exc:
        raise RenderError(str(exc)) from None


def build_scene(model: Model | Mapping[str, Any] | str, style: str, scale: float | None,
                scheme: str, seed: int = 0, wording: Wording | None = None,
                shown: Presentation | None = None, *, profile: int | None = None,
                min_long_side: int | None = MIN_LONG_SIDE,
                ) -> tuple[Scene, dict[str, str]]:
    """The figure's scene; at a fitted scale, enlarged (a little, at most twice) when the
    first layout is too crowded to satisfy the legibility rules, then fitted to the
    delivery ``profile`` (:func:`refit`; None: not fitted). A beam that no scale keeps
    legible at the profile (uncrowded at its stored size: a crowded layout stays the
    fault it is) is drawn in two rows when those are (:mod:`.rows`). Then its
    notes block (when ``wording`` asks for one) and, for a page style, the page around
    it. A style with several text sizes (``Style.text_scales``) draws the first one whose
    figure keeps every rule at the profile, else (the last size) the figure as it is."""
    parsed = as_model(model)
    check_drawable(parsed)
    base = get_style(style, scheme)
    words = wording or Wording()
    scales = base.text_scales
    for n, text_scale in enumerate(scales, 1):
        st = base.lettered(text_scale)
        if scale is not None:
            scene, letters, _ = _composer(parsed, st, seed, words, shown, None)(
                resolve_scale(parsed, scale))
            return scene, letters
        scene, letters, verdict = _laid_out(parsed, st, seed, words, shown, profile,
                                            min_long_side)
        if verdict in ("fits", "unfitted") or n == len(scales):
            return scene, letters
    raise AssertionError("a style has at least one text scale")


def _composer(parsed: Model, st: Style, seed: int, words: Wording, shown: Presentation | None,
              cut: str | None) -> Composer:
    """The figure at ``k`` px/m in one row (``cut`` None) or two rows cut at ``cut``."""
    def compose(k: float) -> tuple[Scene, dict[str, str], bool]:
        with lettering(st.lettering):
            if cut is None:
                scene, letters = lay_out(parsed, st, k, shown)
            else:
                scene, letters = lay_out_rows(parsed, st, k, shown, cut)
            crowd = crowded(scene)
            if words.notes:
                draw_notes(scene, parsed, words.language)
        if st.page:
            scene = compose_page(scene, seed, words.language, words.category)
        return scene, letters, crowd
    return compose


def _laid_out(parsed: Model, st: Style, seed: int, words: Wording, shown: Presentation | None,
              profile: int | None, min_long_side: int | None,
              ) -> tuple[Scene, dict[str, str], str]:
    """The fitted figure in one row, else in two rows when only those keep the rules at
    the profile, and the verdict of :func:`fit` (the one row's unless two rows fit)."""
    scene, letters, verdict = fit(_composer(parsed, st, seed, words, shown, None), parsed, st,
                                  profile, min_long_side)
    if verdict != "too small":
        return scene, letters, verdict
    for cut in cut_joints(parsed)[:MAX_CUTS]:
        rows = fit(_composer(parsed, st, seed, words, shown, cut), parsed, st, profile,
                   min_long_side)
        if rows[2] == "fits":
            return rows
    return scene, letters, verdict


#: cut joints a beam's two-row drawing tries, best first, before it is left in one row
MAX_CUTS = 3
Composer = Callable[[float], tuple[Scene, dict[str, str], bool]]


def fit(compose: Composer, model: Model, style: Style, profile: int | None,
        min_long_side: int | None) -> tuple[Scene, dict[str, str], str]:
    """The figure at its fitted scale, roomier while crowded, refitted to ``profile``;
    and the verdict: "fits" (every rule kept at the profile), "crowded" (no room at any
    scale tried: a layout fault more paper cannot mend, left as it is), "too small" (the
    rules hold at the stored size but no scale keeps them at the profile: what a
    two-row drawing is for), or "unfitted" (no profile asked)."""
    k0, span = auto_scale(model), _span(model)
    for grow in ROOMIER:
        k = min(k0 * grow, max(k0, MAX_GROWN_PX / span))
        scene, letters, crowd = compose(k)
        if not crowd:
            break
    if crowd or profile is None:
        return scene, letters, "crowded" if crowd else "unfitted"
    scene, letters, ok = refit(compose, k, (scene, letters), style, profile, min_long_side)
    return scene, letters, "fits" if ok else "too small"


#: a figure whose glyphs would reach the model below this share of their design size
#: is drawn again with its structure smaller (its glyphs relatively larger)
REFIT_BELOW = 1.0
MAX_REFITS = 5


def delivered_ratio(scene: Scene, style: Style, profile: int,
                    min_long_side: int | None = MIN_LONG_SIDE) -> float:
    """How large a glyph of the scene reaches a model, against its design size: the
    canvas's enlargement times the shrinking to ``profile`` on the long side."""
    canvas = stored_canvas(scene, style, min_long_side)
    return canvas.zoom * profile_scale((canvas.width, canvas.height), profile)


def stored_legible(scene: Scene, style: Style, min_long_side: int | None,
                   profile: int | None = None) -> bool:
    """Whether the scene enlarged to its stored size keeps every rule, which the
    design-pixel check of :func:`crowded` does not see in full (its few absolute pixel
    margins grow with the enlargement). A tilted page is judged untilted and at both
    extreme tilts, not at its seed's tilt: the figure's geometry must not depend on the
    seed, which a DXF drawing of it does not have. With a ``profile``: judged as
    delivered at that size."""
    tilted = style.scanned or style.page
    canvas = stored_canvas(scene, style, min_long_side)
    items = placed_items(scene, canvas)
    turns = (0.0, MAX_TILT_DEG, -MAX_TILT_DEG) if tilted else (0.0,)
    centre = (canvas.width / 2, canvas.height / 2)
    return all(not check(Record([it.mapped(Similarity.turn(centre, deg)) for it in items]
                                if deg else items, canvas.width, canvas.height),
                         profile=profile) for deg in turns)


def refit(compose: Composer, k: float, drawn: tuple[Scene, dict[str, str]], style: Style,
          profile: int, min_long_side: int | None) -> tuple[Scene, dict[str, str], bool]:
    """The figure drawn at the largest scale whose glyphs, texts and clearances reach a
    model at ``profile`` px at (about) their design size.

    Why: an API shrinks a wide drawing to its limit, and a long beam drawn as a long
    strip delivers its arrowheads and couple arcs at a few pixels. Drawing the
    structure smaller (``k`` px/m) while the glyphs keep their size makes the glyphs
    larger against the whole, so the enlargement to the stored size and the API's
    reduction leave them at their design size: a long beam gets larger glyphs and more
    height, not a longer strip. The annotations do not shrink with ``k``, so the scale
    is found in a few steps; a scale at which the layout no longer has room (a text
    between its ticks), or whose stored image would break a rule, is not taken. When the
    scale found does not keep every rule at the profile, the first layout stays as it
    is (a half-way scale would only be a new drawing that the rules at the profile still
    refuse): such a structure needs another layout (two rows), and the rules at the
    profile list it. The flag says whether the figure returned keeps every rule at the
    profile (taken as so when its glyphs reach it at their design size).
    """
    scene, letters = drawn
    for _ in range(MAX_REFITS):
        ratio = delivered_ratio(scene, style, profile, min_long_side)
        if ratio >= REFIT_BELOW:
            return scene, letters, True
        for step in (ratio * 0.98, math.sqrt(ratio)):  # the whole way, else half of it
            tried, tried_letters, crowd = compose(k * step)
            if not crowd and stored_legible(tried, style, min_long_side):
                k, scene, letters = k * step, tried, tried_letters
                break
        else:
            break
    if stored_legible(scene, style, min_long_side, profile):
        return scene, letters, True
    # no scale keeps the rules at the profile: the first layout, as it was
    return drawn[0], drawn[1], scene is not drawn[0] and stored_legible(
        drawn[0], style, min_long_side, profile)


def _span(model: Model) -> float:
    xs, ys = [p.x for p in model.points], [p.y for p in model.points]
    return max(max(xs) - min(xs), max(ys) - min(ys), 1e-9)


def render_model(model: Model | Mapping[str, Any] | str, style: str | None = None,
                 seed: int = 0, highlight: Mapping[str, Any] | None = None,
                 scale: float | None = None, *, scheme: str = "normal",
                 min_long_side: int | None = MIN_LONG_SIDE, zoom: float | None = None,
                 presentation: Presentation | Mapping[str, str] | None = None,
                 category: str | None = None,
                 profile: int | None = DELIVERY_LONG_SIDE) -> RenderResult:
    """Draw ``model`` as an exam figure: members, hinges, supports, loads with values,
    dimension chains and point letters, with no label touching anything else.

    ``style`` is cad (the default), textbook, scanned, sketch or exam-page.
    ``presentation`` (a :class:`Presentation` or its JSON block) draws the figure of a
    task shown in that presentation: its style, its symbol set, the notes block under
    the figure in its language, an exam page's statement in that language (naming the
    ``category``); without it the figure is bare (no notes), in English, symbol set a.
    ``highlight`` maps ids to colours: a bare id ("L3") colours every element with that
    id; "point:P1", "link:L1", "support:S1", "load:LD2" name one kind; "hinge:L1:A" (a
    released end) and "hinge:P4" (a joint circle) name hinges. ``scheme="ghost"`` draws
    everything in pale colours. ``scale`` is design pixels per metre (default: fitted).
    The figure is enlarged as a whole until its long side is at least ``min_long_side``
    px (0 or None: its natural size, e.g. for thumbnails in reports), or by exactly
    ``zoom``. A task's figure (a ``presentation`` given, at a fitted scale) is drawn so
    that its glyphs keep their design size once an API shrinks it to ``profile`` px on
    the long side (the delivery profile, 1568; None: as wide as the structure asks).
    """
    colours = parse_highlight(highlight)
    shown = None if presentation is None else as_presentation(presentation)
    name = resolve_style(style, shown)
    scene, letters = build_scene(model, name, scale, scheme, seed,
                                 Wording.of(shown, category), shown,
                                 profile=None if shown is None else profile,
                                 min_long_side=min_long_side)
    return finish(scene, scene.style, seed, colours, letters, min_long_side=min_long_side,
                  zoom=zoom)


def layout_model(model: Model | Mapping[str, Any] | str, style: str | None = None,
                 seed: int = 0, scale: float | None = None, *, scheme: str = "normal",
                 min_long_side: int | None = MIN_LONG_SIDE, zoom: float | None = None,
                 presentation: Presentation | Mapping[str, str] | None = None,
                 category: str | None = None,
                 profile: int | None = DELIVERY_LONG_SIDE) -> FigureLayout:
    """The layout record :func:`render_model` would return with the same arguments,
    without drawing a pixel (the scanned tilt included): for checks over many figures."""
    shown = None if presentation is None else as_presentation(presentation)
    name = resolve_style(style, shown)
    scene, letters = build_scene(model, name, scale, scheme, seed,
                                 Wording.of(shown, category), shown,
                                 profile=None if shown is None else profile,
                                 min_long_side=min_long_side)
    canvas, items = delivered(scene, scene.style, seed, min_long_side, zoom)
    return FigureLayout(items, letters, scene.k, scene.style.name, seed, canvas.width,
                        canvas.height, canvas.zoom)
