"""The layout record: what was drawn where, and the free-space queries labels are placed with.

Every drawn thing is registered here with the element it belongs to, so the
same record serves three purposes: collision checks while placing labels, the
legibility tests, and the report (which marks differences by element id).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .glyphs import Anchor, Glyph
from .shapes import XY, PointMap, Rect, Shape, rect_union, touches

#: kinds of drawn items; "label" is the figure's text, "page" the texts and rules of the
#: page a figure is printed on (the exam-page style), everything else is graphics
KINDS = ("member", "hinge", "support", "load", "dimension", "diagram", "label", "page", "break")


@dataclass(frozen=True)
class LayoutItem:
    """One drawn thing.

    ``owner_type`` is "point", "link", "support", "load", "dimension" or "figure";
    ``role`` says what part of the owner it is (e.g. "letter", "value", "arrow",
    "row", "arc", "hinge-end"). ``shapes`` are the exact collision shapes, ``bbox``
    their union. ``glyph`` is what a reader sees (:mod:`.glyphs`); ``anchor`` is where
    in the model the item belongs (for the renderer's own checks, not for readers).
    """

    kind: str
    owner: str
    owner_type: str
    role: str
    bbox: Rect
    shapes: tuple[Shape, ...]
    text: str | None = None
    glyph: Glyph | None = None
    anchor: Anchor | None = None

    def mapped(self, f: PointMap) -> LayoutItem:
        shapes = tuple(s.mapped(f) for s in self.shapes)
        return LayoutItem(self.kind, self.owner, self.owner_type, self.role,
                          rect_union([s.bbox() for s in shapes]), shapes, self.text,
                          self.glyph.mapped(f) if self.glyph else None,
                          self.anchor.mapped(f) if self.anchor else None)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "owner": self.owner,
                               "ownerType": self.owner_type, "role": self.role,
                               "bbox": [round(v, 2) for v in self.bbox]}
        if self.text is not None:
            out["text"] = self.text
        if self.glyph is not None:
            out["glyph"] = self.glyph.to_json()
        if self.anchor is not None:
            out["anchor"] = self.anchor.to_json()
        return out


#: the item index ``Obstacles.hits`` reports for a reserved corridor
RESERVED = -1


@dataclass
class Obstacles:
    """A uniform grid over the shapes drawn so far: labels ask it for free space.

    Besides drawn shapes it holds *reservations*: room promised to something drawn
    later (the path of a dimension's extension line), which labels must leave free.
    Only :meth:`hits` sees them; they are released per tag once their owner is drawn.
    """

    cell: float = 40.0
    _grid: dict[tuple[int, int], list[int]] = field(default_factory=lambda: defaultdict(list))
    _shapes: list[tuple[Shape, int]] = field(default_factory=list)
    _reserved: dict[str, list[Shape]] = field(default_factory=dict)
    #: the reservations by grid cell (tag, shape), so a query looks only at those near it
    _reserved_grid: dict[tuple[int, int], list[tuple[str, Shape]]] = field(
        default_factory=lambda: defaultdict(list))

    def reserve(self, shape: Shape, tag: str) -> None:
        self._reserved.setdefault(tag, []).append(shape)
        for key in self._cells(shape.bbox(), 0.0):
            self._reserved_grid[key].append((tag, shape))

    def release(self, tag: str) -> None:
        if self._reserved.pop(tag, None) is None:
            return
        for key, held in list(self._reserved_grid.items()):
            kept = [entry for entry in held if entry[0] != tag]
            if len(kept) != len(held):
                self._reserved_grid[key] = kept

    def add(self, shape: Shape, item_index: int) -> None:
        idx = len(self._shapes)
        self._shapes.append((shape, item_index))
        for key in self._cells(shape.bbox(), 0.0):
            self._grid[key].append(idx)

    def _cells(self, r: Rect, pad: float) -> Iterable[tuple[int, int]]:
        c = self.cell
        for i in range(math.floor((r[0] - pad) / c), math.floor((r[2] + pad) / c) + 1):
            for j in range(math.floor((r[1] - pad) / c), math.floor((r[3] + pad) / c) + 1):
                yield i, j

    def _near(self, r: Rect, pad: float) -> list[int]:
        found: set[int] = set()
        for key in self._cells(r, pad):
            found.update(self._grid.get(key, ()))
        return sorted(found)

    def hits(self, r: Rect, pad: float, ignore: frozenset[int] = frozenset()) -> list[int]:
        """Indices of the items whose shapes come within ``pad`` of the rectangle
        (:data:`RESERVED` for a reservation)."""
        out: list[int] = []
        for idx in self._near(r, pad):
            shape, item = self._shapes[idx]
            if item not in ignore and item not in out and shape.hits(r, pad):
                out.append(item)
        if RESERVED not in ignore and any(s.hits(r, pad) for key in self._cells(r, pad)
                                          for _, s in self._reserved_grid.get(key, ())):
            out.append(RESERVED)
        return out

    def shape_hits(self, shape: Shape, pad: float, ignore: frozenset[int] = frozenset(),
                   ) -> list[int]:
        """Items whose shapes come within ``pad`` of ``shape``."""
        out: list[int] = []
        for idx in self._near(shape.bbox(), pad):
            other, item = self._shapes[idx]
            if item not in ignore and item not in out and touches(shape, other, pad):
                out.append(item)
        return out

    def first_hit(self, origin: XY, direction: XY, max_t: float,
                  ignore: frozenset[int] = frozenset(), extra: Iterable[Shape] = (),
                  ) -> float | None:
        """Distance along a ray to the first drawn shape (or one of ``extra``), if any
        within ``max_t``."""
        x1 = origin[0] + direction[0] * max_t
        y1 = origin[1] + direction[1] * max_t
        r = (min(origin[0], x1), min(origin[1], y1), max(origin[0], x1), max(origin[1], y1))
        best: float | None = None
        near = [shape for shape, item in (self._shapes[i] for i in self._near(r, 1.0))
                if item not in ignore]
        for shape in (*near, *extra):
            t = shape.ray_entry(origin, direction)
            if t is not None and t <= max_t and (best is None or t < best):
                best = t
        return best


@dataclass
class Layout:
    """The growing record plus its obstacle index."""

    items: list[LayoutItem] = field(default_factory=list)
    obstacles: Obstacles = field(default_factory=Obstacles)

    def add(self, kind: str, owner: str, owner_type: str, role: str, shapes: list[Shape],
            text: str | None = None, glyph: Glyph | None = None,
            anchor: Anchor | None = None) -> int:
        assert kind in KINDS and shapes
        index = len(self.items)
        self.items.append(LayoutItem(kind, owner, owner_type, role,
                                     rect_union([s.bbox() for s in shapes]), tuple(shapes), text,
                                     glyph, anchor))
        for s in shapes:
            self.obstacles.add(s, index)
        return index

    def extent(self) -> Rect:
        return rect_union([it.bbox for it in self.items])
