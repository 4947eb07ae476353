"""A figure as a DXF drawing (the ``dxf`` modality): the same drawing, as CAD entities.

The image and the DXF come from one scene (:mod:`.scene`): every paint primitive
becomes an entity on the layer of what it draws (:mod:`.dxf_layers`), so the two
show the same members, symbols, arrows, texts and chains in the same places, one
similarity apart. What differs is what CAD has and pixels have not:

* **Units.** World coordinates, y up: 1 unit = 1 m (``$INSUNITS`` 6) when the
  drawing's lengths are in metres, 1 mm (``$INSUNITS`` 4) when they are written in
  mm, so member ends sit at the model's coordinates and a DIMENSION measures what
  its text says. A parametric drawing (lengths written as multiples of ``a``) is to
  scale in no stated unit (``$INSUNITS`` 0, the figure's design pixels / 100), so
  its geometry does not give away the value of ``a``. Symbols, arrows and texts keep
  their size on the page, converted into these units.
* **Entities.** LINE (members, shafts, hatching, symbol parts), LWPOLYLINE (rows'
  top lines, triangles, blocks; closed where the image's are), CIRCLE (hinges,
  wheels, link-bar ends), ARC (couples, angle marks), SOLID (arrowheads), TEXT (joint
  letters, load and angle values; middle-centre at the image text's centre, height =
  its cap height, text style by script: :mod:`.dxf_text`) and DIMENSION (the chains,
  one per interval, text = the drawn text: :mod:`.dxf_dimensions`).
* **Style.** Line widths become lineweights; dashed lines a DASHED linetype. The
  textbook wobble and the scanned tilt, blur and noise are raster effects: the DXF
  is the clean drawing (the delivered image is this drawing turned by the scanned
  tilt, so the similarity between the two may include a rotation).

The same model, style and presentation give the same bytes (with the same ezdxf):
the header's dates and GUIDs are fixed, handles are issued in drawing order.
``ezdxf`` is needed to write a DXF (``pip install 'structeval[dxf]'``); nothing else
in the package imports it, and readers of a DXF need only its text.
"""

from __future__ import annotations

import io
import itertools
import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...model.types import Model
from ...presentation import Presentation
from ..annotation.chains import OVERSHOOT, TICK
from ..compose.figure import (
    MIN_LONG_SIDE,
    Wording,
    as_presentation,
    build_scene,
    finish,
    resolve_style,
)
from ..legibility.delivery import DELIVERY_LONG_SIDE
from ..scene.errors import RenderError
from ..scene.fonts import cap_height
from ..scene.layout import LayoutItem
from ..scene.result import RenderResult
from ..scene.scene import Disc, Fill, Painted, Scene, Stroke, Text, prim_bbox
from ..scene.shapes import XY
from .dxf_dimensions import DIMSTYLE, Interval, assign_texts, dimstyle_attribs, write_chain
from .dxf_layers import LAYERS, layer_for, lineweight
from .dxf_text import TEXT_STYLES, style_for

PresentationLike = Presentation | Mapping[str, str] | None

DXF_VERSION = "R2013"  # AC1027: UTF-8 text (Chinese labels), lineweights; what ezdxf writes best
DECIMALS = 9  # drawing units are rounded to 1e-9 (a nanometre in a metre drawing)
ARC_TOL = 1e-6  # relative: a polyline whose points all lie this close to a circle is an arc


@dataclass(frozen=True)
class DrawingUnits:
    """How design pixels become drawing units."""

    per_px: float  # drawing units per design pixel (y is flipped too)
    insunits: int  # DXF $INSUNITS: 0 unitless, 4 mm, 6 m
    name: str


def drawing_units(presentation: Presentation, k: float) -> DrawingUnits:
    """World metres or millimetres as the drawing writes its lengths; a parametric drawing
    is unitless (see the module docstring). ``k`` is the scene's pixels per metre."""
    if presentation.values == "parametric":
        return DrawingUnits(0.01, 0, "unitless")
    if presentation.units == "mm-kN":
        return DrawingUnits(1000.0 / k, 4, "mm")
    return DrawingUnits(1.0 / k, 6, "m")


@dataclass(frozen=True)
class DxfFigure:
    """A figure's DXF file: its bytes (UTF-8 text) and how it maps to the scene."""

    data: bytes
    units: DrawingUnits
    scale: float  # the scene's design pixels per metre

    @property
    def text(self) -> str:
        return self.data.decode("utf-8")

    def to_drawing(self, p: XY) -> XY:
        """A design-pixel point of the scene in drawing units."""
        return _to_units(self.units.per_px)(p)

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        if path.suffix.lower() != ".dxf":
            raise RenderError(f"cannot save {path.name} as DXF: use a .dxf file name")
        path.write_bytes(self.data)
        return path


def _ezdxf() -> Any:
    try:
        import ezdxf
    except ImportError as exc:
        raise RenderError("writing DXF needs the ezdxf package: pip install 'structeval[dxf]' "
                          "(or pip install ezdxf)") from exc
    return ezdxf


_FIXED = threading.Lock()


@contextmanager
def _fixed_metadata(ezdxf: Any) -> Iterator[None]:
    """ezdxf stamps each document with the time and fresh GUIDs unless this (global)
    option is set; set it while a document is made and written, then restore it."""
    with _FIXED:
        before = ezdxf.options.write_fixed_meta_data_for_testing
        ezdxf.options.write_fixed_meta_data_for_testing = True
        try:
            yield
        finally:
            ezdxf.options.write_fixed_meta_data_for_testing = before


def _to_units(per_px: float) -> Callable[[XY], XY]:
    def f(p: XY) -> XY:
        return (round(p[0] * per_px, DECIMALS) + 0.0, round(-p[1] * per_px, DECIMALS) + 0.0)
    return f


def _arc(points: tuple[XY, ...], centre: XY, r: float) -> tuple[float, float] | None:
    """(start, end) degrees, counter-clockwise in drawing axes (y up), when every point
    lies on the circle; None otherwise."""
    if len(points) < 3 or r <= 0:
        return None
    if any(abs(math.dist(p, centre) - r) > ARC_TOL * r for p in points):
        return None
    angles = [math.degrees(math.atan2(-(p[1] - centre[1]), p[0] - centre[0])) for p in points]
    sweep = sum((b - a + 180.0) % 360.0 - 180.0 for a, b in itertools.pairwise(angles))
    start, end = (angles[0], angles[-1]) if sweep > 0 else (angles[-1], angles[0])
    return start % 360.0, end % 360.0


def _arc_centre(item: LayoutItem) -> tuple[XY, float] | None:
    g = item.glyph
    if g is None or "r" not in g.lengths:
        return None
    centre = g.points.get("centre") or g.points.get("vertex")
    return (centre, g.lengths["r"]) if centre is not None else None


class _Writer:
    """One scene into one document."""

    def __init__(self, ezdxf: Any, scene: Scene, units: DrawingUnits):
        self.ezdxf, self.scene, self.units = ezdxf, scene, units
        self.doc = ezdxf.new(DXF_VERSION, setup=False)
        self.msp = self.doc.modelspace()
        self.to = _to_units(units.per_px)
        self.dashes: dict[float, str] = {}
        self.styles: set[str] = set()

    def setup(self) -> None:
        doc, st = self.doc, self.scene.style
        header = doc.header
        header["$INSUNITS"] = self.units.insunits
        header["$MEASUREMENT"] = 1
        header["$LUNITS"] = 2
        header["$LUPREC"] = 4
        header["$LWDISPLAY"] = 1
        for layer in LAYERS:
            doc.layers.add(layer.name, color=7, lineweight=layer.lineweight)
        self._text_style(style_for(""))
        dim_cap = cap_height(st.sizes["dim"])
        style = self.doc.dimstyles.new(DIMSTYLE)
        for key, value in dimstyle_attribs(self.length, TICK, OVERSHOOT, dim_cap,
                                           style_for("").name).items():
            style.set_dxf_attrib(key, value)
        header["$DIMSTYLE"] = DIMSTYLE
        header["$TEXTSTYLE"] = style_for("").name

    def length(self, px: float) -> float:
        """A design-pixel length in drawing units (rounded like the coordinates)."""
        return round(px * self.units.per_px, DECIMALS)

    def _text_style(self, style: Any) -> str:
        if style.name not in self.styles:
            self.styles.add(style.name)
            self.doc.styles.add(style.name, font=style.font)
        return str(style.name)

    def _linetype(self, dash: float) -> str:
        if dash not in self.dashes:
            name = "DASHED" if not self.dashes else f"DASHED{len(self.dashes) + 1}"
            d = self.length(dash)
            self.doc.linetypes.add(name, pattern=[2 * d, d, -d], description="__ __ __")
            self.dashes[dash] = name
        return self.dashes[dash]

    def write(self) -> None:
        scene = self.scene
        items = scene.layout.items
        assigned = assign_texts(items)
        texts: dict[Interval, list[int]] = {}
        for t, interval in sorted(assigned.items()):
            texts.setdefault(interval, []).append(t)
        # the first text of each interval is its DIMENSION's text, wherever it comes in
        # the paint order (a text painted before its chain is not also written as TEXT)
        used: set[int] = {ts[0] for ts in texts.values()}
        done: set[int] = set()
        for painted in scene.painted:
            index = painted.item
            item = items[index] if 0 <= index < len(items) else None
            if item is None:
                self.prim(painted, None)
                continue
            if item.glyph is not None and item.glyph.type == "chain":
                if index not in done:
                    used |= set(write_chain(self.msp, items, index, texts, self.to,
                                            self.length,
                                            cap_height(scene.style.sizes["dim"]),
                                            lambda t: self._text_style(style_for(t))))
                    done.add(index)
                continue
            if index in used:
                continue
            self.prim(painted, item)
        self._extents()

    def _attribs(self, layer: str, width: float | None = None, dash: float = 0.0,
                 ) -> dict[str, Any]:
        out: dict[str, Any] = {"layer": layer}
        if width is not None:
            out["lineweight"] = lineweight(width)
        if dash:
            out["linetype"] = self._linetype(dash)
        return out

    def prim(self, painted: Painted, item: LayoutItem | None) -> None:
        p = painted.prim
        layer = layer_for(item, p)
        msp, to = self.msp, self.to
        if isinstance(p, Text):
            x0, y0, x1, y1 = prim_bbox(p)
            centre = to(((x0 + x1) / 2, (y0 + y1) / 2))
            style = self._text_style(style_for(p.text))
            text = msp.add_text(p.text, height=self.length(cap_height(p.size)),
                                dxfattribs={"layer": layer, "style": style})
            text.set_placement(centre, align=self.ezdxf.enums.TextEntityAlignment.MIDDLE_CENTER)
        elif isinstance(p, Disc):
            attribs = self._attribs(layer, p.width)
            msp.add_circle(to(p.center), self.length(p.r), dxfattribs=attribs)
            if p.role != "paper":
                self._solid_circle(p, layer)
        elif isinstance(p, Fill):
            pts = [to(q) for q in p.points]
            if p.role != "paper" and len(pts) in (3, 4):
                quad = pts if len(pts) == 3 else [pts[0], pts[1], pts[3], pts[2]]
                msp.add_solid(quad, dxfattribs=self._attribs(layer))
            elif p.role != "paper":
                hatch = msp.add_hatch(dxfattribs={"layer": layer})
                hatch.paths.add_polyline_path(pts, is_closed=True)
            if p.outline and p.role != p.outline:
                msp.add_lwpolyline(pts, close=True, dxfattribs=self._attribs(layer, p.width))
        else:
            assert isinstance(p, Stroke)
            self._stroke(p, item, layer)

    def _solid_circle(self, p: Disc, layer: str) -> None:
        hatch = self.msp.add_hatch(dxfattribs={"layer": layer})
        edges = hatch.paths.add_edge_path()
        edges.add_arc(self.to(p.center), self.length(p.r), 0.0, 360.0)

    def _stroke(self, p: Stroke, item: LayoutItem | None, layer: str) -> None:
        msp, to = self.msp, self.to
        attribs = self._attribs(layer, p.width, p.dash)
        found = _arc_centre(item) if item is not None else None
        arc = _arc(p.points, *found) if found is not None and not p.closed else None
        if arc is not None and found is not None:
            msp.add_arc(to(found[0]), self.length(found[1]), arc[0], arc[1],
                        dxfattribs=attribs)
        elif len(p.points) == 2 and not p.closed:
            msp.add_line(to(p.points[0]), to(p.points[1]), dxfattribs=attribs)
        else:
            msp.add_lwpolyline([to(q) for q in p.points], close=p.closed, dxfattribs=attribs)

    def _extents(self) -> None:
        x0, y0, x1, y1 = self.scene.layout.extent()
        (ax, ay), (bx, by) = self.to((x0, y1)), self.to((x1, y0))
        # ezdxf copies the modelspace's extents into the header when it writes
        self.msp.dxf.extmin = (ax, ay, 0.0)
        self.msp.dxf.extmax = (bx, by, 0.0)

    def encode(self) -> bytes:
        _ordered_classes(self.doc)
        stream = io.StringIO()
        self.doc.write(stream)
        return bytes(self.doc.encode(stream.getvalue()))


def _ordered_classes(doc: Any) -> None:
    """The CLASSES section in one order. ezdxf adds a CLASS for each entity type in use
    while writing, iterating a set of type names, whose order follows the string hash
    seed of the process: the same figure gave other bytes in another process. Adding
    them here first and sorting them by name (their order has no meaning) makes the
    bytes the same in every process; the writer then finds every class present."""
    doc.classes.add_required_classes(doc.dxfversion)
    doc.classes.classes = OrderedDict(sorted(doc.classes.classes.items()))


def scene_dxf(scene: Scene) -> DxfFigure:
    """The DXF file of a laid-out scene (see the module docstring)."""
    ezdxf = _ezdxf()
    units = drawing_units(scene.shown, scene.k)
    try:
        with _fixed_metadata(ezdxf):
            writer = _Writer(ezdxf, scene, units)
            writer.setup()
            writer.write()
            data = writer.encode()
    except ezdxf.DXFError as exc:  # a typed refusal, never a traceback
        raise RenderError(f"ezdxf cannot write this figure as DXF: {exc}") from exc
    return DxfFigure(data, units, scene.k)


def _task_scene(model: Model | Mapping[str, Any] | str, style: str | None, scale: float | None,
                seed: int, presentation: PresentationLike, category: str | None,
                ) -> tuple[Scene, dict[str, str]]:
    """The scene :func:`render_model` lays out for the same arguments."""
    shown = None if presentation is None else as_presentation(presentation)
    return build_scene(model, resolve_style(style, shown), scale, "normal", seed,
                       Wording.of(shown, category), shown,
                       profile=None if shown is None else DELIVERY_LONG_SIDE)


def render_dxf(model: Model | Mapping[str, Any] | str, style: str | None = None,
               scale: float | None = None, *, presentation: PresentationLike = None,
               seed: int = 0, category: str | None = None) -> DxfFigure:
    """``model`` drawn as :func:`render_model` draws it, as a DXF file. The seed only
    matters for an exam page (its texts); raster effects (wobble, scanned tilt, noise)
    a DXF does not have."""
    scene, _ = _task_scene(model, style, scale, seed, presentation, category)
    return scene_dxf(scene)


def render_with_dxf(model: Model | Mapping[str, Any] | str, style: str | None = None,
                    seed: int = 0, *, presentation: PresentationLike = None,
                    category: str | None = None) -> tuple[RenderResult, DxfFigure]:
    """The image (exactly :func:`render_model`'s) and the DXF of one figure, laid out once."""
    _ezdxf()  # refuse before drawing anything when ezdxf is missing
    scene, letters = _task_scene(model, style, None, seed, presentation, category)
    return finish(scene, scene.style, seed, {}, letters,
                  min_long_side=MIN_LONG_SIDE), scene_dxf(scene)


__all__ = ["TEXT_STYLES", "DrawingUnits", "DxfFigure", "drawing_units", "render_dxf",
           "render_with_dxf", "scene_dxf"]
