"""Symbols that must read the same at the delivered size as in the designer's mind.

A couple is only a couple if its arrowhead shows which way it turns: the arc
sweeps most of a circle, the head is long compared with the text beside it, and
nothing crosses the arc (bar the members and the support at its point) or touches
the head. A support symbol is only its kind if its parts can be told apart: a fixed
wall with many long hatch strokes, a pin's or roller's triangle, a roller's wheels. The
second symbol set (link bars) adds its symbols' least sizes to ``SYMBOL_MIN`` and its
bar rules in :mod:`.link_symbols`.
"""

from __future__ import annotations

import math

from ..scene.layout import LayoutItem
from ..scene.shapes import Capsule, Shape, polyline_capsules, touches
from .link_symbols import link_bars, one_set
from .record import Record, Violation, arc_points

MIN_SWEEP_DEG = 270.0
HEAD_TO_CAP = 0.8  # a couple's head at least this × the cap height of its value text
#: per symbol: (least size attach → ground, least hatch strokes, least stroke length px)
SYMBOL_MIN = {"pin": (18.0, 5, 8.0), "roller": (18.0, 5, 8.0), "slider": (18.0, 5, 8.0),
              "fixed": (0.0, 7, 14.0),
              # set b: link bars (one, two meeting, two parallel) and the wall
              "link": (22.0, 5, 8.0), "two-links": (22.0, 5, 8.0),
              "parallel-links": (30.0, 5, 8.0), "wall": (0.0, 7, 14.0)}
MIN_HATCH_GAP = 3.5  # px between hatch strokes: closer ones merge into a grey bar
MIN_WHEEL_R = 3.0
MIN_GROUND = 30.0  # px: length of a ground line or wall


def _arc_shapes(item: LayoutItem) -> tuple[list[Shape], list[Shape]]:
    g = item.glyph
    assert g is not None
    pts = arc_points(g.points["centre"], g.lengths["r"], g.points["start"],
                     float(g.facts["sweep"]), str(g.facts["sense"]))
    head_len = math.dist(g.points["head_base"], g.points["tip"])
    keep = [p for p in pts if math.dist(p, g.points["tip"]) > head_len]
    arc = polyline_capsules(keep, 1.0) if len(keep) > 1 else []
    head = [Capsule(g.points["head_base"], g.points["tip"], g.lengths["head_width"] / 2)]
    return arc, head


def couples(rec: Record) -> list[Violation]:
    out = []
    values = {it.owner: it for it in rec.labels if it.owner_type == "load" and it.role == "value"}
    for it in rec.glyphs("couple"):
        g = it.glyph
        assert g is not None
        who = f"couple {it.owner}"
        if float(g.facts["sweep"]) < MIN_SWEEP_DEG:
            out.append(Violation("couples", who, f"its arc sweeps {g.facts['sweep']}°, "
                                 f"less than {MIN_SWEEP_DEG:.0f}°"))
        text = values.get(it.owner)
        if text is not None and text.glyph is not None:
            cap = text.glyph.lengths["cap"]
            if g.lengths["head"] < HEAD_TO_CAP * cap:
                out.append(Violation("couples", who, f"its arrowhead is {g.lengths['head']:.1f} "
                                     f"px long, less than {HEAD_TO_CAP} × the {cap:.1f} px cap "
                                     "height of its text"))
        arc, head = _arc_shapes(it)
        own_point = it.anchor.at[0] if it.anchor else g.points["centre"]
        own_link = it.anchor.target.split(":", 1)[1] if it.anchor and it.anchor.target.startswith(
            "link:") else None
        for other in rec.items:
            if other is it:
                continue
            if other.kind == "support" and other.anchor is not None and math.dist(
                    other.anchor.at[0], own_point) < 1.0:
                if any(touches(h, s, 0.0) for h in head for s in other.shapes):
                    out.append(Violation("couples", who, f"support {other.owner} at its point "
                                         "touches its arrowhead"))
                continue
            if other.kind == "member":
                a, b = other.glyph.paths["ends"]  # type: ignore[union-attr]
                at_point = min(math.dist(a, own_point), math.dist(b, own_point)) < 1.0
                if at_point or other.owner == own_link:
                    if any(touches(h, s, 0.0) for h in head for s in other.shapes):
                        out.append(Violation("couples", who, f"member {other.owner} touches "
                                             "its arrowhead"))
                    continue
            hit_arc = any(touches(a, s, 0.0) for a in arc for s in other.shapes)
            hit_head = any(touches(h, s, 0.0) for h in head for s in other.shapes)
            if hit_arc or hit_head:
                part = "arrowhead" if hit_head else "arc"
                out.append(Violation("couples", who, f"{other.kind} {other.owner} ({other.role}) "
                                     f"crosses its {part}"))
    return out


def supports(rec: Record) -> list[Violation]:
    out = one_set(rec)
    for it in rec.glyphs("support"):
        g = it.glyph
        assert g is not None
        symbol = str(g.facts["symbol"])
        who = f"{symbol} support {it.owner}"
        if symbol not in SYMBOL_MIN:
            out.append(Violation("supports", who, "is no known support symbol"))
            continue
        if g.facts.get("set") == "b":
            out += link_bars(it)
        size, strokes, stroke_len = SYMBOL_MIN[symbol]
        if g.lengths["size"] < size:
            out.append(Violation("supports", who, f"the symbol is {g.lengths['size']:.1f} px "
                                 f"tall, less than {size:.0f} px"))
        if g.lengths["width"] < MIN_GROUND:
            out.append(Violation("supports", who, f"its ground is {g.lengths['width']:.1f} px "
                                 f"wide, less than {MIN_GROUND:.0f} px"))
        if int(g.facts["hatch_count"]) < strokes or g.lengths["hatch_len"] < stroke_len:
            out.append(Violation("supports", who, f"{g.facts['hatch_count']} hatch strokes of "
                                 f"{g.lengths['hatch_len']:.1f} px; a {symbol} needs "
                                 f"{strokes} of {stroke_len:.0f} px"))
        if g.lengths["hatch_gap"] < MIN_HATCH_GAP:
            out.append(Violation("supports", who, f"hatch strokes {g.lengths['hatch_gap']:.1f} "
                                 f"px apart merge (at least {MIN_HATCH_GAP} px)"))
        if symbol == "roller" and g.lengths.get("wheel_r", 0.0) < MIN_WHEEL_R:
            out.append(Violation("supports", who, "its wheels are too small to see"))
    return out
