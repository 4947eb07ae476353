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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from structeval.dataset.images import block_presentation
from structeval.dataset.notes import task_notes
from structeval.dataset.paths import RAW_DIR
from structeval.dataset.rawfile import read_raw
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

    def report(self) -> str:
        parts = [f"{step} {1000 * s / max(self.tasks, 1):.0f} ms"
                 for step, s in self.seconds.items()]
        return (f"readability over {self.tasks} shipped tasks, per task: " + ", ".join(parts)
                + f"; {sum(self.seconds.values()):.1f} s in all")


TIMINGS = Timings()


def presented(block: dict[str, Any], model: Model, shown: dict[str, str]) -> ShippedFigure:
    """The task laid out in its stored presentation with ``shown`` factors changed, and
    its notes as that presentation states them (layout-only path)."""
    image = block["image"]
    pres = block_presentation(block).with_(**shown)
    layout = layout_model(model, style=image["style"], seed=image["seed"], presentation=pres)
    record = json.loads(json.dumps(layout.layout_json()))
    notes = task_notes(model, block["category"], pres)
    return ShippedFigure(block["id"], {**block, "notes": notes, "presentation": pres.to_json()},
                         model, layout, record)


def build(data_dir: Path) -> list[ShippedFigure]:
    out = []
    for path in sorted((data_dir / RAW_DIR).glob("*.json")):
        _, block, model = read_raw(path)
        image = block["image"]
        start = time.perf_counter()
        layout = layout_model(model, style=image["style"], seed=image["seed"],
                              presentation=block_presentation(block))
        record = json.loads(json.dumps(layout.layout_json()))  # exactly what a file would hold
        TIMINGS.add("layout", time.perf_counter() - start)
        out.append(ShippedFigure(block["id"], block, model, layout, record))
    TIMINGS.tasks = len(out)
    return out
