"""Print the dataset's composition as the Markdown tables the documentation shows.

Why a tool: the dataset page's tables (``docs/dataset/index.md``) are a claim about
``data/``; printing them from the data (and a test comparing that page with this
output) keeps the claim true after every regeneration.

    python tools/dataset_table.py [--data-dir DIR]
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import click

try:
    import structeval  # noqa: F401
except ModuleNotFoundError:  # run from a checkout whose package was not installed
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from structeval.dataset import DATA_DIR, DatasetError, Task, load_tasks
from structeval.dataset.benchmark import CHALLENGE_SPLITS
from structeval.dataset.paths import CATEGORIES, DIFFICULTIES
from structeval.presentation import FACTORS

SPLITS = ("core", "hard", "matched")


def _row(cells: list[object]) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def _table(header: list[str], rows: list[list[object]]) -> list[str]:
    return [_row(header), _row(["---"] * len(header)), *(_row(r) for r in rows)]


def split_table(tasks: list[Task]) -> list[str]:
    """Tasks (and structures) per split and category."""
    splits = [s for s in SPLITS if any(t.split == s for t in tasks)]
    splits += sorted({t.split for t in tasks} - set(splits) - set(CHALLENGE_SPLITS))
    splits += CHALLENGE_SPLITS  # shown with 0 until the data folder holds them
    rows = []
    for split in [*splits, "all"]:
        chosen = [t for t in tasks if split in ("all", t.split)]
        per = Counter(t.category for t in chosen)
        rows.append([f"`{split}`" if split != "all" else "**all**",
                     *(per[c] for c in CATEGORIES), len(chosen),
                     len({t.structure for t in chosen}),
                     sum(t.dxf_path is not None for t in chosen)])
    return _table(["split", *CATEGORIES, "tasks", "structures", "with DXF"], rows)


def level_table(tasks: list[Task]) -> list[str]:
    """Tasks per category and difficulty level."""
    per = Counter((t.category, t.difficulty) for t in tasks)
    rows = [[c, *(per[(c, d)] for d in DIFFICULTIES)] for c in CATEGORIES]
    rows.append(["**all**", *(sum(per[(c, d)] for c in CATEGORIES) for d in DIFFICULTIES)])
    return _table(["category", *(f"level {d}" for d in DIFFICULTIES)], rows)


def factor_table(tasks: list[Task]) -> list[str]:
    """Tasks per presentation factor value, over all splits and in the matched split."""
    rows = []
    for factor, values in FACTORS.items():
        for value in values:
            n = sum(t.presentation.to_json()[factor] == value for t in tasks)
            m = sum(t.presentation.to_json()[factor] == value for t in tasks
                    if t.split == "matched")
            rows.append([f"`{factor}={value}`", n, m])
    return _table(["factor value", "tasks", "of them matched"], rows)


def tables(tasks: list[Task]) -> str:
    parts = [split_table(tasks), level_table(tasks), factor_table(tasks)]
    return "\n\n".join("\n".join(p) for p in parts) + "\n"


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path),
              default=DATA_DIR, show_default=True, help="A data folder.")
def main(data_dir: Path) -> None:
    """Print tasks per split, level and factor value as Markdown tables."""
    try:
        tasks = load_tasks(data_dir, split="all")
    except DatasetError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    click.echo(tables(tasks), nl=False)


if __name__ == "__main__":
    main()
