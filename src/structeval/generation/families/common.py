"""What every template returns, and the textbook-number helpers they share."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from ...model.types import Model
from ..builder import GRID


@dataclass(frozen=True)
class Skeleton:
    """An unloaded structure plus what the load placer needs to know about it.

    ``joints``: points where loads belong (truss panel points); empty means any
    free point. ``params``: the template's choices, kept for provenance.
    ``load_count``: (min, max) loads to place; None leaves it to the level (large
    structures ask for more, as a real problem on them would carry).
    """

    model: Model
    family: str
    params: dict[str, Any] = field(default_factory=dict)
    joints: tuple[str, ...] = ()
    load_count: tuple[int, int] | None = None


def grid(rng: random.Random, lo: float, hi: float, *, whole: float = 0.6) -> float:
    """A length in [lo, hi] on the 0.5 m grid; whole metres with probability ``whole``."""
    steps = [k * GRID for k in range(round(lo / GRID), round(hi / GRID) + 1)]
    wholes = [v for v in steps if float(v).is_integer()]
    if wholes and rng.random() < whole:
        return rng.choice(wholes)
    return rng.choice(steps)
