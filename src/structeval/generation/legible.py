"""A structure is shipped only in drawings that keep the legibility rules.

Why at generation time: the renderer lays out a figure as well as it can (and
enlarges a crowded one), but a large structure with many loads can still leave a
couple's arc crossed by a load row or a value text equally near two rows. Such an
item would be unfair, and the fix belongs to the drawing, not to the checks: the
recipe asks for another draft of the structure instead (:func:`drawing_fault` is
the ``accept`` check of :func:`structeval.generation.generator.generate_problem`).

The rules are judged at the delivery profile (the drawing as an API shrinks it to
1568 px on the long side): every writer of new tasks (``tools/synthesize.py``, the
generator's ``synthesize``) refuses a draft whose drawing breaks a rule there and
drafts again. The recipe of the shipped splits judges each draft both at its stored
size and at the profile (:func:`shipped_drawing_fault`): a structure kept before the
profile existed is kept still when it passes at the profile (so those tasks stay
byte for byte), and one that no layout keeps legible at 1568 px (a 35 m truss whose
0.5 m level steps need 48 px/m) is drafted again instead of shipped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..model.types import Model
from ..presentation import Presentation

#: (model, category, presentation, image seed) → the first broken rule, or None
DrawingCheck = Callable[[Model, str, Presentation, int], str | None]


def layout_fault(layout: object, profile: int | None = None) -> str | None:
    """The rejection reason of a laid-out figure (a ``FigureLayout``): the first
    legibility rule it breaks at ``profile`` (None: at the stored size), or None when it
    keeps them all."""
    from ..render.legibility import check

    broken = check(layout, profile=profile)
    return None if not broken else f"illegible drawing ({broken[0].rule})"


def figure_fault(model: Model, category: str, shown: Presentation, seed: int,
                 profile: int | None) -> str | None:
    """:func:`layout_fault` of the task's figure (its layout record, no pixels) at
    ``profile`` (None: at its stored size)."""
    from ..render import layout_model

    return layout_fault(layout_model(model, seed=seed, presentation=shown, category=category),
                        profile)


def stored_drawing_fault(model: Model, category: str, shown: Presentation, seed: int,
                         ) -> str | None:
    """:func:`figure_fault` at the stored size."""
    return figure_fault(model, category, shown, seed, None)


def shipped_drawing_fault(model: Model, category: str, shown: Presentation, seed: int,
                          ) -> str | None:
    """The recipe's check: the first rule the task's figure breaks at its stored size (the
    ``size`` rule included) or, failing none there, at the delivery profile; one layout."""
    from ..render import layout_model
    from ..render.legibility import DELIVERY_LONG_SIDE

    layout = layout_model(model, seed=seed, presentation=shown, category=category)
    return layout_fault(layout) or layout_fault(layout, DELIVERY_LONG_SIDE)


def drawing_fault(model: Model, category: str, shown: Presentation, seed: int) -> str | None:
    """:func:`figure_fault` at the delivery profile (1568 px): the check of every writer of
    new tasks."""
    from ..render.legibility import DELIVERY_LONG_SIDE

    return figure_fault(model, category, shown, seed, DELIVERY_LONG_SIDE)


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
