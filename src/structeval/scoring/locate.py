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
from .gtcache import GT_CACHE
from .wording import DEFAULT_LANGUAGE, Phrase, phrase, render


def _cand_point_label(cand: Model, al: Alignment, xy: np.ndarray) -> Phrase:
    d = np.hypot(*(al.cand.xy - xy).T)
    k = int(np.argmin(d))
    if d[k] <= al.tol:
        return phrase("place.point", point=cand.points[k].id)
    return phrase("place.near", point=cand.points[k].id)


def _said(notes: list[Phrase], lang: str) -> list[str]:
    return [render(note, lang) for note in notes]


# ------------------------------------------------------------------ geometry

def geometry_problems(gt: Model, cand: Model, al: Alignment, *,
                      lang: str = DEFAULT_LANGUAGE) -> list[str]:
    out: list[Phrase] = []
    for i in al.missing_links:
        ends = [al.gt.xy[al.gt.ends[i, k]] for k in (0, 1)]
        labels = [_cand_point_label(cand, al, e) for e in ends]
        out.append(phrase("geometry.missing_member", a=labels[0], b=labels[1]))
    for j in al.extra_links:
        lk = cand.links[j]
        out.append(phrase("geometry.extra_link", link=lk.id, a=lk.a, b=lk.b))
    return _said(out, lang)


# ------------------------------------------------------------------ supports

def support_problems(gt: Model, cand: Model, al: Alignment, *,
                     lang: str = DEFAULT_LANGUAGE) -> list[str]:
    out: list[Phrase] = []
    g_index = {p.id: i for i, p in enumerate(gt.points)}
    for i, s in enumerate(gt.supports):
        j = int(al.support_map[i])
        xy = al.gt.xy[g_index[s.at]]
        if j < 0:
            out.append(phrase("supports.missing", place=_cand_point_label(cand, al, xy)))
        elif not same_restraint(s, cand.supports[j]):
            cs = cand.supports[j]
            out.append(phrase("supports.differs", support=cs.id, point=cs.at))
    for j in al.extra_supports:
        cs = cand.supports[j]
        out.append(phrase("supports.extra", support=cs.id, point=cs.at))
    return _said(out, lang)


# ------------------------------------------------------------------ releases

def joint_groups(model: Model, xy: np.ndarray, offset: np.ndarray, tol: float,
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


def release_problems(gt: Model, cand: Model, al: Alignment, *,
                     lang: str = DEFAULT_LANGUAGE) -> list[str]:
    offset = np.asarray(al.offset)
    all_xy = np.vstack([al.gt.xy, al.cand.xy])
    g = joint_groups(gt, all_xy, np.zeros(2), al.tol)
    c = joint_groups(cand, all_xy, offset, al.tol)
    out: list[Phrase] = []
    for k in sorted(set(g) | set(c)):
        if g.get(k) != c.get(k) and k in g and k in c:
            xy = np.array(k, dtype=float) * al.tol
            out.append(phrase("releases.joint", place=_cand_point_label(cand, al, xy)))
    return _said(out, lang)


# ------------------------------------------------------------------ loads

def load_buckets(model: Model, al: Alignment, offset: np.ndarray) -> np.ndarray:
    """Resultant (Fx, Fy, M) of the loads at every ground-truth point (rows 0..N−1, M = the
    couple) and along every ground-truth member (rows N..N+M−1, M about its start); the
    last row collects loads that act where the ground truth has no member."""
    g = al.gt
    ox, oy = float(offset[0]), float(offset[1])
    # classification place, application place, force, may it sit on a point
    where: list[tuple[float, float]] = []
    at: list[tuple[float, float]] = []
    force: list[tuple[float, float, float]] = []
    allow_point: list[bool] = []
    spans = []  # distributed loads: (start x, start y, axis x, axis y, s0, s1, load)
    for ld in model.loads:
        if isinstance(ld, DistributedLoad):
            link = model.link(ld.target.id)
            cx, cy, _ = link_axis(model, link)
            s0, s1, _ = distributed_extent(model, ld)
            pa = model.point(link.a)
            spans.append((pa.x + ox, pa.y + oy, cx, cy, s0, s1, ld))
            continue
        x, y = _world(model, ld)
        if isinstance(ld, BendingMoment):
            f = (0.0, 0.0, couple(ld))
        else:
            dx, dy = force_direction(model, ld)
            f = (ld.value * dx, ld.value * dy, 0.0)
        where.append((x + ox, y + oy))
        at.append((x + ox, y + oy))
        force.append(f)
        allow_point.append(True)
    if spans:
        # Cut each loaded stretch where ground-truth joints lie, so every piece belongs
        # to one member; Simpson's rule is exact for a linear load and its first moment.
        arr = np.array([sp[:6] for sp in spans])
        rel_x = g.xy[None, :, 0] - arr[:, None, 0]
        rel_y = g.xy[None, :, 1] - arr[:, None, 1]
        t = rel_x * arr[:, None, 2] + rel_y * arr[:, None, 3]
        off = np.abs(rel_x * arr[:, None, 3] - rel_y * arr[:, None, 2])
        inner = (off <= al.tol) & (t > arr[:, None, 4]) & (t < arr[:, None, 5])
        for k, (x0, y0, cx, cy, s0, s1, ld) in enumerate(spans):
            dx, dy = force_direction(model, ld)
            cuts = sorted({s0, s1, *t[k, inner[k]].tolist()})
            for lo, hi in itertools.pairwise(cuts):
                mid = 0.5 * (lo + hi)
                for sv, w in ((lo, 1 / 6), (mid, 4 / 6), (hi, 1 / 6)):
                    q = ld.w_start + (ld.w_end - ld.w_start) * (sv - s0) / (s1 - s0)
                    f = q * w * (hi - lo)
                    where.append((x0 + cx * mid, y0 + cy * mid))
                    at.append((x0 + cx * sv, y0 + cy * sv))
                    force.append((f * dx, f * dy, 0.0))
                    allow_point.append(False)
    n_pt, n_ln = len(g.xy), len(g.length)
    out = np.zeros((n_pt + n_ln + 1, 3))
    if not force:
        return out
    where_a, at_a, f_a = np.array(where), np.array(at), np.array(force)
    d = np.hypot(where_a[:, None, 0] - g.xy[None, :, 0], where_a[:, None, 1] - g.xy[None, :, 1])
    nearest = d.argmin(axis=1)
    on_point = np.array(allow_point) & (d[np.arange(len(d)), nearest] <= al.tol)
    rel = where_a[:, None, :] - g.a[None, :, :]
    t = (rel * g.axis[None, :, :]).sum(axis=2)
    off = np.abs(rel[..., 0] * g.axis[None, :, 1] - rel[..., 1] * g.axis[None, :, 0])
    inside = (off <= al.tol) & (t >= -al.tol) & (t <= g.length[None, :] + al.tol)
    link = np.where(inside.any(axis=1), inside.argmax(axis=1), -1)
    row = np.where(on_point, nearest, np.where(link >= 0, n_pt + link, n_pt + n_ln))
    lever = at_a - g.a[np.maximum(link, 0)]
    moment = f_a[:, 2] + np.where(~on_point & (link >= 0),
                                  lever[:, 0] * f_a[:, 1] - lever[:, 1] * f_a[:, 0], 0.0)
    np.add.at(out, row, np.column_stack([f_a[:, :2], moment]))
    return out


def _world(model: Model, ld: PointLoad | BendingMoment) -> tuple[float, float]:
    if ld.target.type == "point":
        p = model.point(ld.target.id)
        return p.x, p.y
    link = model.link(ld.target.id)
    cx, cy, _ = link_axis(model, link)
    s = position_on_link(model, ld)
    pa = model.point(link.a)
    return pa.x + cx * s, pa.y + cy * s


def load_problems(gt: Model, cand: Model, al: Alignment, tol: float, *,
                  lang: str = DEFAULT_LANGUAGE) -> list[str]:
    gb = GT_CACHE.get(gt, "load_buckets", lambda: load_buckets(gt, al, np.zeros(2)))
    cb = load_buckets(cand, al, np.asarray(al.offset))
    size = float(max(al.gt.length.max(), 1e-9))
    force = max(float(np.hypot(gb[:, 0], gb[:, 1]).max()), 1e-9)
    scale = np.array([force, force, force * size])
    bad = (np.abs(gb - cb) > tol * np.abs(gb) + 0.25 * tol * scale).any(axis=1)
    n_pt = len(al.gt.xy)
    out: list[Phrase] = []
    for row in np.flatnonzero(bad):
        if row < n_pt:
            out.append(phrase("loads.at_point", place=_cand_point_label(cand, al,
                                                                        al.gt.xy[row])))
        elif row < len(gb) - 1:
            i = row - n_pt
            ends = [_cand_point_label(cand, al, al.gt.xy[al.gt.ends[i, k]]) for k in (0, 1)]
            out.append(phrase("loads.on_member", a=ends[0], b=ends[1]))
        else:
            out.append(phrase("loads.off_structure"))
    return _said(out, lang)
