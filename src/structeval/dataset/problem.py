"""A problem as the store writes it: the ``problem`` block plus the FrameCalc model.

Generated and hand-authored problems are built into this one shape, so the
store (:mod:`store`) never needs to know where a problem came from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..model.types import Model
from ..presentation import Presentation
from .notes import task_notes

#: scanned copies are noisy photos of paper: JPEG keeps them ~50 KB where PNG takes ~120 KB
#: pencil on textured paper and photocopied exam pages likewise
IMAGE_TYPES = {"cad": "png", "textbook": "png", "scanned": "jpg", "sketch": "jpg",
               "exam-page": "jpg", "sheet": "png"}


@dataclass(frozen=True)
class Problem:
    """A generated or hand-authored problem, ready to be written as a raw file."""

    block: dict[str, Any]
    model: Model

    @property
    def id(self) -> str:
        return str(self.block["id"])


def make_problem(pid: str, category: str, split: str, model: Model,
                 provenance: dict[str, Any] | str, image: tuple[str, int], *,
                 difficulty_level: int | None = None, title: str | None = None,
                 presentation: Presentation | None = None) -> Problem:
    """The problem block every raw file carries (see :mod:`rawfile`).

    ``difficulty_level`` is an override of the rule (leave it out to let the rule
    decide); ``presentation`` is written out in full when given (its style must be the
    image's).
    """
    block: dict[str, Any] = {"id": pid, "category": category}
    if title:
        block["title"] = title
    if difficulty_level is not None:
        block["difficulty"] = difficulty_level
    block.update(split=split, notes=task_notes(model, category, presentation),
                 image={"file": f"{pid}.{IMAGE_TYPES[image[0]]}", "style": image[0],
                        "seed": image[1]})
    if presentation is not None:
        block["presentation"] = presentation.to_json()
    block["provenance"] = provenance
    return Problem(block, model)


