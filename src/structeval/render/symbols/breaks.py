"""The break mark where a beam drawn in two rows is cut: the member runs on a little past
the joint and ends in a break line (a thin stroke across it with a Z kink), the mark a
draughtsman uses for "continued elsewhere". The joint keeps its letter in both rows, so
the two marks and the repeated letter say where the lower row picks up the upper one.
"""

from __future__ import annotations

from ..scene.glyphs import Anchor, Glyph
from ..scene.scene import LAYER_MEMBER, LAYER_THIN, Scene, Stroke, along, frame_point

STUB = 26.0  # px the member runs on past the cut joint
HALF = 14.0  # px: half the break line's length across the member
KINK = 5.5  # px: how far the Z kink reaches along the member


def draw_break(scene: Scene, here: tuple[float, float], owner: str, outward: int) -> None:
    """The break mark at the cut joint ``here`` (figure pixels), the beam continuing to
    the right (``outward`` +1, the end of the upper row) or to the left (-1)."""
    u = (float(outward), 0.0)
    v = (0.0, 1.0)
    end = along(here, u, STUB)
    line = tuple(frame_point(end, u, v, du, dv) for du, dv in
                 ((0.0, -HALF), (0.0, -HALF / 3), (-KINK, -HALF / 8), (KINK, HALF / 8),
                  (0.0, HALF / 3), (0.0, HALF)))
    scene.add("break", owner, "point", "break",
              [(Stroke((here, end), scene.style.member_width, "ink"), LAYER_MEMBER),
               (Stroke(line, scene.style.line_width, "ink"), LAYER_THIN)],
              glyph=Glyph("break", points={"at": here, "end": end}, paths={"line": line}),
              anchor=Anchor(f"point:{owner}", (here,)))
