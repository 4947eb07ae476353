"""Geometric sanity of a parsed model.

Links connect only at their end points (FORMAT.md §2), so a drawing that shows a
joint the JSON does not (a point on a member, two coincident points, two
overlapping members) describes a different structure than it looks like. Those
cases are rejected here with the fix, before any solve.
"""

from __future__ import annotations

import numpy as np

from .errors import Issue
from .types import DistributedLoad, Model

REL_TOL = 1e-6  # of the model's size: a gap smaller than this is a typo, not a design


def model_scale(model: Model) -> float:
    xs = [p.x for p in model.points]
    ys = [p.y for p in model.points]
    return max(max(xs) - min(xs), max(ys) - min(ys), 1e-300)


def check_geometry(model: Model) -> list[Issue]:
    issues: list[Issue] = []
    scale = model_scale(model)
    tol = REL_TOL * scale
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
