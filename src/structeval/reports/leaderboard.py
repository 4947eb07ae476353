"""A Markdown leaderboard over finished runs, numbers recomputed from the task rows.

Recomputing (rather than copying each results.json summary) means every row is
computed the same way, old runs get error bars too, and a hand-edited summary
cannot put a model higher than its tasks justify.

Runs are ranked by pass@1 weighted accuracy — the first answer's credit, the
benchmark's headline — with after-repair accuracy beside it: a repair round after
a located fault can turn a binary misreading (a couple's sense, a roller's
direction) into a coin flip the feedback settles, so after-repair numbers measure
the feedback as much as the reading.
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
    pass_at_1: float  # weighted, first attempt, percent: the headline
    pass_low: float
    pass_high: float
    accuracy: float  # weighted, after repair, percent
    low: float
    high: float
    avg_ratio: float
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
    first = bootstrap_ci([t.first_ratio for t in tasks], weights).scaled(100.0)
    return Entry(run.info.model, run.info.prompt_type, first.estimate, first.low, first.high,
                 ci.estimate, ci.low, ci.high,
                 round(100.0 * weighted_mean([t.ratio for t in tasks]), 4),
                 len(tasks), len(run.runs), run.info.date, task_set_digest(run))


def _cell(text: str) -> str:
    """Model names are user input: keep them from breaking the table or the Markdown."""
    out = " ".join(text.split())
    for ch in "\\|*_`[]<>":
        out = out.replace(ch, "\\" + ch)
    return out


def leaderboard(runs: Sequence[RunResults]) -> str:
    """Rows sorted by pass@1 weighted accuracy (then after repair, then model name); a note
    when task sets differ."""
    entries = sorted((entry_of(r) for r in runs),
                     key=lambda e: (-e.pass_at_1, -e.accuracy, e.model))
    lines = ["| # | Model | Prompt | pass@1 weighted accuracy (95% CI) | After repair (95% CI) "
             "| Average ratio | Tasks | Runs | Date |",
             "|---:|---|---|---|---|---:|---:|---:|---|"]
    for rank, e in enumerate(entries, 1):
        lines.append(f"| {rank} | {_cell(e.model)} | {_cell(e.prompt_type or '–')} | "
                     f"{e.pass_at_1:.1f} ({e.pass_low:.1f}–{e.pass_high:.1f}) | "
                     f"{e.accuracy:.1f} ({e.low:.1f}–{e.high:.1f}) | {e.avg_ratio:.1f} | "
                     f"{e.tasks} | {e.runs} | {e.date or '–'} |")
    lines += ["", "Ranked by pass@1 weighted accuracy: the first answer's credit, each task "
              "weighted by its difficulty (1–5). After repair is the best credit over the repair "
              "rounds, in which the diagnosis is fed back (it can settle a binary misreading "
              "such as a couple's sense), so it is shown beside the headline, not instead of "
              f"it. Intervals: task-level bootstrap ({BOOTSTRAP_RESAMPLES:,} resamples, seeded); "
              "percentages."]
    sets = sorted({e.task_set for e in entries})
    if len(sets) > 1:
        groups = "; ".join(f"{s}: " + ", ".join(_cell(e.model) for e in entries
                                                 if e.task_set == s) for s in sets)
        lines += ["", f"**Warning:** these runs used {len(sets)} different task sets, so their "
                  f"scores are not directly comparable ({groups})."]
    return "\n".join(lines) + "\n"
