"""The layers of a DXF drawing, and which layer each drawn thing goes on.

A CAD user switches layers on and off to see one kind of thing at a time, and a
model reading the DXF text can group entities the same way, so each layer holds one
concern of the figure, named as a drafter would name it. The layers say only what
the picture shows (a member, a support symbol, a load), never which element of the
model it is: no ids, no support kinds, no values beyond the drawn texts.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..scene.layout import LayoutItem
from ..scene.scene import Prim, Stroke


@dataclass(frozen=True)
class Layer:
    name: str
    lineweight: int  # the layer's default, 1/100 mm
    entities: tuple[str, ...]  # the DXF entity types it holds
    description: str


#: every layer a figure's DXF has, in the order of its LAYER table
LAYERS: tuple[Layer, ...] = (
    Layer("MEMBERS", 50, ("LINE",), "members: one LINE per member, joint to joint"),
    Layer("HINGES", 25, ("CIRCLE",), "hinge circles: on a joint (every member there "
                                     "released) or beside it on one member"),
    Layer("SUPPORTS", 25, ("LINE", "LWPOLYLINE", "CIRCLE"),
          "support symbols: triangles, wheels, walls, rails, blocks, link bars and their "
          "end circles, ground lines"),
    Layer("HATCH", 13, ("LINE",), "ground hatching of the support symbols (short strokes)"),
    Layer("LOADS", 25, ("LINE", "LWPOLYLINE", "SOLID", "ARC"),
          "forces (shaft + solid head), distributed loads (a row of arrows and its top "
          "line), couples (arc + solid head)"),
    Layer("ANGLES", 15, ("LINE", "ARC"), "angle marks: dashed horizontal reference, arc, "
                                         "dashed continuation of a slanted ground"),
    Layer("DIMENSIONS", 15, ("DIMENSION", "LINE", "LWPOLYLINE", "TEXT"),
          "dimension chains: one linear DIMENSION per interval, its text the drawn text; "
          "extension lines drawn on through to a far place, level marks, slope triangles "
          "and symmetry axes"),
    Layer("TEXT", 0, ("TEXT",), "joint letters, load values, angle values"),
    Layer("DIAGRAM", 25, ("LINE", "LWPOLYLINE", "HATCH", "TEXT"),
          "bending-moment diagrams (not part of a task's drawing)"),
    Layer("OTHER", 25, ("LINE", "LWPOLYLINE", "CIRCLE", "ARC", "SOLID", "HATCH", "TEXT"),
          "anything else a figure draws: the break marks of a beam drawn in two rows (the "
          "member's run past the cut joint and its break line)"),
)
LAYER_NAMES = tuple(layer.name for layer in LAYERS)

#: layout item kind → layer (supports split into symbol and hatching below)
_BY_KIND = {"member": "MEMBERS", "hinge": "HINGES", "support": "SUPPORTS", "load": "LOADS",
            "dimension": "DIMENSIONS", "diagram": "DIAGRAM", "label": "TEXT"}

#: the lineweights DXF allows (1/100 mm)
LINEWEIGHTS = (0, 5, 9, 13, 15, 18, 20, 25, 30, 35, 40, 50, 53, 60, 70, 80, 90, 100, 106, 120,
               140, 158, 200, 211)
MM_PER_PX = 0.15  # a design pixel as printed: a 3.2 px member is a 0.50 mm line


def layer_for(item: LayoutItem | None, prim: Prim) -> str:
    """The layer of one primitive of a drawn item (None: painted outside any item)."""
    if item is None:
        return "OTHER"
    if item.kind == "label":
        return "DIMENSIONS" if item.owner_type == "dimension" else "TEXT"
    if item.role == "angle":
        return "ANGLES"
    if item.kind == "support" and isinstance(prim, Stroke) and prim.role == "hatch":
        return "HATCH"
    return _BY_KIND.get(item.kind, "OTHER")


def lineweight(width_px: float) -> int:
    """The DXF lineweight closest to a stroke of ``width_px`` design pixels."""
    mm100 = width_px * MM_PER_PX * 100
    return min(LINEWEIGHTS[1:], key=lambda w: (abs(w - mm100), w))
