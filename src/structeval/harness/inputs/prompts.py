"""What the model is told: FrameCalc JSON as FORMAT.md defines it, one worked example,
and how to answer, in three styles and two languages.

The schema text is shared by every style so the three prompt types differ only
in how the model is asked to work (answer directly, reason first, or output the
JSON block alone); a score difference between them is then about the style and
not about different teaching. The languages (``--lang en|zh``: :mod:`.prompt_en`,
:mod:`.prompt_zh`) teach the same rules with the same JSON example, byte for
byte, and the same defaults; only the words differ. The functions here only
ever receive the prompt type, the language, a task's ``notes`` and a grader's
feedback: they cannot see a ground-truth model or its solution, which is what
keeps answers out of the prompts.
"""

from __future__ import annotations

import json
from types import ModuleType

from ...phrasebook import LANGUAGES
from ..common.settings import PROMPT_TYPES
from . import prompt_en, prompt_zh

#: prompt languages (``--lang``) are the drawings' languages; a task's notes are used as
#: the dataset stores them
#: what the model is shown: the drawing as an image, or the text of its DXF file
MODALITIES = ("image", "dxf")
_TEXTS: dict[str, ModuleType] = {"en": prompt_en, "zh": prompt_zh}


def texts(lang: str) -> ModuleType:
    """The text module of a language (INTRO, SCHEMA, EXAMPLE, ANSWER, FEEDBACK)."""
    try:
        return _TEXTS[lang]
    except KeyError:
        raise ValueError(f"unknown prompt language {lang!r}; one of {', '.join(LANGUAGES)}") \
            from None


def feedback(key: str, lang: str = "en", **params: object) -> str:
    """One feedback sentence of a language, its placeholders filled."""
    return texts(lang).FEEDBACK[key].format(**params)


_EXAMPLE_MODEL = {
    "points": [{"id": "A", "x": 0, "y": 0}, {"id": "B", "x": 3, "y": 0},
               {"id": "C", "x": 6, "y": 0}, {"id": "D", "x": 7.5, "y": 0}],
    "links": [{"id": "L1", "a": "A", "b": "B", "endA": "rigid", "endB": "hinge"},
              {"id": "L2", "a": "B", "b": "C", "endA": "hinge", "endB": "rigid"},
              {"id": "L3", "a": "C", "b": "D", "endA": "rigid", "endB": "rigid"}],
    "supports": [{"id": "S1", "at": {"type": "point", "id": "A"}, "kind": "fixed",
                  "angleDeg": 0},
                 {"id": "S2", "at": {"type": "point", "id": "C"}, "kind": "roller",
                  "angleDeg": 0}],
    "loads": [{"id": "Q1", "kind": "distributedLoad", "at": {"type": "link", "id": "L1"},
               "wStart": 4, "wEnd": 4, "fromStart": 0, "fromEnd": 0, "angleDeg": 270,
               "angleMode": "world", "flip": 1},
              {"id": "F1", "kind": "pointLoad", "at": {"type": "link", "id": "L2"},
               "value": 10, "angleDeg": 270, "angleMode": "world", "flip": 1,
               "refEnd": "A", "offsetMode": "m", "offset": 2},
              {"id": "M1", "kind": "bendingMoment", "at": {"type": "point", "id": "D"},
               "value": 6, "flip": -1}],
}


def example_model() -> dict[str, object]:
    """The worked example, as data (tests check that it is a valid, stable model)."""
    return json.loads(json.dumps(_EXAMPLE_MODEL))


def example_json() -> str:
    """The worked example as the prompts show it (one line per item), in every language."""
    lines = ["{"]
    keys = list(_EXAMPLE_MODEL)
    for k, key in enumerate(keys):
        lines.append(f'  "{key}": [')
        items = _EXAMPLE_MODEL[key]
        for i, item in enumerate(items):
            comma = "," if i < len(items) - 1 else ""
            lines.append(f"    {json.dumps(item, ensure_ascii=False)}{comma}")
        lines.append("  ]" + ("," if k < len(keys) - 1 else ""))
    lines.append("}")
    return "\n".join(lines)


def system_prompt(prompt_type: str, lang: str = "en") -> str:
    if prompt_type not in PROMPT_TYPES:
        raise ValueError(f"unknown prompt type {prompt_type!r}; one of {', '.join(PROMPT_TYPES)}")
    t = texts(lang)
    example = t.EXAMPLE.format(json=example_json())
    return "\n\n".join((t.INTRO, t.SCHEMA, example, t.ANSWER[prompt_type])) + "\n"


def task_text(notes: str | None, lang: str = "en", modality: str = "image",
              statement: str | None = None) -> str:
    """The words sent with the drawing; with ``modality="dxf"`` a paragraph saying that the
    DXF file's text follows instead of an image; the task's notes (e.g. "pin-jointed
    truss"), as the dataset stores them, last. A drawing sheet's ``statement`` ("Model the
    frame on grid line 3 under load case 1.") follows the request, with the sentence that
    the sheet holds every value needed: a sheet shows several frames, so without it the
    task would not say which one to model."""
    if modality not in MODALITIES:
        raise ValueError(f"unknown modality {modality!r}; one of {', '.join(MODALITIES)}")
    parts = [feedback("task", lang)]
    statement = (statement or "").strip()
    if statement:
        parts.append(feedback("sheet", lang, statement=statement))
    if modality == "dxf":
        parts.append(feedback("dxf", lang))
    notes = (notes or "").strip()
    if notes:
        parts.append(feedback("notes", lang, notes=notes))
    return "\n\n".join(parts)


def repair_text(stage: str, message: str, lang: str = "en") -> str:
    """Feedback for the next attempt: the failing stage and the grader's explanation."""
    table = texts(lang).FEEDBACK
    what = table.get(f"stage.{stage}", table["stage.other"])
    detail = message.strip()
    lines = [feedback("repair.head", lang, what=what)]
    if detail:
        lines.append(detail)
    lines.append(feedback("repair.tail", lang))
    return "\n\n".join(lines)


def no_json_message(reason: str, lang: str = "en") -> str:
    """The diagnosis of an answer without a FrameCalc object (``reason``: empty | none |
    not_object | think_only, as :class:`~.extract.Extraction` records it)."""
    problem = feedback(f"no_json.{reason}", lang)
    return feedback("no_json.hint", lang, problem=problem)
