"""Is model A better than model B on the same tasks? Paired differences, overall and by group.

Two runs are only comparable task by task: a difference measured on different
task sets mixes "which model" with "which tasks". So the comparison refuses
mismatched sets unless the caller explicitly asks for the intersection, and
it says which tasks were dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..statistics.resampling import (
    Interval,
    WilcoxonResult,
    paired_bootstrap_ci,
    weighted_mean,
    wilcoxon_signed_rank,
)
from ..statistics.runs import TaskScores, per_task
from .runfiles import ResultsError, RunResults, trace_fingerprints

_SHOWN_IDS = 8


class TaskSetMismatch(ResultsError):
    """The two runs were not made on the same tasks."""


@dataclass(frozen=True)
class GroupComparison:
    name: str
    tasks: int
    a_accuracy: float  # weighted accuracy, percent
    b_accuracy: float
    difference: Interval  # A − B, percentage points
    wilcoxon: WilcoxonResult  # on per-task score differences (difficulty × ratio)
    a_better: int  # tasks where A scored more
    ties: int
    b_better: int

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "tasks": self.tasks, "a_accuracy": self.a_accuracy,
                "b_accuracy": self.b_accuracy, "difference": self.difference.to_json(),
                "wilcoxon": self.wilcoxon.to_json(), "a_better": self.a_better,
                "ties": self.ties, "b_better": self.b_better}


@dataclass(frozen=True)
class Comparison:
    a: RunResults
    b: RunResults
    overall: GroupComparison
    by_category: list[GroupComparison]
    by_difficulty: list[GroupComparison]
    only_a: list[str]  # tasks dropped because only A has them (intersection mode)
    only_b: list[str]

    def to_json(self) -> dict[str, Any]:
        return {"a": {"path": str(self.a.results_path), "model": self.a.label,
                      "runs": len(self.a.runs)},
                "b": {"path": str(self.b.results_path), "model": self.b.label,
                      "runs": len(self.b.runs)},
                "overall": self.overall.to_json(),
                "by_category": [g.to_json() for g in self.by_category],
                "by_difficulty": [g.to_json() for g in self.by_difficulty],
                "only_a": self.only_a, "only_b": self.only_b}


def _listing(ids: list[str]) -> str:
    shown = ", ".join(ids[:_SHOWN_IDS])
    return shown + (f", … ({len(ids)} in all)" if len(ids) > _SHOWN_IDS else "")


def _paired_tasks(a: RunResults, b: RunResults, intersection: bool,
                  ) -> tuple[list[tuple[TaskScores, TaskScores]], list[str], list[str]]:
    ta = {t.id: t for t in per_task(a.rows)}
    tb = {t.id: t for t in per_task(b.rows)}
    only_a = [i for i in ta if i not in tb]
    only_b = [i for i in tb if i not in ta]
    if (only_a or only_b) and not intersection:
        lines = [f"the runs were made on different task sets ({len(ta)} tasks in A, "
                 f"{len(tb)} in B); refusing to compare them"]
        if only_a:
            lines.append(f"only in A ({a.results_path}): {_listing(only_a)}")
        if only_b:
            lines.append(f"only in B ({b.results_path}): {_listing(only_b)}")
        lines.append("pass --intersection to compare on the tasks both runs share")
        raise TaskSetMismatch("\n  ".join(lines))
    fa, fb = trace_fingerprints(a), trace_fingerprints(b)
    changed = [i for i in ta if i in tb
               and ((ta[i].difficulty, ta[i].category) != (tb[i].difficulty, tb[i].category)
                    or (i in fa and i in fb and fa[i] != fb[i]))]
    if changed:
        raise TaskSetMismatch(
            "the same task ids were asked differently in the two runs (another category, "
            "difficulty, ground truth, image or notes: the dataset changed between them): "
            f"{_listing(changed)}; such runs cannot be compared")
    pairs = [(ta[i], tb[i]) for i in ta if i in tb]
    if not pairs:
        raise TaskSetMismatch("the runs share no task: nothing to compare")
    return pairs, only_a, only_b


def _group(name: str, pairs: list[tuple[TaskScores, TaskScores]]) -> GroupComparison:
    weights = [x.difficulty for x, _ in pairs]
    ra = [x.ratio for x, _ in pairs]
    rb = [y.ratio for _, y in pairs]
    diff = paired_bootstrap_ci(ra, rb, weights).scaled(100.0)
    scores = [w * (p - q) for w, p, q in zip(weights, ra, rb, strict=True)]
    test = wilcoxon_signed_rank(scores)
    rounded = [round(s, 9) for s in scores]
    return GroupComparison(name, len(pairs), round(100.0 * weighted_mean(ra, weights), 4),
                           round(100.0 * weighted_mean(rb, weights), 4), diff, test,
                           sum(s > 0 for s in rounded), sum(s == 0 for s in rounded),
                           sum(s < 0 for s in rounded))


def _groups(pairs: list[tuple[TaskScores, TaskScores]], key: Callable[[TaskScores], Any],
            label: Callable[[Any], str]) -> list[GroupComparison]:
    grouped: dict[Any, list[tuple[TaskScores, TaskScores]]] = {}
    for pair in pairs:
        grouped.setdefault(key(pair[0]), []).append(pair)
    return [_group(label(k), grouped[k]) for k in sorted(grouped)]


def compare_runs(a: RunResults, b: RunResults, *, intersection: bool = False) -> Comparison:
    """Paired comparison of two runs; raises TaskSetMismatch when the task sets differ
    (unless ``intersection``) or disagree about a task."""
    pairs, only_a, only_b = _paired_tasks(a, b, intersection)
    return Comparison(a, b, _group("OVERALL", pairs),
                      _groups(pairs, lambda t: t.category, str),
                      _groups(pairs, lambda t: t.difficulty, lambda d: f"difficulty {d}"),
                      only_a, only_b)


def _p(p: float) -> str:
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


def format_comparison(c: Comparison) -> str:
    """The plain-text table tools/compare.py prints."""
    def runs(r: RunResults) -> str:
        k = len(r.runs)
        return f"{k} runs" if k > 1 else "1 run"

    lines = [f"A: {c.a.label} ({runs(c.a)})  {c.a.results_path}",
             f"B: {c.b.label} ({runs(c.b)})  {c.b.results_path}"]
    if c.only_a or c.only_b:
        lines.append(f"Intersection: {c.overall.tasks} shared task(s); dropped {len(c.only_a)} "
                     f"only in A, {len(c.only_b)} only in B")
    head = (f"{'Group':<14}{'Tasks':>6}{'A acc':>9}{'B acc':>9}{'A−B':>9}"
            f"{'95% CI':>20}{'Wilcoxon p':>12}{'A>B/=/B>A':>14}")
    lines += ["", head, "-" * len(head)]
    for g in [c.overall, *c.by_category, *c.by_difficulty]:
        ci = f"[{g.difference.low:+.2f}, {g.difference.high:+.2f}]"
        lines.append(f"{g.name:<14}{g.tasks:>6}{g.a_accuracy:>8.2f}%{g.b_accuracy:>8.2f}%"
                     f"{g.difference.estimate:>+9.2f}{ci:>20}{_p(g.wilcoxon.p_value):>12}"
                     f"{f'{g.a_better}/{g.ties}/{g.b_better}':>14}")
    o = c.overall
    lines += ["", "Accuracies are difficulty-weighted (%); A−B in percentage points with a paired "
              f"task bootstrap ({o.difference.resamples} resamples, seed {o.difference.seed}); "
              "Wilcoxon signed-rank (two-sided) on per-task score differences "
              f"({o.wilcoxon.method} for the overall row). Tasks answered in several runs "
              "count with their mean ratio."]
    return "\n".join(lines)
