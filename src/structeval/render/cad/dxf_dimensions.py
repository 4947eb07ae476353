"""Dimension chains as real DXF DIMENSION entities, their texts the drawn texts.

A chain on the figure is a line, a tick per station, extension lines and one text per
interval. In CAD the same thing is a run of linear DIMENSION entities, one per
interval, whose measurement a CAD program knows and whose text can be overridden;
we write exactly that, with the override text equal to the text the image shows
(also when it is not the measurement: mm, a parametric ``2a``) and the text placed
where the image has it. The extension line of a station starts where the image's
does (near the structure) and is suppressed where the image has none; a station
shared by two intervals gets its line once, as CAD's continued dimensions do.

Which text belongs to which interval is the renderer's own knowledge here (its
texts are centred in their intervals, nearest to their chain: the legibility rules
make sure of it); a text that fits no interval is still written, as a TEXT.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..scene.layout import LayoutItem
from ..scene.shapes import XY
from .dxf_text import style_for

#: the dimension style every DIMENSION of a figure uses (values set by :func:`dimstyle_attribs`)
DIMSTYLE = "FIGURE"


@dataclass(frozen=True)
class Interval:
    chain: int  # layout item index of the chain
    index: int  # 0 = between its first two ticks


def _frame(item: LayoutItem) -> tuple[XY, XY, float]:
    g = item.glyph
    assert g is not None
    a, b = g.paths["line"]
    n = math.dist(a, b)
    return a, ((b[0] - a[0]) / n, (b[1] - a[1]) / n), n


def _centre(item: LayoutItem) -> XY:
    x0, y0, x1, y1 = item.bbox
    return ((x0 + x1) / 2, (y0 + y1) / 2)


def assign_texts(items: Sequence[LayoutItem]) -> dict[int, Interval]:
    """Dimension text (item index) → the interval it is centred in, on the chain line
    nearest to it (texts that fit no interval are left out)."""
    chains = [i for i, it in enumerate(items) if it.glyph is not None
              and it.glyph.type == "chain"]
    out: dict[int, Interval] = {}
    for t, label in enumerate(items):
        if label.kind != "label" or label.owner_type != "dimension":
            continue
        c = _centre(label)
        best: tuple[float, int, int] | None = None
        for k in chains:
            a, along, n = _frame(items[k])
            s = (c[0] - a[0]) * along[0] + (c[1] - a[1]) * along[1]
            if not 0.0 <= s <= n:
                continue
            perp = abs((c[0] - a[0]) * along[1] - (c[1] - a[1]) * along[0])
            ticks = items[k].glyph.paths["ticks"]  # type: ignore[union-attr]
            stations = sorted((p[0] - a[0]) * along[0] + (p[1] - a[1]) * along[1]
                              for p in ticks)
            j = next((j for j in range(len(stations) - 1)
                      if stations[j] < s < stations[j + 1]), None)
            if j is not None and (best is None or perp < best[0]):
                best = (perp, k, j)
        if best is not None:
            out[t] = Interval(best[1], best[2])
    return out


def dimstyle_attribs(units: Callable[[float], float], tick: float, overshoot: float,
                     cap: float, text_style: str) -> dict[str, Any]:
    """DIMSTYLE values that draw a chain as the image does: oblique ticks of the image's
    size, no gap at the extension lines' start, the image's overshoot, its text height
    (``units`` turns design pixels into drawing units)."""
    return {"dimtsz": units(tick), "dimasz": units(tick), "dimexe": units(overshoot),
            "dimexo": 0.0, "dimdle": 0.0, "dimtxt": units(cap), "dimgap": 0.0,
            "dimtad": 0, "dimtih": 0, "dimtoh": 0, "dimtmove": 2, "dimtxsty": text_style,
            "dimdec": 3, "dimzin": 8, "dimclrd": 256, "dimclre": 256, "dimclrt": 256}


def write_chain(msp: Any, items: Sequence[LayoutItem], k: int, texts: dict[Interval, list[int]],
                to_dxf: Callable[[XY], XY], units: Callable[[float], float],
                default_cap: float, text_style: Callable[[str], str]) -> list[int]:
    """The chain at item ``k`` as one DIMENSION per interval on layer DIMENSIONS; returns
    the text items it used (the others, beyond one per interval, are the caller's).
    ``text_style`` names (and makes) the text style a text needs."""
    g = items[k].glyph
    assert g is not None
    ticks, inner = g.paths["ticks"], g.paths["ext_inner"]
    angle = 0.0 if g.facts["axis"] == "x" else 90.0
    used: list[int] = []
    for j in range(len(ticks) - 1):
        mine = texts.get(Interval(k, j), [])
        override: dict[str, Any] = {
            "dimse1": 1 if j > 0 or math.dist(ticks[j], inner[j]) < 1.0 else 0,
            "dimse2": 1 if math.dist(ticks[j + 1], inner[j + 1]) < 1.0 else 0}
        text, location = " ", None  # a single space: no text on this interval
        if mine:
            label = items[mine[0]]
            used.append(mine[0])
            text, location = str(label.text), to_dxf(_centre(label))
            cap = label.glyph.lengths["cap"] if label.glyph is not None else default_cap
            if abs(cap - default_cap) > 1e-9:
                override["dimtxt"] = units(cap)
            style = text_style(text)
            if style != style_for("").name:
                override["dimtxsty"] = style
        dim = msp.add_linear_dim(base=to_dxf(ticks[j]), p1=to_dxf(inner[j]),
                                 p2=to_dxf(inner[j + 1]), location=location, text=text,
                                 angle=angle, text_rotation=0.0, dimstyle=DIMSTYLE,
                                 override=override, dxfattribs={"layer": "DIMENSIONS"})
        dim.render()
    return used
