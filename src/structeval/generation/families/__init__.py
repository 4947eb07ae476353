"""Structure templates per category: the unloaded skeletons the generator draws from.

A template takes a random source and a *complexity* 1–5 (how large and how
feature-rich a draft is) and returns a :class:`Skeleton`. Complexity only biases the
choices; the difficulty a problem finally gets is always the documented rule's
(:mod:`structeval.dataset.difficulty`), so templates can stay simple.

Templates come in two pools: ``standard`` (the first-course structures of the v1
dataset) and ``hard`` (large and compound structures: building frames of 40+
members, long and compound trusses of 60+, Gerber beams of up to six spans); ``all``
is both. A family's weights are per complexity; :data:`LEVEL_COMPLEXITY` says which
complexity of each pool aims at which level under the rule (measured: a standard
template's richest drafts, complexity 5, score as level 3, and only the hard pool
reaches levels 4–5), and a family is *offered* at a level when its weight at that
complexity is not 0.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .beams import BEAM_FAMILIES
from .common import Skeleton, grid
from .frames import FRAME_FAMILIES
from .hard_beams import HARD_BEAM_FAMILIES
from .hard_frames import HARD_FRAME_FAMILIES
from .hard_trusses import HARD_TRUSS_FAMILIES
from .trusses import TRUSS_FAMILIES

Family = Callable[[random.Random, int], Skeleton]
Weights = tuple[int, int, int, int, int]
Table = dict[str, tuple[Family, Weights]]

#: category → {family name: (template, weight per level 1..5)}
FAMILIES: dict[str, Table] = {
    "beam": BEAM_FAMILIES,
    "frame": FRAME_FAMILIES,
    "truss": TRUSS_FAMILIES,
}
HARD_FAMILIES: dict[str, Table] = {
    "beam": HARD_BEAM_FAMILIES,
    "frame": HARD_FRAME_FAMILIES,
    "truss": HARD_TRUSS_FAMILIES,
}
#: "all" draws from both: a run over levels 1–5 takes the hard families where the
#: standard ones do not reach (level 5) and both at level 4
POOLS: dict[str, dict[str, Table]] = {
    "standard": FAMILIES,
    "hard": HARD_FAMILIES,
    "all": {c: {**FAMILIES[c], **HARD_FAMILIES[c]} for c in FAMILIES},
}


@dataclass(frozen=True)
class FamilyInfo:
    """What ``tools/synthesize.py --list-families`` prints about one template."""

    name: str
    category: str
    pool: str
    levels: tuple[int, ...]  # levels with a non-zero weight
    summary: str  # first line of the template's docstring (or its name)


#: pool → {target level: template complexity} under the default presentation
LEVEL_COMPLEXITY: dict[str, dict[int, int]] = {
    "standard": {1: 1, 2: 3, 3: 5},
    "hard": {4: 4, 5: 5},
}


#: the simplest complexity aiming may fall back to, per pool: a hard family stays hard
MIN_COMPLEXITY: dict[str, int] = {"standard": 1, "hard": 3}


def pool_of(name: str) -> str:
    """The pool a family belongs to (names are unique across pools)."""
    return next(pool for pool in ("standard", "hard")
                if any(name in table for table in POOLS[pool].values()))


def weight_at(name: str, weights: Weights, level: int) -> tuple[int, int]:
    """(weight, complexity) of a family when the generator aims at ``level``."""
    complexity = LEVEL_COMPLEXITY[pool_of(name)].get(level)
    return (weights[complexity - 1], complexity) if complexity else (0, 0)


def catalogue() -> list[FamilyInfo]:
    """Every family of every pool, by pool, category and name."""
    out = []
    for pool, tables in POOLS.items():
        if pool == "all":
            continue
        for category, table in tables.items():
            for name in sorted(table):
                template, weights = table[name]
                out.append(FamilyInfo(name, category, pool,
                                      tuple(lv for lv in range(1, 6)
                                            if weight_at(name, weights, lv)[0]),
                                      _summary(template, name)))
    return out


def _summary(template: Family, name: str) -> str:
    """The first sentence of the template's docstring, or its name in words."""
    paragraph = " ".join((template.__doc__ or "").strip().split("\n\n")[0].split())
    first = paragraph.split(". ")[0].rstrip(".")
    return first or name.replace("_", " ")


def family_names() -> dict[str, FamilyInfo]:
    return {info.name: info for info in catalogue()}


def table_for(category: str, pool: str, names: Iterable[str] = ()) -> Table:
    """The templates of ``category`` the generator may draw: a pool's, or only ``names``
    (from any pool) when given."""
    wanted = set(names)
    if not wanted:
        return POOLS[pool][category]
    return {n: entry for n, entry in POOLS["all"][category].items() if n in wanted}


def offered_levels(table: Table) -> tuple[int, ...]:
    return tuple(lv for lv in range(1, 6)
                 if any(weight_at(n, w, lv)[0] for n, (_, w) in table.items()))


def pick_family(category: str, level: int, rng: random.Random, *, pool: str = "standard",
                names: Iterable[str] = ()) -> tuple[str, Family, int]:
    """(name, template, complexity) for ``category``, drawn with the weights the families
    have at the complexity that aims at ``level``."""
    table = table_for(category, pool, names)
    ordered = sorted(table)
    picks = [weight_at(name, table[name][1], level) for name in ordered]
    name = rng.choices(ordered, weights=[w for w, _ in picks])[0]
    return name, table[name][0], picks[ordered.index(name)][1]


__all__ = ["FAMILIES", "HARD_FAMILIES", "LEVEL_COMPLEXITY", "MIN_COMPLEXITY", "POOLS",
           "Family", "FamilyInfo", "Skeleton", "catalogue", "family_names", "grid",
           "offered_levels", "pick_family", "pool_of", "table_for", "weight_at"]
