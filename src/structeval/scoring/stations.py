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
    avoid = np.vstack([_concentrated_places(gt, (0.0, 0.0)),
                       _concentrated_places(cand, al.offset)])
    links, ss, right = [], [], []
    for i in range(len(g.length)):
        length = g.length[i]
        grid = np.linspace(0.0, length, DIVISIONS + 1)
        near = np.zeros(0)
        if len(avoid):
            rel = avoid - g.a[i]
            t = rel @ g.axis[i]
            off = np.abs(rel[:, 0] * g.axis[i, 1] - rel[:, 1] * g.axis[i, 0])
            near = t[(off <= tol) & (t > -tol) & (t < length + tol)]
        beside = np.r_[near - 2.5 * tol, near + 2.5 * tol]
        inner = np.r_[grid[1:-1], beside[(beside > 0.0) & (beside < length)]]
        if len(near):
            inner = inner[np.abs(inner[:, None] - near[None, :]).min(axis=1) >= 1.5 * tol]
        for s in np.r_[0.0, np.unique(inner), length]:
            links.append(i)
            ss.append(float(s))
            right.append(s < length)
    gt_link = np.array(links, dtype=np.int64)
    gt_s = np.array(ss, dtype=float)
    gt_right = np.array(right, dtype=bool)
    xy = g.a[gt_link] + gt_s[:, None] * g.axis[gt_link]
    direction = np.where(gt_right[:, None], g.axis[gt_link], -g.axis[gt_link])
    cand_link, cand_s, forward = al.locate_along(xy, direction)
    keep = cand_link >= 0  # uncovered places are reported by the geometry check instead
    same_way = forward == gt_right  # candidate A→B along the ground-truth A→B
    orient = np.where(same_way, 1.0, -1.0)
    cand_right = forward
    return Stations(gt_link[keep], gt_s[keep], gt_right[keep], cand_link[keep], cand_s[keep],
                    cand_right[keep], orient[keep])
