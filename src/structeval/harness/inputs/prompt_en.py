"""The English prompt texts: what the model is told, and the feedback it is given.

Every language module (this one, :mod:`.prompt_zh`) defines the same names with
the same placeholders; :mod:`.prompts` assembles them, so the languages share
one worked example (byte for byte) and one set of defaults.
"""

from __future__ import annotations

from ...model import DEFAULT_A, DEFAULT_E, DEFAULT_IZ
from ...phrasebook import say

INTRO = """\
You are a structural engineer. You will see a drawing of a plane structure (a beam, \
a frame or a truss) with its supports, hinges, loads and dimensions. Describe it \
exactly as FrameCalc JSON so that a finite-element solver can compute its support \
reactions and bending moments. You only describe the structure; you do not solve it."""

SCHEMA = f"""\
## FrameCalc JSON

One object with four arrays: "points", "links", "supports", "loads".

Units: lengths in m, forces in kN, distributed loads in kN/m, moments in kN·m.
Axes: x to the right, y up. Angles in degrees, counter-clockwise from +x: \
0 = right, 90 = up, 180 = left, 270 = down. Put the origin where convenient \
(e.g. the lower-left support) and read every coordinate from the dimension lines. \
{say('convention.two-rows', 'en')}

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
the point). {say('convention.hinge-joint', 'en')} \
{say('convention.hinge-end', 'en')}
- Trusses are pin-jointed: in a truss every member has "endA": "hinge" and \
"endB": "hinge".
- Section properties "E" (kN/m²), "A" (m²), "Iz" (m⁴) are optional. When omitted \
every link uses E = {DEFAULT_E:.0f}, A = {DEFAULT_A!r}, Iz = {DEFAULT_IZ!r}. Leave \
them out unless the drawing gives member stiffnesses; a member marked e.g. 2EI \
then gets Iz twice the default.

### supports
{{"id": "S1", "at": {{"type": "point", "id": "A"}}, "kind": "pin", "angleDeg": 0}}; \
at most one support per point. Drawings use one of two symbol conventions: the \
symbols below, or link bars (a short bar with a small circle at each end, standing \
on hatched ground; a bar holds the point only along itself). Kinds, and what \
"angleDeg" means in the picture:
- "pin" (triangle on hatched ground, or two link bars meeting at the point): holds x \
and y, free to rotate. angleDeg is ignored; write 0.
- "fixed" (member built into a hatched wall, clamped): holds x, y and rotation. \
angleDeg is ignored; write 0.
- "roller" (triangle on wheels, or one link bar): holds only the \
direction perpendicular to its rolling surface (along the bar), free to roll and \
rotate. angleDeg is the direction in which it can roll: 0 for a roller on horizontal \
ground or a vertical bar (holds y), 90 for a roller against a vertical wall or a \
horizontal bar (holds x); for an inclined rolling surface, the surface's angle (a \
bar stands square to that surface).
- "slider" (guided support: a block gliding between two rails, or two parallel link \
bars): holds rotation and the translation across the rails (along the bars), free \
to slide along the rails (across the bars). angleDeg is the held direction (across \
the rails, along the bars), not the sliding one: 90 for a slider that slides \
horizontally (holds y and rotation), 0 for one that slides vertically (holds x and \
rotation).

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

EXAMPLE = """\
## Example

Drawing: a horizontal beam A–B–C–D. A is built into a wall (fixed); a hinge \
circle centred on B, 3 m right of A; a roller on the ground at C, 3 m right of B; D \
is a free end 1.5 m right of C. A uniform load of 4 kN/m acts downward on A–B, a \
downward force of 10 kN acts 2 m right of B, and a clockwise couple of 6 kN·m \
acts at D. (So both link ends at B, L1's end B and L2's end A, are "hinge".)

<json>
{json}
</json>"""

ANSWER = {
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


FEEDBACK = {
    "task": "Describe the structure in this drawing as FrameCalc JSON.",
    "notes": "Notes for this drawing: {notes}",
    "dxf": "The drawing is not an image here: the text of a DXF (CAD) file of the same "
           "figure follows. Read the members, supports, hinges, loads and dimensions from its "
           "entities (lines, arcs, circles, texts, blocks, dimensions); take lengths from the "
           "dimension values written on the drawing.",
    "sheet": "{statement} The drawing is a sheet of several views: its plan, elevations, "
             "load table and notes hold every value you need (derive the frame's loads from "
             "the load table, the plan's spacings and the notes).",
    "tiles": "The first image is the whole drawing ({width} x {height} pixels), downscaled. "
             "{count} overlapping tiles follow, each labelled with its pixel box in the frame "
             "of the full-size drawing (x from the left edge, y from the top edge); read small "
             "texts from the tiles and the layout from the whole drawing.",
    "tile": "Tile {index} of {count}: x {x0}-{x1}, y {y0}-{y1} (full size).",
    "tile.scaled": "Tile {index} of {count}: x {x0}-{x1}, y {y0}-{y1}, shown at {w} x {h} "
                   "pixels.",
    "zoom": "The image is the whole drawing ({width} x {height} pixels at full size), "
            "downscaled to {w} x {h}. To read small texts, call the zoom function with a box "
            "in the full-size drawing's pixels (x from the left edge, y from the top edge, "
            "width and height); each call shows that part of the drawing at full resolution "
            "(shrunk to at most {side} pixels if larger). At most {limit} calls; then write "
            "the answer.",
    "zoom.tool": "Show a part of the drawing at full resolution. The box is in pixels of the "
                 "full-size drawing ({width} x {height}): x from its left edge, y from its top "
                 "edge, width and height of the box. The crop arrives as an image in the next "
                 "message.",
    "zoom.x": "left edge of the box, full-size pixels",
    "zoom.y": "top edge of the box, full-size pixels",
    "zoom.width": "width of the box, full-size pixels",
    "zoom.height": "height of the box, full-size pixels",
    "zoom.label": "Zoom {index}: x {x0}-{x1}, y {y0}-{y1} of the full-size drawing, shown at "
                  "{w} x {h} pixels.",
    "zoom.done": "Zoom {index}: cropped x {x0}-{x1}, y {y0}-{y1} ({cw} x {ch} full-size "
                 "pixels); the image follows in the next message.",
    "zoom.clamped": "The box asked for (x {ax0}-{ax1}, y {ay0}-{ay1}) reaches beyond the "
                    "drawing ({width} x {height} pixels) and was clamped to it.",
    "zoom.outside": "Not cropped: the box (x {ax0}-{ax1}, y {ay0}-{ay1}) lies wholly outside "
                    "the drawing ({width} x {height} pixels); ask for a box inside it.",
    "zoom.size": "Not cropped: width and height must be positive numbers of pixels.",
    "zoom.arguments": "Not cropped: the arguments must be a JSON object with numbers x, y, "
                      "width and height (full-size pixels); {problem}.",
    "zoom.unknown": "There is no function {name}; the only function is zoom(x, y, width, "
                    "height).",
    "zoom.limit": "No more zooms: the limit of {limit} per answer is reached. Write the final "
                  "answer now, inside <json></json> tags, without calling a function.",
    "repair.head": "Your previous answer is not correct yet: {what}.",
    "repair.tail": "Look at the drawing again and write the corrected complete model inside "
                   "<json></json> tags.",
    "stage.other": "it does not match the drawing",
    "stage.no_json": "no FrameCalc JSON object could be read from it",
    "stage.invalid": "the JSON is not a valid FrameCalc model",
    "stage.geometry": "the geometry (points and members) does not match the drawing",
    "stage.supports": "the geometry is right, but the supports do not match the drawing",
    "stage.releases": "geometry and supports are right, but the hinges (end releases) do not "
                      "match the drawing",
    "stage.loads": "the structure is right, but the loads do not match the drawing",
    "no_json.empty": "the answer is empty",
    "no_json.none": "no JSON object found in the answer",
    "no_json.not_object": "JSON was found but it is not an object with points, links, "
                          "supports and loads",
    "no_json.think_only": "JSON only inside <think>: a reasoning block is not an answer, and "
                          "the answer outside it holds no JSON object",
    "no_json.hint": "{problem}. Write the model as one JSON object inside <json></json> tags.",
    "analysis_failed": "the model could not be analysed: {error}",
}
