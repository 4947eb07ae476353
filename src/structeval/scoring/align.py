"""Put a candidate on top of the ground truth: translation, point and member correspondence.

A model may place its origin anywhere, split members into collinear pieces and
add intermediate points, so nothing is matched by id: the candidate is shifted
by the translation that lands most ground-truth points (supports first) on
candidate points, and every place along a ground-truth member is then located
on the candidate link that covers it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model.types import Model

POSITION_TOL = 2e-3  # of the ground truth's size: what a reader's rounding may move a point
MIN_POSITION_TOL = 1e-6
_PAIR_BUDGET = 250_000  # point pairs searched exhaustively; beyond, anchors only


@dataclass(frozen=True)
class Geometry:
    """Arrays of one model's geometry (coordinates already shifted for a candidate)."""

    xy: np.ndarray  # (N, 2)
    ends: np.ndarray  # (M, 2) point indices
    a: np.ndarray  # (M, 2) start coordinates
    axis: np.ndarray  # (M, 2) unit vectors A→B
    length: np.ndarray  # (M,)

    @staticmethod
    def of(model: Model, offset: tuple[float, float] = (0.0, 0.0)) -> Geometry:
        index = {p.id: i for i, p in enumerate(model.points)}
        xy = np.array([(p.x, p.y) for p in model.points], dtype=float) + np.asarray(offset)
        ends = np.array([(index[lk.a], index[lk.b]) for lk in model.links], dtype=np.int64)
        d = xy[ends[:, 1]] - xy[ends[:, 0]]
        length = np.hypot(d[:, 0], d[:, 1])
        return Geometry(xy, ends, xy[ends[:, 0]], d / length[:, None], length)


@dataclass(frozen=True)
class Placement:
    """Where a world position lies on a candidate: at a point, or inside a link."""

    point: int | None
    link: int | None
    s: float


@dataclass(frozen=True)
class Alignment:
    offset: tuple[float, float]  # added to candidate coordinates
    tol: float
    gt: Geometry
    cand: Geometry
    point_map: np.ndarray  # (N_gt,) candidate point index or -1
    support_map: np.ndarray  # (S_gt,) candidate support index or -1
    extra_supports: tuple[int, ...]  # candidate supports at no ground-truth support
    missing_links: tuple[int, ...]  # ground-truth links not covered by the candidate
    extra_links: tuple[int, ...]  # candidate links lying on no ground-truth member

    @property
    def geometry_matches(self) -> bool:
        return not self.missing_links and not self.extra_links and bool(
            (self.point_map >= 0).all())

    def locate(self, xy: np.ndarray) -> Placement | None:
        """Candidate point at ``xy``, else the candidate link passing through it."""
        c = self.cand
        dist = np.hypot(*(c.xy - xy).T)
        k = int(np.argmin(dist))
        if dist[k] <= self.tol:
            return Placement(k, None, 0.0)
        rel = xy - c.a
        t = (rel * c.axis).sum(axis=1)
        off = np.abs(rel[:, 0] * c.axis[:, 1] - rel[:, 1] * c.axis[:, 0])
        ok = (off <= self.tol) & (t >= -self.tol) & (t <= c.length + self.tol)
        hits = np.flatnonzero(ok)
        if hits.size == 0:
            return None
        k = int(hits[np.argmin(off[hits])])
        return Placement(None, k, float(np.clip(t[k], 0.0, c.length[k])))

    def locate_along(self, xy: np.ndarray, direction: np.ndarray,
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For K places with a direction each: the collinear candidate link that continues
        from the place that way, s on it, and whether that link's A→B runs along the
        direction (link −1 where none does)."""
        c = self.cand
        rel = xy[:, None, :] - c.a[None, :, :]
        t = (rel * c.axis[None, :, :]).sum(axis=2)
        off = np.abs(rel[..., 0] * c.axis[None, :, 1] - rel[..., 1] * c.axis[None, :, 0])
        along = direction @ c.axis.T
        # parallel when the link's far end stays within the tolerance of the line
        sine = np.abs(direction[:, None, 0] * c.axis[None, :, 1]
                      - direction[:, None, 1] * c.axis[None, :, 0])
        parallel = sine * c.length[None, :] <= self.tol + 1e-12
        ahead = t + np.sign(along) * 1e-9 * c.length[None, :]
        ok = (off <= self.tol) & parallel & (ahead > 0.0) & (ahead < c.length[None, :])
        # prefer the link that really contains the place over one that merely reaches
        # it within the tolerance (a joint of the candidate just beside it)
        outside = np.maximum(0.0, np.maximum(-t, t - c.length[None, :]))
        score = np.where(ok, off + outside, np.inf)
        link = np.argmin(score, axis=1)
        rows = np.arange(len(xy))
        found = np.isfinite(score[rows, link])
        s = np.clip(t[rows, link], 0.0, c.length[link])
        forward = along[rows, link] > 0
        return np.where(found, link, -1), s, forward


def position_tolerance(gt: Model) -> float:
    xs = [p.x for p in gt.points]
    ys = [p.y for p in gt.points]
    size = max(max(xs) - min(xs), max(ys) - min(ys))
    return max(POSITION_TOL * size, MIN_POSITION_TOL)


def _offset_scores(g: np.ndarray, c: np.ndarray, weights: np.ndarray, tol: float,
                   offsets: np.ndarray) -> np.ndarray:
    shifted = c[None, :, :] + offsets[:, None, :]  # (K, Nc, 2)
    dx = g[None, :, None, 0] - shifted[:, None, :, 0]
    dy = g[None, :, None, 1] - shifted[:, None, :, 1]
    hit = ((dx * dx + dy * dy) <= tol * tol).any(axis=2)  # (K, Ng)
    return (hit * weights).sum(axis=1)


def _best_offset(gt: Model, cand: Model, tol: float) -> tuple[float, float]:
    """The shift that lands the most ground-truth points (supports count triple) on
    candidate points; no shift when that is already perfect, else the smallest shift
    among the best (deterministic)."""
    g = np.array([(p.x, p.y) for p in gt.points], dtype=float)
    c = np.array([(p.x, p.y) for p in cand.points], dtype=float)
    g_sup = {s.at for s in gt.supports}
    weights = np.array([3.0 if p.id in g_sup else 1.0 for p in gt.points])
    full = float(weights.sum())
    if _offset_scores(g, c, weights, tol, np.zeros((1, 2)))[0] >= full:
        return 0.0, 0.0
    if len(g) * len(c) <= _PAIR_BUDGET:
        anchors = np.arange(len(g))
    else:
        order = np.lexsort((g[:, 1], g[:, 0]))
        sup_idx = [i for i, p in enumerate(gt.points) if p.id in g_sup]
        anchors = np.unique(np.r_[order[:1], order[-1:], sup_idx[:2]]).astype(int)
    # supports first: the right shift usually puts a support on a support
    anchors = np.array(sorted(anchors, key=lambda i: (weights[i] < 3.0, i)), dtype=int)
    offsets = (g[anchors][:, None, :] - c[None, :, :]).reshape(-1, 2)
    best, best_score = (0.0, 0.0), -1.0
    chunk = max(1, min(256, 1_000_000 // max(1, len(g) * len(c))))
    for start in range(0, len(offsets), chunk):
        block = offsets[start:start + chunk]
        scores = _offset_scores(g, c, weights, tol, block)
        top = scores.max()
        if top > best_score + 1e-9 or (top >= best_score - 1e-9 and top > 0):
            ties = block[scores >= top - 1e-9]
            pick = ties[np.lexsort((ties[:, 1], ties[:, 0], np.hypot(*ties.T)))[0]]
            if top > best_score + 1e-9 or np.hypot(*pick) < np.hypot(*best):
                best, best_score = (float(pick[0]), float(pick[1])), float(top)
        if best_score >= full:
            break
    return best


def align(gt: Model, cand: Model) -> Alignment:
    tol = position_tolerance(gt)
    offset = _best_offset(gt, cand, tol)
    g, c = Geometry.of(gt), Geometry.of(cand, offset)
    d = np.hypot(g.xy[:, None, 0] - c.xy[None, :, 0], g.xy[:, None, 1] - c.xy[None, :, 1])
    nearest = d.argmin(axis=1)
    point_map = np.where(d[np.arange(len(g.xy)), nearest] <= tol, nearest, -1)

    g_at = {p.id: i for i, p in enumerate(gt.points)}
    c_at = {p.id: i for i, p in enumerate(cand.points)}
    cand_support_at = {c_at[s.at]: k for k, s in enumerate(cand.supports)}
    support_map = np.array([cand_support_at.get(int(point_map[g_at[s.at]]), -1)
                            if point_map[g_at[s.at]] >= 0 else -1 for s in gt.supports],
                           dtype=np.int64).reshape(-1)
    used = set(support_map[support_map >= 0].tolist())
    extra_supports = tuple(k for k in range(len(cand.supports)) if k not in used)

    missing = _uncovered(g, c, tol)
    extra = _uncovered(c, g, tol)
    return Alignment(offset, tol, g, c, point_map, support_map, extra_supports, missing, extra)


def _uncovered(own: Geometry, other: Geometry, tol: float) -> tuple[int, ...]:
    """Links of ``own`` not lying entirely on links of ``other``. A link with a twin
    (same ends, either way round) is covered at once; the rest get the interval test."""
    oa, ob = own.xy[own.ends[:, 0]], own.xy[own.ends[:, 1]]
    ta, tb = other.xy[other.ends[:, 0]], other.xy[other.ends[:, 1]]

    def near(p: np.ndarray, q: np.ndarray) -> np.ndarray:
        d = p[:, None, :] - q[None, :, :]
        return (d * d).sum(axis=2) <= tol * tol

    twin = ((near(oa, ta) & near(ob, tb)) | (near(oa, tb) & near(ob, ta))).any(axis=1)
    return tuple(i for i in np.flatnonzero(~twin).tolist()
                 if not _covered_by(own, i, other, tol))


def _covered_by(own: Geometry, i: int, other: Geometry, tol: float) -> bool:
    """Link i of ``own`` lies entirely on collinear links of ``other`` (gaps ≤ tol)."""
    a, axis, length = own.a[i], own.axis[i], own.length[i]
    rel_a = other.xy[other.ends[:, 0]] - a
    rel_b = other.xy[other.ends[:, 1]] - a
    off_a = np.abs(rel_a[:, 0] * axis[1] - rel_a[:, 1] * axis[0])
    off_b = np.abs(rel_b[:, 0] * axis[1] - rel_b[:, 1] * axis[0])
    t_a, t_b = rel_a @ axis, rel_b @ axis
    on_line = (off_a <= tol) & (off_b <= tol)
    lo = np.minimum(t_a, t_b)[on_line]
    hi = np.maximum(t_a, t_b)[on_line]
    reach = 0.0
    for k in np.argsort(lo, kind="stable"):
        if lo[k] > reach + tol:
            break
        reach = max(reach, hi[k])
    return reach >= length - tol
