#!/usr/bin/env python3
"""Paired comparison of two runs: ``python tools/compare.py RESULTS_A RESULTS_B``.

Prints, overall and per category and difficulty, both weighted accuracies, the
difference A − B with a paired task-bootstrap 95% CI, and the Wilcoxon
signed-rank p-value on per-task score differences. Each argument is a run
directory or its results.json. ``--by-factor`` adds the same rows per
presentation factor value (``language=zh``, ``style=sketch``, …) over the tasks
both runs have; an image run against a DXF run is labelled the perception gap
(dxf − image).

Exit codes: 0 compared; 2 unreadable results, or different task sets (pass
``--intersection`` to compare on the shared tasks).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from structeval.model.errors import StructEvalError
from structeval.reports.compare import compare_runs, format_comparison
from structeval.reports.runfiles import load_results
from structeval.safe_text import echo


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("results_a", type=click.Path(path_type=Path))
@click.argument("results_b", type=click.Path(path_type=Path))
@click.option("--intersection", is_flag=True,
              help="Compare on the tasks both runs share when their task sets differ.")
@click.option("--by-factor", is_flag=True,
              help="Also compare per presentation factor value (language, style, ...).")
@click.option("--json", "json_out", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the comparison as JSON to this file.")
def main(results_a: Path, results_b: Path, intersection: bool, by_factor: bool,
         json_out: Path | None) -> None:
    """Is run A better than run B on the same tasks?"""
    try:
        comparison = compare_runs(load_results(results_a), load_results(results_b),
                                  intersection=intersection, by_factor=by_factor)
    except StructEvalError as exc:
        echo(f"error: {exc}", err=True)
        sys.exit(2)
    echo(format_comparison(comparison))
    if json_out is not None:
        try:
            json_out.write_text(json.dumps(comparison.to_json(), indent=2, ensure_ascii=False)
                                + "\n", encoding="utf-8")
        except OSError as exc:
            echo(f"error: cannot write {json_out} ({exc.strerror or exc})", err=True)
            sys.exit(2)


if __name__ == "__main__":
    main()
