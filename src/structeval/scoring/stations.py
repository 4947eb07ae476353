"""Matched places along the ground-truth members where both moment diagrams are read.

Stations sit at tenths of every ground-truth member and just beside every
concentrated load, but never *at* a concentrated load of either model: there
the diagram jumps or kinks and a reader's rounding of the position would decide
which side is read. Ends are read just inside the member.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..model.semantics import world_point_of_load
from ..model.types import DistributedLoad, Model
from .align import Alignment

DIVISIONS = 10


@dataclass(frozen=True)
class Stations:
    """(link, s, side) of each station in both models.

    ``orient`` is +1 where the candidate link runs the same way as the ground-truth
    link and −1 where it is reversed (m changes sign with direction, n does not).
    """

    gt_link: np.ndarray
    gt_s: np.ndarray
    gt_right: np.ndarray  # value just past s (towards B) rather than just before
    cand_link: np.ndarray
    cand_s: np.ndarray
    cand_right: np.ndarray
    orient: np.ndarray

    def remap_split(self, elem: int, at: float, new_elem: int) -> Stations:
        """Stations after candidate element ``elem`` was cut at ``at`` (the tail is new_elem)."""
        on = self.cand_link == elem
        tail = on & ((self.cand_s > at) | ((self.cand_s == at) & self.cand_right))
        link = np.where(tail, new_elem, self.cand_link)
        s = np.where(tail, self.cand_s - at, self.cand_s)
        return replace(self, cand_link=link, cand_s=s)


def _concentrated_places(model: Model, offset: tuple[float, float]) -> np.ndarray:
    pts = [world_point_of_load(model, ld) for ld in model.loads
           if not isinstance(ld, DistributedLoad)]
    return np.array(pts, dtype=float).reshape(-1, 2) + np.asarray(offset)


def build_stations(gt: Model, cand: Model, al: Alignment) -> Stations:
    g, tol = al.gt, al.tol
    m = len(g.length)
    avoid = np.vstack([_concentrated_places(gt, (0.0, 0.0)),
                       _concentrated_places(cand, al.offset)])
    # projections of every concentrated load onto every ground-truth link: (K, M)
    rel = avoid[:, None, :] - g.a[None, :, :]
    t = (rel * g.axis[None, :, :]).sum(axis=2)
    off = np.abs(rel[..., 0] * g.axis[None, :, 1] - rel[..., 1] * g.axis[None, :, 0])
    near = (off <= tol) & (t > -tol) & (t < g.length[None, :] + tol)

    grid_link = np.repeat(np.arange(m), DIVISIONS - 1)
    grid_s = (np.tile(np.arange(1, DIVISIONS), m) / DIVISIONS) * g.length[grid_link]
    k_idx, l_idx = np.nonzero(near)
    beside_link = np.r_[l_idx, l_idx]
    beside_s = np.r_[t[k_idx, l_idx] - 2.5 * tol, t[k_idx, l_idx] + 2.5 * tol]
    inner_link = np.r_[grid_link, beside_link].astype(np.int64)
    inner_s = np.r_[grid_s, beside_s]
    ok = (inner_s > 0.0) & (inner_s < g.length[inner_link])
    if len(avoid):
        gap = np.where(near[:, inner_link], np.abs(inner_s[None, :] - t[:, inner_link]), np.inf)
        ok &= gap.min(axis=0) >= 1.5 * tol
    inner_link, inner_s = inner_link[ok], inner_s[ok]
    gt_link = np.r_[np.arange(m), inner_link, np.arange(m)]
    gt_s = np.r_[np.zeros(m), inner_s, g.length]
    gt_right = np.r_[np.ones(m, bool), np.ones(len(inner_s), bool), np.zeros(m, bool)]
    order = np.lexsort((gt_s, gt_link))
    gt_link, gt_s, gt_right = gt_link[order], gt_s[order], gt_right[order]

    xy = g.a[gt_link] + gt_s[:, None] * g.axis[gt_link]
    direction = np.where(gt_right[:, None], g.axis[gt_link], -g.axis[gt_link])
    cand_link, cand_s, forward = al.locate_along(xy, direction)
    keep = cand_link >= 0  # uncovered places are reported by the geometry check instead
    same_way = forward == gt_right  # candidate A→B along the ground-truth A→B
    orient = np.where(same_way, 1.0, -1.0)
    return Stations(gt_link[keep], gt_s[keep], gt_right[keep], cand_link[keep], cand_s[keep],
                    forward[keep], orient[keep])
