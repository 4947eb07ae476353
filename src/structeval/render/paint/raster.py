"""Scene → pixels: canvas sized to the drawing, style, highlight colours, anti-aliasing.

The scene is laid out once in design pixels; the canvas (:class:`Canvas`) places it
with a margin and enlarges it as a whole to the delivered size (``min_long_side``),
so every proportion the legibility rules rely on (a head against its text, a
hatch stroke against its symbol) is the same at every size, and the layout record
is mapped by the same similarity. Pillow draws lines without anti-aliasing, so
everything is drawn at ``SUPERSAMPLE``× and box-reduced. The hand-drawn wobble of
the textbook style is applied here, after layout, and is smaller than the
clearance kept around labels, so the layout record stays true for every style.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Mapping
from dataclasses import dataclass

from PIL import Image, ImageDraw

from ..scene.errors import RenderError
from ..scene.fonts import SUPERSAMPLE
from ..scene.layout import LayoutItem
from ..scene.scene import Disc, Fill, Painted, Scene, Stroke, Text, placed, prim_bbox
from ..scene.shapes import XY, Similarity, rect_union
from ..scene.styles import RGB, Style
from .degrade import tilt_margin
from .lettering import draw_text
from .pencil import Pencil

MARGIN = 14.0
MAX_PIXELS = 16_000_000


def _jittered(points: tuple[XY, ...], amp: float, rng: random.Random, zoom: float = 1.0,
              ) -> list[XY]:
    """A hand-drawn version of a polyline: a gentle wave across each straight piece."""
    if amp <= 0:
        return list(points)
    out: list[XY] = []
    last = len(points) - 2
    for k, ((x0, y0), (x1, y1)) in enumerate(itertools.pairwise(points)):
        length = math.hypot(x1 - x0, y1 - y0)
        n = max(1, round(length / (16.0 * zoom)))
        nx, ny = (-(y1 - y0) / length, (x1 - x0) / length) if length > 0 else (0.0, 0.0)
        phase, waves = rng.uniform(0, 2 * math.pi), rng.uniform(0.3, 1.0) * length / (120.0 * zoom)
        bow = rng.uniform(-amp, amp)
        for i in range(n + (1 if k == last else 0)):
            t = i / n
            off = bow * math.sin(math.pi * t) + 0.35 * amp * math.sin(
                phase + 2 * math.pi * waves * t)
            out.append((x0 + (x1 - x0) * t + nx * off, y0 + (y1 - y0) * t + ny * off))
    return out


def _dashes(points: list[XY], dash: float) -> list[list[XY]]:
    pieces: list[list[XY]] = []
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        length = math.hypot(x1 - x0, y1 - y0)
        t = 0.0
        while t < length:
            t1 = min(t + dash, length)
            pieces.append([(x0 + (x1 - x0) * t / length, y0 + (y1 - y0) * t / length),
                           (x0 + (x1 - x0) * t1 / length, y0 + (y1 - y0) * t1 / length)])
            t += 2 * dash
    return pieces


class _Painter:
    def __init__(self, image: Image.Image, style: Style, highlight: Mapping[str, RGB],
                 rng: random.Random, zoom: float = 1.0):
        self.image = image
        self.draw = ImageDraw.Draw(image)
        self.style, self.highlight, self.rng = style, highlight, rng
        self.jitter, self.zoom = style.jitter * zoom, zoom
        self.pencil = Pencil(self.draw, style.palette["paper"], rng, zoom) if style.pencil else None

    def colour(self, role: str, keys: tuple[str, ...]) -> RGB:
        if role != "paper":
            for key in keys:
                if key in self.highlight:
                    return self.highlight[key]
        return self.style.palette[role]

    def _polyline(self, pts: list[XY], width: float, colour: RGB) -> None:
        ss = SUPERSAMPLE
        scaled = [(x * ss, y * ss) for x, y in pts]
        w = max(1, round(width * ss))
        self.draw.line(scaled, fill=colour, width=w, joint="curve")
        if width >= 1.5 * self.zoom:  # round caps so members meet cleanly at joints
            r = w / 2
            for x, y in (scaled[0], scaled[-1]):
                self.draw.ellipse((x - r, y - r, x + r, y + r), fill=colour)

    def paint(self, item: Painted) -> None:
        p, keys, ss, amp = item.prim, item.keys, SUPERSAMPLE, self.jitter
        if self.pencil is not None and not isinstance(p, Text):
            self._sketch(item)
            return
        if isinstance(p, Stroke):
            pts = list(p.points) + ([p.points[0]] if p.closed else [])
            pts = _jittered(tuple(pts), amp, self.rng, self.zoom)
            colour = self.colour(p.role, keys)
            for piece in (_dashes(pts, p.dash) if p.dash else [pts]):
                self._polyline(piece, p.width, colour)
        elif isinstance(p, Fill):
            pts = [(x + self.rng.uniform(-amp, amp) * 0.5, y + self.rng.uniform(-amp, amp) * 0.5)
                   for x, y in p.points] if amp else list(p.points)
            outline = self.colour(p.outline, keys) if p.outline else None
            self.draw.polygon([(x * ss, y * ss) for x, y in pts], fill=self.colour(p.role, keys),
                              outline=outline, width=max(1, round(p.width * ss)))
        elif isinstance(p, Disc):
            (x, y), r = p.center, p.r * ss
            outline = self.colour(p.outline, keys) if p.outline else None
            self.draw.ellipse((x * ss - r, y * ss - r, x * ss + r, y * ss + r),
                              fill=self.colour(p.role, keys), outline=outline,
                              width=max(1, round(p.width * ss)))
        else:
            assert isinstance(p, Text)
            dx = self.rng.uniform(-amp, amp) * 0.4 * ss if amp else 0.0
            draw_text(self.image, self.draw, p.x * ss, p.y * ss, p.text, p.drawn_size, p.lettering,
                      self.colour(p.role, keys), self.rng, dx)


    def _sketch(self, item: Painted) -> None:
        """Strokes, polygons and circles in pencil (see :mod:`.pencil`)."""
        p, keys, pencil = item.prim, item.keys, self.pencil
        assert pencil is not None
        if isinstance(p, Stroke):
            pts = list(p.points) + ([p.points[0]] if p.closed else [])
            pts = _jittered(tuple(pts), self.jitter, self.rng, self.zoom)
            colour = self.colour(p.role, keys)
            if p.dash:
                for piece in _dashes(pts, p.dash):
                    pencil.line(piece, p.width, colour, overshoot=False)
            else:
                pencil.line(pts, p.width, colour, overshoot=len(p.points) == 2)
        elif isinstance(p, Fill):
            ss = SUPERSAMPLE
            corners = [(x + self.rng.uniform(-0.4, 0.4) * self.jitter,
                        y + self.rng.uniform(-0.4, 0.4) * self.jitter) for x, y in p.points]
            fill = self.colour(p.role, keys)
            self.draw.polygon([(x * ss, y * ss) for x, y in corners], fill=fill)
            outline = self.colour(p.outline, keys) if p.outline else fill
            pencil.outline(corners, max(p.width, 0.8 * self.zoom), outline)
        elif isinstance(p, Disc):
            ss, (x, y), r = SUPERSAMPLE, p.center, p.r
            self.draw.ellipse((x * ss - r * ss, y * ss - r * ss, x * ss + r * ss, y * ss + r * ss),
                              fill=self.colour(p.role, keys))
            if p.outline:
                pencil.circle(p.center, r, p.width, self.colour(p.outline, keys))


@dataclass(frozen=True)
class Canvas:
    """Where the figure lands: canvas size in delivered pixels and the design → canvas map."""

    width: int
    height: int
    place: Similarity

    @property
    def zoom(self) -> float:
        return self.place.scale


def fit_zoom(natural_long_side: float, min_long_side: int | None) -> float:
    """The enlargement that brings the long side to ``min_long_side`` (never a reduction)."""
    if not min_long_side or natural_long_side <= 0:
        return 1.0
    return max(1.0, min_long_side / natural_long_side)


def canvas_for(scene: Scene, *, tilt_room: bool = False, min_long_side: int | None = None,
               zoom: float | None = None) -> Canvas:
    """A canvas that fits the drawing with a margin on every side (wider when the page will
    be tilted afterwards), enlarged so its long side is at least ``min_long_side`` px
    (or by exactly ``zoom``)."""
    if scene.page is not None:  # a sheet of its own size, margins and tilt room inside it
        x0, y0, x1, y1 = scene.page
        w, h, tilt, margin_px = x1 - x0, y1 - y0, 0.0, 0.0
    else:
        rects = [prim_bbox(p.prim) for p in scene.painted] + [scene.layout.extent()]
        x0, y0, x1, y1 = rect_union(rects)
        w, h = x1 - x0, y1 - y0
        tilt = tilt_margin(w, h) if tilt_room else 0.0
        margin_px = MARGIN
    if zoom is None:
        zoom = fit_zoom(max(w, h) + 2 * (margin_px + tilt), min_long_side)
    elif not (isinstance(zoom, int | float) and math.isfinite(zoom) and 0 < zoom <= 20):
        raise RenderError(f"zoom must be a number in (0, 20], got {zoom!r}")
    margin = margin_px + tilt
    width, height = math.ceil((w + 2 * margin) * zoom), math.ceil((h + 2 * margin) * zoom)
    if width * height > MAX_PIXELS:
        raise RenderError(f"the figure would be {width}×{height} px; use a smaller scale "
                          f"(now {scene.k:g} px/m)")
    return Canvas(width, height, Similarity.shift_zoom(margin - x0, margin - y0, zoom))


def rasterize(scene: Scene, canvas: Canvas, seed: int, highlight: Mapping[str, RGB],
              ) -> Image.Image:
    """Paint the scene on its canvas (supersampled, then reduced)."""
    image = Image.new("RGB", (canvas.width * SUPERSAMPLE, canvas.height * SUPERSAMPLE),
                      scene.style.palette["paper"])
    painter = _Painter(image, scene.style, highlight, random.Random(seed), canvas.zoom)
    order = sorted(range(len(scene.painted)), key=lambda i: (scene.painted[i].layer, i))
    for i in order:
        item = scene.painted[i]
        painter.paint(Painted(placed(item.prim, canvas.place), item.layer, item.keys))
    return image.reduce(SUPERSAMPLE)


def placed_items(scene: Scene, canvas: Canvas) -> list[LayoutItem]:
    """The layout record in canvas pixels."""
    return [it.mapped(canvas.place) for it in scene.layout.items]
