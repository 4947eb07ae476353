"""``python -m structeval``: solve or score FrameCalc models from the shell.

Exit codes: 0 success, 2 the input is invalid, unreadable, not UTF-8, larger than
``--max-file-mb``, describes a mechanism, or would print more than
``--max-samples`` samples (one sentence on stderr), 1 an unexpected failure of
the tool itself. Input files are read at most to their cap, so ``/dev/zero`` is
an error message, not a MemoryError.
"""

from __future__ import annotations

import json
import sys

import click

from .api import MAX_SAMPLES
from .model.errors import StructEvalError
from .safe_files import decode_text, read_capped
from .safe_text import echo

MAX_FILE_MB = 16.0  # a 5,000-link model is ~1 MB of JSON


def _read_json(path: str, max_mb: float) -> str:
    """The file's text, at most ``max_mb`` MB read; StructEvalError with one sentence."""
    cap = int(max_mb * (1 << 20))
    shown = "standard input" if path == "-" else path
    return decode_text(read_capped(path, cap, "model file (raise --max-file-mb)"), shown,
                       "model file")


def _fail(message: str) -> None:
    echo(f"error: {message}", err=True)
    sys.exit(2)


_MAX_FILE = click.option("--max-file-mb", default=MAX_FILE_MB, show_default=True,
                         type=click.FloatRange(0, min_open=True),
                         help="Largest model file read, in MB (a larger one is refused).")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """StructuralEval tools: solve and score FrameCalc JSON models, evaluate a model."""


@main.command()
@click.argument("model_path", metavar="MODEL.json")
@click.option("--samples", default=11, show_default=True, type=click.IntRange(2, 10000),
              help="Samples per stretch of a link between concentrated loads.")
@click.option("--springs", is_flag=True,
              help="Model supports as 1e12 springs, like the original FrameCalc solver.")
@click.option("--max-samples", default=MAX_SAMPLES, show_default=True,
              type=click.IntRange(1), help="Most N/V/M samples printed (samples × stretches "
              "of all links); past it the command refuses instead of running out of memory.")
@_MAX_FILE
@click.option("--indent", default=2, show_default=True, type=click.IntRange(0, 8))
def solve(model_path: str, samples: int, springs: bool, max_samples: int, max_file_mb: float,
          indent: int) -> None:
    """Solve MODEL.json ('-' for stdin) and print reactions, N/V/M samples, max |M|."""
    from .api import solve as solve_model

    try:
        result = solve_model(_read_json(model_path, max_file_mb), samples_per_segment=samples,
                             spring=1e12 if springs else 0.0, max_samples=max_samples)
    except StructEvalError as exc:
        _fail(str(exc))
    click.echo(json.dumps(result, indent=indent or None))


@main.command()
@click.argument("gt_path", metavar="GT.json")
@click.argument("candidate_path", metavar="CANDIDATE.json")
@click.option("--tolerance", default=0.02, show_default=True, type=click.FloatRange(min=1e-9),
              help="Relative tolerance of every comparison (absolute floor: a quarter of it "
                   "times the problem's scale).")
@click.option("--lang", type=click.Choice(("en", "zh")), default="en", show_default=True,
              help="Language of the feedback message (the verdict does not depend on it).")
@_MAX_FILE
@click.option("--indent", default=2, show_default=True, type=click.IntRange(0, 8))
def score(gt_path: str, candidate_path: str, tolerance: float, lang: str, max_file_mb: float,
          indent: int) -> None:
    """Grade CANDIDATE.json against the ground truth GT.json (ratio, stage, feedback).

    An invalid candidate is a verdict (stage "invalid"), not an error; an invalid or
    unstable ground truth exits 2.
    """
    from .model import parse_model
    from .scoring import score as score_models

    try:
        gt = parse_model(_read_json(gt_path, max_file_mb))
    except StructEvalError as exc:
        _fail(f"ground truth {gt_path}: {exc}")
    try:
        candidate = _read_json(candidate_path, max_file_mb)
    except StructEvalError as exc:
        _fail(f"candidate {candidate_path}: {exc}")
    try:
        verdict = score_models(gt, candidate, tolerance=tolerance, lang=lang)
    except StructEvalError as exc:
        _fail(f"ground truth {gt_path} cannot be graded against: {exc}")
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
    from .harness.command.cli import main as run_eval

    run_eval.main(args=list(ctx.args), prog_name=f"{ctx.find_root().info_name} eval")


if __name__ == "__main__":
    main()
