"""Task notes: what the prompt must state because the picture alone cannot.

Derived from the model (:mod:`structeval.note_keys`), so generated and
hand-authored problems get the same wording for the same situation, and written
in the task's language from the one catalogue of wordings
(:mod:`structeval.phrasebook`), so an en and a zh task of one structure state the
same facts.
"""

from __future__ import annotations

from ..model.types import Model
from ..note_keys import task_note_keys
from ..phrasebook import say
from ..presentation import Presentation

TRUSS = say("note.truss", "en")
PERPENDICULAR = say("note.perpendicular", "en")
MILLIMETRES = say("note.millimetres", "en")
PARAMETRIC = say("note.parametric", "en")


def task_notes(model: Model, category: str, presentation: Presentation | None = None) -> str:
    """The notes of ``model`` shown in ``presentation`` (default: English, full, numeric,
    m-kN), in its language (English sentences joined by a space, Chinese ones run
    together, as each language writes consecutive sentences)."""
    shown = presentation or Presentation()
    joiner = "" if shown.language == "zh" else " "
    return joiner.join(say(key, shown.language)
                       for key in task_note_keys(model, category, shown))
