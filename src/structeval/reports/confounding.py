"""Which presentation deltas measure the same comparison (confounded factors), from the data.

A delta ``v − w`` of one factor compares, per structure, its tasks shown at
``v`` with those at ``w``. When the split never varies that factor alone (0
controlled pairs) and exactly the same task pairs are also the pairs of a
delta of another factor, the two numbers are one measurement under two names:
in the matched split, every drawing with exam dimensioning is also the one
with parametric values, so ``exam − full`` and ``parametric − numeric`` are
the same comparison and neither effect can be told apart. This module finds
such pairs wherever they occur, so every table and chart that shows a delta
can say so; nothing is hard-coded about which factors they are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..statistics.factors import task_factors
from ..statistics.runs import TaskScores

Pairs = frozenset[frozenset[str]]


@dataclass(frozen=True)
class Confounded:
    """Delta ``label`` of ``factor`` is the same comparison as ``other_label`` of
    ``other`` (``same_sign``: its v side is the other's v side)."""

    factor: str
    label: str
    other: str
    other_label: str
    same_sign: bool

    @property
    def sentence(self) -> str:
        sign = "" if self.same_sign else " with the opposite sign"
        return (f"confounded: {self.factor} {self.label} is the same comparison as "
                f"{self.other} {self.other_label}{sign} (the same task pairs, 0 controlled "
                "pairs): the two effects cannot be told apart in these tasks")


def _pairs(tasks: Sequence[TaskScores], modality: str | None, factor: str, value: str,
           reference: str) -> tuple[Pairs, frozenset[str]]:
    """(unordered task-id pairs {at v, at w} within a structure, the ids at v)."""
    by_structure: dict[str, list[tuple[str, dict[str, str]]]] = {}
    for t in tasks:
        if t.scored_in_every_run:
            by_structure.setdefault(t.structure or t.id, []).append(
                (t.id, task_factors(t, modality)))
    pairs: set[frozenset[str]] = set()
    at_v: set[str] = set()
    for shown in by_structure.values():
        vs = [i for i, f in shown if f.get(factor) == value]
        ws = [i for i, f in shown if f.get(factor) == reference]
        if vs and ws:
            at_v.update(vs)
            pairs.update(frozenset((x, y)) for x in vs for y in ws)
    return frozenset(pairs), frozenset(at_v)


Deltas = Mapping[str, Sequence[Mapping[str, Any]]]  # summary.presentation_deltas


def confounded_deltas(tasks: Sequence[TaskScores], deltas: Deltas,
                      modality: str | None = None) -> dict[tuple[str, str], Confounded]:
    """(factor, delta label) → its confounding, for every delta with 0 controlled pairs
    whose task pairs are exactly those of a delta of another factor."""
    candidates = []
    for factor, entries in deltas.items():
        for e in entries:
            if e.get("controlled_pairs"):
                continue
            pairs, at_v = _pairs(tasks, modality, factor, str(e["value"]), str(e["reference"]))
            if pairs:
                candidates.append((factor, str(e["label"]), pairs, at_v))
    out: dict[tuple[str, str], Confounded] = {}
    for factor, label, pairs, at_v in candidates:
        for other, other_label, other_pairs, other_v in candidates:
            if other != factor and pairs == other_pairs and (factor, label) not in out:
                out[(factor, label)] = Confounded(factor, label, other, other_label,
                                                  at_v == other_v)
    return out
