"""Say *where* a failing stage went wrong, in the candidate's own names, without GT values.

The stage verdict comes from physics; these comparisons only point at the
places to fix: uncovered or extra members, supports whose restraints differ,
joints whose hinges group the members differently, and places where the loads
add up to something else.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict

import numpy as np

from ..model.semantics import (
    couple,
    distributed_extent,
    force_direction,
    link_axis,
    position_on_link,
)
from ..model.types import BendingMoment, DistributedLoad, Model, PointLoad
from .align import Alignment
from .canonical import same_restraint


def _cand_point_label(cand: Model, al: Alignment, xy: np.ndarray) -> str:
    d = np.hypot(*(al.cand.xy - xy).T)
    k = int(np.argmin(d))
    if d[k] <= al.tol:
        return f"your point {cand.points[k].id}"
    return f"a place near your point {cand.points[k].id} where your model has no point"


# ------------------------------------------------------------------ geometry

def geometry_problems(gt: Model, cand: Model, al: Alignment) -> list[str]:
    out = []
    for i in al.missing_links:
        ends = [al.gt.xy[al.gt.ends[i, k]] for k in (0, 1)]
        labels = [_cand_point_label(cand, al, e) for e in ends]
        out.append(f"the drawing has a member between {labels[0]} and {labels[1]} that your "
                   "model does not cover with links")
    for j in al.extra_links:
        lk = cand.links[j]
        out.append(f"your link {lk.id} ({lk.a}–{lk.b}) is not a member of the drawing")
    return out


# ------------------------------------------------------------------ supports

def support_problems(gt: Model, cand: Model, al: Alignment) -> list[str]:
    out = []
    g_index = {p.id: i for i, p in enumerate(gt.points)}
    for i, s in enumerate(gt.supports):
        j = int(al.support_map[i])
        xy = al.gt.xy[g_index[s.at]]
        if j < 0:
            out.append(f"the drawing has a support at {_cand_point_label(cand, al, xy)} that "
                       "your model lacks")
        elif not same_restraint(s, cand.supports[j]):
            cs = cand.supports[j]
            out.append(f"your support {cs.id} at point {cs.at} restrains differently from the "
                       "drawing: check its kind and angleDeg")
    for j in al.extra_supports:
        cs = cand.supports[j]
        out.append(f"your support {cs.id} at point {cs.at} is not in the drawing")
    return out


# ------------------------------------------------------------------ releases

def _joint_groups(model: Model, xy: np.ndarray, offset: np.ndarray, tol: float,
                  ) -> dict[tuple[int, int], frozenset[frozenset[int]]]:
    """Per place (rounded), how the members leaving it are grouped by rigid connection.

    Members are keyed by direction (whole degrees). A member passing through a place
    without a joint is one rigid group of two opposite directions. A rigid group of one
    is the same as a hinged end, so the partition is the physics, not the encoding.
    """
    places: dict[tuple[int, int], dict[str, list[int]]] = defaultdict(
        lambda: {"rigid": [], "free": []})
    pts = {p.id: np.array([p.x, p.y]) + offset for p in model.points}

    def key(v: np.ndarray) -> tuple[int, int]:
        return (round(float(v[0]) / tol), round(float(v[1]) / tol))

    for lk in model.links:
        a, b = pts[lk.a], pts[lk.b]
        ang = math.degrees(math.atan2(b[1] - a[1], b[0] - a[0]))
        for at, d, hinged in ((a, ang, lk.hinge_a), (b, ang + 180.0, lk.hinge_b)):
            places[key(at)]["free" if hinged else "rigid"].append(round(d) % 360)
    for p in xy:  # places inside links of this model that the other model has a joint at
        k = key(p)
        if k in places:
            continue
        for lk in model.links:
            a, b = pts[lk.a], pts[lk.b]
            ab = b - a
            length = float(np.hypot(*ab))
            t = float((p - a) @ ab) / length
            off = abs(float((p - a)[0] * ab[1] - (p - a)[1] * ab[0])) / length
            if off <= tol and tol < t < length - tol:
                ang = round(math.degrees(math.atan2(ab[1], ab[0])))
                places[k]["rigid"] += [ang % 360, (ang + 180) % 360]
    out = {}
    for k, g in places.items():
        groups = [frozenset([d]) for d in g["free"]]
        if len(g["rigid"]) > 1:
            groups.append(frozenset(g["rigid"]))
        else:
            groups += [frozenset([d]) for d in g["rigid"]]
        out[k] = frozenset(groups)
    return out


def release_problems(gt: Model, cand: Model, al: Alignment) -> list[str]:
    offset = np.asarray(al.offset)
    all_xy = np.vstack([al.gt.xy, al.cand.xy])
    g = _joint_groups(gt, all_xy, np.zeros(2), al.tol)
    c = _joint_groups(cand, all_xy, offset, al.tol)
    out = []
    for k in sorted(set(g) | set(c)):
        if g.get(k) != c.get(k) and k in g and k in c:
            xy = np.array(k, dtype=float) * al.tol
            out.append(f"the joint at {_cand_point_label(cand, al, xy)} connects its members "
                       "differently from the drawing: check the endA/endB hinges there")
    return out


# ------------------------------------------------------------------ loads

def _load_buckets(model: Model, al: Alignment, offset: np.ndarray,
                  ) -> dict[tuple[str, int], np.ndarray]:
    """Resultant (Fx, Fy, M about the place or the member's start) of the loads at every
    ground-truth point and along every ground-truth member."""
    g = al.gt
    buckets: dict[tuple[str, int], np.ndarray] = defaultdict(lambda: np.zeros(3))

    def bucket(xy: np.ndarray, *, at_points: bool = True) -> tuple[str, int]:
        if at_points:
            d = np.hypot(*(g.xy - xy).T)
            k = int(np.argmin(d))
            if d[k] <= al.tol:
                return ("point", k)
        rel = xy - g.a
        t = (rel * g.axis).sum(axis=1)
        off = np.abs(rel[:, 0] * g.axis[:, 1] - rel[:, 1] * g.axis[:, 0])
        hits = np.flatnonzero((off <= al.tol) & (t >= -al.tol) & (t <= g.length + al.tol))
        return ("link", int(hits[0])) if hits.size else ("nowhere", 0)

    def add(key: tuple[str, int], xy: np.ndarray, fx: float, fy: float, m: float) -> None:
        if key[0] == "link":
            r = xy - g.a[key[1]]
            m += r[0] * fy - r[1] * fx
        buckets[key] += (fx, fy, m)

    for ld in model.loads:
        if not isinstance(ld, DistributedLoad):
            xy = np.array(_world(model, ld)) + offset
            if isinstance(ld, BendingMoment):
                add(bucket(xy), xy, 0.0, 0.0, couple(ld))
            else:
                dx, dy = force_direction(model, ld)
                add(bucket(xy), xy, ld.value * dx, ld.value * dy, 0.0)
            continue
        link = model.link(ld.target.id)
        cx, cy, _ = link_axis(model, link)
        dx, dy = force_direction(model, ld)
        s0, s1, _ = distributed_extent(model, ld)
        start = np.array([model.point(link.a).x, model.point(link.a).y]) + offset
        axis = np.array([cx, cy])
        # Cut where ground-truth joints lie so each stretch belongs to one member;
        # Simpson's rule is exact for the linear load and its first moment.
        rel = g.xy - start
        t = rel @ axis
        off = np.abs(rel[:, 0] * cy - rel[:, 1] * cx)
        cuts = np.unique(np.r_[s0, t[(off <= al.tol) & (t > s0) & (t < s1)], s1])
        for lo, hi in itertools.pairwise(cuts):
            key = bucket(start + axis * (0.5 * (lo + hi)), at_points=False)
            for s, w in ((lo, 1 / 6), (0.5 * (lo + hi), 4 / 6), (hi, 1 / 6)):
                q = ld.w_start + (ld.w_end - ld.w_start) * (s - s0) / (s1 - s0)
                f = q * w * (hi - lo)
                add(key, start + axis * s, f * dx, f * dy, 0.0)
    return buckets


def _world(model: Model, ld: PointLoad | BendingMoment) -> tuple[float, float]:
    if ld.target.type == "point":
        p = model.point(ld.target.id)
        return p.x, p.y
    link = model.link(ld.target.id)
    cx, cy, _ = link_axis(model, link)
    s = position_on_link(model, ld)
    pa = model.point(link.a)
    return pa.x + cx * s, pa.y + cy * s


def load_problems(gt: Model, cand: Model, al: Alignment, tol: float) -> list[str]:
    gb = _load_buckets(gt, al, np.zeros(2))
    cb = _load_buckets(cand, al, np.asarray(al.offset))
    size = float(max(al.gt.length.max(), 1e-9))
    force = max([float(np.hypot(*v[:2])) for v in gb.values()] + [1e-9])
    out = []
    for key in sorted(set(gb) | set(cb)):
        a, b = gb.get(key, np.zeros(3)), cb.get(key, np.zeros(3))
        scale = np.array([force, force, force * size])
        if (np.abs(a - b) > tol * np.abs(a) + 0.25 * tol * scale).any():
            kind, i = key
            if kind == "point":
                out.append(f"the loads at {_cand_point_label(cand, al, al.gt.xy[i])} do not "
                           "match the drawing (check value, direction and sign)")
            elif kind == "link":
                ends = [_cand_point_label(cand, al, al.gt.xy[al.gt.ends[i, k]]) for k in (0, 1)]
                out.append(f"the loads on the member between {ends[0]} and {ends[1]} do not "
                           "match the drawing (check value, direction, position and extent)")
            else:
                out.append("some of your loads act where the drawing has no member")
    return out
