"""Large and compound pin-jointed trusses: long spans with sub-panels, K-trusses, compound
Fink roofs, three-hinged and tied trussed arches, cantilever trusses.

Every template builds a truss that is rigid by construction (triangles added one
joint and two bars at a time, or rigid trusses joined by a hinge and a bar), so the
solver's mechanism check is a safety net rather than a filter. Panels are equal and
few heights occur, so 60 members still read cleanly; where diagonals would cross,
the truss has a joint at the crossing (sub-panels) or no crossing at all.
"""

from __future__ import annotations

import itertools
import random

from ...model.types import SupportKind
from ..builder import ModelBuilder
from .common import Skeleton, grid
from .trusses import k_web, truss_supports

PIN, ROLLER = SupportKind.PIN, SupportKind.ROLLER
LOADS = {1: (3, 4), 2: (4, 5), 3: (4, 6), 4: (6, 9), 5: (8, 12)}
MAX_SPAN = 36.0  # m


def _window(level: int, windows: dict[int, tuple[int, int]], rng: random.Random,
            step: int = 1) -> int:
    lo, hi = windows[level]
    return rng.choice(list(range(lo, hi + 1, step)))


def _deck(rng: random.Random, bottom: list[str], top: list[str]) -> tuple[str, ...]:
    """The loaded chord's inner joints: a deck bridge is loaded on top, a through bridge
    at the bottom."""
    chord = bottom[1:-1] if rng.random() < 0.6 else top
    return tuple(chord)


# -- long parallel-chord trusses -----------------------------------------------------------

SPAN_PANELS = {1: (4, 6), 2: (6, 8), 3: (6, 8), 4: (8, 12), 5: (12, 16)}


def long_span(rng: random.Random, level: int) -> Skeleton:
    """Pratt, Howe, Warren with verticals, or Pratt/Howe with sub-panels (Baltimore-like)."""
    style = rng.choice(("pratt", "howe", "warren_verticals", "subdivided_pratt",
                        "subdivided_howe"))
    n = _window(level, SPAN_PANELS, rng, 2)
    w = grid(rng, 1.5, min(3.0, MAX_SPAN / n))
    h = float(rng.choice((2, 3, 4))) if style.startswith("subdivided") else grid(rng, 2, 4)
    b = ModelBuilder()
    bottom = [b.point(i * w, 0) for i in range(n + 1)]
    for p, q in itertools.pairwise(bottom):
        b.bar(p, q)
    if style.startswith("subdivided"):
        top = _subdivided(b, bottom, n, w, h, style.endswith("pratt"))
    else:
        top = [b.point(i * w, h) for i in range(n + 1)]
        for p, q in itertools.pairwise(top):
            b.bar(p, q)
        for p, q in zip(bottom, top, strict=True):
            b.bar(p, q)
        for i in range(n):
            left_half = i < n // 2
            falling = (i % 2 == 1 if style == "warren_verticals"
                       else (style == "pratt") == left_half)
            b.bar(top[i], bottom[i + 1]) if falling else b.bar(bottom[i], top[i + 1])
    sup = truss_supports(b, rng, level, bottom[0], bottom[n], bottom[n // 2])
    return Skeleton(b.build(), "long_span", {"style": style, "panels": n, "panel": w,
                                             "height": h, "supports": sup},
                    _deck(rng, bottom, top), load_count=LOADS[level])


def _subdivided(b: ModelBuilder, bottom: list[str], n: int, w: float, h: float,
                pratt: bool) -> list[str]:
    """Main panels two sub-panels wide: the main diagonal gets a joint at mid-height, held
    by a sub-vertical from the bottom chord and a sub-diagonal to the panel's high end."""
    top = [b.point(i * w, h) for i in range(0, n + 1, 2)]
    for p, q in itertools.pairwise(top):
        b.bar(p, q)
    for j, t in enumerate(top):
        b.bar(bottom[2 * j], t)
    for j in range(n // 2):
        lo, hi = 2 * j, 2 * j + 2
        left_half = j < n / 4
        high_left = pratt == left_half  # the diagonal starts at the top of the left vertical
        mid = b.point((2 * j + 1) * w, h / 2)
        if high_left:
            b.bar(top[j], mid)
            b.bar(mid, bottom[hi])
            b.bar(mid, bottom[lo])
        else:
            b.bar(top[j + 1], mid)
            b.bar(mid, bottom[lo])
            b.bar(mid, bottom[hi])
        b.bar(bottom[2 * j + 1], mid)
    return top


# -- K-truss ---------------------------------------------------------------------------------

K_PANELS = {1: (3, 3), 2: (3, 5), 3: (5, 7), 4: (7, 9), 5: (9, 11)}


def k_truss_long(rng: random.Random, level: int) -> Skeleton:
    """Long K-truss of up to 11 panels (65 members), K webs pointing to the supports."""
    n = _window(level, K_PANELS, rng, 2)
    w = grid(rng, 2, min(3.5, MAX_SPAN / n))
    h = float(rng.choice((2, 3, 4)))
    b = ModelBuilder()
    bottom, top = k_web(b, n, w, h)
    sup = truss_supports(b, rng, level, bottom[0], bottom[n], bottom[n // 2])
    return Skeleton(b.build(), "k_truss_long", {"panels": n, "panel": w, "height": h,
                                                "supports": sup},
                    _deck(rng, bottom, top), load_count=LOADS[level])


# -- compound Fink roof ---------------------------------------------------------------------

def fink_roof(rng: random.Random, level: int) -> Skeleton:
    """Compound (double) Fink roof, or two of them on a shared valley joint.

    Each half of a Fink is subdivided once more, so the top chord has four panels a
    side and the web fans out from the third points; the twin-span roof puts two such
    trusses side by side on a shared pin, each with its own roller.
    """
    span = float(rng.choice((12, 24) if level >= 5 else (12,)))
    height = float(rng.choice((4,) if span == 12 else (4, 6, 8)))  # webs ≥ 1 m
    twin = level >= 4 and rng.random() < 0.8
    b = ModelBuilder()
    joints: list[str] = []
    for x0 in ((0.0, span) if twin else (0.0,)):
        joints += _fink(b, x0, span, height)
    ends = [b.point(x, 0) for x in ((0.0, span, 2 * span) if twin else (0.0, span))]
    if twin:  # each roof on the shared pin and its own roller: two determinate trusses
        b.support(ends[0], ROLLER)
        b.support(ends[1], PIN)
        b.support(ends[2], ROLLER)
        sup = "roller_pin_roller"
    else:
        sup = truss_supports(b, rng, min(level, 3), ends[0], ends[1], None)
    return Skeleton(b.build(), "fink_roof", {"span": span, "height": height, "twin": twin,
                                             "supports": sup},
                    tuple(joints), load_count=LOADS[level])


def _fink(b: ModelBuilder, x0: float, s: float, hgt: float) -> list[str]:
    """One compound Fink on [x0, x0 + s]; returns its top-chord joints."""
    top: list[str] = []
    d_ends = []
    apex = b.point(x0 + s / 2, hgt)
    for sign in (1, -1):
        def x(v: float, sign: int = sign) -> float:
            return x0 + (v if sign > 0 else s - v)

        a, d, e = b.point(x(0), 0), b.point(x(s / 3), 0), b.point(x(s / 6), 0)
        t1, t, t3 = (b.point(x(s / 8), hgt / 4), b.point(x(s / 4), hgt / 2),
                     b.point(x(3 * s / 8), 3 * hgt / 4))
        for p, q in ((a, t1), (t1, t), (t, t3), (t3, apex), (a, e), (e, d),
                     (t1, e), (e, t), (t, d), (t3, d), (apex, d)):
            b.bar(p, q)
        top += [t1, t, t3]
        d_ends.append(d)
    b.bar(d_ends[0], d_ends[1])
    return [*top[:3], apex, *top[3:][::-1]]


# -- trussed arches: three-hinged, or tied (two trusses joined by a hinge and a bar) ---------

ARCH_PANELS = {1: (3, 3), 2: (3, 4), 3: (4, 5), 4: (5, 7), 5: (7, 9)}


def trussed_arch(rng: random.Random, level: int) -> Skeleton:
    """Two triangulated arch ribs meeting at a crown joint. Three-hinged: both springings
    pinned. Tied: a pin and a roller, the ribs joined at the crown and by a tie bar."""
    k = _window(level, ARCH_PANELS, rng)
    w = grid(rng, 1.5, min(2.5, MAX_SPAN / (2 * k)))
    depth = grid(rng, 1, 2)
    profile = rng.choice(("straight", "curved"))
    if profile == "straight":
        rises = [float(rng.choice((0.5, 1, 1.5)))] * k
    else:  # steep at the springing, flat at the crown: a polygonal arch
        rises = [max(0.5, 0.5 * round(2 * (2.0 - 1.5 * i / max(1, k - 1)))) for i in range(k)]
    ys = [0.0]
    for r in rises:
        ys.append(ys[-1] + r)
    span = 2 * k * w
    tied = rng.random() < 0.5
    b = ModelBuilder()
    crown = b.point(k * w, ys[k] + depth)

    def rib(sign: int) -> tuple[list[str], list[str]]:
        def x(i: int) -> float:
            return i * w if sign > 0 else span - i * w

        lower = [b.point(x(i), ys[i]) for i in range(k)]
        upper = [b.point(x(i), ys[i] + depth) for i in range(1, k)] + [crown]
        for p, q in itertools.pairwise(lower):
            b.bar(p, q)
        for p, q in itertools.pairwise(upper):
            b.bar(p, q)
        for i in range(1, k):
            b.bar(lower[i], upper[i - 1])
        b.bar(lower[0], upper[0])
        for i in range(1, k):  # diagonals, alternating; the last panel is a triangle
            if i % 2 or i == k - 1:
                b.bar(lower[i], upper[i])
            else:
                b.bar(upper[i - 1], lower[i + 1] if i + 1 < k else crown)
        return lower, upper

    left_low, left_up = rib(1)
    right_low, right_up = rib(-1)
    tie_at = None
    if tied:
        tie_at = rng.randint(1, k - 1)
        b.bar(left_low[tie_at], right_low[tie_at])
        b.support(left_low[0], PIN)
        b.support(right_low[0], ROLLER)
    else:
        b.support(left_low[0], PIN)
        b.support(right_low[0], PIN)
    joints = (*left_up[:-1], crown, *right_up[:-1])
    return Skeleton(b.build(), "trussed_arch", {
        "panels_per_rib": k, "panel": w, "depth": depth, "profile": profile, "rises": rises,
        "tied": tied, "tie_panel": tie_at}, joints, load_count=LOADS[level])


# -- cantilever trusses ----------------------------------------------------------------------

ARM_PANELS = {1: (2, 3), 2: (3, 4), 3: (4, 6), 4: (6, 8), 5: (8, 10)}
BRIDGE_PANELS = {1: (4, 6), 2: (6, 8), 3: (6, 8), 4: (8, 12), 5: (14, 18)}


def cantilever_truss(rng: random.Random, level: int) -> Skeleton:
    """A balanced-cantilever bridge truss (arms beyond both supports) or a tapering wall
    bracket of many panels."""
    if rng.random() < 0.6:
        return _balanced_cantilever(rng, level)
    return _wall_bracket(rng, level)


def _balanced_cantilever(rng: random.Random, level: int) -> Skeleton:
    n = _window(level, BRIDGE_PANELS, rng, 2)
    w = grid(rng, 1.5, min(3.0, MAX_SPAN / n))
    h = grid(rng, 2, 4)
    left = rng.randint(2, max(2, n // 4))
    right = rng.randint(2, max(2, n // 4)) if rng.random() < 0.7 else left
    b = ModelBuilder()
    bottom = [b.point(i * w, 0) for i in range(n + 1)]
    top = [b.point(i * w, h) for i in range(n + 1)]
    for row in (bottom, top):
        for p, q in itertools.pairwise(row):
            b.bar(p, q)
    for p, q in zip(bottom, top, strict=True):
        b.bar(p, q)
    a, c = left, n - right
    for i in range(n):
        # diagonals fall away from the supports, toward each arm tip and toward mid-span
        rising = i < a or (a + c) // 2 <= i < c
        b.bar(bottom[i], top[i + 1]) if rising else b.bar(top[i], bottom[i + 1])
    if rng.random() < 0.5:
        b.support(bottom[a], PIN)
        b.support(bottom[c], ROLLER)
    else:
        b.support(bottom[a], ROLLER)
        b.support(bottom[c], PIN)
    return Skeleton(b.build(), "cantilever_truss", {
        "variant": "balanced", "panels": n, "panel": w, "height": h, "arms": [left, right]},
        _deck(rng, bottom, top), load_count=LOADS[level])


def _wall_bracket(rng: random.Random, level: int) -> Skeleton:
    n = _window(level, ARM_PANELS, rng)
    w = grid(rng, 1.5, min(2.5, 20.0 / n))
    h = grid(rng, 2, 4)
    taper = rng.random() < 0.6
    sign = 1 if rng.random() < 0.6 else -1
    # the upper chord falls toward the tip (by a grid step per panel while ≥ 1 m deep)
    steps = [0.0] * n
    if taper:
        step = 0.5
        steps = [min(i * step, h - 1.0) for i in range(n)]
    b = ModelBuilder()
    low = [b.point(sign * i * w, 0) for i in range(n + 1)]
    high = [b.point(sign * i * w, h - steps[i]) for i in range(n)]
    for p, q in itertools.pairwise(low):
        b.bar(p, q)
    for p, q in itertools.pairwise(high):
        b.bar(p, q)
    b.bar(high[-1], low[-1])
    for i in range(1, n):
        b.bar(low[i], high[i])
        b.bar(high[i - 1], low[i])
    b.bar(low[0], high[0])
    wall = 270.0 if sign > 0 else 90.0
    b.support(low[0], PIN, wall)
    b.support(high[0], ROLLER, wall)
    return Skeleton(b.build(), "cantilever_truss", {
        "variant": "wall_bracket", "panels": n, "panel": w, "height": h, "taper": taper},
        tuple(low[1:]) + tuple(high[1:]), load_count=LOADS[level])


#: name → (template, weight at levels 1..5)
HARD_TRUSS_FAMILIES = {
    "long_span": (long_span, (0, 0, 0, 2, 2)),
    "k_truss_long": (k_truss_long, (0, 0, 0, 1, 1)),
    "fink_roof": (fink_roof, (0, 0, 0, 1, 0)),
    "trussed_arch": (trussed_arch, (0, 0, 0, 1, 1)),
    "cantilever_truss": (cantilever_truss, (0, 0, 0, 1, 1)),
}
