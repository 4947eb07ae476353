"""What the reader is allowed to see, in the page's own frame.

``reader_view`` keeps only the picture (glyphs, kinds, texts and their boxes, the
image size) from a layout record. ``Drawing`` turns every drawn point into page
coordinates: X along the page's horizontal, Y up the page, so the scanned tilt is
undone once (the dimension chains show which way the page's axes run) and every
later "is this vertical?" is a plain comparison.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from .texts import Lexicon, Value, lexicon

XY = tuple[float, float]

VISIBLE = ("kind", "bbox", "text", "glyph")


class ReadError(Exception):
    """The drawing does not say something the model needs (a reason a reader can act on)."""


def reader_view(record: dict[str, Any]) -> dict[str, Any]:
    """The layout record without anything a reader of the picture cannot see."""
    return {"width": record["width"], "height": record["height"],
            "items": [{k: it[k] for k in VISIBLE if k in it} for it in record["items"]]}


@dataclass(frozen=True)
class Text:
    text: str
    centre: XY  # page coordinates
    box: tuple[XY, ...]  # the box's corners, page coordinates
    cap: float
    value: Value | None = None  # what it states, read with the legend and unit note


@dataclass(frozen=True)
class Glyph:
    type: str
    pts: dict[str, XY]
    paths: dict[str, tuple[XY, ...]]
    num: dict[str, float]
    facts: dict[str, Any]


@dataclass
class Drawing:
    width: int
    height: int
    glyphs: list[Glyph] = field(default_factory=list)
    texts: list[Text] = field(default_factory=list)
    lex: Lexicon = field(default_factory=Lexicon)

    def parse(self, text: str) -> Value | None:
        """The value a drawn text states, read with the drawing's legend and unit note."""
        return self.lex.parse(text)

    def of(self, gtype: str) -> list[Glyph]:
        return [g for g in self.glyphs if g.type == gtype]

    @property
    def yard(self) -> float:
        """The drawing's own yardstick: the cap height of its dimension texts (px).
        Distances that mean "touching" or "beside" scale with it, as a reader's eye
        does with the page."""
        caps = sorted(t.cap for t in self.texts if t.value and t.value.kind == "length")
        caps = caps or sorted(t.cap for t in self.texts)
        if not caps:
            raise ReadError("the drawing has no text")
        return caps[len(caps) // 2]


def _is_point(v: Any) -> bool:
    return isinstance(v, list) and len(v) == 2 and all(isinstance(c, int | float) for c in v)


def page_frame(items: list[dict[str, Any]]) -> tuple[XY, XY]:
    """Image-pixel unit vectors of the page's +X (right) and +Y (up), read off the chains."""
    for it in items:
        g = it.get("glyph") or {}
        if g.get("type") != "chain":
            continue
        (ax, ay), (bx, by) = g["line"]
        n = math.hypot(bx - ax, by - ay)
        d = ((bx - ax) / n, (by - ay) / n)
        if abs(d[0]) < abs(d[1]):  # a vertical chain: turn it onto the horizontal
            d = (-d[1], d[0])
        if d[0] < 0:
            d = (-d[0], -d[1])
        return d, (d[1], -d[0])
    return (1.0, 0.0), (0.0, -1.0)


def drawing(view: dict[str, Any]) -> Drawing:
    items = view["items"]
    ex, ey = page_frame(items)

    def page(p: list[float]) -> XY:
        return (p[0] * ex[0] + p[1] * ex[1], p[0] * ey[0] + p[1] * ey[1])

    out = Drawing(int(view["width"]), int(view["height"]))
    for it in items:
        g = it.get("glyph")
        if it.get("kind") == "page":
            continue  # the page a figure is printed on (statement, caption): not the figure's
        if it.get("kind") == "label":
            x0, y0, x1, y1 = it["bbox"]
            corners = tuple(page([x, y]) for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1)))
            centre = page([(x0 + x1) / 2, (y0 + y1) / 2])
            out.texts.append(Text(str(it.get("text", "")), centre, corners,
                                  float((g or {}).get("cap", y1 - y0))))
            continue
        if not g:
            continue
        pts, paths, num, facts = {}, {}, {}, {}
        for key, value in g.items():
            if key == "type":
                continue
            if _is_point(value):
                pts[key] = page(value)
            elif isinstance(value, list) and value and all(_is_point(v) for v in value):
                paths[key] = tuple(page(v) for v in value)
            elif isinstance(value, int | float) and not isinstance(value, bool):
                num[key] = float(value)
            else:
                facts[key] = value
        out.glyphs.append(Glyph(str(g["type"]), pts, paths, num, facts))
    try:
        out.lex = lexicon(t.text for t in out.texts)
    except ValueError as exc:
        raise ReadError(str(exc)) from None
    out.texts = [replace(t, value=out.lex.parse(t.text)) for t in out.texts]
    from .slopes import claim_texts

    claim_texts(out)  # a slope triangle's numbers are no dimensions
    return out
