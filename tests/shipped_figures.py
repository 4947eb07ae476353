"""Every shipped task's figure as its layout record, built once per test session.

The readability proof and the legibility rules look at every shipped task, so
their layouts come from the layout-only path (``layout_model``: the scene and the
scanned tilt, no pixels) and are shared by both tests through one session
fixture (``shipped_figures`` in ``conftest.py``). The time per task of each step is
reported in the terminal summary, so the suite's budget can be watched as the
dataset grows.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from structeval.dataset.notes import task_notes
from structeval.dataset.paths import RAW_DIR
from structeval.dataset.rawfile import presentation_of, read_raw
from structeval.model.types import Model
from structeval.render import FigureLayout, layout_model


@dataclass(frozen=True)
class ShippedFigure:
    id: str
    block: dict[str, Any]
    model: Model
    layout: FigureLayout
    record: dict[str, Any]  # layout.layout_json(), the form a reader gets

    @property
    def notes(self) -> str:
        return str(self.block.get("notes", ""))


@dataclass
class Timings:
    """Seconds spent per step, over how many tasks."""

    seconds: dict[str, float] = field(default_factory=dict)
    tasks: int = 0

    def add(self, step: str, seconds: float) -> None:
        self.seconds[step] = self.seconds.get(step, 0.0) + seconds

    title: str = "readability over {tasks} shipped tasks"

    def report(self) -> str:
        parts = [f"{step} {1000 * s / max(self.tasks, 1):.0f} ms"
                 for step, s in self.seconds.items()]
        return (self.title.format(tasks=self.tasks) + ", per task: " + ", ".join(parts)
                + f"; {sum(self.seconds.values()):.1f} s in all")


def rebuild_failures(tasks: Iterable[tuple[str, Model, Callable[[], dict[str, Any]]]]
                     ) -> list[str]:
    """Why each (id, ground truth, read) task is not rebuilt exactly: the reader refused
    (its ReadError) or its model scores below 1.0. Empty when every task is."""
    from structeval.scoring import score

    from .symbolic_reader import ReadError

    failures = []
    for task_id, model, read in tasks:
        try:
            candidate = read()
        except ReadError as exc:
            failures.append(f"{task_id}: the reader cannot rebuild it: {exc}")
            continue
        verdict = score(model, candidate)
        if verdict.ratio != 1.0:
            failures.append(f"{task_id}: {verdict.ratio} at {verdict.stage}: {verdict.message}")
    return failures


TIMINGS = Timings()
TIMINGS_B = Timings(title="symbol set b over {tasks} shipped structures")


#: the split whose tasks are re-drawn in other presentations (its 346 structures, v1's
#: dataset, are each shipped in one presentation only)
REDRAWN = frozenset({"core"})


def presented(block: dict[str, Any], model: Model, shown: dict[str, str]) -> ShippedFigure:
    """The task laid out in its stored presentation with ``shown`` factors changed, and
    its notes as that presentation states them (layout-only path)."""
    pres = presentation_of(block).with_(**shown)
    layout = layout_model(model, seed=block["image"]["seed"], presentation=pres,
                          category=block["category"])
    record = json.loads(json.dumps(layout.layout_json()))
    notes = task_notes(model, block["category"], pres)
    return ShippedFigure(block["id"], {**block, "notes": notes, "presentation": pres.to_json()},
                         model, layout, record)


def build(data_dir: Path, timings: Timings = TIMINGS, splits: frozenset[str] | None = None,
          **factors: str) -> list[ShippedFigure]:
    """Every task's layout in its own presentation, or with ``factors`` changed (e.g.
    ``symbols="b"``: the shipped structures re-drawn in the other symbol set); only the
    tasks of ``splits`` when given (a re-drawing needs only the core split's variety,
    while the full pass in the tasks' own presentations covers every task)."""
    out = []
    for path in sorted((data_dir / RAW_DIR).glob("*.json")):
        _, block, model = read_raw(path)
        if splits is not None and block.get("split") not in splits:
            continue
        if block["image"]["style"] == "sheet":
            continue  # a drawing sheet shows a building, not this figure (test_sheets.py)
        image = block["image"]
        start = time.perf_counter()
        shown = presentation_of(block).with_(**factors)
        layout = layout_model(model, seed=image["seed"], presentation=shown,
                              category=block["category"])
        record = json.loads(json.dumps(layout.layout_json()))  # exactly what a file would hold
        timings.add("layout", time.perf_counter() - start)
        out.append(ShippedFigure(block["id"], block, model, layout, record))
    timings.tasks = len(out)
    return out
