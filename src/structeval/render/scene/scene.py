"""A figure as paint primitives plus its layout record, before any pixel exists.

Building the whole figure first and rasterising afterwards lets the canvas be
sized to what was actually drawn (nothing can fall off the edge), lets the
styles repaint the same geometry, and lets highlighting recolour by element id.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, replace
from typing import Any

from ...presentation import Presentation
from ..reading.value_text import ValueText
from .fonts import cap_height, current_lettering, fitted_size, text_size
from .glyphs import Anchor, Glyph
from .layout import Layout
from .shapes import XY, Box, Capsule, Rect, Shape, Similarity, rect_union
from .styles import Style


@dataclass(frozen=True)
class Stroke:
    points: tuple[XY, ...]
    width: float
    role: str = "ink"
    closed: bool = False
    dash: float = 0.0  # dash length in px, 0 = solid


@dataclass(frozen=True)
class Fill:
    points: tuple[XY, ...]
    role: str = "paper"
    outline: str | None = "ink"
    width: float = 1.6


@dataclass(frozen=True)
class Disc:
    center: XY
    r: float
    role: str = "paper"
    outline: str | None = "ink"
    width: float = 1.6


@dataclass(frozen=True)
class Text:
    x: float  # left of the ink
    y: float  # top of the ink
    text: str
    size: float
    role: str = "text"
    lettering: str = "print"  # the fonts it is drawn in (see fonts.LETTERINGS)
    fit: float | None = None  # the ink's width as laid out, enlarged with it (None: as drawn)

    @property
    def drawn_size(self) -> float:
        """The size its ink is drawn at: ``size``, a little less where the font at that
        size would run past ``fit`` (:func:`.fonts.fitted_size`)."""
        return fitted_size(self.text, self.size, self.lettering, self.fit)


Prim = Stroke | Fill | Disc | Text

# paint order: later layers cover earlier ones
LAYER_DIAGRAM, LAYER_THIN, LAYER_LOAD, LAYER_SUPPORT, LAYER_MEMBER, LAYER_HINGE, LAYER_TEXT = (
    range(7))


@dataclass(frozen=True)
class Painted:
    prim: Prim
    layer: int
    keys: tuple[str, ...]  # highlight keys, most specific first
    item: int = -1  # index of the layout item it draws (-1: none), for writers of other formats


def prim_bbox(p: Prim) -> Rect:
    if isinstance(p, Text):
        w, h = text_size(p.text, p.drawn_size, p.lettering)
        return (p.x, p.y, p.x + w, p.y + h)
    if isinstance(p, Disc):
        r = p.r + p.width
        return (p.center[0] - r, p.center[1] - r, p.center[0] + r, p.center[1] + r)
    pad = p.width if isinstance(p, Stroke) else (p.width if p.outline else 0.0)
    xs = [q[0] for q in p.points]
    ys = [q[1] for q in p.points]
    return (min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad)


def outline_shapes(prims: list[tuple[Prim, int]]) -> list[Shape]:
    """Collision shapes that follow what is inked: strokes and polygon edges as capsules,
    discs as boxes. For symbols whose boxes would claim empty space (a triangle's corner),
    so that a neighbour may come close to the lines without being counted as touching."""
    out: list[Shape] = []
    for p, _ in prims:
        if isinstance(p, Stroke):
            pts = list(p.points) + ([p.points[0]] if p.closed else [])
            out += [Capsule(a, b, p.width / 2 + 0.5) for a, b in itertools.pairwise(pts)]
        elif isinstance(p, Fill):
            pts = [*p.points, p.points[0]]
            out += [Capsule(a, b, p.width / 2 + 0.5) for a, b in itertools.pairwise(pts)]
        else:
            out.append(Box(prim_bbox(p)))
    return out


def placed(p: Prim, f: Similarity) -> Prim:
    """The primitive moved onto the canvas and enlarged to the delivered size."""
    k = f.scale
    if isinstance(p, Text):
        x, y = f((p.x, p.y))
        laid = p.fit if p.fit is not None else text_size(p.text, p.size, p.lettering)[0]
        return replace(p, x=x, y=y, size=p.size * k, fit=laid * k)
    if isinstance(p, Disc):
        return replace(p, center=f(p.center), r=p.r * k, width=p.width * k)
    if isinstance(p, Stroke):
        return replace(p, points=tuple(f(q) for q in p.points), width=p.width * k,
                       dash=p.dash * k)
    return replace(p, points=tuple(f(q) for q in p.points), width=p.width * k)


@dataclass
class Scene:
    """Primitives in figure pixels (y down) and the matching layout record.

    ``k`` is pixels per metre: world (x, y) maps to (x·k, −y·k).
    """

    style: Style
    k: float
    layout: Layout = field(default_factory=Layout)
    painted: list[Painted] = field(default_factory=list)
    page: Rect | None = None  # the sheet a page style draws on (else: fitted to the drawing)
    values: ValueText = field(default_factory=ValueText)  # how values become labels
    shown: Presentation = field(default_factory=Presentation)
    exam: Any = None  # the exam economies in use (render.exam.ExamPlan), once planned

    def px(self, x: float, y: float) -> XY:
        return (x * self.k, -y * self.k)

    def add(self, kind: str, owner: str, owner_type: str, role: str,
            prims: list[tuple[Prim, int]], shapes: list[Shape] | None = None,
            keys: tuple[str, ...] = (), text: str | None = None, glyph: Glyph | None = None,
            anchor: Anchor | None = None) -> int:
        """Register one drawn thing; its shapes default to the primitives' boxes."""
        all_keys = (*keys, f"{owner_type}:{owner}", owner)
        index = len(self.layout.items)
        for prim, layer in prims:
            self.painted.append(Painted(prim, layer, all_keys, index))
        if shapes is None:
            shapes = [Box(prim_bbox(p)) for p, _ in prims]
        return self.layout.add(kind, owner, owner_type, role, shapes, text, glyph, anchor)

    def add_text(self, owner: str, owner_type: str, role: str, text: str, size: float,
                 rect: Rect, colour_role: str = "text", anchor: Anchor | None = None) -> int:
        prim = Text(rect[0], rect[1], text, size, colour_role, current_lettering())
        glyph = Glyph("text", lengths={"size": size, "cap": cap_height(size)})
        return self.add("label", owner, owner_type, role, [(prim, LAYER_TEXT)],
                        [Box(prim_bbox(prim))], text=text, glyph=glyph, anchor=anchor)


def drawn_box(scene: Scene) -> Rect:
    """Everything a scene has drawn, ink and layout alike."""
    return rect_union([prim_bbox(p.prim) for p in scene.painted] + [scene.layout.extent()])


def absorb(into: Scene, part: Scene, shift: Similarity) -> None:
    """``part``'s primitives and layout items moved by ``shift`` into ``into`` (a sheet's
    views, a beam's two rows), each primitive still naming the item it draws, for the
    writers of other formats."""
    base = len(into.layout.items)
    into.painted.extend(replace(p, prim=placed(p.prim, shift),
                                item=p.item + base if p.item >= 0 else -1)
                        for p in part.painted)
    into.layout.items.extend(it.mapped(shift) for it in part.layout.items)


def unit_vec(a: XY, b: XY) -> XY:
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = math.hypot(dx, dy)
    return (dx / n, dy / n) if n > 0 else (1.0, 0.0)


def along(p: XY, d: XY, t: float) -> XY:
    return (p[0] + d[0] * t, p[1] + d[1] * t)


def frame_point(origin: XY, u_dir: XY, v_dir: XY, u: float, v: float) -> XY:
    """origin + u·u_dir + v·v_dir: symbols are designed in a local (u, v) frame."""
    return (origin[0] + u * u_dir[0] + v * v_dir[0], origin[1] + u * u_dir[1] + v * v_dir[1])
