"""Long Gerber beams: 3–6 spans whose hinges make them determinate, or less indeterminate.

A Gerber (hinged cantilever) beam is how a continuous girder is made insensitive to
settlement: each hinge removes one redundancy. Hinges sit 1 m or more from every
support and from each other, on the grid, and their number is the beam's degree of
indeterminacy without them (determinate) or one or two fewer (still indeterminate);
the hinge pattern is drawn at random and the solver throws out the ones that make a
mechanism. Spans are often equal, as in real girders, and the whole beam stays within
about 32 m so that a 2,000 px drawing keeps a 0.5 m step legible.
"""

from __future__ import annotations

import random
from dataclasses import replace

from ...model.types import SupportKind
from ..builder import GRID
from .beams import FIXED, PIN, ROLLER, Support, beam_line, extra_stations
from .common import Skeleton, grid

MAX_LENGTH = 32.0  # m, supports to overhang tips

#: spans per level (levels 1-2 use the smallest window: the family is hard by nature)
SPAN_WINDOWS = {1: (3, 3), 2: (3, 4), 3: (3, 4), 4: (4, 5), 5: (5, 6)}
LOADS = {1: (3, 4), 2: (4, 5), 3: (4, 6), 4: (5, 8), 5: (6, 10)}


def _span_lengths(rng: random.Random, count: int) -> list[float]:
    """Equal spans half of the time, else a repeated base span with a few different ones."""
    hi = min(7.0, MAX_LENGTH / count)
    base = grid(rng, 3, hi)
    if rng.random() < 0.5:
        return [base] * count
    return [base if rng.random() < 0.5 else grid(rng, 3, hi) for _ in range(count)]


def _hinge_places(rng: random.Random, a: float, b: float, count: int) -> list[float]:
    """``count`` grid places inside the span (a, b), ≥ 1 m from its ends and each other;
    near the supports (a fifth to a quarter of the span) as girders have them."""
    inner = [a + k * GRID for k in range(2, round((b - a) / GRID) - 1)]
    if count == 1:
        near = [x for x in inner if min(x - a, b - x) <= 0.3 * (b - a)] or inner
        return [rng.choice(near)]
    pairs = [(x, y) for x in inner for y in inner if y - x >= 1.0 - 1e-9]
    if not pairs:
        return []
    return list(rng.choice(pairs))


def gerber_long(rng: random.Random, level: int) -> Skeleton:
    """Gerber beam of up to six spans, often equal, with overhangs and a fixed or pinned
    end."""
    lo, hi = SPAN_WINDOWS[level]
    count = rng.randint(lo, hi)
    spans = _span_lengths(rng, count)
    xs = [0.0]
    for s in spans:
        xs.append(xs[-1] + s)
    left = grid(rng, 1, 2.5) if rng.random() < 0.3 else 0.0
    right = grid(rng, 1, 2.5) if rng.random() < 0.3 else 0.0
    while left + xs[-1] + right > MAX_LENGTH and (left or right):
        left, right = (0.0, right) if left else (left, 0.0)
    xs = [x + left for x in xs]
    supports: dict[float, Support] = {x: ROLLER for x in xs}
    fixed_start = rng.random() < 0.3
    end = rng.randrange(2) if not fixed_start else 0
    supports[xs[-1] if end else xs[0]] = FIXED if fixed_start else PIN
    if fixed_start and not right and rng.random() < 0.4:
        del supports[xs[-1]]  # the last span hangs on its hinge
    restraint = sum({SupportKind.FIXED: 3, SupportKind.PIN: 2}.get(k, 1)
                    for k, _ in supports.values()) - 3
    slack = rng.choices((0, 1, 2), weights=(6, 3, 1))[0] if level >= 4 else 0
    wanted = max(1, restraint - slack)
    per_span = [0] * count
    while sum(per_span) < wanted:
        free = [i for i in range(count) if per_span[i] < 2]
        if not free:
            break
        per_span[rng.choice(free)] += 1
    hinges: set[float] = set()
    for i, k in enumerate(per_span):
        if k:
            hinges.update(_hinge_places(rng, xs[i], xs[i + 1], k))
    total = xs[-1] + right
    ends = {0.0, total}
    extra = extra_stations(rng, total, set(xs) | hinges | ends, level - 1) | ends
    skeleton = beam_line(supports, hinges, extra, "gerber_long", {
        "spans": spans, "overhang_left": left, "overhang_right": right,
        "hinges_per_span": per_span})
    return replace(skeleton, load_count=LOADS[level])


#: name → (template, weight at levels 1..5)
HARD_BEAM_FAMILIES = {
    "gerber_long": (gerber_long, (0, 0, 0, 1, 1)),
}
