"""Textbook-style drawings of FrameCalc models (Pillow only).

``render_model`` draws a structure as an exam figure; ``render_moment_diagram``
draws its bending-moment diagram. Both record every drawn thing (``RenderResult
.layout``: boxes and shapes, and per item the glyph a reader sees, see
:mod:`.glyphs`) so tests and reports can check and mark what is where.
``layout_model`` gives the same record without drawing a pixel; the rules of
:mod:`.legibility` check it. ``render_sheet`` / ``layout_sheet`` do the same for a
drawing sheet of several views (style ``sheet``, :mod:`.compose.sheet`).
"""

from .compose.figure import MIN_LONG_SIDE, layout_model, render_model
from .compose.moment_diagram import moment_diagram_result, render_moment_diagram
from .compose.sheet import layout_sheet, render_sheet
from .legibility.sheet import view_rects
from .scene.errors import RenderError
from .scene.layout import LayoutItem
from .scene.result import FigureLayout, RenderResult
from .scene.styles import SCHEMES, STYLES

__all__ = ["MIN_LONG_SIDE", "SCHEMES", "STYLES", "FigureLayout", "LayoutItem", "RenderError",
           "RenderResult", "layout_model", "layout_sheet", "moment_diagram_result",
           "render_model", "render_moment_diagram", "render_sheet", "view_rects"]
