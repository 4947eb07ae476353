#!/usr/bin/env python3
"""One self-contained HTML report of a run: ``python tools/report.py RESULTS_DIR -o report.html``.

With several run directories (``tools/report.py RUN_A RUN_B ... -o runs.html``)
the page compares them instead: headline per run, accuracy by category and
difficulty with every run a series, paired differences from the first run,
each run's presentation deltas (confounded factors named).

Summary tables and charts, then per task: the input drawing, the ground truth
and the model's reconstruction side by side with the differences marked, both
bending-moment diagrams (drawn by the page as SVG when a task is opened), the
diagnosis once and every attempt's feedback; filter and sort in the page. No
network is needed to build or to view it (pictures are inline WebP data URIs,
drawings and raw answers one packed data block).

Exit codes: 0 written; 2 unreadable results or bad options.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click
from tqdm import tqdm

from structeval.model.errors import StructEvalError
from structeval.reports.figures import IMAGE_WIDTH
from structeval.reports.report import build_report
from structeval.reports.runfiles import load_results
from structeval.reports.runs_page import build_runs_page
from structeval.safe_text import echo


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("results", type=click.Path(path_type=Path), nargs=-1, required=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              default=Path("report.html"), show_default=True, help="The HTML file to write.")
@click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Dataset the run was made on (default: the shipped data/).")
@click.option("--run", "run", type=click.IntRange(0), help="Which run to show per task when the "
              "run was made with --runs K (default: the first).")
@click.option("--image-width", type=click.IntRange(160, 2000), default=IMAGE_WIDTH,
              show_default=True, help="Widest stored picture in pixels (smaller, smaller file).")
@click.option("--progress/--no-progress", default=None, help="Progress bar (default: on a tty).")
def main(results: tuple[Path, ...], output: Path, data_dir: Path | None, run: int | None,
         image_width: int, progress: bool | None) -> None:
    """Write the HTML report of RESULTS (a run directory or its results.json); with two or
    more, a page comparing them."""
    if len(results) > 1:
        try:
            html = build_runs_page(results)
            output.write_text(html, encoding="utf-8")
        except (StructEvalError, OSError) as exc:
            echo(f"error: {exc}", err=True)
            sys.exit(2)
        echo(f"{output}: {len(html.encode('utf-8')) / 1e6:.2f} MB, {len(results)} runs")
        return
    try:
        total = len(load_results(results[0]).task_ids)
        with tqdm(total=total, unit="task", disable=None if progress is None else not progress,
                  file=sys.stderr) as bar:
            html, warnings = build_report(results[0], data_dir=data_dir, run=run,
                                          each=lambda _view: bar.update(1),
                                          image_width=image_width)
        output.write_text(html, encoding="utf-8")
    except (StructEvalError, OSError) as exc:
        echo(f"error: {exc}", err=True)
        sys.exit(2)
    for warning in warnings:
        echo(f"warning: {warning}", err=True)
    echo(f"{output}: {len(html.encode('utf-8')) / 1e6:.2f} MB, {total} task(s)")


if __name__ == "__main__":
    main()
