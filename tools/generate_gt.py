#!/usr/bin/env python3
"""Solve every data/raw_models/*.json into data/ground_truth_meta/<id>.json.

    python tools/generate_gt.py                    # write / refresh the ground truth
    python tools/generate_gt.py --check            # exit 1 if any meta is stale or missing
    python tools/generate_gt.py --out /tmp/gt      # write into another folder

Byte-deterministic: unchanged problems keep their files untouched. Metas whose raw
model is gone are removed. Exit codes: 0 ok, 1 stale (--check), 2 invalid raw models.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from structeval.dataset import DATA_DIR
from structeval.dataset.ground_truth import generate


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--data", "data_dir", type=click.Path(file_okay=False, path_type=Path),
              default=DATA_DIR, show_default=True, help="Folder holding raw_models/.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Write ground_truth_meta/ here instead of into --data.")
@click.option("--check", is_flag=True, help="Compare only; report stale or missing metas.")
@click.option("--progress/--no-progress", default=True, show_default=True)
def main(data_dir: Path, out_dir: Path | None, check: bool, progress: bool) -> None:
    """Compute the ground truth of every raw model."""
    if not (data_dir / "raw_models").is_dir():
        raise click.UsageError(f"{data_dir / 'raw_models'} does not exist")
    report = generate(data_dir, out_dir, check=check, progress=progress)
    for message in report["errors"]:
        click.echo(f"error: {message}", err=True)
    summary = ", ".join(f"{len(report[k])} {k}" for k in ("written", "unchanged", "stale",
                                                           "removed") if report[k])
    click.echo(f"ground truth: {summary or 'nothing to do'}")
    if report["stale"]:
        click.echo("stale: " + ", ".join(report["stale"][:20])
                   + (" ..." if len(report["stale"]) > 20 else ""), err=True)
    if report["errors"]:
        sys.exit(2)
    if check and report["stale"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
