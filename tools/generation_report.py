#!/usr/bin/env python3
"""How the generator and the difficulty rule behave, measured in one run.

    python tools/generation_report.py                       # 300 hard problems, seed 1
    python tools/generation_report.py --count 60 --pool all --seed 3
    python tools/generation_report.py --data-dir data       # + the shipped levels and the union

Prints the wall time, the acceptance rate and rejection reasons per family, the member
counts reached, the levels of the generated set per category, and — for a data folder
— how its tasks' levels shift from the stored ones to the rule's, and how the union of
those tasks with the generated set spreads over 1–5 (max/min count per category).
Nothing is written.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections import Counter
from pathlib import Path

import click

from structeval.dataset import CATEGORIES, DATA_DIR, load_tasks
from structeval.generation.families import POOLS
from structeval.generation.generator import synthesize
from structeval.generation.selection import Selection
from structeval.generation.stats import GenerationStats
from structeval.model import StructEvalError

LEVELS = range(1, 6)


def _row(counts: Counter[tuple[str, int]], category: str) -> list[int]:
    return [counts[(category, lv)] for lv in LEVELS]


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--count", type=click.IntRange(1, 100000), default=300, show_default=True)
@click.option("--seed", type=click.IntRange(0), default=1, show_default=True)
@click.option("--pool", type=click.Choice(sorted(POOLS)), default="hard", show_default=True)
@click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path),
              help=f"Also report the levels of this dataset (e.g. {DATA_DIR}).")
def main(count: int, seed: int, pool: str, data_dir: Path | None) -> None:
    """Generate in memory and report acceptance, sizes and levels."""
    stats = GenerationStats()
    try:
        started = time.perf_counter()
        problems = synthesize(count, seed, selection=Selection(pool), stats=stats,
                              progress=True)
        wall = time.perf_counter() - started
        tasks = load_tasks(data_dir) if data_dir else []
    except StructEvalError as exc:
        click.echo(str(exc), err=True)
        sys.exit(2)
    click.echo(f"{count} {pool} problems (seed {seed}) in {wall:.1f} s "
               f"({1000 * wall / count:.1f} ms each); {stats.drafts} drafts, "
               f"{100 * stats.accepted / stats.drafts:.0f} % accepted")
    click.echo("")
    click.echo(f"{'family':<20}{'accepted':>14}{'rate':>7}  members min/median/max  "
               "≥40  ≥60  rejections")
    for name, entry in sorted(stats.families.items()):
        sizes = entry.accepted_members or [0]
        click.echo(f"{name:<20}{entry.accepted:>6} / {entry.drafts:<5}"
                   f"{100 * entry.acceptance:>6.0f}%  "
                   f"{min(sizes):>7} / {statistics.median(sizes):>4g} / {max(sizes):<4}"
                   f"{sum(s >= 40 for s in sizes):>7}{sum(s >= 60 for s in sizes):>5}  "
                   f"{dict(entry.rejections.most_common(4))}")
    generated = Counter((p.block["category"], p.block["provenance"]["target_difficulty"])
                        for p in problems)
    click.echo("")
    click.echo("levels 1-5 of the generated set:")
    for c in CATEGORIES:
        click.echo(f"  {c:<6}{_row(generated, c)}")
    if not tasks:
        return
    stored = Counter((t.category, t.difficulty) for t in tasks)
    rule = Counter((t.category, int(t.meta["difficulty_rule"])) for t in tasks)
    moved = Counter((t.difficulty, int(t.meta["difficulty_rule"])) for t in tasks)
    click.echo("")
    click.echo(f"{len(tasks)} tasks of {data_dir}: stored level -> rule level -> rule level "
               "with the generated set (max/min)")
    for c in CATEGORIES:
        union = [a + b for a, b in zip(_row(rule, c), _row(generated, c), strict=True)]
        ratio = max(union) / min(union) if min(union) else float("inf")
        click.echo(f"  {c:<6}{_row(stored, c)} -> {_row(rule, c)} -> {union} ({ratio:.2f})")
    click.echo("  stored -> rule: " + ", ".join(f"{a}->{b}: {n}"
                                                 for (a, b), n in sorted(moved.items())))


if __name__ == "__main__":
    main()
