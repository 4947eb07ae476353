"""The default selection of ``run_eval.py``: a benchmark set balanced over category × level.

Why a rule and not a list: the set must stay balanced and reproducible as the shipped
splits are re-drawn, and anyone must be able to recompute it. From the shipped
splits (:data:`SHIPPED_SPLITS`), tasks are taken in the order of a hash of their id
(sha256 of ``"benchmark|" + id``) while their (category, difficulty level) cell holds
fewer than :data:`PER_CELL`, at most one task per structure (a structure shown in
several presentations counts once, in whichever presentation hashes lowest). The
shipped data fills every cell, so the set has 3 × 5 × :data:`PER_CELL` tasks; a data
folder with none of the shipped splits (a user's own problems) has no benchmark set,
and its default selection is every task.

The drawing sheets (split ``sheets``, :mod:`.sheets`) are a challenge split, not a shipped
split of this set: one sheet image is 3,500-8,000 px and costs ten or more times the tokens
of a figure, so a run with the default selection keeps its cost and its meaning when the
sheets ship; ``--split sheets`` selects them and ``all`` includes them.

Selections by name, for ``--split`` and the loader: :data:`BENCHMARK` (this set, the
default of an evaluation), :data:`ALL` (every task; the default of ``--debug``), or
split names joined by commas.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Protocol

SHIPPED_SPLITS = ("core", "hard", "matched")
#: splits of their own that the benchmark set leaves out (``--split sheets`` selects them)
CHALLENGE_SPLITS = ("sheets",)
PER_CELL = 30
BENCHMARK = "benchmark"
ALL = "all"


class _Described(Protocol):
    id: str
    category: str
    difficulty: int
    split: str
    structure: str


def _rank(task_id: str) -> str:
    return hashlib.sha256(f"benchmark|{task_id}".encode()).hexdigest()


def benchmark_ids(tasks: Iterable[_Described], per_cell: int = PER_CELL) -> set[str]:
    """Ids of the benchmark set among ``tasks`` (all tasks of the data folder): empty when
    none of them belongs to a shipped split."""
    candidates = sorted((t for t in tasks if t.split in SHIPPED_SPLITS),
                        key=lambda t: _rank(t.id))
    filled: dict[tuple[str, int], int] = {}
    taken: set[str] = set()
    chosen: set[str] = set()
    for task in candidates:
        cell = (task.category, int(task.difficulty))
        structure = task.structure or task.id
        if filled.get(cell, 0) < per_cell and structure not in taken:
            filled[cell] = filled.get(cell, 0) + 1
            taken.add(structure)
            chosen.add(task.id)
    return chosen
