"""A Markdown leaderboard over finished runs, numbers recomputed from the task rows.

Recomputing (rather than copying each results.json summary) means every row is
computed the same way, old runs get error bars too, and a hand-edited summary
cannot put a model higher than its tasks justify.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from ..statistics.resampling import BOOTSTRAP_RESAMPLES, bootstrap_ci, weighted_mean
from ..statistics.runs import per_task
from .runfiles import RunResults


@dataclass(frozen=True)
class Entry:
    model: str
    prompt_type: str | None
    accuracy: float  # weighted, after repair, percent
    low: float
    high: float
    avg_ratio: float
    pass_at_1: float
    tasks: int
    runs: int
    date: str | None
    task_set: str  # short hash of (id, difficulty) pairs: equal hashes, same tasks


def task_set_digest(run: RunResults) -> str:
    digest = hashlib.sha256()
    for t in sorted(per_task(run.rows), key=lambda t: t.id):
        digest.update(f"{t.id}\0{t.difficulty}\n".encode())
    return digest.hexdigest()[:8]


def entry_of(run: RunResults) -> Entry:
    tasks = per_task(run.rows)
    weights = [t.difficulty for t in tasks]
    ci = bootstrap_ci([t.ratio for t in tasks], weights).scaled(100.0)
    return Entry(run.info.model, run.info.prompt_type, ci.estimate, ci.low, ci.high,
                 round(100.0 * weighted_mean([t.ratio for t in tasks]), 4),
                 round(100.0 * weighted_mean([t.first_ratio for t in tasks], weights), 4),
                 len(tasks), len(run.runs), run.info.date, task_set_digest(run))


def _cell(text: str) -> str:
    """Model names are user input: keep them from breaking the table or the Markdown."""
    out = " ".join(text.split())
    for ch in "\\|*_`[]<>":
        out = out.replace(ch, "\\" + ch)
    return out


def leaderboard(runs: Sequence[RunResults]) -> str:
    """Rows sorted by weighted accuracy (then model name); a note when task sets differ."""
    entries = sorted((entry_of(r) for r in runs), key=lambda e: (-e.accuracy, e.model))
    lines = ["| # | Model | Prompt | Weighted accuracy (95% CI) | Average ratio | pass@1 | "
             "After repair | Tasks | Runs | Date |",
             "|---:|---|---|---|---:|---:|---:|---:|---:|---|"]
    for rank, e in enumerate(entries, 1):
        lines.append(f"| {rank} | {_cell(e.model)} | {_cell(e.prompt_type or '–')} | "
                     f"{e.accuracy:.1f} ({e.low:.1f}–{e.high:.1f}) | {e.avg_ratio:.1f} | "
                     f"{e.pass_at_1:.1f} | {e.accuracy:.1f} | {e.tasks} | {e.runs} | "
                     f"{e.date or '–'} |")
    lines += ["", "Weighted accuracy weights each task by its difficulty (1–5); the interval is "
              f"a task-level bootstrap ({BOOTSTRAP_RESAMPLES:,} resamples, seeded). pass@1 is the "
              "first answer's credit, after repair the best credit over the repair rounds; "
              "percentages."]
    sets = sorted({e.task_set for e in entries})
    if len(sets) > 1:
        groups = "; ".join(f"{s}: " + ", ".join(_cell(e.model) for e in entries
                                                 if e.task_set == s) for s in sets)
        lines += ["", f"**Warning:** these runs used {len(sets)} different task sets, so their "
                  f"scores are not directly comparable ({groups})."]
    return "\n".join(lines) + "\n"
