"""The wrong-frame diagnosis of a drawing sheet: which other frame of the sheet an answer is.

A sheet shows several frames (grid line 2, grid line 3, …) and the task names one. An
answer that models another frame of the sheet is a reading error of its own kind — the
reader found the wrong elevation, or took the plan's tributary width of the wrong grid
line — and saying only "Geometry stage failed" hides it. So an answer that does not score
1.0 against the target is also graded against every other frame of the sheet: if it is
that frame (a perfect verdict against it), the diagnosis says "this is the frame on grid
line 2"; if it has that frame's structure but not all of its loads, supports or hinges,
and comes closer to it than to the target, the diagnosis names that frame too. The
target's credit stands either way: modelling the wrong frame is not partial success.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..model.errors import StructEvalError
from ..model.types import Model
from .diagnose import DEFAULT_TOLERANCE, score
from .verdict import CREDIT
from .wording import phrase, render

#: what a frame's name on a sheet may be ("2", "B", "G2'"): it names the frame in results
#: and reports, so nothing longer or stranger is taken from a file
FRAME_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.'-]{0,15}")
#: what a sheet's task models on a grid line, by its category: a bridge sheet's beam
#: task is a girder, every other sheet's task a frame
MEMBERS = {"beam": "girder"}
#: stages of a verdict that mean the answer's members are the frame's (geometry passed)
_STRUCTURE_MATCHED = ("supports", "releases", "loads")


@dataclass(frozen=True)
class Frame:
    """A frame drawn on a sheet: its name there ("2"), how the sheet calls it ("grid line
    2", and in Chinese when the sheet says so), its model under the task's load case and
    what it is (:data:`MEMBERS`: a diagnosis calls a bridge's girder a girder)."""

    frame: str
    label: str
    model: Model | None = None  # None for the target (its model is the ground truth)
    label_zh: str = ""
    member: str = "frame"  # what is modelled on the grid line: "frame", or a bridge's "girder"

    def label_in(self, lang: str) -> str:
        return self.label_zh if lang == "zh" and self.label_zh else self.label


@dataclass(frozen=True)
class FrameMatch:
    """The other frame an answer models: ``stage`` is its verdict against that frame
    ("perfect": it is that frame; otherwise the stage it fails there, geometry passed)."""

    frame: Frame
    stage: str

    @property
    def exact(self) -> bool:
        return self.stage == "perfect"


def wrong_frame(candidate: Model, target_stage: str, alternates: Sequence[Frame], *,
                tolerance: float = DEFAULT_TOLERANCE) -> FrameMatch | None:
    """The frame of ``alternates`` that ``candidate`` models instead of the target, or None.

    ``target_stage`` is the candidate's verdict stage against the target: a perfect answer
    has no wrong frame. An alternate the candidate matches perfectly wins at once (the
    first such, in the sheet's order); otherwise the alternate whose verdict passes the
    geometry stage and is strictly better than the target's (the best, earliest of equals)
    — an answer that fits the target as well as another frame is no evidence of a mix-up.
    """
    if target_stage == "perfect":
        return None
    best: FrameMatch | None = None
    for alternate in alternates:
        if alternate.model is None:
            continue
        try:
            stage = score(alternate.model, candidate, tolerance=tolerance).stage
        except StructEvalError:  # an alternate the solver refuses names no frame
            continue
        if stage == "perfect":
            return FrameMatch(alternate, stage)
        if (stage in _STRUCTURE_MATCHED and CREDIT[stage] > CREDIT.get(target_stage, 0.0)
                and (best is None or CREDIT[stage] > CREDIT[best.stage])):
            best = FrameMatch(alternate, stage)
    return best


def frame_note(match: FrameMatch, target: Frame, lang: str = "en") -> str:
    """The sentence of the diagnosis that names the frame modelled (in ``lang``)."""
    names = {"frame": match.frame.label_in(lang), "target": target.label_in(lang),
             "member": phrase(f"member.{target.member}")}
    if match.exact:
        return render(phrase("frame.wrong", **names), lang)
    return render(phrase("frame.structure", what=phrase(f"fallback.{match.stage}"), **names),
                  lang)


__all__ = ["FRAME_NAME", "MEMBERS", "Frame", "FrameMatch", "frame_note", "wrong_frame"]
