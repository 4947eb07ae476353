"""``render_model``: a FrameCalc model drawn as a textbook exercise figure."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import Any

from ..model.parse import parse_model
from ..model.types import Model
from .arrows import LabelRequest
from .degrade import degrade
from .dimensions import distinct, draw_dimensions, features
from .errors import RenderError
from .letters import place_letters
from .loads import draw_loads
from .members import draw_hinges, draw_members
from .placement import RADII, place_label
from .raster import rasterize
from .result import RenderResult
from .scene import Scene
from .styles import RGB, Style, get_style, parse_colour
from .supports import draw_supports

MAX_ELEMENTS = 2000  # beyond this a figure cannot be legible; refuse rather than crawl
TARGET_SPAN_PX = 560.0  # the larger side of the structure
MIN_GAP_PX = 46.0  # the shortest dimension still fits its "0.25 m"
MAX_SPAN_PX = 1500.0
MAX_CANVAS_PX = 6000


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


def place_requests(scene: Scene, requests: list[LabelRequest]) -> None:
    for req in requests:
        place_label(scene, req.text, scene.style.sizes[req.size_key], req.owner, req.owner_type,
                    req.role, anchor=req.anchor, prefer=req.prefer, colour_role=req.colour_role,
                    radii=[req.first_gap + r - RADII[0] for r in RADII])


def finish(scene: Scene, style: Style, seed: int, highlight: Mapping[str, RGB],
           letters: dict[str, str]) -> RenderResult:
    """Rasterise, degrade for the scanned style, and package the result."""
    image, items = rasterize(scene, seed, highlight, tilt_room=style.scanned)
    if style.scanned:
        image, items = degrade(image, items, seed, style.palette["paper"])
    return RenderResult(image, items, letters, scene.k, style.name, seed)


def render_model(model: Model | Mapping[str, Any] | str, style: str = "cad", seed: int = 0,
                 highlight: Mapping[str, Any] | None = None, scale: float | None = None, *,
                 scheme: str = "normal") -> RenderResult:
    """Draw ``model`` as an exam figure: members, hinges, supports, loads with values,
    dimension chains and point letters, with no label touching anything else.

    ``highlight`` maps ids to colours: a bare id ("L3") colours every element with that
    id; "point:P1", "link:L1", "support:S1", "load:LD2" name one kind; "hinge:L1:A"
    (a released end) and "hinge:P4" (a joint circle) name hinges. ``scheme="ghost"``
    draws everything in pale colours. ``scale`` is pixels per metre (default: fitted).
    """
    parsed = as_model(model)
    check_drawable(parsed)
    st = get_style(style, scheme)
    colours = parse_highlight(highlight)
    scene = Scene(st, resolve_scale(parsed, scale))
    draw_members(scene, parsed)
    draw_hinges(scene, parsed)
    requests = draw_supports(scene, parsed)
    requests += draw_loads(scene, parsed)
    letters = place_letters(scene, parsed)
    place_requests(scene, requests)
    draw_dimensions(scene, parsed)  # last: chains go outside everything, labels included
    return finish(scene, st, seed, colours, letters)
