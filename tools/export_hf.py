#!/usr/bin/env python3
"""Write the dataset as a Hugging Face ``datasets`` folder, ready to push to the Hub.

    python tools/export_hf.py --out hf-export               # every task
    python tools/export_hf.py --out hf-export --split hard  # one split
    huggingface-cli upload OWNER/NAME hf-export --repo-type dataset

The folder holds ``data/<split>-00000-of-00001.parquet`` (an ``image`` column in the
``datasets`` Image format, the FrameCalc model, the ground truth, category,
difficulty, split, presentation factors, notes, licence) and a dataset card
``README.md``. The same dataset gives the same bytes. ``run_eval.py --data-dir
hf-export`` runs the benchmark on it. Exit codes: 0 written, 2 dataset or usage error.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

try:
    import structeval  # noqa: F401
except ModuleNotFoundError:  # a checkout whose package was not installed
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from structeval.model.errors import StructEvalError


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--out", "out", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder to write (created; its parquet files and README.md are replaced).")
@click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Dataset to export (default: STRUCTEVAL_DATA, else the checkout's data/).")
@click.option("--split", help="Only this split (several joined by commas).")
@click.option("--category", multiple=True, help="beam, frame or truss; repeatable.")
@click.option("--difficulty", multiple=True, type=click.IntRange(1, 5), help="1-5; repeatable.")
@click.option("--progress/--no-progress", default=True, show_default=True)
def main(out: Path, data_dir: Path | None, split: str | None, category: tuple[str, ...],
         difficulty: tuple[int, ...], progress: bool) -> None:
    """Export the dataset to OUT in Hugging Face datasets format."""
    from tqdm import tqdm

    from structeval.dataset import load_tasks
    from structeval.dataset.hf_export import export_dataset
    from structeval.dataset.paths import resolve_data_dir

    try:
        root = resolve_data_dir(data_dir)
        if isinstance(root, str):
            raise click.UsageError("--data-dir must be a local data/ folder to export")
        tasks = load_tasks(root, split=split, categories=list(category) or None,
                           difficulties=list(difficulty) or None)
        bar = (lambda items: tqdm(items, desc="export", unit="task")) if progress else None
        summary = export_dataset(root, out, tasks=tasks, progress=bar)
    except StructEvalError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except OSError as exc:
        click.echo(f"error: cannot write {out}: {exc.strerror or exc}", err=True)
        sys.exit(2)
    splits = ", ".join(f"{name} {count}" for name, count in summary.rows.items())
    click.echo(f"exported {summary.total} tasks ({splits}) to {summary.out}")


if __name__ == "__main__":
    main()
