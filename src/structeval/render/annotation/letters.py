"""Point letters A, B, C, … in model order, so text and figure can name joints.

Neither I nor O names a joint, as neither names a grid line on a drawing sheet (the
drafting rule): beside a hinge circle or a member an I reads as a 1 or a stroke and an
O as a 0 or a circle, and a lone ``I`` or the ``I`` of ``AI`` was where the OCR proof
most often misread a clean joint letter (read as nothing, ``1`` or ``Al``).
"""

from __future__ import annotations

import string
from collections.abc import Mapping

from ...model.types import Model
from ..scene.glyphs import Anchor
from ..scene.scene import Scene
from ..scene.shapes import XY
from ..symbols.members import directions_at
from ..symbols.supports import ground_side
from .placement import free_direction, place_label

LETTER_RADII = (3.0, 6.0, 10.0, 15.0, 21.0, 28.0, 38.0, 50.0)


#: the letters joints are named with: the capitals without I and O
JOINT_ALPHABET = "".join(c for c in string.ascii_uppercase if c not in "IO")


def letter_names(count: int) -> list[str]:
    """A … Z, then AA, AB, … (spreadsheet style, over :data:`JOINT_ALPHABET`), never
    running out."""
    names = []
    base = len(JOINT_ALPHABET)
    for i in range(count):
        name, n = "", i
        while True:
            name = JOINT_ALPHABET[n % base] + name
            n = n // base - 1
            if n < 0:
                break
        names.append(name)
    return names


def joint_names(scene: Scene, model: Model) -> dict[str, str]:
    """Point id -> its letter, in model order (a parametric legend's symbols, P or M, are
    not joint names: "P" must mean one thing)."""
    reserved = scene.values.symbols()
    names = [n for n in letter_names(len(model.points) + len(reserved)) if n not in reserved]
    return {p.id: name for name, p in zip(names, model.points, strict=False)}


def place_letters(scene: Scene, model: Model, names: Mapping[str, str] | None = None,
                  also: Mapping[str, XY] | None = None) -> dict[str, str]:
    """Every joint's letter beside it, clear of what meets there. ``names``: the letters
    of a larger model this one is part of (a row of a beam drawn in two), by point id;
    ``also``: one more direction taken at a joint (a break mark's stub)."""
    size = scene.style.sizes["letter"]
    supported = {s.at: s for s in model.supports}
    letters: dict[str, str] = {}
    named = names if names is not None else joint_names(scene, model)
    for p in model.points:
        name = named[p.id]
        occupied = directions_at(scene, model, p.id)
        if also and p.id in also:
            occupied.append(also[p.id])
        if p.id in supported:
            occupied.append(ground_side(scene, model, supported[p.id]))
        here = scene.px(p.x, p.y)
        place_label(scene, name, size, p.id, "point", "letter", anchor=here,
                    prefer=free_direction(occupied), radii=LETTER_RADII,
                    at=Anchor(f"point:{p.id}", (here,)))
        letters[name] = p.id
    return letters
