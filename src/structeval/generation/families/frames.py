"""Plane frames: rigid corners, columns and beams, rafters, braces, internal hinges.

Every member a reader sees between two joints is one link, except that beams
may be cut at extra points where loads sit. Hinges are single link-end releases
at the joint the template names.
"""

from __future__ import annotations

import itertools
import random

from ...model.types import SupportKind
from ..builder import GRID, ModelBuilder
from .common import Skeleton, grid

PIN, ROLLER, FIXED = SupportKind.PIN, SupportKind.ROLLER, SupportKind.FIXED

#: support pairs (left base, right base) of two-legged frames; angle None = a slanted
#: roller, whose rolling surface makes one of SLANTS with the horizontal
BASES: dict[str, tuple[tuple[SupportKind, float | None], tuple[SupportKind, float | None]]] = {
    "pin_roller": ((PIN, 0.0), (ROLLER, 0.0)),
    "pin_slanted_roller": ((PIN, 0.0), (ROLLER, None)),
    "pin_pin": ((PIN, 0.0), (PIN, 0.0)),
    "fixed_fixed": ((FIXED, 0.0), (FIXED, 0.0)),
    "fixed_pin": ((FIXED, 0.0), (PIN, 0.0)),
    "fixed_roller": ((FIXED, 0.0), (ROLLER, 0.0)),
}
SLANTS = (30.0, 45.0, 60.0, 300.0, 315.0, 330.0)


def _pick_bases(rng: random.Random, level: int) -> str:
    easy = ["pin_roller", "pin_roller", "fixed_roller"]
    hard = ["pin_pin", "fixed_fixed", "fixed_pin", "fixed_roller", "pin_slanted_roller"]
    return rng.choice(easy if level <= 2 else hard if level >= 4 else easy + hard)


def _place_bases(b: ModelBuilder, rng: random.Random, bases: str, left: str, right: str,
                 ) -> None:
    for pid, (kind, angle) in zip((left, right), BASES[bases], strict=True):
        b.support(pid, kind, rng.choice(SLANTS) if angle is None else angle)


def _beam_between(b: ModelBuilder, x0: float, x1: float, y: float, cuts: set[float],
                  hinge_at: float | None = None) -> list[str]:
    """Links of a horizontal beam from x0 to x1, cut at ``cuts``; optional hinge point."""
    xs = sorted({x0, x1} | {c for c in cuts if x0 < c < x1}
                | ({hinge_at} if hinge_at is not None else set()))
    ids = [b.point(x, y) for x in xs]
    links = []
    for i in range(len(xs) - 1):
        links.append(b.link(ids[i], ids[i + 1], hinge_b=hinge_at is not None
                            and xs[i + 1] == hinge_at))
    return links


def _cuts(rng: random.Random, x0: float, x1: float, level: int) -> set[float]:
    inner = [x0 + k * GRID for k in range(2, round((x1 - x0) / GRID) - 1)]
    count = min(len(inner), rng.randint(0, 1 if level < 4 else 2))
    return set(rng.sample(inner, count))


def _mirror_x(rng: random.Random) -> int:
    return 1 if rng.random() < 0.6 else -1


def l_frame(rng: random.Random, level: int) -> Skeleton:
    height, arm = grid(rng, 2.5, 5), grid(rng, 2, 5)
    sign = _mirror_x(rng)
    variant = rng.choice(["fixed", "fixed", "pin_roller", "fixed_roller"][: 3 if level < 3 else 4])
    b = ModelBuilder()
    foot, corner = b.point(0, 0), b.point(0, height)
    b.link(foot, corner)
    _beam_between(b, min(0, sign * arm), max(0, sign * arm), height,
                  _cuts(rng, min(0, sign * arm), max(0, sign * arm), level))
    tip = b.point(sign * arm, height)
    if variant == "fixed":
        b.support(foot, FIXED)
    else:
        b.support(foot, FIXED if variant == "fixed_roller" else PIN)
        b.support(tip, ROLLER)
    return Skeleton(b.build(), "l_frame", {"height": height, "arm": arm, "variant": variant})


def portal(rng: random.Random, level: int) -> Skeleton:
    height, span = grid(rng, 3, 6), grid(rng, 4, 10)
    bases = _pick_bases(rng, level)
    three_hinged = level >= 2 and rng.random() < 0.3
    if three_hinged:
        bases = "pin_pin"
    b = ModelBuilder()
    f0, f1 = b.point(0, 0), b.point(span, 0)
    c0, c1 = b.point(0, height), b.point(span, height)
    b.link(f0, c0)
    b.link(f1, c1)
    hinge_x = None
    if three_hinged:
        inner = [k * GRID for k in range(2, round(span / GRID) - 1)]
        hinge_x = span / 2 if (span / 2) in inner and rng.random() < 0.7 else rng.choice(inner)
    _beam_between(b, 0, span, height, _cuts(rng, 0, span, level), hinge_x)
    overhang = grid(rng, 1, 2.5) if level >= 3 and rng.random() < 0.3 else 0.0
    if overhang:
        b.link(c1, b.point(span + overhang, height))
    _place_bases(b, rng, bases, f0, f1)
    params = {"height": height, "span": span, "bases": bases, "crown_hinge": hinge_x,
              "overhang": overhang}
    return Skeleton(b.build(), "three_hinged_portal" if three_hinged else "portal", params)


def gable(rng: random.Random, level: int) -> Skeleton:
    height, half, rise = grid(rng, 3, 5), grid(rng, 3, 6), grid(rng, 1, 3)
    three_hinged = rng.random() < 0.4
    bases = "pin_pin" if three_hinged else _pick_bases(rng, max(level, 3))
    b = ModelBuilder()
    f0, f1 = b.point(0, 0), b.point(2 * half, 0)
    e0, e1 = b.point(0, height), b.point(2 * half, height)
    ridge = b.point(half, height + rise)
    b.link(f0, e0)
    b.link(f1, e1)
    b.link(e0, ridge, hinge_b=three_hinged)
    b.link(e1, ridge)
    _place_bases(b, rng, bases, f0, f1)
    params = {"height": height, "span": 2 * half, "rise": rise, "bases": bases,
              "ridge_hinge": three_hinged}
    return Skeleton(b.build(), "three_hinged_gable" if three_hinged else "gable", params)


def multibay(rng: random.Random, level: int) -> Skeleton:
    bays = [grid(rng, 3, 7) for _ in range(rng.choice([2, 2, 3]))]
    height = grid(rng, 3, 5)
    xs = [0.0]
    for w in bays:
        xs.append(xs[-1] + w)
    base = rng.choice(["fixed", "pin", "pin_rollers"])
    hinged_bay = rng.randrange(len(bays)) if rng.random() < 0.35 else None
    b = ModelBuilder()
    for i, x in enumerate(xs):
        foot, top = b.point(x, 0), b.point(x, height)
        b.link(foot, top)
        kind = {"fixed": FIXED, "pin": PIN}.get(base, PIN if i == 0 else ROLLER)
        b.support(foot, kind)
    for i, w in enumerate(bays):
        hinge = xs[i] + w / 2 if hinged_bay == i and (w / 2) % GRID == 0 else None
        _beam_between(b, xs[i], xs[i + 1], height, _cuts(rng, xs[i], xs[i + 1], level - 1), hinge)
    return Skeleton(b.build(), "multi_bay", {"bays": bays, "height": height, "bases": base,
                                             "hinged_bay": hinged_bay})


def multistorey(rng: random.Random, level: int) -> Skeleton:
    storeys = rng.choice([2, 2, 3]) if level >= 4 else 2
    bays = [grid(rng, 3, 6) for _ in range(rng.choice([1, 1, 2]))]
    heights = [grid(rng, 3, 4) for _ in range(storeys)]
    xs = [0.0]
    for w in bays:
        xs.append(xs[-1] + w)
    ys = [0.0]
    for h in heights:
        ys.append(ys[-1] + h)
    b = ModelBuilder()
    base = rng.choice(["fixed", "fixed", "pin"])
    for x in xs:
        for y0, y1 in itertools.pairwise(ys):
            b.link(b.point(x, y0), b.point(x, y1))
        b.support(b.point(x, 0), FIXED if base == "fixed" else PIN)
    for y in ys[1:]:
        for i in range(len(bays)):
            _beam_between(b, xs[i], xs[i + 1], y, set())
    return Skeleton(b.build(), "multi_storey", {"bays": bays, "heights": heights, "bases": base})


def inclined_leg(rng: random.Random, level: int) -> Skeleton:
    height, span, lean = grid(rng, 3, 5), grid(rng, 4, 8), grid(rng, 1, 2)
    bases = _pick_bases(rng, level)
    b = ModelBuilder()
    f0, c0 = b.point(0, 0), b.point(0, height)
    f1, c1 = b.point(span + lean, 0), b.point(span, height)
    b.link(f0, c0)
    b.link(f1, c1)
    _beam_between(b, 0, span, height, _cuts(rng, 0, span, level))
    _place_bases(b, rng, bases, f0, f1)
    return Skeleton(b.build(), "inclined_leg",
                    {"height": height, "span": span, "lean": lean, "bases": bases})


def monopitch(rng: random.Random, level: int) -> Skeleton:
    low, extra, span = grid(rng, 3, 4.5), grid(rng, 1, 2.5), grid(rng, 4, 8)
    bases = _pick_bases(rng, level)
    b = ModelBuilder()
    f0, f1 = b.point(0, 0), b.point(span, 0)
    c0, c1 = b.point(0, low), b.point(span, low + extra)
    b.link(f0, c0)
    b.link(f1, c1)
    b.link(c0, c1)
    _place_bases(b, rng, bases, f0, f1)
    return Skeleton(b.build(), "monopitch",
                    {"low": low, "high": low + extra, "span": span, "bases": bases})


def knee_brace(rng: random.Random, level: int) -> Skeleton:
    """A fixed column carrying a cantilever arm propped by a pin-ended inclined strut."""
    height, arm = grid(rng, 3, 5), grid(rng, 2.5, 5)
    drop = grid(rng, 1, min(2.5, height - 1))
    reach = grid(rng, 1, arm - 0.5)
    sign = _mirror_x(rng)
    b = ModelBuilder()
    foot, knee, top = b.point(0, 0), b.point(0, height - drop), b.point(0, height)
    b.link(foot, knee)
    b.link(knee, top)
    x_end = sign * arm
    _beam_between(b, min(0, x_end), max(0, x_end), height, {sign * reach})
    b.bar(knee, b.point(sign * reach, height))
    base = FIXED if level < 3 or rng.random() < 0.5 else PIN
    b.support(foot, base)
    if base is PIN:
        b.support(b.point(x_end, height), ROLLER)
    return Skeleton(b.build(), "knee_brace",
                    {"height": height, "arm": arm, "brace_drop": drop, "brace_reach": reach})


def inclined_beam(rng: random.Random, level: int) -> Skeleton:
    """A sloping member (stair, ramp) on a pin and a roller."""
    run, rise = grid(rng, 3, 6), grid(rng, 1.5, 3)
    b = ModelBuilder()
    low, high = b.point(0, 0), b.point(run, rise)
    b.link(low, high)
    pin_low = rng.random() < 0.6
    b.support(low, PIN if pin_low else ROLLER)
    b.support(high, ROLLER if pin_low else PIN)
    return Skeleton(b.build(), "inclined_beam", {"run": run, "rise": rise})


#: name → (template, weight at levels 1..5)
FRAME_FAMILIES = {
    "l_frame": (l_frame, (5, 3, 1, 0, 0)),
    "inclined_beam": (inclined_beam, (2, 2, 1, 0, 0)),
    "portal": (portal, (2, 4, 3, 2, 1)),
    "knee_brace": (knee_brace, (0, 1, 1, 1, 0)),
    "gable": (gable, (0, 1, 2, 2, 2)),
    "inclined_leg": (inclined_leg, (0, 1, 1, 1, 1)),
    "monopitch": (monopitch, (0, 1, 1, 1, 1)),
    "multi_bay": (multibay, (0, 0, 1, 2, 2)),
    "multi_storey": (multistorey, (0, 0, 1, 2, 3)),
}
