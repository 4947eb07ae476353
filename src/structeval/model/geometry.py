"""Geometric sanity of a parsed model.

Links connect only at their end points (FORMAT.md §2), so a drawing that shows a
joint the JSON does not (a point on a member, two coincident points, two
overlapping members) describes a different structure than it looks like. Those
cases are rejected here with the fix, before any solve.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from operator import sub

import numpy as np

from .canonical import LINK_WIDTH, Columns
from .errors import Issue
from .types import DistributedLoad, Model, s_along

REL_TOL = 1e-6  # of the model's size: a gap smaller than this is a typo, not a design

#: The separated-layout shortcut (:func:`columns_clearly_sane`) needs distinct x (and
#: distinct y) values at least this many tolerances apart.
SEPARATION = 10.0


def model_scale(model: Model) -> float:
    return layout_scale([p.x for p in model.points], [p.y for p in model.points])


def layout_scale(xs: list[float], ys: list[float]) -> float:
    """The size the tolerances are relative to: the larger side of the bounding box."""
    return max(max(xs) - min(xs), max(ys) - min(ys), 1e-300)


def check_geometry(model: Model) -> list[Issue]:
    """Every geometric problem of ``model`` (empty when none).

    A model that is clearly sane (every tested quantity at least half a tolerance on
    the safe side) is confirmed by :func:`clearly_sane` without building arrays; only a
    model near or past a limit gets the full check below, which finds and words every
    problem. The margin makes the shortcut sound: the full check cannot find a problem
    that the shortcut waved through, whatever the rounding of either.
    """
    scale = model_scale(model)
    tol = REL_TOL * scale
    if clearly_sane(model, tol):
        return []
    return _full_check(model, tol)


def clearly_sane(model: Model, tol: float) -> bool:
    """True only if :func:`_full_check` would report nothing; False means "look closer".

    Pure Python, because a drawing has tens of members and numpy's per-call cost would
    dominate: points are swept in x order for near-coincidences; for each link only the
    points within its extent along its shorter axis are measured against it; links
    meeting at a point are tested for running along each other (two collinear links
    that overlap always share a point or have a point inside one of them, given that no
    two points nearly coincide).
    """
    points, links = model.points, model.links
    near, far, half = 1.5 * tol, 2.0 * tol, 0.5 * tol
    index = {p.id: i for i, p in enumerate(points)}
    xs = [p.x for p in points]
    ys = [p.y for p in points]
    n = len(xs)
    by_x = sorted(range(n), key=xs.__getitem__)
    by_y = sorted(range(n), key=ys.__getitem__)
    sorted_x = [xs[i] for i in by_x]
    sorted_y = [ys[i] for i in by_y]
    # near-coincidences, swept along the wider axis (a column of points shares one x)
    budget = 32 * (n + len(links)) + 256  # pairs measured before deferring to the full check
    if sorted_x[-1] - sorted_x[0] >= sorted_y[-1] - sorted_y[0]:
        swept = list(zip(sorted_x, [ys[i] for i in by_x], strict=True))
    else:
        swept = list(zip(sorted_y, [xs[i] for i in by_y], strict=True))
    for k in range(n - 1):
        ui, vi = swept[k]
        for m in range(k + 1, n):
            uj, vj = swept[m]
            if uj - ui > far:
                break
            budget -= 1
            if abs(vj - vi) <= far or budget < 0:
                return False
    incident: list[list[tuple[int, float, float]]] = [[] for _ in range(n)]
    frames: list[tuple[float, float, float, float, float]] = []
    for li, lk in enumerate(links):
        a, b = index[lk.a], index[lk.b]
        xa, ya = xs[a], ys[a]
        dx, dy = xs[b] - xa, ys[b] - ya
        length = math.sqrt(dx * dx + dy * dy)
        if length <= far:
            return False
        ux, uy = dx / length, dy / length
        frames.append((xa, ya, ux, uy, length))
        incident[a].append((li, ux, uy))  # with the direction it leaves the point in
        incident[b].append((li, -ux, -uy))
        # the points within the link's extent along its narrower axis, or along the other
        # if that one holds many (every point of a long row shares the row's y)
        x0, y0 = min(xa, xa + dx) - far, min(ya, ya + dy) - far
        if abs(dx) <= abs(dy):
            lo, hi = bisect_left(sorted_x, x0), bisect_right(sorted_x, x0 + abs(dx) + 2 * far)
            near_points = by_x[lo:hi]
            if hi - lo > 8:
                lo, hi = bisect_left(sorted_y, y0), bisect_right(sorted_y, y0 + abs(dy) + 2 * far)
                near_points = min(near_points, by_y[lo:hi], key=len)
        else:
            lo, hi = bisect_left(sorted_y, y0), bisect_right(sorted_y, y0 + abs(dy) + 2 * far)
            near_points = by_y[lo:hi]
            if hi - lo > 8:
                lo, hi = bisect_left(sorted_x, x0), bisect_right(sorted_x, x0 + abs(dx) + 2 * far)
                near_points = min(near_points, by_x[lo:hi], key=len)
        budget -= len(near_points)
        if budget < 0:
            return False  # a crowded layout: the full check's arrays are cheaper
        for q in near_points:
            if q in (a, b):
                continue
            rx, ry = xs[q] - xa, ys[q] - ya
            if abs(rx * uy - ry * ux) <= near and half <= rx * ux + ry * uy <= length - half:
                return False
    for at in incident:
        if not at:
            return False  # a point on no link
        if len(at) == 1:
            continue
        if len(at) > 12:
            return False  # a hub of many links: pairs grow quadratically, check in full
        for k in range(len(at) - 1):
            i, out_x, out_y = at[k]
            xa, ya, ux, uy, length = frames[i]
            for j, other_x, other_y in at[k + 1:]:
                if out_x * other_x + out_y * other_y <= 0.0:
                    continue  # they leave the point at 90° or more apart: no overlap
                ox, oy, vx, vy, olength = frames[j]
                ra_x, ra_y = ox - xa, oy - ya
                rb_x, rb_y = ra_x + vx * olength, ra_y + vy * olength
                if abs(ra_x * uy - ra_y * ux) > near or abs(rb_x * uy - rb_y * ux) > near:
                    continue
                ta, tb = ra_x * ux + ra_y * uy, rb_x * ux + rb_y * uy
                if min(max(ta, tb), length) - max(min(ta, tb), 0.0) >= half:
                    return False
    if len({s.at for s in model.supports}) != len(model.supports):
        return False
    return _loads_clear(model, frames, tol)


def columns_clearly_sane(cols: Columns, tol: float | None = None) -> bool:
    """True only if :func:`_full_check` would report nothing on the model of ``cols``;
    False means "look closer" (:func:`check_geometry` on the model then decides).

    Why another shortcut beside :func:`clearly_sane`: :func:`~.parse.parse_document`
    checks the columns of a document without building its model (``structeval.solve``
    asks the kernel for the same check, ``layout_clear`` in solver/framecalc.c, which
    ``tests/test_parse_columns.py`` holds to this one's verdicts), and drawings are
    separated layouts — any two distinct x values (and any two distinct y values) lie more than
    :data:`SEPARATION` tolerances apart, as on a drawing grid. Then "within a
    tolerance" means "equal", and the checks become exact and cheap:

    * two points nearly at one place have the same coordinates (a set finds them),
      and every link is longer than the separation;
    * a point inside a vertical link has its x and a y strictly between its ends, so
      the link is clean exactly when no point sits at its x on one of the grid's rows
      between its ends (most links span one grid step, and nothing is looked up; the
      same for horizontal links along the columns); an inclined link is measured
      against the points within its x extent, with the margins of :func:`clearly_sane`;
    * two links overlapping by more than a tolerance either join the same two points or
      have a point inside one of them, or a point near another — given links longer
      than the separation, with about a quarter tolerance to spare (the case analysis
      is in ``tests/test_parse_columns.py``) — so a repeated pair of ends is the only
      overlap left to look for.

    Anything else (coordinates closer than that, a crowded layout) returns False.
    ``tol`` defaults to :data:`REL_TOL` of the layout's :func:`layout_scale` (read off
    the grid, which spans the same box).
    """
    xy, rows = cols.xy, cols.link_rows
    xs, ys = xy[0::2], xy[1::2]
    ends_a, ends_b = rows[0::LINK_WIDTH], rows[1::LINK_WIDTH]
    n = len(xs)
    places = set(zip(xs, ys, strict=True))
    if len(places) != n:
        return False  # two points at one place
    if len(set(ends_a).union(ends_b)) != n:
        return False  # a point on no link
    pairs = set(zip(ends_a, ends_b, strict=True))
    if len(pairs) != len(ends_a) or not pairs.isdisjoint(zip(ends_b, ends_a, strict=True)):
        return False  # two links joining the same two points
    if len(set(cols.support_points)) != len(cols.support_points):
        return False  # two supports at one point
    grid_x, grid_y = sorted(set(xs)), sorted(set(ys))  # the grid's columns and rows
    if tol is None:
        tol = REL_TOL * max(grid_x[-1] - grid_x[0], grid_y[-1] - grid_y[0], 1e-300)
    gap = SEPARATION * tol
    if len(grid_x) > 1 and min(map(sub, grid_x[1:], grid_x)) <= gap:
        return False  # two distinct x values within the separation
    if len(grid_y) > 1 and min(map(sub, grid_y[1:], grid_y)) <= gap:
        return False
    budget = 32 * (n + len(ends_a)) + 256  # grid places looked up before deferring
    inclined = []
    for a, b in zip(ends_a, ends_b, strict=True):
        xa = xs[a]
        ya = ys[a]
        if xa == xs[b]:  # vertical: the grid's rows strictly between its ends, at its x
            yb = ys[b]
            if ya < yb:
                lo, hi = bisect_right(grid_y, ya), bisect_left(grid_y, yb)
            else:
                lo, hi = bisect_right(grid_y, yb), bisect_left(grid_y, ya)
            if hi > lo:  # not one grid step: look at the places between
                budget -= hi - lo
                if budget < 0:
                    return False  # a crowded layout: the full check's arrays are cheaper
                for y in grid_y[lo:hi]:
                    if (xa, y) in places:
                        return False  # another point on the line between its ends
        elif ya == ys[b]:  # horizontal: the grid's columns strictly between its ends
            xb = xs[b]
            if xa < xb:
                lo, hi = bisect_right(grid_x, xa), bisect_left(grid_x, xb)
            else:
                lo, hi = bisect_right(grid_x, xb), bisect_left(grid_x, xa)
            if hi > lo:
                budget -= hi - lo
                if budget < 0:
                    return False
                for x in grid_x[lo:hi]:
                    if (x, ya) in places:
                        return False
        else:
            inclined.append((a, b))
    if inclined:
        order_x = sorted(range(n), key=xs.__getitem__)
        if not _inclined_clear(xs, ys, order_x, list(map(xs.__getitem__, order_x)), inclined,
                               tol):
            return False
    return columns_loads_clear(cols, tol, xs, ys)


def columns_loads_clear(cols: Columns, tol: float | None = None, xs: list[float] | None = None,
                        ys: list[float] | None = None) -> bool:
    """:func:`loads_clear` for the loads of ``cols`` (``xs``, ``ys``: the coordinates,
    when the caller has them apart). ``structeval.solve`` checks this much in Python
    and leaves the layout to the kernel's own check (``layout_check``), because only
    the loads' fields hold their unclamped positions."""
    if xs is None or ys is None:
        xs, ys = cols.xy[0::2], cols.xy[1::2]
    if tol is None:
        tol = REL_TOL * layout_scale(xs, ys)
    rows, hypot = cols.link_rows, math.hypot
    on_links = []
    for (_, _, where, _, _, _, from_start, from_end, _, _, _, position), k in zip(
            cols.load_fields, cols.load_targets, strict=True):
        if where == "link":
            a, b = rows[LINK_WIDTH * k], rows[LINK_WIDTH * k + 1]
            length = hypot(xs[b] - xs[a], ys[b] - ys[a])
            on_links.append((length, from_start + from_end, None) if position is None else
                            (length, 0.0, s_along(*position, length)))
    return loads_clear(on_links, tol)


def _inclined_clear(xs: list[float], ys: list[float], order_x: list[int], sorted_x: list[float],
                    links: list[tuple[int, int]], tol: float) -> bool:
    """No point within :func:`clearly_sane`'s margins of the inside of an inclined link,
    measuring only the points within each link's x extent (and a work budget)."""
    near, far, half = 1.5 * tol, 2.0 * tol, 0.5 * tol
    budget = 32 * (len(xs) + len(links)) + 256
    for a, b in links:
        xa, ya, xb, yb = xs[a], ys[a], xs[b], ys[b]
        dx, dy = xb - xa, yb - ya
        length = math.hypot(dx, dy)  # not the square root of the squares: they underflow
        ux, uy = dx / length, dy / length
        lo = bisect_left(sorted_x, min(xa, xb) - far)
        hi = bisect_right(sorted_x, max(xa, xb) + far)
        budget -= hi - lo
        if budget < 0:
            return False  # a crowded layout: the full check's arrays are cheaper
        y_lo, y_hi = min(ya, yb) - far, max(ya, yb) + far
        for q in order_x[lo:hi]:
            yq = ys[q]
            if q in (a, b) or yq < y_lo or yq > y_hi:
                continue
            rx, ry = xs[q] - xa, yq - ya
            if abs(rx * uy - ry * ux) <= near and half <= rx * ux + ry * uy <= length - half:
                return False
    return True


def _loads_clear(model: Model, frames: list[tuple[float, float, float, float, float]],
                 tol: float) -> bool:
    lengths = {lk.id: f[4] for lk, f in zip(model.links, frames, strict=True)}
    on_links = []
    for load in model.loads:
        if load.target.type == "link":
            length = lengths[load.target.id]
            on_links.append((length, load.from_start + load.from_end, None)
                            if isinstance(load, DistributedLoad) else
                            (length, 0.0, load.position.s_on(length)))  # type: ignore[union-attr]
    return loads_clear(on_links, tol)


def loads_clear(on_links: Iterable[tuple[float, float, float | None]], tol: float) -> bool:
    """True only if no load on a link sits within one and a half tolerances of leaving
    it; each is given as (length of its link, fromStart + fromEnd of a distributed load,
    s of a concentrated one or None for a distributed one)."""
    for length, unloaded, s in on_links:
        if length <= 2.0 * tol:
            return False  # too short to hold a load clear of its ends (or of length 0)
        if s is None:
            if unloaded >= length - 2.0 * tol:
                return False
        elif s < -0.5 * tol or s > length + 0.5 * tol:
            return False
    return True


def _full_check(model: Model, tol: float) -> list[Issue]:
    issues: list[Issue] = []
    index = {p.id: i for i, p in enumerate(model.points)}
    xy = np.array([(p.x, p.y) for p in model.points], dtype=float)
    ends = np.array([(index[lk.a], index[lk.b]) for lk in model.links], dtype=np.int64)
    pa, pb = xy[ends[:, 0]], xy[ends[:, 1]]
    lengths = np.hypot(*(pb - pa).T)

    for i in np.flatnonzero(lengths <= tol):
        lk = model.links[i]
        issues.append(Issue(f"links[{i}]", f'has zero length: points "{lk.a}" and "{lk.b}" '
                                           "coincide; remove the link or move a point"))
    issues += _coincident_points(model, xy, tol)
    if issues:
        return issues
    issues += _points_inside_links(model, xy, pa, pb, lengths, tol)
    issues += _overlapping_links(model, pa, pb, lengths, tol)
    issues += _orphans(model, ends)
    issues += _supports_per_point(model)
    issues += _load_positions(model, lengths, tol)
    return issues


def _coincident_points(model: Model, xy: np.ndarray, tol: float) -> list[Issue]:
    issues = []
    order = np.lexsort((xy[:, 1], xy[:, 0]))
    for k in range(len(order) - 1):
        i, j = order[k], order[k + 1]
        if np.hypot(*(xy[i] - xy[j])) <= tol:
            a, b = sorted((int(i), int(j)))
            issues.append(Issue(f"points[{b}]",
                                f'"{model.points[b].id}" is at the same place as '
                                f'"{model.points[a].id}"; use one point for a joint'))
    return issues


def _points_inside_links(model: Model, xy: np.ndarray, pa: np.ndarray, pb: np.ndarray,
                         lengths: np.ndarray, tol: float) -> list[Issue]:
    issues = []
    d = (pb - pa) / lengths[:, None]
    for pi, p in enumerate(xy):
        rel = p - pa
        along = (rel * d).sum(axis=1)
        across = np.abs(rel[:, 0] * d[:, 1] - rel[:, 1] * d[:, 0])
        hit = (across <= tol) & (along > tol) & (along < lengths - tol)
        for li in np.flatnonzero(hit):
            issues.append(Issue(
                f"points[{pi}]",
                f'"{model.points[pi].id}" lies inside link "{model.links[li].id}", but links '
                "connect only at their end points: split the link there into two links"))
    return issues


def _overlapping_links(model: Model, pa: np.ndarray, pb: np.ndarray, lengths: np.ndarray,
                       tol: float) -> list[Issue]:
    issues = []
    d = (pb - pa) / lengths[:, None]
    n = len(lengths)
    for i in range(n - 1):
        rel_a = pa[i + 1:] - pa[i]
        rel_b = pb[i + 1:] - pa[i]
        cross_a = np.abs(rel_a[:, 0] * d[i, 1] - rel_a[:, 1] * d[i, 0])
        cross_b = np.abs(rel_b[:, 0] * d[i, 1] - rel_b[:, 1] * d[i, 0])
        t_a = rel_a @ d[i]
        t_b = rel_b @ d[i]
        lo, hi = np.minimum(t_a, t_b), np.maximum(t_a, t_b)
        overlap = np.minimum(hi, lengths[i]) - np.maximum(lo, 0.0)
        hit = (cross_a <= tol) & (cross_b <= tol) & (overlap > tol)
        for k in np.flatnonzero(hit):
            j = i + 1 + int(k)
            issues.append(Issue(f"links[{j}]", f'"{model.links[j].id}" overlaps link '
                                               f'"{model.links[i].id}"; each stretch of a member '
                                               "must be one link"))
    return issues


def _orphans(model: Model, ends: np.ndarray) -> list[Issue]:
    used = np.zeros(len(model.points), dtype=bool)
    used[ends.ravel()] = True
    return [Issue(f"points[{i}]", f'"{model.points[i].id}" belongs to no link; remove it or '
                                  "connect it")
            for i in np.flatnonzero(~used)]


def _supports_per_point(model: Model) -> list[Issue]:
    issues = []
    first: dict[str, int] = {}
    for i, s in enumerate(model.supports):
        if s.at in first:
            other = model.supports[first[s.at]].id
            issues.append(Issue(f"supports[{i}]",
                                f'point "{s.at}" already has support "{other}"; use one support '
                                "per point (e.g. fixed instead of pin + slider)"))
        else:
            first[s.at] = i
    return issues


def _load_positions(model: Model, lengths: np.ndarray, tol: float) -> list[Issue]:
    issues = []
    link_index = {lk.id: i for i, lk in enumerate(model.links)}
    for i, load in enumerate(model.loads):
        if load.target.type != "link":
            continue
        length = float(lengths[link_index[load.target.id]])
        where = f'link "{load.target.id}" (length {length:g} m)'
        if isinstance(load, DistributedLoad):
            if load.from_start + load.from_end >= length - tol:
                issues.append(Issue(f"loads[{i}]", f"fromStart + fromEnd = "
                                    f"{load.from_start + load.from_end:g} m leaves nothing of "
                                    f"{where} loaded; both are metres from the ends"))
            continue
        pos = load.position
        assert pos is not None
        s = pos.s_on(length)
        if s < -tol or s > length + tol:
            issues.append(Issue(f"loads[{i}].offset", f"offset {pos.value:g} m from end "
                                f"{pos.ref_end} is outside {where}"))
    return issues
