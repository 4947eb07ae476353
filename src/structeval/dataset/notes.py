"""Task notes: what the prompt must state because the picture alone cannot.

Derived from the model, so generated and hand-authored problems get the same
wording for the same situation.
"""

from __future__ import annotations

from ..model.types import DistributedLoad, Model
from ..presentation import Presentation

TRUSS = "All members of this truss are pin-jointed (hinged at both ends)."
PERPENDICULAR = ("Distributed loads on inclined members act perpendicular to the member, "
                 "per metre of member length.")
MILLIMETRES = "Dimensions on the drawing are in mm; write the answer in m and kN."
PARAMETRIC = ("The legend on the drawing defines the symbols of the lengths and loads; write "
              "every value in the answer as a number in m and kN.")


def task_notes(model: Model, category: str, presentation: Presentation | None = None) -> str:
    """The notes of ``model`` shown in ``presentation`` (default: full, numeric, m-kN)."""
    parts = []
    if category == "truss":
        parts.append(TRUSS)
    for load in model.loads:
        if isinstance(load, DistributedLoad):
            link = model.link(load.target.id)
            a, b = model.point(link.a), model.point(link.b)
            if a.x != b.x and a.y != b.y:
                parts.append(PERPENDICULAR)
                break
    if presentation is not None and presentation.units == "mm-kN":
        parts.append(MILLIMETRES)
    if presentation is not None and presentation.values == "parametric":
        parts.append(PARAMETRIC)
    return " ".join(parts)
