"""Label placement: try candidate positions, keep the first that touches nothing drawn.

A label that is near its anchor but covers a member is worse than one a little
further away, so candidates go ring by ring outwards, and within a ring in the
order of the caller's preferred direction (usually the free side of a joint or
the tail side of an arrow).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable

from ..scene.fonts import text_size
from ..scene.glyphs import Anchor
from ..scene.scene import Scene
from ..scene.shapes import XY, Rect

CLEARANCE = 3.0  # px kept free around every label
RADII = (3.0, 7.0, 12.0, 18.0, 26.0, 36.0, 48.0, 62.0, 80.0, 100.0, 125.0)
DIRECTIONS = 24


def rect_towards(anchor: XY, d: XY, gap: float, w: float, h: float) -> Rect:
    """The w×h box whose nearest edge is ``gap`` px from ``anchor`` in direction d."""
    reach = abs(d[0]) * w / 2 + abs(d[1]) * h / 2
    cx, cy = anchor[0] + d[0] * (gap + reach), anchor[1] + d[1] * (gap + reach)
    return (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)


def ring_candidates(anchor: XY, w: float, h: float, prefer: XY | None,
                    radii: Iterable[float] = RADII) -> list[Rect]:
    base = math.atan2(prefer[1], prefer[0]) if prefer else -math.pi / 4
    steps = sorted(range(DIRECTIONS), key=lambda i: (min(i, DIRECTIONS - i), i))
    out = []
    for r in radii:
        for i in steps:
            a = base + 2 * math.pi * i / DIRECTIONS
            out.append(rect_towards(anchor, (math.cos(a), math.sin(a)), r, w, h))
    return out


def place_label(scene: Scene, text: str, size: float, owner: str, owner_type: str, role: str,
                *, anchor: XY | None = None, prefer: XY | None = None,
                candidates: list[Rect] | None = None, colour_role: str = "text",
                radii: Iterable[float] = RADII, at: Anchor | None = None,
                accept: Callable[[Rect], bool] | None = None, also: tuple[XY, ...] = ()) -> int:
    """Place ``text`` at the first free candidate that ``accept`` (if given) agrees to, or
    else the least-crowded one, and draw it."""
    w, h = text_size(text, size)
    if candidates is None:
        assert anchor is not None
        rings = [ring_candidates(p, w, h, prefer, radii) for p in (anchor, *also)]
        candidates = [r for ring in itertools.zip_longest(*[_chunks(c) for c in rings])
                      for chunk in ring if chunk for r in chunk]
    else:
        candidates = [(r[0], r[1], r[0] + w, r[1] + h) for r in candidates]
    obstacles = scene.layout.obstacles
    best: Rect | None = None
    best_score: tuple[float, int] = (math.inf, 1)
    for rect in candidates:
        hits = len(obstacles.hits(rect, CLEARANCE))
        if hits >= best_score[0]:
            continue
        refused = 0 if accept is None or accept(rect) else 1
        score = (hits + 0.5 * refused, refused)
        if score < best_score:
            best, best_score = rect, score
        if score == (0, 0):
            break
    assert best is not None
    return scene.add_text(owner, owner_type, role, text, size, best, colour_role, at)


def _chunks(candidates: list[Rect]) -> list[list[Rect]]:
    """Candidates ring by ring (DIRECTIONS per ring)."""
    return [candidates[i:i + DIRECTIONS] for i in range(0, len(candidates), DIRECTIONS)]


def free_direction(occupied: list[XY], default: XY = (0.7071, -0.7071)) -> XY:
    """Unit vector bisecting the widest angular gap between the occupied directions."""
    if not occupied:
        return default
    angles = sorted(math.atan2(d[1], d[0]) for d in occupied)
    gaps = []
    for i, a in enumerate(angles):
        b = angles[(i + 1) % len(angles)] + (2 * math.pi if i == len(angles) - 1 else 0.0)
        mid = (a + b) / 2
        # ties go to the upper side, where a reader looks for a joint's name
        gaps.append((round(b - a, 6), -math.sin(mid), mid))
    mid = max(gaps)[2]
    return (math.cos(mid), math.sin(mid))
