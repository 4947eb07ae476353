"""What the model is told: FrameCalc JSON as FORMAT.md defines it, one worked example,
and how to answer, in three styles.

The schema text is shared by every style so the three prompt types differ only
in how the model is asked to work (answer directly, reason first, or output the
JSON block alone); a score difference between them is then about the style and
not about different teaching. The functions here only ever receive the prompt
type, a task's ``notes`` and a grader's feedback: they cannot see a ground-truth
model or its solution, which is what keeps answers out of the prompts.
"""

from __future__ import annotations

import json

from ..model import DEFAULT_A, DEFAULT_E, DEFAULT_IZ
from .settings import PROMPT_TYPES

#: Languages the prompts are written in (``--lang``/``-T lang=``); other values are refused.
LANGUAGES = ("en",)

_INTRO = """\
You are a structural engineer. You will see a drawing of a plane structure (a beam, \
a frame or a truss) with its supports, hinges, loads and dimensions. Describe it \
exactly as FrameCalc JSON so that a finite-element solver can compute its support \
reactions and bending moments. You only describe the structure; you do not solve it."""

_SCHEMA = f"""\
## FrameCalc JSON

One object with four arrays: "points", "links", "supports", "loads".

Units: lengths in m, forces in kN, distributed loads in kN/m, moments in kN·m.
Axes: x to the right, y up. Angles in degrees, counter-clockwise from +x: \
0 = right, 90 = up, 180 = left, 270 = down. Put the origin where convenient \
(e.g. the lower-left support) and read every coordinate from the dimension lines.

Ids are strings, unique within each array (e.g. "A", "B" for points, "L1" for links).

### points
{{"id": "A", "x": 0, "y": 0}} for every joint, support, free end, hinge, member \
kink or crossing, and every place where a member changes.

### links (members)
{{"id": "L1", "a": "A", "b": "B", "endA": "rigid", "endB": "hinge"}}: a straight \
member from point "a" (end A) to point "b" (end B).
- Links connect only at their end points. A member with a joint, support or \
hinge part-way along it must be split there into several links; a point may \
not lie inside a link.
- "endA"/"endB" are "rigid" (default) or "hinge". "hinge" releases the bending \
moment at that end of that link (the end can rotate freely; it still moves with \
the point). For a hinge circle drawn at a joint, set "hinge" on the link ends \
that meet there (releasing every end at that point is also correct).
- Trusses are pin-jointed: in a truss every member has "endA": "hinge" and \
"endB": "hinge".
- Section properties "E" (kN/m²), "A" (m²), "Iz" (m⁴) are optional. When omitted \
every link uses E = {DEFAULT_E:.0f}, A = {DEFAULT_A!r}, Iz = {DEFAULT_IZ!r}. Leave \
them out unless the drawing gives member stiffnesses; a member marked e.g. 2EI \
then gets Iz twice the default.

### supports
{{"id": "S1", "at": {{"type": "point", "id": "A"}}, "kind": "pin", "angleDeg": 0}}; \
at most one support per point. Kinds, and what "angleDeg" means in the picture:
- "pin" (triangle on hatched ground): holds x and y, free to rotate. angleDeg is \
ignored; write 0.
- "fixed" (member built into a hatched wall, clamped): holds x, y and rotation. \
angleDeg is ignored; write 0.
- "roller" (triangle on wheels): holds only the \
direction perpendicular to its rolling surface, free to roll and rotate. angleDeg \
is the direction in which it can roll: 0 for a roller on horizontal ground \
(holds y), 90 for a roller against a vertical wall (holds x); for an inclined \
rolling surface, the surface's angle.
- "slider" (guided support: a block gliding between two rails): holds rotation \
and the translation across the rails, free to slide along them. angleDeg is the \
held direction (across the rails), not the sliding one: 90 for a slider that \
slides horizontally (holds y and rotation), 0 for one that slides vertically \
(holds x and rotation).

### loads
Every load has "id", "kind" and "at": {{"type": "point", "id": ...}} or \
{{"type": "link", "id": ...}}. "flip" is 1 or -1; -1 reverses the load (prefer \
flip 1 with the true direction).

pointLoad — a force of "value" kN (a positive magnitude) along "angleDeg":
{{"id": "F1", "kind": "pointLoad", "at": {{"type": "point", "id": "C"}}, \
"value": 10, "angleDeg": 270, "angleMode": "world", "flip": 1}}
- "angleMode": "world" measures angleDeg from +x (270 = downward); "relative" \
measures it from the link's direction A→B (on a point, relative means world). \
Use "world" for point loads.
- On a link, say where: "refEnd" ("A" or "B"), "offsetMode": "m" and "offset" = \
distance in m from that end (or "offsetMode": "percent" with "offsetPercent" \
0–100 of the link length). A load at a joint goes on the point instead.

distributedLoad — on a link only, in kN/m per metre of member length:
{{"id": "Q1", "kind": "distributedLoad", "at": {{"type": "link", "id": "L1"}}, \
"wStart": 5, "wEnd": 5, "fromStart": 0, "fromEnd": 0, "angleDeg": 270, \
"angleMode": "world", "flip": 1}}
- The load covers the link from "fromStart" m after end A to "fromEnd" m before \
end B (0 and 0 = the whole link); its intensity varies linearly from "wStart" \
(A side) to "wEnd" (B side); equal values for a uniform load, different ones for \
a triangular or trapezoidal load.
- Direction as for a pointLoad. A load drawn perpendicular to an inclined member \
uses "angleMode": "relative" with "angleDeg" 90 (to the left of the direction \
A→B) or 270 (to the right of A→B).

bendingMoment — a couple of "value" kN·m (positive magnitude) at a point, or on \
a link at refEnd/offsetMode/offset like a pointLoad:
{{"id": "M1", "kind": "bendingMoment", "at": {{"type": "point", "id": "B"}}, \
"value": 20, "flip": 1}}
- "flip": 1 is counter-clockwise, "flip": -1 is clockwise."""

_EXAMPLE_MODEL = {
    "points": [{"id": "A", "x": 0, "y": 0}, {"id": "B", "x": 3, "y": 0},
               {"id": "C", "x": 6, "y": 0}, {"id": "D", "x": 7.5, "y": 0}],
    "links": [{"id": "L1", "a": "A", "b": "B", "endA": "rigid", "endB": "hinge"},
              {"id": "L2", "a": "B", "b": "C", "endA": "rigid", "endB": "rigid"},
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


def _example_json() -> str:
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


_EXAMPLE = f"""\
## Example

Drawing: a horizontal beam A–B–C–D. A is built into a wall (fixed); a hinge \
circle at B, 3 m right of A; a roller on the ground at C, 3 m right of B; D is a \
free end 1.5 m right of C. A uniform load of 4 kN/m acts downward on A–B, a \
downward force of 10 kN acts 2 m right of B, and a clockwise couple of 6 kN·m \
acts at D. (Releasing L2's end A at B as well would describe the same structure.)

<json>
{_example_json()}
</json>"""

_ANSWER = {
    "standard": """\
## Your answer

Write the complete model for the drawing inside <json></json> tags. You may \
write short remarks before the tags; put nothing but the JSON inside them.""",
    "reasoning": """\
## Your answer

Work step by step before answering: (1) name the points and read their \
coordinates from the dimension lines; (2) list the members between them and the \
hinges; (3) identify each support and its angleDeg; (4) list every load with its \
magnitude, direction and position. Check each against the drawing. Then write \
the complete model inside <json></json> tags, at the end of your answer.""",
    "strict": """\
## Your answer

Reply with exactly one <json></json> block containing the complete model and \
nothing else: no text before or after it, no Markdown fences, no comments in \
the JSON. Before answering, check that ids are unique, that every link joins two \
existing points, that no point lies inside a link, that every support and load \
refers to an existing point or link, and that every load position lies on its \
link.""",
}


def system_prompt(prompt_type: str) -> str:
    if prompt_type not in PROMPT_TYPES:
        raise ValueError(f"unknown prompt type {prompt_type!r}; one of {', '.join(PROMPT_TYPES)}")
    return "\n\n".join((_INTRO, _SCHEMA, _EXAMPLE, _ANSWER[prompt_type])) + "\n"


def task_text(notes: str | None) -> str:
    """The words sent with the image; the task's notes (e.g. "pin-jointed truss") last."""
    text = "Describe the structure in this drawing as FrameCalc JSON."
    notes = (notes or "").strip()
    return f"{text}\n\nNotes for this drawing: {notes}" if notes else text


_STAGE_FEEDBACK = {
    "no_json": "no FrameCalc JSON object could be read from it",
    "invalid": "the JSON is not a valid FrameCalc model",
    "geometry": "the geometry (points and members) does not match the drawing",
    "supports": "the geometry is right, but the supports do not match the drawing",
    "releases": "geometry and supports are right, but the hinges (end releases) do not match "
                "the drawing",
    "loads": "the structure is right, but the loads do not match the drawing",
}


def repair_text(stage: str, message: str) -> str:
    """Feedback for the next attempt: the failing stage and the grader's explanation."""
    what = _STAGE_FEEDBACK.get(stage, "it does not match the drawing")
    detail = message.strip()
    lines = [f"Your previous answer is not correct yet: {what}."]
    if detail:
        lines.append(detail)
    lines.append("Look at the drawing again and write the corrected complete model inside "
                 "<json></json> tags.")
    return "\n\n".join(lines)
