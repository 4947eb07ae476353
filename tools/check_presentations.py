#!/usr/bin/env python3
"""Readability proof and legibility rules over a data folder, in any presentations.

    python tools/check_presentations.py DATA_DIR                       # as stored
    python tools/check_presentations.py DATA_DIR --all                 # every combination
    python tools/check_presentations.py DATA_DIR -p dimensioning=exam -p units=mm-kN

Each task is laid out (layout-only path) in each presentation asked for, read back
by the symbolic reader of the tests and scored against its ground truth, and
checked against the legibility rules. Prints one line per failing drawing and a
summary; exit 1 when any drawing fails. Needs a checkout (the reader lives in
``tests/``).
"""

from __future__ import annotations

import itertools
import sys
import time
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from structeval.dataset.paths import RAW_DIR  # noqa: E402
from structeval.dataset.rawfile import read_raw  # noqa: E402
from structeval.presentation import Presentation  # noqa: E402
from structeval.render import layout_model  # noqa: E402
from structeval.render.legibility import check  # noqa: E402
from structeval.scoring import score  # noqa: E402

MINE = {"dimensioning": ("full", "exam"), "values": ("numeric", "parametric"),
        "units": ("m-kN", "mm-kN")}


def combinations() -> list[dict[str, str]]:
    names = list(MINE)
    return [dict(zip(names, vals, strict=True)) for vals in itertools.product(*MINE.values())]


def check_one(model, block, shown: dict[str, str] | None) -> str:  # type: ignore[no-untyped-def]
    """"" when the drawing is read exactly and breaks no rule, else why not."""
    from tests.symbolic_reader import ReadError, read_drawing

    image = block["image"]
    pres = Presentation.from_json(block.get("presentation"), style=image["style"])
    if shown:
        pres = pres.with_(**shown)
    layout = layout_model(model, style=image["style"], seed=image["seed"], presentation=pres)
    problems = [str(v) for v in check(layout)]
    from structeval.dataset.notes import task_notes

    notes = task_notes(model, block["category"], pres)
    try:
        verdict = score(model, read_drawing(layout.layout_json(), notes))
        if verdict.ratio != 1.0:
            problems.insert(0, f"read {verdict.ratio} at {verdict.stage}: {verdict.message}")
    except ReadError as exc:
        problems.insert(0, f"unreadable: {exc}")
    return "; ".join(problems)


@click.command()
@click.argument("data_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("-p", "--presentation", "items", multiple=True, metavar="KEY=VALUE")
@click.option("--all", "every", is_flag=True, help="Every combination of the three factors.")
@click.option("--filter", "pattern", default="*", help="Only tasks whose id matches.")
def main(data_dir: Path, items: tuple[str, ...], every: bool, pattern: str) -> None:
    shown = [dict(i.split("=", 1) for i in items)] if items else [{}]
    if every:
        shown = combinations()
    paths = sorted((data_dir / RAW_DIR).glob(f"{pattern}.json"))
    from tqdm import tqdm

    bad = total = 0
    start = time.perf_counter()
    for path in tqdm(paths, desc="tasks", unit="task"):
        _, block, model = read_raw(path)
        for pres in shown:
            total += 1
            why = check_one(model, block, pres)
            if why:
                bad += 1
                tqdm.write(f"{block['id']} {pres}: {why[:300]}")
    click.echo(f"{total - bad} of {total} drawings read exactly and legible "
               f"({time.perf_counter() - start:.0f} s)")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
