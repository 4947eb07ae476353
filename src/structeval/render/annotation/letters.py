"""Point letters A, B, C, … in model order, so text and figure can name joints."""

from __future__ import annotations

import string

from ...model.types import Model
from ..scene.glyphs import Anchor
from ..scene.scene import Scene
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


def place_letters(scene: Scene, model: Model) -> dict[str, str]:
    size = scene.style.sizes["letter"]
    supported = {s.at: s for s in model.supports}
    letters: dict[str, str] = {}
    # a parametric legend's symbols (P, M) are not joint names: "P" must mean one thing
    reserved = scene.values.symbols()
    names = [n for n in letter_names(len(model.points) + len(reserved)) if n not in reserved]
    for name, p in zip(names, model.points, strict=False):
        occupied = directions_at(scene, model, p.id)
        if p.id in supported:
            occupied.append(ground_side(scene, model, supported[p.id]))
        here = scene.px(p.x, p.y)
        place_label(scene, name, size, p.id, "point", "letter", anchor=here,
                    prefer=free_direction(occupied), radii=LETTER_RADII,
                    at=Anchor(f"point:{p.id}", (here,)))
        letters[name] = p.id
    return letters
