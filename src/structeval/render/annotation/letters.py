"""Point letters A, B, C, … in model order, so text and figure can name joints."""

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


def letter_names(count: int) -> list[str]:
    """A … Z, then AA, AB, … (spreadsheet style), never running out."""
    names = []
    for i in range(count):
        name, n = "", i
        while True:
            name = string.ascii_uppercase[n % 26] + name
            n = n // 26 - 1
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
