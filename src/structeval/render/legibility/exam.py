"""Marks of exam dimensioning that must tell the truth.

* ``symmetry``: a symmetry axis is drawn only on a figure that *is* its own mirror
  image — members, supports (symbol and side), loads (kind, place, direction, value
  text; a couple turning the other way) — and the axis is dimensioned (an x tick
  stands on it). A reader dimensions the other half from it; a mark on an
  asymmetric figure would make that reading wrong.
* ``levels``: each level text is clearly nearest to its own level mark.
"""

from __future__ import annotations

import math

from ..scene.layout import LayoutItem
from .deductions import reflect
from .record import Record, Violation, box_distance
from .texts import NEAREST_PAD, NEAREST_RATIO

ON = 2.0  # px


def _near(p: tuple[float, float], q: tuple[float, float]) -> bool:
    return math.dist(p, q) <= ON


def _value_texts(rec: Record) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for it in rec.labels:
        if it.owner_type == "load" and it.role.startswith("value"):
            out.setdefault(it.owner, []).append(it.text or "")
    return {k: sorted(v) for k, v in out.items()}


def _signature(it: LayoutItem, m) -> tuple[object, ...] | None:  # type: ignore[no-untyped-def]
    """A load or support seen through the map ``m`` (identity or the mirror)."""
    g = it.glyph
    if g is None or it.anchor is None:
        return None
    at = tuple(sorted((round(m(p)[0]), round(m(p)[1])) for p in it.anchor.at))
    if g.type == "arrow":
        t, h = m(g.points["tail"]), m(g.points["tip"])
        n = math.dist(t, h)
        return ("arrow", at, round(30 * (h[0] - t[0]) / n), round(30 * (h[1] - t[1]) / n))
    if g.type == "couple":
        sense = str(g.facts["sense"])
        if m.__name__ == "mirror":
            sense = "cw" if sense == "ccw" else "ccw"
        return ("couple", at, sense)
    if g.type == "row":
        return ("row", at)
    if g.type == "support":
        gr = m(g.points["ground"])
        a = m(g.points["attach"])
        n = math.dist(a, gr)
        return ("support", str(g.facts["symbol"]), at,
                round(10 * (gr[0] - a[0]) / n), round(10 * (gr[1] - a[1]) / n))
    return None


def symmetry(rec: Record) -> list[Violation]:
    axes = rec.glyphs("symmetry")
    if not axes:
        return []
    out = []
    a, b = axes[0].glyph.paths["line"]  # type: ignore[union-attr]

    def mirror(p: tuple[float, float]) -> tuple[float, float]:
        return reflect(p, a, b)

    def same(p: tuple[float, float]) -> tuple[float, float]:
        return p

    ticks = [t for it in rec.glyphs("chain") if it.glyph.facts["axis"] == "x"  # type: ignore[union-attr]
             for t in it.glyph.paths["ticks"]]  # type: ignore[union-attr]
    if not any(_near(reflect(t, a, b), t) for t in ticks):
        out.append(Violation("symmetry", "the symmetry axis", "stands on no x tick: its x is "
                             "not dimensioned"))
    segs = [it.glyph.paths["ends"] for it in rec.members]  # type: ignore[union-attr]
    for p, q in segs:
        mp, mq = mirror(p), mirror(q)
        if not any((_near(mp, s) and _near(mq, t)) or (_near(mp, t) and _near(mq, s))
                   for s, t in segs):
            out.append(Violation("symmetry", "the symmetry axis", f"member {p}–{q} has no "
                                 "mirror image"))
    texts = _value_texts(rec)
    items = [it for it in rec.items if it.kind in ("load", "support") and it.role != "angle"]
    sigs = {id(it): _signature(it, same) for it in items}
    for it in items:
        want = _signature(it, mirror)
        if want is None:
            continue
        partners = [o for o in items if sigs[id(o)] == want]
        if not partners:
            out.append(Violation("symmetry", f"{it.kind} {it.owner}", "has no mirror image "
                                 "on the other side of the symmetry axis"))
        elif it.kind == "load" and not any(texts.get(o.owner) == texts.get(it.owner)
                                           for o in partners):
            out.append(Violation("symmetry", f"load {it.owner}", "differs in value from its "
                                 "mirror image"))
    return out


def levels(rec: Record) -> list[Violation]:
    marks = rec.glyphs("level")
    out = []

    def segs(it: LayoutItem) -> list[tuple[tuple[float, float], tuple[float, float]]]:
        g = it.glyph
        assert g is not None
        tri = g.paths["mark"]
        return [tuple(g.paths["ext"])] + [(tri[i], tri[(i + 1) % 3]) for i in range(3)]  # type: ignore[list-item]

    labels = [it for it in rec.labels if it.role == "level-value"]
    if len(labels) != len(marks):
        out.append(Violation("levels", "level marks", f"{len(marks)} marks, {len(labels)} "
                             "level texts"))
    for lab in labels:
        d = sorted(box_distance(lab.bbox, segs(m)) for m in marks)
        if len(d) > 1 and d[1] < NEAREST_RATIO * d[0] + NEAREST_PAD:
            out.append(Violation("levels", f"level {lab.text!r}", "is not clearly nearest "
                                 "to one level mark"))
    return out


def slopes(rec: Record) -> list[Violation]:
    """A slope triangle sits on its member (hypotenuse on it, legs along the page's axes)
    and each of its two numbers is clearly nearest to its own leg."""
    out = []
    u, v = rec.frame
    members = [it.glyph.paths["ends"] for it in rec.members]  # type: ignore[union-attr]
    triangles = rec.glyphs("slope")
    legs_of = {}
    for it in triangles:
        g = it.glyph
        assert g is not None
        s, c, e = g.points["start"], g.points["corner"], g.points["end"]
        if not any(_seg(s, a, b) <= 1.0 and _seg(e, a, b) <= 1.0 for a, b in members):
            out.append(Violation("slopes", f"slope on {it.owner}", "does not sit on a member"))
        along = [abs((q[0] - p[0]) * w[0] + (q[1] - p[1]) * w[1]) / max(math.dist(p, q), 1e-9)
                 for (p, q) in ((s, c), (c, e)) for w in (u, v)]
        if not (max(along[0], along[1]) > 0.9999 and max(along[2], along[3]) > 0.9999):
            out.append(Violation("slopes", f"slope on {it.owner}", "its legs are not "
                                 "horizontal and vertical"))
        legs_of[it.owner] = ((s, c), (c, e))
    numbers = [it for it in rec.labels if it.role in ("slope-run", "slope-rise")]
    legs = [(owner, leg) for owner, pair in legs_of.items() for leg in pair]
    for lab in numbers:
        d = sorted((box_distance(lab.bbox, [leg]), owner) for owner, leg in legs)
        if not d or d[0][1] != lab.owner or (len(d) > 2 and d[2][0] < NEAREST_RATIO * d[0][0]
                                             + NEAREST_PAD and d[2][1] != lab.owner):
            out.append(Violation("slopes", f"slope number {lab.text!r}", "is not clearly "
                                 "nearest to its own triangle"))
    return out


def _seg(p: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
    d = (b[0] - a[0], b[1] - a[1])
    n2 = d[0] ** 2 + d[1] ** 2
    t = max(0.0, min(1.0, ((p[0] - a[0]) * d[0] + (p[1] - a[1]) * d[1]) / n2))
    return math.dist(p, (a[0] + t * d[0], a[1] + t * d[1]))
