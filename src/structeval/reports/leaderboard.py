"""A Markdown leaderboard over finished runs, numbers recomputed from the task rows.

Recomputing (rather than copying each results.json summary) means every row is
computed the same way, old runs get error bars too, and a hand-edited summary
cannot put a model higher than its tasks justify.

Runs are ranked by pass@1 weighted accuracy — the first answer's credit, the
benchmark's headline — with after-repair accuracy beside it: a repair round after
a located fault can turn a binary misreading (a couple's sense, a roller's
direction) into a coin flip the feedback settles, so after-repair numbers measure
the feedback as much as the reading.

A run in which no task was scored (every request failed: a dead endpoint, a
wrong key) measured nothing about the model, so it is listed as *unrankable*
below the ranked runs, never ranked at 0.0. Unavailable tasks, the split, the
modality and the language are columns because each changes what a number means;
cost is per *scored* task (what the run paid for each score it produced), since
dividing by tasks that never ran would make a failing run look cheap.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..statistics.resampling import BOOTSTRAP_RESAMPLES, bootstrap_ci, weighted_mean
from ..statistics.runs import SCORED, per_task
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
    scored: int = 0  # (run, task) rows scored
    unavailable: int = 0  # (run, task) rows unavailable
    split: str | None = None  # the --split of the run, when recorded
    modality: str | None = None
    lang: str | None = None
    cost_per_scored: float | None = None  # USD, when the run was priced

    @property
    def rankable(self) -> bool:
        return self.scored > 0


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
    scored = sum(r.status == SCORED for r in run.rows)
    return Entry(run.info.model, run.info.prompt_type, first.estimate, first.low, first.high,
                 ci.estimate, ci.low, ci.high,
                 round(100.0 * weighted_mean([t.ratio for t in tasks]), 4),
                 len(tasks), len(run.runs), run.info.date, task_set_digest(run),
                 scored=scored, unavailable=len(run.rows) - scored, split=_split(run),
                 modality=run.info.shown or _text(run.summary.get("modality")),
                 lang=_text(run.summary.get("lang")),
                 cost_per_scored=_cost_per_scored(run.summary, scored))


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _split(run: RunResults) -> str | None:
    """The recorded ``--split`` (results.json ``summary.selection``; older runs: none)."""
    selection = run.summary.get("selection")
    return _text(selection.get("split")) if isinstance(selection, dict) else None


def _cost_per_scored(summary: dict[str, Any], scored: int) -> float | None:
    """Dollars of the run's answers per scored task; None when unpriced or nothing scored
    (a summary's numbers are read defensively: results files travel and get edited)."""
    cost = summary.get("cost")
    usd = cost.get("usd") if isinstance(cost, dict) and cost.get("prices") else None
    if not isinstance(usd, (int, float)) or isinstance(usd, bool) or not math.isfinite(usd) \
            or usd < 0 or scored == 0:
        return None
    return usd / scored


def _cell(text: str) -> str:
    """Model names are user input: keep them from breaking the table or the Markdown."""
    out = " ".join(text.split())
    for ch in "\\|*_`[]<>":
        out = out.replace(ch, "\\" + ch)
    return out


def _columns(e: Entry) -> str:
    """The cells after the scores: tasks, runs, unavailable, split, modality, language, cost
    per scored task, date."""
    cost = "–" if e.cost_per_scored is None else f"${e.cost_per_scored:.4f}"
    return (f"{e.tasks} | {e.runs} | {e.unavailable} | {_cell(e.split or '–')} | "
            f"{_cell(e.modality or '–')} | {_cell(e.lang or '–')} | {cost} | {e.date or '–'} |")


def leaderboard(runs: Sequence[RunResults]) -> str:
    """Rows sorted by pass@1 weighted accuracy (then after repair, then model name), runs
    with nothing scored last and unranked; a note when task sets differ."""
    entries = sorted((entry_of(r) for r in runs),
                     key=lambda e: (not e.rankable, -e.pass_at_1, -e.accuracy, e.model))
    lines = ["| # | Model | Prompt | pass@1 weighted accuracy (95% CI) | After repair (95% CI) "
             "| Average ratio | Tasks | Runs | Unavailable | Split | Modality | Language "
             "| Cost per scored task | Date |",
             "|---:|---|---|---|---|---:|---:|---:|---:|---|---|---|---:|---|"]
    ranked = [e for e in entries if e.rankable]
    for rank, e in enumerate(ranked, 1):
        lines.append(f"| {rank} | {_cell(e.model)} | {_cell(e.prompt_type or '–')} | "
                     f"{e.pass_at_1:.1f} ({e.pass_low:.1f}–{e.pass_high:.1f}) | "
                     f"{e.accuracy:.1f} ({e.low:.1f}–{e.high:.1f}) | {e.avg_ratio:.1f} | "
                     f"{_columns(e)}")
    for e in entries[len(ranked):]:
        lines.append(f"| – | {_cell(e.model)} | {_cell(e.prompt_type or '–')} | unrankable: "
                     "nothing scored | – | – | " + _columns(e))
    lines += ["", "Ranked by pass@1 weighted accuracy: the first answer's credit, each task "
              "weighted by its difficulty (1–5). After repair is the best credit over the repair "
              "rounds, in which the diagnosis is fed back (it can settle a binary misreading "
              "such as a couple's sense), so it is shown beside the headline, not instead of "
              f"it. Intervals: task-level bootstrap ({BOOTSTRAP_RESAMPLES:,} resamples, seeded); "
              "percentages; an unavailable task counts 0. A run with nothing scored is "
              "unrankable (it measured the endpoint, not the model). Cost per scored task: "
              "what the run's answers cost, divided by the tasks that were scored."]
    sets = sorted({e.task_set for e in entries})
    if len(sets) > 1:
        groups = "; ".join(f"{s}: " + ", ".join(_cell(e.model) for e in entries
                                                 if e.task_set == s) for s in sets)
        lines += ["", f"**Warning:** these runs used {len(sets)} different task sets, so their "
                  f"scores are not directly comparable ({groups})."]
    return "\n".join(lines) + "\n"
