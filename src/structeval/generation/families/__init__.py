"""Structure templates per category: the unloaded skeletons the generator draws from.

A template takes a random source and a complexity level (the target difficulty,
1–5) and returns a :class:`Skeleton`. The level only biases the choices; the
difficulty a problem finally gets is always the documented rule's
(:mod:`structeval.dataset.difficulty`), so templates can stay simple.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from .beams import BEAM_FAMILIES
from .common import Skeleton, grid
from .frames import FRAME_FAMILIES
from .trusses import TRUSS_FAMILIES

Family = Callable[[random.Random, int], Skeleton]

#: category → {family name: (template, weight per level 1..5)}
FAMILIES: dict[str, dict[str, tuple[Family, tuple[int, int, int, int, int]]]] = {
    "beam": BEAM_FAMILIES,
    "frame": FRAME_FAMILIES,
    "truss": TRUSS_FAMILIES,
}


def pick_family(category: str, level: int, rng: random.Random) -> tuple[str, Family]:
    """A template for ``category``, drawn with the weights the table gives ``level``."""
    table = FAMILIES[category]
    names = sorted(table)
    weights = [table[name][1][level - 1] for name in names]
    name = rng.choices(names, weights=weights)[0]
    return name, table[name][0]


__all__ = ["FAMILIES", "Family", "Skeleton", "grid", "pick_family"]
