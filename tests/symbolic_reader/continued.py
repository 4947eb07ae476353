"""A beam drawn in two rows: read each row as a figure, then join them at the cut joint.

What the picture shows: two break marks (a member running on past a joint into a break
line), one at the right end of the upper row and one at the left end of the lower row,
at joints with the same letter. A reader takes the rows apart along the band of empty
paper between them, reads each row on its own (its own dimension chains give its
coordinates) and lays the lower row on so that its cut joint falls on the upper row's.
Everything drawn at that joint in either row belongs to the one joint. The break marks
are the only premise: the repeated letter is not read (letters are names, not facts).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from .topology import Topology
from .view import XY, Drawing, Glyph, ReadError

Reader = Callable[[Drawing], tuple[dict[str, Any], Topology]]


def _spread(points: Iterable[XY]) -> tuple[float, float]:
    ys = [p[1] for p in points]
    return min(ys), max(ys)


def _glyph_points(g: Glyph) -> list[XY]:
    return [*g.pts.values(), *(p for path in g.paths.values() for p in path)]


def _cut_line(d: Drawing, high: float, low: float) -> float:
    """The middle of the widest band of empty paper between the two rows' beam lines."""
    spans = [_spread(_glyph_points(g)) for g in d.glyphs if _glyph_points(g)]
    spans += [_spread(t.box) for t in d.texts]
    edges = sorted((a, b) for a, b in spans if b > low and a < high)
    best, at, reach = 0.0, None, low
    for a, b in edges:
        if a > reach and a - reach > best:
            best, at = a - reach, (a + reach) / 2
        reach = max(reach, b)
    if high > reach and high - reach > best:
        at = (high + reach) / 2
    if at is None:
        raise ReadError("a beam in two rows: no empty band of paper separates the rows")
    return at


def _row(d: Drawing, keep: Callable[[float], bool]) -> Drawing:
    glyphs = [g for g in d.glyphs if keep(sum(_spread(_glyph_points(g))) / 2)]
    texts = [t for t in d.texts if keep(t.centre[1])]
    return replace(d, glyphs=glyphs, texts=texts)


def read_continued(d: Drawing, read: Reader) -> dict[str, Any]:
    """The whole beam from its two rows (``read`` reads one row)."""
    marks = d.of("break")
    ups = [g for g in marks if g.pts["end"][0] > g.pts["at"][0]]
    downs = [g for g in marks if g.pts["end"][0] < g.pts["at"][0]]
    if len(marks) != 2 or len(ups) != 1 or len(downs) != 1:
        raise ReadError(f"{len(marks)} break marks: a beam in two rows has one at the end "
                        "of the upper row and one at the start of the lower row")
    up, down = ups[0], downs[0]
    if up.pts["at"][1] <= down.pts["at"][1]:
        raise ReadError("the row that continues to the right is not above the other")
    cut = _cut_line(d, up.pts["at"][1], down.pts["at"][1])
    upper, top_u = read(_row(d, lambda y: y > cut))
    lower, top_l = read(_row(d, lambda y: y < cut))
    ju, jl = (top.joint_at(g.pts["at"]) for top, g in ((top_u, up), (top_l, down)))
    if ju is None or jl is None:
        raise ReadError("a break mark does not start at a joint of its row")
    return join(upper, lower, ju, jl)


def join(upper: dict[str, Any], lower: dict[str, Any], ju: int, jl: int) -> dict[str, Any]:
    """One model: the lower row moved onto the upper so that its joint ``jl`` (a point
    index) falls on the upper row's ``ju``, and renumbered after the upper row's."""
    pu, pl = upper["points"][ju], lower["points"][jl]
    dx, dy = pu["x"] - pl["x"], pu["y"] - pl["y"]
    pid = {pl["id"]: pu["id"]}
    points = list(upper["points"])
    for p in lower["points"]:
        if p["id"] not in pid:
            pid[p["id"]] = f"P{len(points) + 1}"
            points.append({"id": pid[p["id"]], "x": p["x"] + dx, "y": p["y"] + dy})
    lid = {lk["id"]: f"L{len(upper['links']) + i + 1}" for i, lk in enumerate(lower["links"])}
    links = [*upper["links"], *({**lk, "id": lid[lk["id"]], "a": pid[lk["a"]], "b": pid[lk["b"]]}
                                for lk in lower["links"])]

    def at(ref: dict[str, Any]) -> dict[str, Any]:
        names = pid if ref["type"] == "point" else lid
        return {"type": ref["type"], "id": names[ref["id"]]}

    supports = [*upper["supports"], *({**s, "id": f"S{len(upper['supports']) + i + 1}",
                                       "at": at(s["at"])}
                                      for i, s in enumerate(lower["supports"]))]
    loads = [*upper["loads"], *({**ld, "id": f"LD{len(upper['loads']) + i + 1}",
                                 "at": at(ld["at"])} for i, ld in enumerate(lower["loads"]))]
    return {"points": points, "links": links, "supports": supports, "loads": loads}
