#!/usr/bin/env python3
"""Check every task's drawing against the legibility rules (no pixels are drawn).

    python tools/check_drawings.py                      # every raw problem in data/, at 1568 px
    python tools/check_drawings.py --profile 1024       # which stay legible at 1024 px
    python tools/check_drawings.py --profile 0          # at the stored size
    python tools/check_drawings.py --filter 'truss-*'   # some of them
    python tools/check_drawings.py --data-dir DIR --json report.json
    python tools/check_drawings.py --presentation symbols=b   # every task in symbol set b

Each task is laid out exactly as its image is drawn (style, seed and presentation from
its raw file, the layout-only path of ``structeval.render``; ``--presentation`` changes
a factor for every task) and checked with
``structeval.render.legibility.check`` at the delivery profile: the record scaled as
an API shrinks the image to ``--profile`` px on its long side (1568, the default, is
the profile every shipped task keeps; drawing sheets are judged at their native
size). Exit status: 0 when every drawing satisfies
every rule (or, at a profile under 1568 px, a report of which stay legible), 1 when some
do not (each violation is printed with its reason), 2 when
the data cannot be read.
"""

from __future__ import annotations

import fnmatch
import json
import sys
from pathlib import Path

import click

from structeval.dataset import DATA_DIR
from structeval.dataset.images import layout_drawing
from structeval.dataset.paths import RAW_DIR
from structeval.dataset.rawfile import presentation_of, read_raw
from structeval.model import StructEvalError
from structeval.presentation import PresentationError, parse_selectors
from structeval.render.legibility import DELIVERY_LONG_SIDE, check


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path), default=DATA_DIR,
              show_default=True, help="Data folder (raw_models/ inside).")
@click.option("--filter", "pattern", default="*", show_default=True,
              help="Only task ids matching this glob.")
@click.option("--json", "json_out", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write {task id: [violations]} to this file.")
@click.option("--presentation", "changes", multiple=True, metavar="KEY=VALUE",
              help="Check every task with this factor changed (repeatable), e.g. symbols=b.")
@click.option("--profile", type=click.IntRange(0, 20000), default=DELIVERY_LONG_SIDE,
              show_default=True,
              help="Judge each drawing shrunk to this long side in px, as an API delivers "
                   "it (1024: the second profile; 0: at the stored size).")
def main(data_dir: Path, pattern: str, json_out: Path | None, changes: tuple[str, ...],
         profile: int) -> None:
    """Legibility rules over the drawings of a data folder."""
    from tqdm import tqdm

    try:
        chosen = parse_selectors(changes)
    except PresentationError as exc:
        raise click.BadParameter(str(exc), param_hint="--presentation") from None
    if any(len(v) != 1 for v in chosen.values()):
        raise click.BadParameter("give one value per factor", param_hint="--presentation")
    override = {k: next(iter(v)) for k, v in chosen.items()}

    paths = [p for p in sorted((data_dir / RAW_DIR).glob("*.json"))
             if fnmatch.fnmatchcase(p.stem, pattern)]
    if not paths:
        click.echo(f"no raw problems matching {pattern!r} in {data_dir / RAW_DIR}", err=True)
        sys.exit(2)
    found: dict[str, list[str]] = {}
    try:
        for path in tqdm(paths, desc="drawings", unit="task"):
            _, block, model = read_raw(path)
            shown = presentation_of(block).with_(**override)
            layout = layout_drawing(model, block, shown)  # a sheet: its drawing block
            found[block["id"]] = [str(v) for v in check(layout, profile=profile or None)]
    except StructEvalError as exc:
        click.echo(str(exc), err=True)
        sys.exit(2)
    bad = {k: v for k, v in found.items() if v}
    for task, violations in bad.items():
        for v in violations:
            click.echo(f"{task}: {v}")
    if json_out is not None:
        json_out.write_text(json.dumps(found, indent=1) + "\n", encoding="utf-8")
    where = f"at {profile} px" if profile else "at the stored size"
    share = 100.0 * (len(found) - len(bad)) / len(found)
    click.echo(f"{len(found) - len(bad)} of {len(found)} drawings satisfy every legibility rule "
               f"{where} ({share:.1f} %)")
    # at the delivery profile (or the stored size) a violation fails the check; a smaller
    # profile is a report of which drawings stay legible there
    judged = not profile or profile >= DELIVERY_LONG_SIDE
    sys.exit(1 if bad and judged else 0)


if __name__ == "__main__":
    main()
