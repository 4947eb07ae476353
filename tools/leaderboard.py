#!/usr/bin/env python3
"""Markdown leaderboard of finished runs: ``python tools/leaderboard.py RESULTS_DIR...``.

One row per run (model, pass@1 weighted accuracy — the headline — and after-repair
weighted accuracy, each with its task-bootstrap 95% CI, average ratio, tasks, runs,
unavailable tasks, split, modality, language, cost per scored task, date), ranked by
pass@1; a run with nothing scored is listed last as unrankable. Each argument is a run
directory or its results.json. Exit 2 when one cannot be read.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from structeval.model.errors import StructEvalError
from structeval.reports.leaderboard import leaderboard
from structeval.reports.runfiles import load_results
from structeval.safe_text import echo


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("results", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the table to this file instead of standard output.")
def main(results: tuple[Path, ...], output: Path | None) -> None:
    """Rank finished runs by pass@1 difficulty-weighted accuracy."""
    try:
        table = leaderboard([load_results(path) for path in results])
    except StructEvalError as exc:
        echo(f"error: {exc}", err=True)
        sys.exit(2)
    if output is None:
        echo(table, nl=False)
    else:
        output.write_text(table, encoding="utf-8")


if __name__ == "__main__":
    main()
