"""Drawing-grid rules every shipped problem obeys, so its picture has one reading.

A reader recovers coordinates from dimension chains and joints from where lines
meet. Both fail when places crowd or lines cross: two coordinates 0.1 m apart
print on top of each other, a 0.3 m member is a dot next to its joint letters,
and two members that cross without a joint look exactly like four members
meeting at one (FrameCalc links connect only at their end points). So:

* every point and every place of a concentrated load or of a distributed load's
  ends lies on the 0.5 m grid (distinct coordinates are then ≥ 0.5 m apart);
* every member is at least 1 m long;
* no two members cross, touch or overlap except at a shared end point.

These are promises about the problem, not about a renderer, so they live with
the dataset; the generator refuses drafts that break them.
"""

from __future__ import annotations

import math

import numpy as np

from ..model.semantics import link_axis, member_places
from ..model.types import Model

GRID = 0.5  # m
MIN_MEMBER = 1.0  # m
_EPS = 1e-9


def on_grid(value: float) -> bool:
    return math.isclose(value / GRID, round(value / GRID), abs_tol=1e-9)


def grid_problems(model: Model) -> list[str]:
    """What breaks the grid rules (empty when nothing), one sentence per fault."""
    out = [f"point {p.id} at ({p.x:g}, {p.y:g}) is off the {GRID:g} m grid"
           for p in model.points if not (on_grid(p.x) and on_grid(p.y))]
    for lk in model.links:
        length = link_axis(model, lk)[2]
        if length < MIN_MEMBER - _EPS:
            out.append(f"member {lk.id} is {length:.3g} m long (at least {MIN_MEMBER:g} m)")
    out += _load_places(model)
    out += crossings(model)
    return out


def _load_places(model: Model) -> list[str]:
    out = []
    for load in model.loads:
        for x, y in member_places(model, load):
            if not (on_grid(x) and on_grid(y)):
                out.append(f"load {load.id} acts at ({x:.4g}, {y:.4g}), off the {GRID:g} m grid")
                break
    return out


def crossings(model: Model) -> list[str]:
    """Pairs of members that meet anywhere but at a shared end point."""
    if len(model.links) < 2:
        return []
    index = {p.id: i for i, p in enumerate(model.points)}
    xy = np.array([(p.x, p.y) for p in model.points], dtype=float)
    ia = np.array([index[lk.a] for lk in model.links])
    ib = np.array([index[lk.b] for lk in model.links])
    p, r = xy[ia], xy[ib] - xy[ia]
    i, j = np.triu_indices(len(model.links), k=1)
    shared = ((ia[i] == ia[j]) | (ia[i] == ib[j]) | (ib[i] == ia[j]) | (ib[i] == ib[j]))
    qp = p[j] - p[i]
    denom = _cross(r[i], r[j])
    t = _cross(qp, r[j])
    u = _cross(qp, r[i])
    proper = np.abs(denom) > _EPS
    with np.errstate(divide="ignore", invalid="ignore"):
        tt, uu = t / denom, u / denom
    lo, hi = -_EPS, 1 + _EPS
    hit = proper & (tt > lo) & (tt < hi) & (uu > lo) & (uu < hi) & ~shared
    # collinear pairs: overlap of the projections beyond a shared end point
    collinear = ~proper & (np.abs(t) <= _EPS)
    if collinear.any():
        rr = np.einsum("ij,ij->i", r[i], r[i])
        s0 = np.einsum("ij,ij->i", qp, r[i]) / rr
        s1 = s0 + np.einsum("ij,ij->i", r[j], r[i]) / rr
        overlap = np.minimum(np.maximum(s0, s1), 1.0) - np.maximum(np.minimum(s0, s1), 0.0)
        hit |= collinear & (overlap > _EPS)
    links = model.links
    return [f"members {links[a].id} and {links[b].id} cross or touch without a joint"
            for a, b in zip(i[hit], j[hit], strict=True)]


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]
