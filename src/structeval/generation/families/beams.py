"""Straight horizontal beams: the supports and releases a first course teaches.

A beam is a chain of links along y = 0 cut at every station a reader sees
(supports, hinges, ends, and points that carry loads); a Gerber hinge releases
the end of the link arriving from the left, one release per hinge.
"""

from __future__ import annotations

import random

from ...model.types import SupportKind
from ..builder import GRID, ModelBuilder
from .common import Skeleton, grid

Support = tuple[SupportKind, float]
PIN, ROLLER, FIXED = (SupportKind.PIN, 0.0), (SupportKind.ROLLER, 0.0), (SupportKind.FIXED, 0.0)
GUIDED = (SupportKind.SLIDER, 0.0)  # restrains x and rotation, free to slide vertically


def beam_line(supports: dict[float, Support], hinges: set[float], extra: set[float],
          family: str, params: dict[str, object]) -> Skeleton:
    b = ModelBuilder()
    xs = sorted(set(supports) | hinges | extra)
    ids = [b.point(x, 0.0) for x in xs]
    for i in range(len(xs) - 1):
        b.link(ids[i], ids[i + 1], hinge_b=xs[i + 1] in hinges)
    for x in sorted(supports):
        kind, angle = supports[x]
        b.support(ids[xs.index(x)], kind, angle)
    params = {**params, "hinges": sorted(hinges), "supports": {str(x): supports[x][0].value
                                                               for x in sorted(supports)}}
    return Skeleton(b.build(), family, params)


def extra_stations(rng: random.Random, length: float, taken: set[float], level: int,
                    ) -> set[float]:
    """Free points along the beam where loads may sit on a point (0–3 of them)."""
    free = [k * GRID for k in range(1, round(length / GRID))
            if all(abs(k * GRID - t) >= 1.0 - 1e-9 for t in taken)]
    count = min(len(free), rng.randint(0, max(0, min(level, 4))))
    return set(rng.sample(free, count))


def _single_span(rng: random.Random, level: int, family: str, lo: float, hi: float,
                 ends: tuple[Support, Support], swap: float = 0.4) -> Skeleton:
    """One span between two end supports (swapped left/right with probability ``swap``)."""
    length = grid(rng, lo, hi)
    left, right = ends if rng.random() >= swap else ends[::-1]
    supports = {0.0: left, length: right}
    return beam_line(supports, set(), extra_stations(rng, length, set(supports), level),
                 family, {"span": length})


def simply_supported(rng: random.Random, level: int) -> Skeleton:
    return _single_span(rng, level, "simply_supported", 3, 10, (PIN, ROLLER), swap=0.3)


def propped(rng: random.Random, level: int) -> Skeleton:
    return _single_span(rng, level, "propped_cantilever", 3, 9, (FIXED, ROLLER))


def fixed_fixed(rng: random.Random, level: int) -> Skeleton:
    return _single_span(rng, level, "fixed_fixed", 3, 9, (FIXED, FIXED), swap=0.0)


def guided(rng: random.Random, level: int) -> Skeleton:
    return _single_span(rng, level, "guided_end", 3, 8, (GUIDED, ROLLER), swap=0.5)


def cantilever(rng: random.Random, level: int) -> Skeleton:
    length = grid(rng, 1.5, 6)
    at = 0.0 if rng.random() < 0.6 else length
    supports = {at: FIXED}
    return beam_line(supports, set(), extra_stations(rng, length, {0.0, length}, level) | {
        0.0, length}, "cantilever", {"length": length, "fixed_at": at})


def overhanging(rng: random.Random, level: int) -> Skeleton:
    span = grid(rng, 3, 8)
    left = grid(rng, 1, 3) if rng.random() < 0.6 else 0.0
    right = grid(rng, 1, 3) if left == 0.0 or rng.random() < 0.5 else 0.0
    a, b = left, left + span
    supports = {a: PIN, b: ROLLER} if rng.random() < 0.6 else {a: ROLLER, b: PIN}
    total = b + right
    extra = extra_stations(rng, total, {0.0, a, b, total}, level) | {0.0, total}
    return beam_line(supports, set(), extra, "overhanging",
                 {"span": span, "overhang_left": left, "overhang_right": right})


def _spans(rng: random.Random, count: int) -> tuple[list[float], list[float]]:
    """(span lengths, support stations) of a multi-span beam; equal spans are common."""
    spans = [grid(rng, 3, 7)]
    for _ in range(count - 1):
        spans.append(spans[0] if rng.random() < 0.4 else grid(rng, 3, 7))
    xs = [0.0]
    for s in spans:
        xs.append(xs[-1] + s)
    return spans, xs


def continuous(rng: random.Random, level: int) -> Skeleton:
    spans, xs = _spans(rng, rng.randint(2, 2 + max(0, level - 2)))
    pin_at = rng.randrange(len(xs))
    supports = {x: PIN if i == pin_at else ROLLER for i, x in enumerate(xs)}
    if level >= 4 and rng.random() < 0.3:
        supports[xs[0]] = FIXED
    overhang = grid(rng, 1, 2.5) if rng.random() < 0.3 else 0.0
    extra = {xs[-1] + overhang} if overhang else set()
    extra |= extra_stations(rng, xs[-1], set(xs), level - 2)
    return beam_line(supports, set(), extra, "continuous", {"spans": spans, "overhang": overhang})


def gerber(rng: random.Random, level: int) -> Skeleton:
    """Multi-span beam made statically determinate (or less indeterminate) by hinges."""
    spans, xs = _spans(rng, rng.randint(2, 3 if level < 5 else 4))
    fixed_start = rng.random() < 0.35
    supports: dict[float, Support] = {x: ROLLER for x in xs}
    supports[xs[0]] = FIXED if fixed_start else PIN
    if fixed_start and rng.random() < 0.5:
        del supports[xs[-1]]  # a cantilevered last span carried by the hinge
    redundancy = sum({SupportKind.FIXED: 3, SupportKind.PIN: 2}.get(k, 1)
                     for k, _ in supports.values()) - 3
    wanted = redundancy if rng.random() < 0.75 else max(1, redundancy - 1)
    hinges: set[float] = set()
    candidates = [i for i in range(len(spans))]
    rng.shuffle(candidates)
    for span_index in candidates:
        if len(hinges) >= wanted:
            break
        a, b = xs[span_index], xs[span_index + 1]
        inner = [a + k * GRID for k in range(2, round((b - a) / GRID) - 1)]
        if inner:
            hinges.add(rng.choice(inner))
    extra = extra_stations(rng, xs[-1], set(xs) | hinges, level - 2)
    return beam_line(supports, hinges, extra, "gerber", {"spans": spans})


#: name → (template, weight at levels 1..5)
BEAM_FAMILIES = {
    "simply_supported": (simply_supported, (5, 3, 1, 0, 0)),
    "cantilever": (cantilever, (4, 2, 1, 0, 0)),
    "overhanging": (overhanging, (1, 3, 2, 1, 0)),
    "propped_cantilever": (propped, (0, 1, 2, 1, 1)),
    "fixed_fixed": (fixed_fixed, (0, 1, 1, 2, 1)),
    "guided_end": (guided, (0, 1, 1, 1, 0)),
    "continuous": (continuous, (0, 1, 2, 3, 3)),
    "gerber": (gerber, (0, 0, 2, 3, 4)),
}
