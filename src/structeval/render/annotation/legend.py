"""The notes a drawing carries besides its labels: the parametric legend and the unit note.

They go below everything else, left-aligned with the figure, so they are read as
notes on the drawing and never taken for a label of something drawn (the
``legend`` legibility rule holds them clear of the figure).
"""

from __future__ import annotations

from ..scene.fonts import text_size
from ..scene.scene import Scene

GAP = 22.0  # px between the figure and the first note
LINE_GAP = 8.0


def draw_legend(scene: Scene) -> None:
    """The legend ("q = 10 kN/m, P = 2qa, a = 2 m") and "Dimensions in mm", if any."""
    notes = [(role, text) for role, text in (("legend", scene.values.legend_text()),
                                             ("note", scene.values.unit_note())) if text]
    if not notes:
        return
    size = scene.style.sizes["load"]
    x0, _, _, y1 = scene.layout.extent()
    y = y1 + GAP
    for role, text in notes:
        w, h = text_size(text, size)
        scene.add_text("figure", "figure", role, text, size, (x0, y, x0 + w, y + h))
        y += h + LINE_GAP
