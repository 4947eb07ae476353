"""The views of a drawing sheet besides the plan: the frame elevations, the load table,
the general notes and the title block, each in a scene of its own.

An elevation is a figure of the frame laid out exactly as every other figure of the
benchmark (:func:`.figure.lay_out`: members, hinges, supports, the loads drawn on it,
dimension chains, joint letters), with the sheet's marks around it: the grid bubbles
under its columns, level marks beside its levels and its title under it. The loads
that follow from the plan and the load table are not drawn on it: that derivation is
what the sheet asks of a reader.
"""

from __future__ import annotations

from typing import Any

from ...model.parse import parse_model
from ...presentation import Presentation
from ..annotation.grid_marks import bubble, bubble_radius, level_mark, sheet_text, view_title
from ..annotation.tables import draw_table
from ..reading.value_text import level_text
from ..scene.fonts import text_size
from ..scene.scene import Scene, drawn_box
from ..scene.styles import Style
from ..scene.typeset import wrap
from .figure import lay_out

BELOW = 36.0  # px between a view and its bubbles or title
LEVEL_ROOM = 40.0  # px between the elevation and its level marks
LINE_PITCH = 1.6  # of the size, between the tops of consecutive note lines


def elevation_view(elevation: dict[str, Any], letters: list[str], style: Style, k: float,
                   sizes: dict[str, float]) -> Scene:
    """One frame elevation with its bubbles, level marks and title."""
    model = parse_model(elevation["model"])
    scene, _ = lay_out(model, style, k, Presentation(), lettered=False)
    # the bubbles stand under the grid lines: the columns of a frame, or the bearing
    # lines of a girder (``columns``), which has joints between them (its hinges)
    xs = ([float(x) for x in elevation["columns"]] if "columns" in elevation
          else sorted({p.x for p in model.points}))
    # the level marks: every level of a frame, or those the block names (``marks``: a
    # truss has a joint at every panel height, marked by its dimensions instead)
    levels = ([float(z) for z in elevation["marks"]] if "marks" in elevation
              else sorted({p.y for p in model.points}))
    x0, _, x1, y1 = drawn_box(scene)
    r = bubble_radius(letters, sizes["bubble"])
    for name, x in zip(letters, xs, strict=True):
        bubble(scene, (scene.px(x, 0)[0], y1 + BELOW + r), name, sizes["bubble"], r, "y")
    for z in levels:
        level_mark(scene, (x1 + LEVEL_ROOM, scene.px(0, z)[1]), level_text(z), sizes["level"])
    view_title(scene, str(elevation["title"]), (x0 + x1) / 2, y1 + BELOW + 2 * r + BELOW,
               sizes["view-title"])
    return scene


def table_view(block: dict[str, Any], style: Style, sizes: dict[str, float]) -> Scene:
    """The load table: its title, the table, then the load cases' names under it."""
    scene = Scene(style, 1.0)
    rows = [[str(c) for c in row] for row in block["rows"]]
    box = draw_table(scene, 0.0, 0.0, rows, sizes["table"])
    y = box[3] + 16.0
    for line in block.get("cases", []):
        y = sheet_text(scene, "case", str(line), sizes["table"], (0.0, y))[3] + 10.0
    view_title(scene, str(block["title"]), (box[0] + box[2]) / 2, y + 18.0, sizes["view-title"])
    return scene


def notes_view(block: dict[str, Any], style: Style, sizes: dict[str, float],
               width: float) -> Scene:
    """General notes, numbered, wrapped to ``width``, under their heading."""
    scene = Scene(style, 1.0)
    size = sizes["notes"]
    y = sheet_text(scene, "notes-title", str(block["title"]), sizes["view-title"], (0.0, 0.0))[3]
    y += 18.0
    for number, note in enumerate(block["lines"], start=1):
        head = f"{number}."
        indent = text_size("00.", size)[0] + 10.0
        sheet_text(scene, "note-number", head, size, (0.0, y))
        for line in wrap(str(note), size, width - indent):
            sheet_text(scene, "note", line, size, (indent, y))
            y += LINE_PITCH * size
        y += 0.4 * size
    return scene


def title_view(rows: list[list[str]], style: Style, sizes: dict[str, float]) -> Scene:
    """The title block: a two-column table (field, entry)."""
    scene = Scene(style, 1.0)
    draw_table(scene, 0.0, 0.0, [[str(a), str(b)] for a, b in rows], sizes["title"],
               role="title-cell")
    return scene
