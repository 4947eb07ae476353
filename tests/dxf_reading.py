"""Read a figure's DXF back and lay it over the image: the helpers of ``test_dxf.py``.

The DXF and the image come from one scene, so one similarity (scale, rotation for the
scanned tilt, the y flip, a shift) must carry every DXF point onto the image's glyph
point. :func:`similarity` estimates it from the members' end points alone; every
other point (hinges, symbols, arrows, chains, texts) is then checked against it.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import ezdxf
import numpy as np
from ezdxf import recover

XY = tuple[float, float]


@dataclass
class DxfPoints:
    """Every defining point of the drawing's entities, by layer (drawing units)."""

    by_layer: dict[str, list[XY]] = field(default_factory=dict)
    centres: dict[str, list[XY]] = field(default_factory=dict)  # circles and arcs
    texts: list[tuple[str, XY, str]] = field(default_factory=list)  # text, centre, layer
    ticks: list[XY] = field(default_factory=list)  # where DIMENSIONs draw their ticks
    kinds: dict[str, set[str]] = field(default_factory=dict)  # layer → entity types
    members: list[tuple[XY, XY]] = field(default_factory=list)

    def add(self, layer: str, *points: Any) -> None:
        self.by_layer.setdefault(layer, []).extend((float(p[0]), float(p[1])) for p in points)


def open_dxf(data: bytes) -> tuple[Any, Any]:
    """The document as ``ezdxf.recover`` reads it, and its auditor."""
    return recover.read(io.BytesIO(data))


def read_points(data: bytes) -> tuple[Any, DxfPoints]:
    doc = ezdxf.read(io.StringIO(data.decode("utf-8")))
    out = DxfPoints()
    for e in doc.modelspace():
        kind, layer = e.dxftype(), e.dxf.layer
        out.kinds.setdefault(layer, set()).add(kind)
        if kind == "LINE":
            out.add(layer, e.dxf.start, e.dxf.end)
            if layer == "MEMBERS":
                out.members.append(((e.dxf.start[0], e.dxf.start[1]),
                                    (e.dxf.end[0], e.dxf.end[1])))
        elif kind == "LWPOLYLINE":
            out.add(layer, *[(x, y) for x, y, *_ in e.get_points()])
        elif kind == "SOLID":
            out.add(layer, *[e.dxf.get(f"vtx{i}") for i in range(4)])
        elif kind in ("CIRCLE", "ARC"):
            c = (float(e.dxf.center[0]), float(e.dxf.center[1]))
            out.centres.setdefault(layer, []).append(c)
            out.add(layer, c)
        elif kind == "TEXT":
            p = e.dxf.align_point
            out.texts.append((e.dxf.text, (float(p[0]), float(p[1])), layer))
        elif kind == "DIMENSION":
            out.add(layer, e.dxf.defpoint, e.dxf.defpoint2, e.dxf.defpoint3)
            if e.dxf.text.strip():
                p = e.dxf.text_midpoint
                out.texts.append((e.dxf.text, (float(p[0]), float(p[1])), layer))
            for sub in doc.blocks.get(e.dxf.geometry):
                if sub.dxftype() == "INSERT":
                    out.ticks.append((float(sub.dxf.insert[0]), float(sub.dxf.insert[1])))
    return doc, out


@dataclass(frozen=True)
class Similarity:
    """image = a · conj(dxf) + b (complex numbers): the y flip, one scale, one turn."""

    a: complex
    b: complex
    residual: float  # largest error over the points it was fitted to (image px)

    def __call__(self, p: XY) -> XY:
        z = self.a * complex(p[0], -p[1]) + self.b
        return (z.real, z.imag)


def similarity(dxf_points: Iterable[XY], image_points: Iterable[XY]) -> Similarity:
    w = np.array([complex(x, -y) for x, y in dxf_points])
    z = np.array([complex(x, y) for x, y in image_points])
    design = np.stack([w, np.ones_like(w)], axis=1)
    (a, b), *_ = np.linalg.lstsq(design, z, rcond=None)
    residual = float(np.max(np.abs(design @ np.array([a, b]) - z)))
    return Similarity(complex(a), complex(b), residual)


def nearest(points: list[XY], p: XY) -> float:
    """Distance from p to the nearest of ``points`` (inf when there are none)."""
    if not points:
        return float("inf")
    arr = np.asarray(points)
    return float(np.min(np.hypot(arr[:, 0] - p[0], arr[:, 1] - p[1])))
