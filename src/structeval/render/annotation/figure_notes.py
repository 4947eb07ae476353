"""The notes a textbook prints under a figure, in the figure's language.

A drawing of a task carries a short block of words below the structure — the
same facts in every language (:mod:`structeval.phrasebook`), chosen from the
model by :func:`structeval.note_keys.figure_note_keys` — so the language factor
changes what a reader has to read and never what there is to know:

* the stiffness convention ("EI = constant" / "EI = 常数"; "EA = constant" for a
  truss), which is what the benchmark's default section means;
* how joints are to be read: "Joints are rigid unless drawn with a hinge circle"
  where members meet, or, when every member is hinged at both ends, the truss
  note "All members of this truss are pin-jointed";
* the task note on loads on inclined members, when the figure has such a load.

Support names are not written beside the symbols: reading a symbol is part of
the task (and of the symbol-set factor), a label would give it away.
"""

from __future__ import annotations

import math

from ...model.types import Model
from ...note_keys import figure_note_keys
from ...phrasebook import say
from ..paint.degrade import MAX_TILT_DEG
from ..scene.fonts import text_size
from ..scene.scene import Scene
from ..scene.typeset import wrap

NOTE_GAP = 16.0  # px between the drawing and the block
LINE_GAP = 0.6  # of the text size, between lines
MIN_WIDTH = 420.0  # px a note may take before it wraps, however narrow the figure


def draw_notes(scene: Scene, model: Model, language: str) -> None:
    """The block, left-aligned under everything drawn so far (labels and chains
    included), one text per line, a note wrapped to the figure's width; nothing else is
    ever placed below it.

    A page that will be tilted (scanned, exam page) turns each line's box into a taller
    upright box, so there lines are kept short and further apart: the boxes of two lines
    must not meet after the tilt either."""
    size = scene.style.sizes["dim"]
    x0, _, x1, y1 = scene.layout.extent()
    tilted = scene.style.scanned or scene.style.page
    width = MIN_WIDTH if tilted else max(x1 - x0, MIN_WIDTH)
    spread = math.sin(math.radians(MAX_TILT_DEG)) * width + 2.0 if tilted else 0.0
    y = y1 + NOTE_GAP
    for key in figure_note_keys(model):
        for line in wrap(say(key, language), size, width):
            w, h = text_size(line, size)
            scene.add_text("notes", "figure", "note", line, size, (x0, y, x0 + w, y + h))
            y += max(h, size) + LINE_GAP * size + spread
