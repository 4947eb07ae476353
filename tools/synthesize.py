#!/usr/bin/env python3
"""Generate StructuralEval problems (raw models + images) into a data folder.

    python tools/synthesize.py --count 330 --seed 1                # balanced over category × level
    python tools/synthesize.py --count 20 --seed 7 --category truss --difficulty 3 --split fresh
    python tools/synthesize.py --count 300 --seed 1 --hard         # large and compound structures
    python tools/synthesize.py --count 60 --seed 1 --pool all      # levels 1-5 from both pools
    python tools/synthesize.py --count 10 --seed 1 --family building_frame --min-members 40
    python tools/synthesize.py --list-families                     # what --family accepts
    python tools/synthesize.py --classics                          # the hand-authored problems
    python tools/synthesize.py --render-missing                    # draw images that are missing
    python tools/synthesize.py --render-missing --data-dir DIR     # ... of another data folder
    python tools/synthesize.py --count 30 --seed 1 --dxf           # each task also as a DXF file
    python tools/synthesize.py --render-missing --dxf --filter 'beam-*'  # give tasks a DXF
    python tools/synthesize.py --sheets --count 200 --seed 1      # the sheets split
    python tools/synthesize.py --sheets --family gerber --count 40 --seed 1   # bridge sheets

Then run ``python tools/generate_gt.py`` to solve them into ground truth.
The same arguments always write the same bytes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from structeval.dataset import CATEGORIES, DATA_DIR
from structeval.dataset.fingerprint import fingerprint
from structeval.dataset.images import dxf_status, renderer_status
from structeval.dataset.paths import is_safe_name
from structeval.dataset.rawfile import read_raw
from structeval.dataset.store import (
    add_dxf,
    draw_missing,
    fingerprints_in,
    with_dxf,
    write_problem,
)
from structeval.generation.classics import classic_problems
from structeval.generation.families import POOLS, catalogue
from structeval.generation.generator import least_presentation_score, synthesize
from structeval.generation.recipe import RECIPES, recipe_tasks
from structeval.generation.selection import Selection, plan, problem_id
from structeval.model import StructEvalError
from structeval.presentation import FACTORS
from structeval.safe_text import echo


def _fixed_presentation(items: tuple[str, ...]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or key not in FACTORS or value not in FACTORS.get(key, ()):
            choices = "; ".join(f"{k}: {', '.join(v)}" for k, v in FACTORS.items())
            raise click.BadParameter(f"{item!r} is not KEY=VALUE with a known factor and "
                                     f"value ({choices})", param_hint="--presentation")
        if key in out and out[key] != value:
            raise click.BadParameter(f"{key} given twice ({out[key]}, {value}); a generated "
                                     "task has one value per factor", param_hint="--presentation")
        out[key] = value
    return out


def _print_families() -> None:
    rows = catalogue()
    width = max(len(r.name) for r in rows)
    for r in rows:
        levels = ",".join(map(str, r.levels)) or "-"
        click.echo(f"{r.name:<{width}}  {r.category:<5}  {r.pool:<8}  levels {levels:<9}  "
                   f"{r.summary}")


def core_fingerprints(out: Path) -> set[str]:
    """Structures the core split already ships (a recipe never repeats one of them)."""
    found = {fingerprint(p.model) for p in classic_problems()}
    for path in sorted((out / "raw_models").glob("*.json")):
        try:
            _, block, model = read_raw(path)
        except StructEvalError:
            continue
        if block.get("split") == "core":
            found.add(fingerprint(model))
    return found


def _render_missing(out: Path, *, dxf: bool, force: bool, pattern: str) -> None:
    """``--render-missing``: draw what is missing, say what could not be drawn (one line
    each), a summary, and exit 1 when anything could not be drawn (the rest is drawn)."""
    added = add_dxf(out, pattern) if dxf else []
    report = draw_missing(out, force=force, progress=True, pattern=pattern)
    for problem in report.failed:
        echo(f"error: {problem}", err=True)
    click.echo(f"drew the missing drawings of {len(report.drawn)} problem(s) in {out}"
               + (f"; {len(report.failed)} could not be drawn" if report.failed else ""))
    if added:
        click.echo(f"gave {len(added)} problem(s) a DXF drawing; their raw files "
                   "changed: now run `python tools/generate_gt.py`")
    if report.failed:
        sys.exit(1)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--count", type=click.IntRange(1, 100000), help="Number of problems to generate.")
@click.option("--seed", type=click.IntRange(0), default=0, show_default=True)
@click.option("--category", type=click.Choice(CATEGORIES), help="Only this category.")
@click.option("--difficulty", type=click.IntRange(1, 5),
              help="Only this difficulty level (default: every level the families offer).")
@click.option("--pool", type=click.Choice(sorted(POOLS)), default="standard", show_default=True,
              help="Family pool: standard (levels 1-3), hard (large and compound "
                   "structures, levels 4-5) or all (levels 1-5).")
@click.option("--hard", is_flag=True, help="Shorthand for --pool hard.")
@click.option("--family", "families", multiple=True, metavar="NAME",
              help="Only this template (repeatable; any pool). See --list-families. With "
                   "--sheets: the sheet family, storey (default), gerber or portal (repeatable).")
@click.option("--min-members", type=click.IntRange(0), default=0, show_default=True,
              help="Refuse drafts with fewer members (links).")
@click.option("--presentation", "presentation", multiple=True, metavar="KEY=VALUE",
              help="Fix a presentation factor of every task (repeatable); the difficulty "
                   "rule counts it. The renderer draws every factor.")
@click.option("--list-families", is_flag=True, help="Print the templates and exit.")
@click.option("--split", default="test", show_default=True,
              help="Split name stored per problem (the shipped sets are core, hard and matched).")
@click.option("--out", "--data-dir", "out", type=click.Path(file_okay=False, path_type=Path),
              default=DATA_DIR, show_default=True,
              help="Data folder (raw_models/, images/ inside).")
@click.option("--images/--no-images", default=True, show_default=True,
              help="Render each problem's picture (needs structeval.render).")
@click.option("--classics", is_flag=True, help="Write the hand-authored classic problems.")
@click.option("--recipe", type=click.Choice(sorted(RECIPES)),
              help="Write the shipped splits hard and matched as the recipe plans them "
                   "(structeval.generation.recipe); the same bytes every time.")
@click.option("--dxf", is_flag=True,
              help="Each task also ships as a DXF drawing (problem.dxf; needs ezdxf). With "
                   "--render-missing: give every raw problem (matching --filter) that has "
                   "none a DXF (its raw file changes: run generate_gt.py after).")
@click.option("--render-missing", "render_only", is_flag=True,
              help="Only draw the images (and DXF files) of raw problems that have none; "
                   "a sheet image must match its recorded sha256. One line per file that "
                   "cannot be drawn, exit 1 at the end.")
@click.option("--filter", "pattern", default="*", show_default=True,
              help="With --render-missing: only task ids matching this glob.")
@click.option("--sheets", is_flag=True,
              help="Write --count drawing-sheet tasks (style sheet, split sheets): a building's "
                   "plan, elevations and load table; the task names one frame and load case.")
@click.option("--force", is_flag=True, help="With --render-missing: redraw every image "
                                            "and DXF file.")
def main(count: int | None, seed: int, category: str | None, difficulty: int | None, pool: str,
         hard: bool, families: tuple[str, ...], min_members: int,
         presentation: tuple[str, ...], list_families: bool, split: str, out: Path,
         images: bool, classics: bool, recipe: str | None, dxf: bool, render_only: bool,
         pattern: str, sheets: bool,
         force: bool) -> None:
    """Generate well-posed, distinct problems reproducibly from a seed."""
    if list_families:
        _print_families()
        return
    if not is_safe_name(split):
        raise click.BadParameter("use letters, digits, '_', '-' or '.'", param_hint="--split")
    if hard and pool not in ("standard", "hard"):
        raise click.BadParameter(f"--hard contradicts --pool {pool}", param_hint="--hard")
    fixed = _fixed_presentation(presentation)
    status = renderer_status()
    if (images or render_only) and status != "available":
        raise click.UsageError(f"the renderer is {status}; use --no-images to write raw "
                               "models only and --render-missing later")
    if dxf and (images or render_only) and dxf_status() != "available":
        raise click.UsageError(f"DXF drawings are {dxf_status()}")
    try:
        if render_only:
            _render_missing(out, dxf=dxf, force=force, pattern=pattern)
            return
        if sheets:
            _write_sheets(count, seed, out, images, families or ("storey",))
            return
        if classics:
            problems = classic_problems()
        elif recipe:
            problems = recipe_tasks(recipe, core_fingerprints(out), progress=True)
        elif count is None:
            raise click.UsageError("give --count N (or --classics / --render-missing / "
                                   "--list-families)")
        else:
            selection = Selection("hard" if hard else pool, families, min_members)
            least = least_presentation_score(fixed)
            planned = {problem_id(c, seed, i, selection.tag()) for i, (c, _) in
                       enumerate(plan(count, category, difficulty, selection, least_score=least))}
            avoid = fingerprints_in(out, except_ids=planned)
            avoid |= {fingerprint(p.model) for p in classic_problems()}
            problems = synthesize(count, seed, category=category, difficulty_level=difficulty,
                                  split=split, avoid=avoid, selection=selection,
                                  presentation=fixed, progress=True)
        from tqdm import tqdm

        for problem in tqdm(problems, desc="writing", unit="problem"):
            write_problem(with_dxf(problem) if dxf else problem, out, images=images)
    except StructEvalError as exc:  # dataset or renderer refusal, explained
        click.echo(str(exc), err=True)
        sys.exit(2)
    click.echo(f"wrote {len(problems)} problem(s) to {out}; now run "
               "`python tools/generate_gt.py` to solve them")


def _write_sheets(count: int | None, seed: int, out: Path, images: bool,
                  families: tuple[str, ...]) -> None:
    """The sheets split: each task's image is drawn once, to record its sha256 in the raw
    file, and written with it (or left to --render-missing with --no-images); ``count``
    tasks of each sheet family named."""
    from tqdm import tqdm

    from structeval.dataset.paths import image_path
    from structeval.generation.sheets import FAMILIES, sheet_problems, with_image_hash

    if count is None:
        raise click.UsageError("give --count N with --sheets")
    unknown = [f for f in families if f not in FAMILIES]
    if unknown:
        raise click.BadParameter(f"{', '.join(unknown)} is not a sheet family (one of "
                                 f"{', '.join(FAMILIES)})", param_hint="--family")
    for family in families:
        for problem in tqdm(sheet_problems(count, seed, family), total=count,
                            desc=f"{family} sheets", unit="sheet"):
            problem, data = with_image_hash(problem)
            write_problem(problem, out, images=False)
            if images:
                target = image_path(out, problem.block["image"]["file"])
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
    click.echo(f"wrote {count * len(families)} sheet task(s) to {out}; now run "
               "`python tools/generate_gt.py` to solve them")


if __name__ == "__main__":
    main()
