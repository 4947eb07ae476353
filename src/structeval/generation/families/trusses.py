"""Pin-jointed trusses as an engineer reads them: every bar hinged at both ends.

Panel points sit on the 0.5 m grid; loads later go to the ``joints`` a template
names (deck or roof panel points), as in textbook problems.
"""

from __future__ import annotations

import itertools
import random

from ...model.types import SupportKind
from ..builder import ModelBuilder
from .common import Skeleton, grid

PIN, ROLLER = SupportKind.PIN, SupportKind.ROLLER


def truss_supports(b: ModelBuilder, rng: random.Random, level: int, left: str, right: str,
              middle: str | None) -> str:
    """Pin + roller normally; more restraint (redundancy) at higher levels."""
    options = ["pin_roller"] * 3
    if level >= 3:
        options += ["pin_pin"]
    if level >= 4 and middle is not None:
        options += ["pin_roller_roller", "pin_pin_roller", "pin_pin"]
    choice = rng.choice(options)
    if rng.random() < 0.3 and choice == "pin_roller":
        b.support(left, ROLLER)
        b.support(right, PIN)
        return "roller_pin"
    b.support(left, PIN)
    if choice == "pin_pin_roller":
        b.support(middle, PIN)  # type: ignore[arg-type]
        b.support(right, ROLLER)
    else:
        if choice == "pin_roller_roller":
            b.support(middle, ROLLER)  # type: ignore[arg-type]
        b.support(right, PIN if choice == "pin_pin" else ROLLER)
    return choice


def _panels(rng: random.Random, level: int, lo: int, hi: int, *, even: bool = False) -> int:
    """A panel count from a window that slides from ``lo`` (level 1) to ``hi`` (level 5)."""
    top = lo + round((hi - lo) * level / 5)
    choices = [n for n in range(max(lo, top - 3), top + 1) if not even or n % 2 == 0]
    return rng.choice(choices or [top + (top % 2 if even else 0)])


def triangle(rng: random.Random, level: int) -> Skeleton:
    half, height = grid(rng, 1.5, 3), grid(rng, 1.5, 3)
    b = ModelBuilder()
    a, c, top = b.point(0, 0), b.point(2 * half, 0), b.point(half, height)
    b.bar(a, c)
    b.bar(a, top)
    b.bar(top, c)
    sup = truss_supports(b, rng, min(level, 3), a, c, None)
    return Skeleton(b.build(), "triangle", {"span": 2 * half, "height": height,
                                            "supports": sup}, (top,))


def parallel_chord(rng: random.Random, level: int, style: str) -> Skeleton:
    """Pratt (diagonals falling toward mid-span) or Howe (rising toward mid-span)."""
    n = _panels(rng, level, 2, 8, even=True)
    w, h = grid(rng, 1.5, 3), grid(rng, 1.5, 3.5)
    sloped_ends = n >= 4 and rng.random() < 0.4
    b = ModelBuilder()
    bottom = [b.point(i * w, 0) for i in range(n + 1)]
    top = {i: b.point(i * w, h) for i in range(n + 1) if not sloped_ends or 0 < i < n}
    for i in range(n):
        b.bar(bottom[i], bottom[i + 1])
    for i in range(n):
        if i in top and i + 1 in top:
            b.bar(top[i], top[i + 1])
    for i, t in top.items():
        b.bar(bottom[i], t)
    for i in range(n):
        left_half = i < n // 2
        if sloped_ends and i == 0:
            b.bar(bottom[0], top[1])
        elif sloped_ends and i == n - 1:
            b.bar(top[n - 1], bottom[n])
        elif (style == "pratt") == left_half:
            b.bar(top[i], bottom[i + 1])
        else:
            b.bar(bottom[i], top[i + 1])
    sup = truss_supports(b, rng, level, bottom[0], bottom[n], bottom[n // 2])
    deck = tuple(bottom[1:n]) if rng.random() < 0.5 else tuple(top.values())
    return Skeleton(b.build(), style, {"panels": n, "panel": w, "height": h,
                                       "sloped_ends": sloped_ends, "supports": sup}, deck)


def pratt(rng: random.Random, level: int) -> Skeleton:
    return parallel_chord(rng, level, "pratt")


def howe(rng: random.Random, level: int) -> Skeleton:
    return parallel_chord(rng, level, "howe")


def warren(rng: random.Random, level: int) -> Skeleton:
    n = _panels(rng, level, 2, 7)
    w, h = float(rng.choice([2, 3, 4])), grid(rng, 1.5, 3)
    b = ModelBuilder()
    bottom = [b.point(i * w, 0) for i in range(n + 1)]
    top = [b.point((i + 0.5) * w, h) for i in range(n)]
    for i in range(n):
        b.bar(bottom[i], bottom[i + 1])
        b.bar(bottom[i], top[i])
        b.bar(top[i], bottom[i + 1])
        if i + 1 < n:
            b.bar(top[i], top[i + 1])
    sup = truss_supports(b, rng, level, bottom[0], bottom[n],
                         bottom[n // 2] if n % 2 == 0 else None)
    joints = tuple(top) if rng.random() < 0.5 else tuple(bottom[1:n])
    return Skeleton(b.build(), "warren", {"panels": n, "panel": w, "height": h,
                                          "supports": sup}, joints)


def k_truss(rng: random.Random, level: int) -> Skeleton:
    """K panels pointing to the supports, one plain diagonal in the middle panel."""
    n = rng.choice([3, 5]) if level >= 3 else 3
    w, h = grid(rng, 2, 3), float(rng.choice([2, 3, 4]))
    b = ModelBuilder()
    bottom, _ = k_web(b, n, w, h)
    sup = truss_supports(b, rng, level, bottom[0], bottom[n], None)
    return Skeleton(b.build(), "k_truss", {"panels": n, "panel": w, "height": h,
                                           "supports": sup}, tuple(bottom[1:n]))


def k_web(b: ModelBuilder, n: int, w: float, h: float) -> tuple[list[str], list[str]]:
    """Chords, end posts and K webs of an ``n``-panel K-truss (n odd: the middle panel
    has one plain diagonal); returns the (bottom, top) chord points."""
    bottom = [b.point(i * w, 0) for i in range(n + 1)]
    top = [b.point(i * w, h) for i in range(n + 1)]
    mid = {i: b.point(i * w, h / 2) for i in range(1, n)}
    for i in range(n):
        b.bar(bottom[i], bottom[i + 1])
        b.bar(top[i], top[i + 1])
    for i in (0, n):
        b.bar(bottom[i], top[i])
    for i, m in mid.items():
        b.bar(bottom[i], m)
        b.bar(m, top[i])
    centre = n // 2
    for i in range(n):
        if i < centre:
            b.bar(mid[i + 1], top[i])
            b.bar(mid[i + 1], bottom[i])
        elif i > centre:
            b.bar(mid[i], top[i + 1])
            b.bar(mid[i], bottom[i + 1])
        else:
            b.bar(top[i], bottom[i + 1])
    return bottom, top


def roof(rng: random.Random, level: int) -> Skeleton:
    """Pitched roof truss: king post, Howe or Pratt web, or Fink (W) web."""
    kind = rng.choice(["king_post", "howe_roof", "pratt_roof", "fink"] if level >= 2
                      else ["king_post", "howe_roof"])
    b = ModelBuilder()
    if kind == "fink":
        span, height = float(rng.choice([6, 12])), float(rng.choice([2, 3, 4]))
        xb = [0, span / 3, 2 * span / 3, span]
        bottom = [b.point(x, 0) for x in xb]
        q1, apex, q3 = (b.point(span / 4, height / 2), b.point(span / 2, height),
                        b.point(3 * span / 4, height / 2))
        for p, q in itertools.pairwise(bottom):
            b.bar(p, q)
        for p, q in ((bottom[0], q1), (q1, apex), (apex, q3), (q3, bottom[3])):
            b.bar(p, q)
        for p, q in ((q1, bottom[1]), (bottom[1], apex), (apex, bottom[2]), (bottom[2], q3)):
            b.bar(p, q)
        sup = truss_supports(b, rng, level, bottom[0], bottom[3], None)
        return Skeleton(b.build(), "fink", {"span": span, "height": height, "supports": sup},
                        (q1, apex, q3))
    k = 1 if kind == "king_post" else _panels(rng, level, 2, 4)
    w, dy = grid(rng, 1.5, 3), grid(rng, 0.5, 1.5, whole=0.4)
    if kind == "king_post":
        dy = grid(rng, 1.5, 3)
    bottom = [b.point(i * w, 0) for i in range(2 * k + 1)]
    top = {i: b.point(i * w, dy * min(i, 2 * k - i)) for i in range(1, 2 * k)}
    chord = [bottom[0], *[top[i] for i in range(1, 2 * k)], bottom[2 * k]]
    for p, q in itertools.pairwise(bottom):
        b.bar(p, q)
    for p, q in itertools.pairwise(chord):
        b.bar(p, q)
    for i, t in top.items():
        b.bar(bottom[i], t)
    for i in range(1, 2 * k - 1):
        left = i < k
        rising = (kind == "howe_roof") == left
        if rising:
            b.bar(bottom[i], top[i + 1])
        else:
            b.bar(top[i], bottom[i + 1])
    sup = truss_supports(b, rng, level, bottom[0], bottom[2 * k], bottom[k] if level >= 4 else None)
    return Skeleton(b.build(), kind, {"half_panels": k, "panel": w, "rise_per_panel": dy,
                                      "supports": sup}, tuple(top.values()))


def bracket(rng: random.Random, level: int) -> Skeleton:
    """A wall-mounted cantilever truss on two pins, one above the other."""
    n = _panels(rng, level, 1, 4)
    w, h = grid(rng, 1.5, 2.5), grid(rng, 1.5, 3)
    sign = 1 if rng.random() < 0.6 else -1
    b = ModelBuilder()
    low = [b.point(sign * i * w, 0) for i in range(n + 1)]
    high = [b.point(sign * i * w, h) for i in range(n)]
    tip = low[n]
    for i in range(n):
        b.bar(low[i], low[i + 1])
        if i + 1 < n:
            b.bar(high[i], high[i + 1])
            b.bar(low[i + 1], high[i + 1])
            b.bar(high[i], low[i + 1])
    b.bar(high[n - 1], tip)
    upper = PIN if level >= 3 and rng.random() < 0.5 else ROLLER
    if upper is ROLLER:
        b.bar(low[0], high[0])  # the wall post closes the first triangle
    wall = 270.0 if sign > 0 else 90.0  # symbols drawn on the wall side
    b.support(low[0], PIN, wall)
    b.support(high[0], upper, wall)
    return Skeleton(b.build(), "bracket", {"panels": n, "panel": w, "height": h},
                    tuple(low[1:]) + tuple(high[1:]))


#: name → (template, weight at levels 1..5)
TRUSS_FAMILIES = {
    "triangle": (triangle, (5, 1, 0, 0, 0)),
    "bracket": (bracket, (2, 2, 1, 1, 0)),
    "roof": (roof, (2, 3, 3, 2, 2)),
    "pratt": (pratt, (1, 2, 3, 3, 3)),
    "howe": (howe, (1, 2, 3, 3, 3)),
    "warren": (warren, (1, 2, 3, 3, 3)),
    "k_truss": (k_truss, (0, 1, 2, 2, 3)),
}
