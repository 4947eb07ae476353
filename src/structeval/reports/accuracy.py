"""Accuracy of groups of tasks with 95 % intervals: for the charts, the tables and the exports.

One home for "the weighted accuracy of these tasks and its interval", so that a
bar's whisker, a table cell and a CSV row of the same group are the same
numbers. The intervals are the task bootstrap of ``statistics.resampling``
with its fixed seed (deterministic) but fewer resamples than the headline
(``GROUP_RESAMPLES``): a page holds dozens of groups, and 2,000 resamples put
a 95 % bound within about ±0.3 points of 10,000's at a fifth of the time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..statistics.resampling import Interval, bootstrap_ci
from ..statistics.runs import TaskScores

GROUP_RESAMPLES = 2_000
MEMBER_BINS = ((1, 1), (2, 2), (3, 4), (5, 8), (9, 16), (17, None))
LOAD_BINS = ((1, 1), (2, 2), (3, 3), (4, 5), (6, None))


@dataclass(frozen=True)
class GroupAccuracy:
    """A group's weighted accuracy at the first attempt and after repair, in percent."""

    name: str
    tasks: int
    max_score: int
    pass_at_1: Interval
    after_repair: Interval

    def to_row(self) -> dict[str, Any]:
        return {"group": self.name, "tasks": self.tasks, "max_score": self.max_score,
                **{f"{key}_{part}": round(getattr(iv, part), 2)
                   for key, iv in (("pass_at_1", self.pass_at_1),
                                   ("after_repair", self.after_repair))
                   for part in ("estimate", "low", "high")}}


def group_accuracy(name: str, tasks: Sequence[TaskScores]) -> GroupAccuracy:
    weights = [t.difficulty for t in tasks]

    def interval(values: list[float]) -> Interval:
        return bootstrap_ci(values, weights, resamples=GROUP_RESAMPLES).scaled(100.0)

    return GroupAccuracy(name, len(tasks), sum(weights),
                         interval([t.first_ratio for t in tasks]),
                         interval([t.ratio for t in tasks]))


def grouped(tasks: Sequence[TaskScores], key: Callable[[TaskScores], Any],
            label: Callable[[Any], str] = str) -> list[GroupAccuracy]:
    """One group per key value, in key order (keys that are None are left out)."""
    groups: dict[Any, list[TaskScores]] = {}
    for t in tasks:
        k = key(t)
        if k is not None:
            groups.setdefault(k, []).append(t)
    return [group_accuracy(label(k), groups[k]) for k in sorted(groups)]


def bin_label(bins: Sequence[tuple[int, int | None]], index: int) -> str:
    low, high = bins[index]
    return f"{low}+" if high is None else (str(low) if low == high else f"{low}–{high}")


def bin_of(bins: Sequence[tuple[int, int | None]], count: int) -> int | None:
    for k, (low, high) in enumerate(bins):
        if count >= low and (high is None or count <= high):
            return k
    return None


def by_size(tasks: Sequence[TaskScores], counts: Mapping[str, int],
            bins: Sequence[tuple[int, int | None]]) -> list[GroupAccuracy]:
    """Accuracy per size bin (``counts``: task id → members or loads of its ground truth;
    tasks whose ground truth is unknown are left out)."""
    return grouped(tasks, lambda t: bin_of(bins, counts[t.id]) if t.id in counts else None,
                   lambda k: bin_label(bins, k))
