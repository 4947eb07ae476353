"""Which templates a generator run draws from, which (category, level) each problem gets,
and the problem ids that keep runs with different selections apart.

A selection is data (it goes into every problem's provenance), so any problem can be
regenerated from its file alone.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..dataset.difficulty import level_of
from ..dataset.errors import DatasetError
from ..dataset.paths import CATEGORIES
from .families import POOLS, family_names, offered_levels, table_for

MAX_TAG = 48


@dataclass(frozen=True)
class Selection:
    """``pool``: "standard" or "hard"; ``families``: only these templates (from any pool;
    the pool is then ignored); ``min_members``: refuse drafts with fewer links."""

    pool: str = "standard"
    families: tuple[str, ...] = ()
    min_members: int = 0

    def __post_init__(self) -> None:
        if self.pool not in POOLS:
            raise DatasetError(f"unknown family pool {self.pool!r}; choose one of "
                               f"{', '.join(POOLS)}")
        known = family_names()
        unknown = [n for n in self.families if n not in known]
        if unknown:
            raise DatasetError(f"unknown famil{'y' if len(unknown) == 1 else 'ies'} "
                               f"{', '.join(unknown)}; `tools/synthesize.py --list-families` "
                               "lists them")
        object.__setattr__(self, "families", tuple(sorted(set(self.families))))
        if self.min_members < 0:
            raise DatasetError("min_members must be 0 or more")

    @property
    def categories(self) -> tuple[str, ...]:
        """Categories the selection can draw (all, or those of the named families)."""
        if not self.families:
            return CATEGORIES
        known = family_names()
        return tuple(c for c in CATEGORIES if any(known[n].category == c for n in self.families))

    def levels(self, category: str) -> tuple[int, ...]:
        return offered_levels(table_for(category, self.pool, self.families))

    def tag(self) -> str:
        """The id infix of this selection ("" for the default one): "hard", the family
        names, and "min<N>", so runs with different selections never share an id."""
        parts = []
        if self.families:
            parts.append(".".join(self.families))
        elif self.pool != "standard":
            parts.append(self.pool)
        if self.min_members:
            parts.append(f"min{self.min_members}")
        tag = "-".join(parts)
        if len(tag) > MAX_TAG:
            tag = "sel" + hashlib.sha256(tag.encode()).hexdigest()[:10]
        return tag

    def to_provenance(self) -> dict[str, Any]:
        out: dict[str, Any] = {"pool": self.pool}
        if self.families:
            out["families"] = list(self.families)
        if self.min_members:
            out["min_members"] = self.min_members
        return out

    @classmethod
    def from_provenance(cls, provenance: Mapping[str, Any]) -> Selection:
        return cls(str(provenance.get("pool", "standard")),
                   tuple(provenance.get("families", ())),
                   int(provenance.get("min_members", 0)))


STANDARD = Selection()
HARD = Selection("hard")


def plan(count: int, category: str | None = None, difficulty_level: int | None = None,
         selection: Selection = STANDARD, *, least_score: int = 0) -> list[tuple[str, int]]:
    """(category, level) of each problem: unset choices cycle over what the selection
    offers, so any run is balanced per category over its levels.

    ``least_score``: points every task gets from its presentation; levels whose scores
    lie below it cannot be reached and are left out (refused when asked for).
    """
    lowest = level_of(least_score)
    if difficulty_level is not None and difficulty_level < lowest:
        raise DatasetError(f"difficulty {difficulty_level} cannot be reached in this "
                           f"presentation: its factors alone score {least_score} points, "
                           f"level {lowest} or more")
    cats = selection.categories
    if category is not None:
        if category not in cats:
            raise DatasetError(f"the selected families have no {category} template "
                               f"(they cover {', '.join(cats)})")
        cats = (category,)
    offered = {c: tuple(lv for lv in selection.levels(c) if lv >= lowest) for c in cats}
    if difficulty_level is not None:
        missing = [c for c in cats if difficulty_level not in offered[c]]
        if missing:
            spans = "; ".join(f"{c}: {_levels_text(offered[c])}" for c in missing)
            raise DatasetError(f"no selected {'/'.join(missing)} template is offered at "
                               f"difficulty {difficulty_level} ({spans})")
        offered = {c: (difficulty_level,) for c in cats}
    levels = sorted({lv for lvs in offered.values() for lv in lvs})
    combos = [(c, lv) for lv in levels for c in cats if lv in offered[c]]
    if not combos:
        raise DatasetError(f"the selection offers no template at level {lowest} or more, the "
                           "least this presentation allows")
    return [combos[i % len(combos)] for i in range(count)]


def _levels_text(levels: tuple[int, ...]) -> str:
    return f"levels {', '.join(map(str, levels))}" if levels else "no level"


def problem_id(category: str, seed: int, index: int, tag: str = "") -> str:
    infix = f"{tag}-" if tag else ""
    return f"{category}-{infix}s{seed}-{index:04d}"
