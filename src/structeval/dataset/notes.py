"""Task notes: what the prompt must state because the picture alone cannot.

Derived from the model, so generated and hand-authored problems get the same
wording for the same situation.
"""

from __future__ import annotations

from ..model.types import DistributedLoad, Model

TRUSS = "All members of this truss are pin-jointed (hinged at both ends)."
PERPENDICULAR = ("Distributed loads on inclined members act perpendicular to the member, "
                 "per metre of member length.")


def task_notes(model: Model, category: str) -> str:
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
    return " ".join(parts)
