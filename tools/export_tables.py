#!/usr/bin/env python3
"""Tables of one or more runs for a paper: ``python tools/export_tables.py RUN ... --format csv``.

Writes four tables (overall, by_category, by_difficulty, deltas), each with
one block of rows per run, as CSV (every number its own column) or LaTeX
(booktabs; an estimate and its 95 % interval in one cell). With
``--output-dir DIR`` each table is a file ``DIR/<table>.csv`` or ``.tex``;
without it the tables are printed one after the other (a CSV table after a
line ``# <table>``; a LaTeX table starts with its ``% <table>`` comment).
Deltas confounded with another factor's (the same task pairs, 0 controlled
pairs) say which.

Exit codes: 0 written; 2 unreadable results or an unwritable folder.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from structeval.model.errors import StructEvalError
from structeval.reports.runfiles import load_results
from structeval.reports.tables import FORMATS, build_tables, render
from structeval.safe_text import echo

SUFFIX = {"csv": ".csv", "latex": ".tex"}


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("results", type=click.Path(path_type=Path), nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="csv", show_default=True,
              help="CSV for analysis, LaTeX for the paper.")
@click.option("-o", "--output-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Write one file per table here (default: print them).")
def main(results: tuple[Path, ...], fmt: str, output_dir: Path | None) -> None:
    """Export the tables of RESULTS (run directories or results.json files)."""
    try:
        tables = build_tables([load_results(p) for p in results])
        if output_dir is None:
            heading = (lambda t: f"# {t.name}\n") if fmt == "csv" else (lambda t: "")
            echo("\n".join(heading(t) + render(t, fmt) for t in tables), nl=False)
            return
        output_dir.mkdir(parents=True, exist_ok=True)
        for t in tables:
            path = output_dir / f"{t.name}{SUFFIX[fmt]}"
            path.write_text(render(t, fmt), encoding="utf-8")
            echo(f"{path}: {len(t.rows)} row(s)")
    except StructEvalError as exc:
        echo(f"error: {exc}", err=True)
        sys.exit(2)
    except OSError as exc:
        echo(f"error: cannot write the tables ({exc.strerror or exc})", err=True)
        sys.exit(2)


if __name__ == "__main__":
    main()
