#!/usr/bin/env python3
"""Generate StructuralEval problems (raw models + images) into a data folder.

    python tools/synthesize.py --count 330 --seed 1                # the core set's 330 generated
    python tools/synthesize.py --count 20 --seed 7 --category truss --difficulty 4 --split fresh
    python tools/synthesize.py --classics                          # the hand-authored problems
    python tools/synthesize.py --render-missing                    # draw images that are missing

Then run ``python tools/generate_gt.py`` to solve them into ground truth.
The same arguments always write the same bytes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from structeval.dataset import CATEGORIES, DATA_DIR
from structeval.dataset.fingerprint import fingerprint
from structeval.dataset.images import renderer_status
from structeval.dataset.paths import is_safe_name
from structeval.dataset.store import fingerprints_in, render_missing, write_problem
from structeval.generation.classics import classic_problems
from structeval.generation.generator import plan, problem_id, synthesize
from structeval.model import StructEvalError


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--count", type=click.IntRange(1, 100000), help="Number of problems to generate.")
@click.option("--seed", type=click.IntRange(0), default=0, show_default=True)
@click.option("--category", type=click.Choice(CATEGORIES), help="Only this category.")
@click.option("--difficulty", type=click.IntRange(1, 5), help="Only this difficulty level.")
@click.option("--split", default="core", show_default=True,
              help="Split name stored per problem (the shipped set is 'core').")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=DATA_DIR,
              show_default=True, help="Data folder (raw_models/, images/ inside).")
@click.option("--images/--no-images", default=True, show_default=True,
              help="Render each problem's picture (needs structeval.render).")
@click.option("--classics", is_flag=True, help="Write the hand-authored classic problems.")
@click.option("--render-missing", "render_only", is_flag=True,
              help="Only draw the images of raw problems that have none.")
@click.option("--force", is_flag=True, help="With --render-missing: redraw every image.")
def main(count: int | None, seed: int, category: str | None, difficulty: int | None, split: str,
         out: Path, images: bool, classics: bool, render_only: bool, force: bool) -> None:
    """Generate well-posed, distinct problems reproducibly from a seed."""
    if not is_safe_name(split):
        raise click.BadParameter("use letters, digits, '_', '-' or '.'", param_hint="--split")
    status = renderer_status()
    if (images or render_only) and status != "available":
        raise click.UsageError(f"the renderer is {status}; use --no-images to write raw "
                               "models only and --render-missing later")
    try:
        if render_only:
            drawn = render_missing(out, force=force, progress=True)
            click.echo(f"drew {len(drawn)} image(s) in {out}")
            return
        if classics:
            problems = classic_problems()
        elif count is None:
            raise click.UsageError("give --count N (or --classics / --render-missing)")
        else:
            planned = {problem_id(c, seed, i)
                       for i, (c, _) in enumerate(plan(count, category, difficulty))}
            avoid = fingerprints_in(out, except_ids=planned)
            avoid |= {fingerprint(p.model) for p in classic_problems()}
            problems = synthesize(count, seed, category=category, difficulty_level=difficulty,
                                  split=split, avoid=avoid)
        from tqdm import tqdm

        for problem in tqdm(problems, desc="writing", unit="problem"):
            write_problem(problem, out, images=images)
    except StructEvalError as exc:  # dataset or renderer refusal, explained
        click.echo(str(exc), err=True)
        sys.exit(2)
    click.echo(f"wrote {len(problems)} problem(s) to {out}; now run "
               "`python tools/generate_gt.py` to solve them")


if __name__ == "__main__":
    main()
