"""The accuracy row of a group of tasks: by category, by difficulty, by factor value.

One definition for every grouping, so that ``by_category``, ``by_difficulty`` and
``by_factor`` in results.json can be added up and compared with each other: the
same denominators (an unavailable task keeps its difficulty in ``max_score`` and
counts 0), the same rounding, the same field names.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .runs import SCORED, TaskOutcome, first_ratio


def percent(numerator: float, denominator: float) -> float:
    """numerator / denominator in percent, rounded for storage; 0 for an empty group."""
    return round(100.0 * numerator / denominator, 4) if denominator else 0.0


def group_row(rows: Sequence[TaskOutcome]) -> dict[str, Any]:
    """Tasks, unavailable, score, max score, accuracy (weighted, %), pass@1 accuracy and
    average ratio (%) of a group (with ``--runs K`` the rows of every run: counts add up,
    percentages are the means over runs)."""
    score = sum(r.ratio * r.difficulty for r in rows)
    max_score = sum(r.difficulty for r in rows)
    return {"tasks": len(rows), "unavailable": sum(r.status != SCORED for r in rows),
            "score": round(score, 6), "max_score": max_score,
            "accuracy": percent(score, max_score),
            "pass_at_1_accuracy": percent(sum(first_ratio(r) * r.difficulty for r in rows),
                                          max_score),
            "avg_ratio": percent(sum(r.ratio for r in rows), len(rows))}
