"""Texts: on the page, touching nothing, and each unmistakably next to what it labels.

The symbolic reader gives a value text to the nearest glyph it can label (a force
to an arrow, an intensity to a row, a couple's value to an arc, an angle to an
angle mark) and a dimension text to the chain line nearest to it and the interval
its centre lies in, so the drawing must make those the right ones, with a margin.
Which glyph a text labels is told by the record (:func:`labelled_type`), so
parametric values ("P", "qa²") need no unit.
"""

from __future__ import annotations

import math
import re

from ..scene.layout import LayoutItem
from ..scene.shapes import Box, touches
from .record import Record, Violation, box_distance, glyph_segments

NEAREST_RATIO = 1.25  # another glyph must be at least this much further …
NEAREST_PAD = 3.0  # … plus this many px
TICK_MARGIN = 3.0  # px between a dimension text's centre and the interval's ticks
MIN_TICK_GAP = 24.0  # px between consecutive ticks


def overlaps(rec: Record) -> list[Violation]:
    out = []
    labels = rec.labels
    graphics = [it for it in rec.items if it.kind != "label"]
    for i, lab in enumerate(labels):
        x0, y0, x1, y1 = lab.bbox
        who = f"text {lab.text!r} ({lab.owner})"
        if rec.on_page and (x0 < 0 or y0 < 0 or x1 > rec.width or y1 > rec.height):
            out.append(Violation("texts", who, f"outside the {rec.width}×{rec.height} page"))
        box = Box(lab.bbox)
        for g in graphics:
            if any(touches(box, s, 0.0) for s in g.shapes):
                out.append(Violation("texts", who, f"overlaps {g.kind} {g.owner} ({g.role})"))
        for other in labels[i + 1:]:
            if touches(box, Box(other.bbox), 0.0):
                out.append(Violation("texts", who, f"overlaps text {other.text!r}"))
    return out


LOAD_GLYPHS = ("arrow", "row", "couple")


def labelled_type(items: list[LayoutItem], owner: str, owner_type: str, role: str,
                  ) -> str | None:
    """The glyph type a value text labels: an angle mark for an angle, else its load's
    arrow, row or arc (a parametric text such as "P" or "qa²" shows no unit, so the
    renderer's own record says what it labels)."""
    if owner_type not in ("load", "support"):
        return None
    if role == "angle":
        return "angle"
    if not role.startswith("value"):
        return None
    return next((it.glyph.type for it in items if it.owner == owner and it.glyph is not None
                 and it.glyph.type in LOAD_GLYPHS), None)


def association(rec: Record) -> list[Violation]:
    out = []
    for lab in rec.labels:
        gtype = labelled_type(rec.items, lab.owner, lab.owner_type, lab.role)
        if gtype is None:
            continue
        candidates = rec.glyphs(gtype)
        mine = [it for it in candidates if it.owner == lab.owner]
        if not mine:
            out.append(Violation("texts", f"text {lab.text!r}", f"labels no drawn {gtype}"))
            continue
        d_own = min(box_distance(lab.bbox, glyph_segments(it)) for it in mine)
        for other in candidates:
            if other.owner == lab.owner:
                continue
            d = box_distance(lab.bbox, glyph_segments(other))
            if d < NEAREST_RATIO * d_own + NEAREST_PAD:
                out.append(Violation("texts", f"text {lab.text!r} ({lab.owner})",
                                     f"is {d:.0f} px from {gtype} {other.owner} and {d_own:.0f} "
                                     "px from its own: a reader cannot tell which it labels"))
    return out


def _chain_frame(item: LayoutItem) -> tuple[tuple[float, float], tuple[float, float], float,
                                            float]:
    g = item.glyph
    assert g is not None
    a, b = g.paths["line"]
    n = math.dist(a, b)
    along = ((b[0] - a[0]) / n, (b[1] - a[1]) / n)
    lo = a[0] * along[0] + a[1] * along[1]
    return a, along, lo, lo + n


CHAIN_OF = {"value": "chain", "far-value": "far-chain", "total-value": "total",
            "local-value": "local"}
REPEAT = re.compile(r"^(\d+) × ")


def _count_group(stations: list[float], s: float, n: int, chain: int, who: str,
                 count: dict[tuple[int, int], int], out: list[Violation]) -> None:
    """A repeated spacing "n × s" is centred on its n intervals and counts for each."""
    starts = range(len(stations) - n)
    if not starts:
        out.append(Violation("dimensions", who, f"spans {n} intervals of a chain of "
                             f"{len(stations) - 1}"))
        return
    i = min(starts, key=lambda i: abs((stations[i] + stations[i + n]) / 2 - s))
    gap = min(b - a for a, b in zip(stations[i:i + n], stations[i + 1:i + n + 1], strict=True))
    if abs((stations[i] + stations[i + n]) / 2 - s) > gap / 4:
        out.append(Violation("dimensions", who, f"is not centred on its {n} intervals"))
    for j in range(i, i + n):
        count[(chain, j)] = count.get((chain, j), 0) + 1


def dimension_texts(rec: Record) -> list[Violation]:
    """Each dimension text is nearest to its own chain line and centred inside one of its
    intervals, clear of the ticks; every interval gets one text; ticks are apart."""
    out = []
    chains = rec.glyphs("chain")
    count: dict[tuple[int, int], int] = {}
    for lab in rec.labels:
        if lab.owner_type != "dimension":
            continue
        cx, cy = (lab.bbox[0] + lab.bbox[2]) / 2, (lab.bbox[1] + lab.bbox[3]) / 2
        best: tuple[float, int] | None = None
        for k, ch in enumerate(chains):
            a, along, lo, hi = _chain_frame(ch)
            s = cx * along[0] + cy * along[1]
            if not lo <= s <= hi:
                continue
            perp = abs((cx - a[0]) * along[1] - (cy - a[1]) * along[0])
            if best is None or perp < best[0]:
                best = (perp, k)
        who = f"dimension text {lab.text!r}"
        want = CHAIN_OF.get(lab.role)
        if want is None:
            continue  # not a chain's text (a level mark's: see .exam)
        if best is None:
            out.append(Violation("dimensions", who, "lies beside no chain"))
            continue
        ch = chains[best[1]]
        if ch.owner != lab.owner or ch.role != want:
            out.append(Violation("dimensions", who, f"is nearest to another chain ({ch.owner} "
                                 f"{ch.role}) than to its own"))
            continue
        _, along, _, _ = _chain_frame(ch)
        s = cx * along[0] + cy * along[1]
        stations = sorted(t[0] * along[0] + t[1] * along[1]
                          for t in ch.glyph.paths["ticks"])  # type: ignore[union-attr]
        repeat = REPEAT.match(lab.text or "")
        if repeat and int(repeat.group(1)) > 1:
            _count_group(stations, s, int(repeat.group(1)), best[1], who, count, out)
            continue
        for j in range(len(stations) - 1):
            if stations[j] < s < stations[j + 1]:
                if min(s - stations[j], stations[j + 1] - s) < TICK_MARGIN:
                    out.append(Violation("dimensions", who, "is centred on a tick"))
                count[(best[1], j)] = count.get((best[1], j), 0) + 1
                break
    for k, ch in enumerate(chains):
        g = ch.glyph
        assert g is not None
        _, along, _, _ = _chain_frame(ch)
        stations = sorted(t[0] * along[0] + t[1] * along[1] for t in g.paths["ticks"])
        for j in range(len(stations) - 1):
            n = count.get((k, j), 0)
            if n != 1:
                out.append(Violation("dimensions", f"{ch.owner} {ch.role}",
                                     f"interval {j + 1} has {n} texts"))
            if stations[j + 1] - stations[j] < MIN_TICK_GAP:
                out.append(Violation("dimensions", f"{ch.owner} {ch.role}",
                                     f"ticks {j + 1} and {j + 2} are "
                                     f"{stations[j + 1] - stations[j]:.0f} px apart"))
    return out
