"""Parts every support symbol is built from: ground hatching and lines in the symbol's frame.

A symbol is designed in a local frame (u along the ground, v from the joint into the
ground) so that one drawing serves every orientation ``angleDeg`` asks for; both
symbol sets (:mod:`.supports`, :mod:`.link_supports`) draw their ground the same way.
"""

from __future__ import annotations

from ..scene.scene import LAYER_SUPPORT, LAYER_THIN, Prim, Stroke, frame_point
from ..scene.shapes import XY


def hatch(o: XY, u: XY, v: XY, u0: float, u1: float, v0: float, depth: float,
          width: float, step: float) -> list[tuple[Prim, int]]:
    """Ground hatching: short strokes below the line v = v0, between u0 and u1."""
    out: list[tuple[Prim, int]] = []
    k = 0
    while u0 + k * step <= u1 + 1e-9:
        uu = u0 + k * step
        out.append((Stroke((frame_point(o, u, v, uu, v0),
                            frame_point(o, u, v, uu - depth, v0 + depth)), width, "hatch"),
                    LAYER_THIN))
        k += 1
    return out


def frame_line(o: XY, u: XY, v: XY, a: tuple[float, float], b: tuple[float, float],
               width: float) -> tuple[Prim, int]:
    """An ink line from frame point ``a`` to ``b`` (each (u, v))."""
    return Stroke((frame_point(o, u, v, *a), frame_point(o, u, v, *b)), width, "ink"), LAYER_SUPPORT
