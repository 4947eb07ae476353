"""Scores of repeated runs (``run_eval.py --runs K``): per-task means, error bars, agreement,
pass@k and majority-of-K (:mod:`.passk`).

A task answered K times has one score: the mean of its K ratios. The headline
weighted accuracy is then Σ(difficulty × mean ratio) / Σ(difficulty), which
equals the mean of the K per-run weighted accuracies (every run has the same
tasks), and the bootstrap resamples *tasks*, each carrying its K answers, so
the interval covers the spread of task draws and of the model's sampling.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .passk import repeated_answers
from .resampling import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    CI_LEVEL,
    bootstrap_ci,
    stage_consistency,
    weighted_mean,
)

SCORED = "scored"


class TaskOutcome(Protocol):
    """One task in one run: the harness's TaskResult or a results.json row."""

    id: str
    category: str
    difficulty: int
    run: int
    status: str
    ratio: float
    stage: str | None
    first_attempt_ratio: float | None
    first_attempt_stage: str | None
    structure: str  # the structure shown ("" = the task is its own structure)
    presentation: Mapping[str, str]  # factor → value; empty in results older than factors


def first_ratio(r: TaskOutcome) -> float:
    """pass@1 credit; an unavailable task earns 0, like its final credit."""
    return float(r.first_attempt_ratio or 0.0) if r.status == SCORED else 0.0


@dataclass(frozen=True)
class TaskScores:
    """A task over all runs, in the order the runs are listed."""

    id: str
    category: str
    difficulty: int
    ratios: tuple[float, ...]
    first_ratios: tuple[float, ...]
    stages: tuple[str | None, ...]  # None where the task was unavailable
    first_stages: tuple[str | None, ...]
    structure: str = ""  # the structure the task shows (its own id when not recorded)
    presentation: Mapping[str, str] = field(default_factory=dict)  # factor → value

    @property
    def scored_in_every_run(self) -> bool:
        return all(stage is not None for stage in self.stages)

    @property
    def ratio(self) -> float:
        return sum(self.ratios) / len(self.ratios)

    @property
    def first_ratio(self) -> float:
        return sum(self.first_ratios) / len(self.first_ratios)


def per_task(rows: Iterable[TaskOutcome]) -> list[TaskScores]:
    """Group rows by task id (first-appearance order) with their runs in run order."""
    grouped: dict[str, list[TaskOutcome]] = {}
    for r in rows:
        grouped.setdefault(r.id, []).append(r)
    out = []
    for task_id, group in grouped.items():
        group = sorted(group, key=lambda r: r.run)
        scored = [r.status == SCORED for r in group]
        out.append(TaskScores(
            task_id, group[0].category, int(group[0].difficulty),
            tuple(float(r.ratio) for r in group), tuple(first_ratio(r) for r in group),
            tuple(r.stage if ok else None for r, ok in zip(group, scored, strict=True)),
            tuple(r.first_attempt_stage if ok else None
                  for r, ok in zip(group, scored, strict=True)),
            group[0].structure or task_id, dict(group[0].presentation)))
    return out


def _pct(value: float) -> float:
    return round(100.0 * value, 4)


def _run_row(run: int, rows: Sequence[TaskOutcome]) -> dict[str, Any]:
    weights = [r.difficulty for r in rows]
    return {"run": run,
            "weighted_accuracy": _pct(weighted_mean([r.ratio for r in rows], weights)),
            "avg_ratio": _pct(weighted_mean([r.ratio for r in rows])),
            "pass_at_1_weighted_accuracy": _pct(weighted_mean([first_ratio(r) for r in rows],
                                                              weights)),
            "unavailable": sum(r.status != SCORED for r in rows)}


def _interval_json(values: Sequence[float], weights: Sequence[int]) -> dict[str, float]:
    iv = bootstrap_ci(values, weights).scaled(100.0)
    return {"estimate": iv.estimate, "low": iv.low, "high": iv.high}


def run_statistics(rows: Sequence[TaskOutcome]) -> dict[str, Any]:
    """The ``summary.statistics`` object of results.json (see RUN_FORMAT.md)."""
    rows = list(rows)
    if not rows:
        return {"runs": 0, "tasks": 0}
    tasks = per_task(rows)
    runs = sorted({r.run for r in rows})
    weights = [t.difficulty for t in tasks]
    by_run = {run: {r.id: r for r in rows if r.run == run} for run in runs}
    return {
        "runs": len(runs),
        "tasks": len(tasks),
        "weighted_accuracy": _interval_json([t.ratio for t in tasks], weights),
        "pass_at_1_weighted_accuracy": _interval_json([t.first_ratio for t in tasks], weights),
        "bootstrap": {"resamples": BOOTSTRAP_RESAMPLES, "seed": BOOTSTRAP_SEED,
                      "level": CI_LEVEL, "unit": "task (with all its runs)",
                      "method": "percentile"},
        "per_run": [_run_row(run, list(by_run[run].values())) for run in runs],
        "stage_consistency": stage_consistency(
            [{i: (r.stage if r.status == SCORED else None) for i, r in by_run[run].items()}
             for run in runs]).to_json(),
        "pass_at_1_stage_consistency": stage_consistency(
            [{i: (r.first_attempt_stage if r.status == SCORED else None)
              for i, r in by_run[run].items()} for run in runs]).to_json(),
        **repeated_answers([t.first_ratios for t in tasks], weights),
    }


def format_statistics(statistics: dict[str, Any]) -> str:
    """Lines for the printed summary: the interval, the per-run scores, the agreement."""
    if not statistics.get("tasks"):
        return ""
    acc, first = statistics["weighted_accuracy"], statistics["pass_at_1_weighted_accuracy"]
    runs = statistics["runs"]
    lines = [f"Weighted accuracy {acc['estimate']:.2f}% (95% CI {acc['low']:.2f}–"
             f"{acc['high']:.2f}, task bootstrap, {statistics['bootstrap']['resamples']} "
             f"resamples); pass@1 {first['estimate']:.2f}% (95% CI {first['low']:.2f}–"
             f"{first['high']:.2f})"]
    if runs > 1:
        per_run = ", ".join(f"{r['weighted_accuracy']:.2f}%" for r in statistics["per_run"])
        lines.append(f"Runs: {runs} × {statistics['tasks']} tasks; weighted accuracy per run: "
                     f"{per_run}")
        sc = statistics["stage_consistency"]
        if sc["share"] is not None:
            lines.append(f"Stage consistency: {100.0 * sc['share']:.1f}% of {sc['tasks']} "
                         f"task(s) end at the same stage in every run")
        lines += _repeated_lines(statistics)
    return "\n".join(lines)


def _repeated_lines(statistics: dict[str, Any]) -> list[str]:
    """pass@k and majority-of-K, when results.json has them (runs before them do not)."""
    passk, majority = statistics.get("pass_at_k"), statistics.get("majority")
    if not passk or not majority:
        return []
    values = ", ".join(f"pass@{v['k']} {v['perfect']:.1f}%" for v in passk["values"])
    return [f"Perfect first answer in k of {passk['answers_per_task']} tries (unbiased "
            f"estimator, mean over tasks): {values}",
            f"Majority of {majority['answers_per_task']} (credit a strict majority of the "
            f"first answers reach): {majority['weighted_accuracy']:.2f}% weighted"]
