"""``python -m structeval``: solve or score FrameCalc models from the shell.

Exit codes: 0 success, 2 the input is invalid or describes a mechanism (message
on stderr), 1 an unexpected failure of the tool itself.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from .model.errors import StructEvalError


def _read_json(path: str) -> Any:
    try:
        text = Path(path).read_text(encoding="utf-8") if path != "-" else sys.stdin.read()
    except OSError as exc:
        raise click.UsageError(f"cannot read {path}: {exc.strerror}") from None
    return text


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """StructuralEval tools: solve and score FrameCalc JSON models, evaluate a model."""


@main.command()
@click.argument("model_path", metavar="MODEL.json")
@click.option("--samples", default=11, show_default=True, type=click.IntRange(2, 10000),
              help="Samples per stretch of a link between concentrated loads.")
@click.option("--springs", is_flag=True,
              help="Model supports as 1e12 springs, like the original FrameCalc solver.")
@click.option("--indent", default=2, show_default=True, type=click.IntRange(0, 8))
def solve(model_path: str, samples: int, springs: bool, indent: int) -> None:
    """Solve MODEL.json ('-' for stdin) and print reactions, N/V/M samples, max |M|."""
    from .api import solve as solve_model

    try:
        result = solve_model(_read_json(model_path), samples_per_segment=samples,
                             spring=1e12 if springs else 0.0)
    except StructEvalError as exc:
        click.echo(str(exc), err=True)
        sys.exit(2)
    click.echo(json.dumps(result, indent=indent or None))


@main.command()
@click.argument("gt_path", metavar="GT.json")
@click.argument("candidate_path", metavar="CANDIDATE.json")
@click.option("--tolerance", default=0.02, show_default=True, type=click.FloatRange(min=1e-9),
              help="Relative tolerance of every comparison (absolute floor: a quarter of it "
                   "times the problem's scale).")
@click.option("--indent", default=2, show_default=True, type=click.IntRange(0, 8))
def score(gt_path: str, candidate_path: str, tolerance: float, indent: int) -> None:
    """Grade CANDIDATE.json against the ground truth GT.json (ratio, stage, feedback).

    An invalid candidate is a verdict (stage "invalid"), not an error; an invalid or
    unstable ground truth exits 2.
    """
    from .model import parse_model
    from .scoring import score as score_models

    try:
        gt = parse_model(_read_json(gt_path))
    except StructEvalError as exc:
        click.echo(f"ground truth {gt_path}: {exc}", err=True)
        sys.exit(2)
    try:
        verdict = score_models(gt, _read_json(candidate_path), tolerance=tolerance)
    except StructEvalError as exc:
        click.echo(f"ground truth {gt_path} cannot be graded against: {exc}", err=True)
        sys.exit(2)
    click.echo(json.dumps(verdict.to_json(), indent=indent or None))


@main.command(name="eval", add_help_option=False,
              context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.pass_context
def evaluate(ctx: click.Context) -> None:
    """Evaluate a vision-language model: the options of run_eval.py (see `eval --help`).

    An installed package has no run_eval.py beside it, so this is the same command
    reachable from the package; the dataset is named with --data-dir or
    STRUCTEVAL_DATA when there is no checkout.
    """
    from .harness.cli import main as run_eval

    run_eval.main(args=list(ctx.args), prog_name=f"{ctx.find_root().info_name} eval")


if __name__ == "__main__":
    main()
