#!/usr/bin/env python3
"""Re-grade a finished run with the current scorer and dataset, without any API call:
``python tools/rescore.py RUN_DIR [--tolerance T] [--output NEW] [--data-dir DIR]``.

Attempt 1 of every scored task is graded again from its stored answer; repair
attempts are kept as recorded (and marked so); see ``structeval.harness.run.rescore``
for exactly what is recomputed. The result is a normal run directory (default
``RUN_DIR-rescored``) that tools/report.py, tools/compare.py and
tools/leaderboard.py accept. Exit 0 done; 2 the run, the dataset or the output
folder cannot be used (one sentence).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click
from tqdm import tqdm

try:
    import structeval  # noqa: F401
except ModuleNotFoundError:  # run from a checkout whose package was not installed
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from structeval.harness.run.rescore import rescore_run
from structeval.model.errors import StructEvalError
from structeval.safe_text import echo


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("run_dir", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option("--tolerance", type=click.FloatRange(0, 1, min_open=True),
              help="Scorer's relative tolerance (default: the run's).")
@click.option("--output", type=click.Path(file_okay=False, path_type=Path),
              help="New run directory (default: RUN_DIR-rescored).")
@click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Dataset root (default: the one run.json records, else data/).")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
def main(run_dir: Path, tolerance: float | None, output: Path | None, data_dir: Path | None,
         no_progress: bool) -> None:
    """Re-grade every stored answer of RUN_DIR; no request is sent."""
    bar = tqdm(unit="task", disable=True if no_progress else None, dynamic_ncols=True)

    def progress(done: int, total: int) -> None:
        bar.total = total
        bar.n = done + 1
        bar.refresh()

    try:
        outcome = rescore_run(run_dir, output=output, tolerance=tolerance, data_dir=data_dir,
                              progress=progress)
    except StructEvalError as exc:
        bar.close()
        echo(f"error: {exc}", err=True)
        sys.exit(2)
    bar.close()
    s = outcome.summary
    echo(f"Rescored {run_dir} → {outcome.output} (tolerance "
               f"{s['rescored']['tolerance']:g}; recorded {s['rescored']['tolerance_recorded']:g})")
    echo(f"  {outcome.rescored} first attempt(s) re-graded, {outcome.kept} repair "
               f"attempt(s) kept as recorded, {outcome.changed} task(s) changed credit")
    echo(f"  pass@1 weighted accuracy {s['pass_at_1_weighted_accuracy']:.2f}% "
               f"(after repair {s['weighted_accuracy']:.2f}%)")
    for note in outcome.notes:
        echo(f"  note: {note}")
    if outcome.input_changed:
        echo(f"  note: {len(outcome.input_changed)} task(s) now show another image, DXF "
                   f"or notes than their answers saw (kept with their old fingerprint; "
                   f"--resume on the new directory asks them again): "
                   + ", ".join(outcome.input_changed[:8]))


if __name__ == "__main__":
    main()
