"""A structure is shipped only in drawings that keep the legibility rules.

Why at generation time: the renderer lays out a figure as well as it can (and
enlarges a crowded one), but a large structure with many loads can still leave a
couple's arc crossed by a load row or a value text equally near two rows. Such an
item would be unfair, and the fix belongs to the drawing, not to the checks: the
recipe asks for another draft of the structure instead (:func:`drawing_fault` is
the ``accept`` check of :func:`structeval.generation.generator.generate_problem`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..model.types import Model
from ..presentation import Presentation

#: (model, category, presentation, image seed) → the first broken rule, or None
DrawingCheck = Callable[[Model, str, Presentation, int], str | None]


def layout_fault(layout: object) -> str | None:
    """The rejection reason of a laid-out figure (a ``FigureLayout``): the first
    legibility rule it breaks, or None when it keeps them all."""
    from ..render.legibility import check

    broken = check(layout)
    return None if not broken else f"illegible drawing ({broken[0].rule})"


def drawing_fault(model: Model, category: str, shown: Presentation, seed: int) -> str | None:
    """:func:`layout_fault` of the task's figure (its layout record, no pixels)."""
    from ..render import layout_model

    return layout_fault(layout_model(model, seed=seed, presentation=shown, category=category))


def every_drawing(check: DrawingCheck, category: str,
                  drawings: Sequence[tuple[Presentation, int]]) -> Callable[[Model], str | None]:
    """The ``accept`` check of a structure shipped as ``drawings`` (presentation, image
    seed): the first fault of any of them."""
    def accept(model: Model) -> str | None:
        for shown, seed in drawings:
            fault = check(model, category, shown, seed)
            if fault is not None:
                return fault
        return None
    return accept
