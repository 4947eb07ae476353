"""Which notes a structure calls for: one rule for the prompt and for the drawing.

A task states in words what its picture cannot show by itself (a truss is
pin-jointed, a distributed load on an inclined member acts square to it), and
its drawing prints a short block of notes under the figure. Both pick their
lines here, from the model, as :mod:`structeval.phrasebook` keys; the wording in
each language comes from the phrasebook. So an en and a zh task of one
structure state the same facts, and a drawing never says less than the prompt.
"""

from __future__ import annotations

from .model.types import DistributedLoad, Model
from .presentation import Presentation


def pin_jointed(model: Model) -> bool:
    """Every member hinged at both ends (what a truss is, read as an engineer does)."""
    return bool(model.links) and all(lk.hinge_a and lk.hinge_b for lk in model.links)


def members_meet(model: Model) -> bool:
    """Some joint joins two or more members (so how joints connect needs saying)."""
    ends: dict[str, int] = {}
    for lk in model.links:
        for pid in (lk.a, lk.b):
            ends[pid] = ends.get(pid, 0) + 1
    return any(n >= 2 for n in ends.values())


def inclined_distributed(model: Model) -> bool:
    """A distributed load stands on a member that is neither horizontal nor vertical."""
    for load in model.loads:
        if isinstance(load, DistributedLoad):
            link = model.link(load.target.id)
            a, b = model.point(link.a), model.point(link.b)
            if a.x != b.x and a.y != b.y:
                return True
    return False


def task_note_keys(model: Model, category: str,
                   presentation: Presentation | None = None) -> list[str]:
    """The task's notes (the prompt states them), in order: what the structure calls for,
    then what its presentation does to the numbers (millimetres, a legend of symbols)."""
    keys = ["note.truss"] if category == "truss" else []
    if inclined_distributed(model):
        keys.append("note.perpendicular")
    if presentation is not None and presentation.units == "mm-kN":
        keys.append("note.millimetres")
    if presentation is not None and presentation.values == "parametric":
        keys.append("note.parametric")
    return keys


def figure_note_keys(model: Model) -> list[str]:
    """The notes printed under the figure, in order: the stiffness convention, how
    joints are read, and the load note. They follow from the model alone (what is true
    of it), so the renderer needs no category."""
    if pin_jointed(model):
        keys = ["figure.axial-stiffness", "note.truss"]
    else:
        keys = ["figure.bending-stiffness"]
        if members_meet(model):
            keys.append("figure.rigid-joints")
    if inclined_distributed(model):
        keys.append("note.perpendicular")
    return keys
