"""Bending-moment diagram drawn on the structure, ordinates on the tension side.

FrameCalc's m > 0 means tension on the member's +e_y face (FORMAT.md O2), so
drawing +m towards +e_y puts every ordinate on the tension side whatever the
member's A→B direction: the European textbook convention, and the picture is
the same for a link and its reversed twin. Values come from the solution's
exact piecewise polynomials (``CaseSolution.evaluate``), both sides of every
jump, so the labelled extremes are the true ones.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from PIL import Image

from ...fe.results import CaseSolution
from ...model.semantics import distributed_extent, link_axis, position_on_link
from ...model.types import DistributedLoad, Model
from ..annotation.letters import place_letters
from ..annotation.placement import place_label
from ..scene.errors import RenderError
from ..scene.fonts import lettering, text_size
from ..scene.result import RenderResult
from ..scene.scene import LAYER_DIAGRAM, Fill, Prim, Scene, Stroke, along
from ..scene.shapes import XY, Shape, polyline_capsules
from ..scene.styles import get_style
from ..symbols.arrows import fmt_number
from ..symbols.members import draw_hinges, draw_members
from ..symbols.supports import draw_supports
from .figure import (
    as_model,
    check_drawable,
    finish,
    parse_highlight,
    place_requests,
    resolve_scale,
)

HEIGHT = 46.0  # px of the largest |M|
HATCH = 7.0  # px between hatch lines
SHOWN = 0.02  # values below this share of max |M| are not labelled


def _breaks(model: Model, index: int) -> tuple[list[float], list[float]]:
    """(jump positions, kink positions) on one link: concentrated loads make jumps or
    kinks, edges of distributed loads make kinks."""
    link = model.links[index]
    jumps: list[float] = []
    kinks: list[float] = []
    for load in model.loads:
        if load.target.type != "link" or load.target.id != link.id:
            continue
        if isinstance(load, DistributedLoad):
            s0, s1, _ = distributed_extent(model, load)
            kinks += [s0, s1]
        else:
            jumps.append(position_on_link(model, load))
    return sorted(set(jumps)), sorted(set(kinks))


def link_curve(model: Model, sol: CaseSolution, index: int, per_px: float,
               ) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """(s, m) along a link, both sides of every jump; also the indices where a piece ends
    (extremes are only looked for inside pieces)."""
    _, _, length = link_axis(model, model.links[index])
    jumps, kinks = _breaks(model, index)
    jumps = [s for s in jumps if 0.0 < s < length]
    count = max(40, math.ceil(length * per_px / 4.0))
    base = np.unique(np.concatenate([np.linspace(0.0, length, count + 1),
                                     [s for s in kinks if 0.0 <= s <= length], jumps]))
    s_parts: list[np.ndarray] = []
    m_parts: list[np.ndarray] = []
    edges = [0.0, *jumps, length]
    ends: list[int] = []
    for a, b in itertools.pairwise(edges):
        seg = base[(base >= a) & (base <= b)]
        li = np.full(len(seg), index)
        m_right = sol.evaluate(li, seg, side="right")[2]
        m_left = sol.evaluate(li, seg, side="left")[2]
        m = m_right.copy()
        m[-1] = m_left[-1]  # the piece's last value is the one just before the next load
        s_parts.append(seg)
        m_parts.append(m)
        ends.append(sum(len(p) for p in s_parts) - 1)
    return np.concatenate(s_parts), np.concatenate(m_parts), ends


def _extremes(model: Model, sol: CaseSolution, index: int, s: np.ndarray, m: np.ndarray,
              ends: list[int]) -> list[tuple[float, float]]:
    """(s, m) at the link's ends, at both sides of jumps and at interior peaks of |m|."""
    picks = {0, len(s) - 1, *ends, *(e + 1 for e in ends[:-1])}
    out = [(float(s[i]), float(m[i])) for i in sorted(picks)]
    a = np.abs(m)
    for i in range(1, len(s) - 1):
        if i in picks or (i - 1) in ends or i in ends:
            continue
        if a[i] > a[i - 1] and a[i] >= a[i + 1]:
            out.append(_refine(sol, index, float(s[i - 1]), float(s[i + 1])))
    return out


def _refine(sol: CaseSolution, index: int, lo: float, hi: float) -> tuple[float, float]:
    """Golden-section search for the peak of |m| in [lo, hi] (one cubic piece)."""
    g = (math.sqrt(5) - 1) / 2
    for _ in range(60):
        c, d = hi - g * (hi - lo), lo + g * (hi - lo)
        mc, md = np.abs(sol.evaluate(np.array([index, index]), np.array([c, d]))[2])
        if mc > md:
            hi = d
        else:
            lo = c
    s = (lo + hi) / 2
    return s, float(sol.evaluate(np.array([index]), np.array([s]))[2][0])


def _draw_link(scene: Scene, model: Model, sol: CaseSolution, index: int, m_max: float,
               ) -> list[tuple[XY, XY, float]]:
    """Fill, outline and hatching of one link's diagram; returns label anchors."""
    link = model.links[index]
    ex, ey, _ = link_axis(model, link)
    pa = model.point(link.a)
    a0 = scene.px(pa.x, pa.y)
    e = (ex, -ey)
    nrm = (-ey, -ex)  # +e_y = (−e_x.y, e_x.x) in world, y flipped
    s, m, ends = link_curve(model, sol, index, scene.k)
    base = [along(a0, e, float(si) * scene.k) for si in s]
    tips = [along(b, nrm, float(mi) / m_max * HEIGHT) for b, mi in zip(base, m, strict=True)]
    w = scene.style.thin_width
    prims: list[tuple[Prim, int]] = [
        (Fill(tuple(base + tips[::-1]), "diagram_fill", None, 0.0), LAYER_DIAGRAM)]
    shapes: list[Shape] = polyline_capsules(tips, scene.style.line_width / 2 + 0.5)
    spacing = scene.k * float(s[-1] - s[0]) / max(len(s) - 1, 1)
    step = max(1, round(HATCH / spacing)) if spacing > 0 else 1
    for i in range(0, len(s), step):
        if abs(m[i]) / m_max * HEIGHT > 1.5:
            prims.append((Stroke((base[i], tips[i]), w * 0.8, "diagram"), LAYER_DIAGRAM))
            shapes.append(polyline_capsules([base[i], tips[i]], 0.5)[0])
    prims.append((Stroke(tuple(tips), scene.style.line_width, "diagram"), LAYER_DIAGRAM))
    scene.add("diagram", link.id, "link", "moment", prims, shapes)
    anchors = []
    for si, mi in _extremes(model, sol, index, s, m, ends):
        if abs(mi) >= SHOWN * m_max:
            b = along(a0, e, si * scene.k)
            tip = along(b, nrm, mi / m_max * HEIGHT)
            out = (nrm[0] * math.copysign(1.0, mi), nrm[1] * math.copysign(1.0, mi))
            anchors.append((tip, out, mi))
    return anchors


def _significant_max(model: Model, solution: CaseSolution) -> float:
    """max |M|, or 0 when it is round-off: a pin-jointed truss under joint loads carries
    no moment, and its 1e-17 kN·m must not be scaled up to a full-height diagram."""
    m_max = float(solution.max_abs_moment)
    reactions = abs(solution.raw.reactions)
    xs = [p.x for p in model.points]
    ys = [p.y for p in model.points]
    span = max(max(xs) - min(xs), max(ys) - min(ys))
    reference = float(reactions[:, :2].max(initial=0.0)) * span + float(
        reactions[:, 2].max(initial=0.0))
    return 0.0 if m_max <= 1e-9 * reference else m_max


def moment_diagram_result(model: Model | Mapping[str, Any] | str, solution: CaseSolution, *,
                          style: str = "cad", seed: int = 0, scale: float | None = None,
                          highlight: Mapping[str, Any] | None = None,
                          scheme: str = "normal") -> RenderResult:
    """The diagram with its layout record (see :func:`render_moment_diagram`), its texts
    in the style's lettering."""
    with lettering(get_style(style, scheme).lettering):
        return _diagram(model, solution, style=style, seed=seed, scale=scale,
                        highlight=highlight, scheme=scheme)


def _diagram(model: Model | Mapping[str, Any] | str, solution: CaseSolution, *, style: str,
             seed: int, scale: float | None, highlight: Mapping[str, Any] | None,
             scheme: str) -> RenderResult:
    parsed = as_model(model)
    check_drawable(parsed)
    if len(solution.lengths) != len(parsed.links):
        raise RenderError(f"the solution has {len(solution.lengths)} links but the model "
                          f"{len(parsed.links)}: pass the solution of this model")
    st = get_style(style, scheme)
    scene = Scene(st, resolve_scale(parsed, scale))
    draw_members(scene, parsed)
    draw_hinges(scene, parsed)
    angle_labels = draw_supports(scene, parsed)
    m_max = _significant_max(parsed, solution)
    anchors: list[tuple[XY, XY, float]] = []
    if m_max > 0 and math.isfinite(m_max):
        for index in range(len(parsed.links)):
            anchors += _draw_link(scene, parsed, solution, index, m_max)
    letters = place_letters(scene, parsed)
    place_requests(scene, angle_labels)
    size = st.sizes["diagram"]
    shown: list[tuple[XY, str]] = []
    for tip, out, value in anchors:
        text = fmt_number(abs(value))
        if any(math.dist(tip, p) < 8.0 and t == text for p, t in shown):
            continue  # the same value at the same joint from the next member
        shown.append((tip, text))
        place_label(scene, text, size, "M", "figure", "value", anchor=tip, prefer=out,
                    colour_role="diagram")
    title = f"M [kN·m]   max |M| = {fmt_number(m_max)}"
    w, h = text_size(title, size)
    x0, y0, _, _ = scene.layout.extent()
    place_label(scene, title, size, "M", "figure", "title",
                candidates=[(x0, y0 - 12.0 - h, x0 + w, y0 - 12.0)], colour_role="text")
    return finish(scene, st, seed, parse_highlight(highlight), letters)


def render_moment_diagram(model: Model | Mapping[str, Any] | str, case_solution: CaseSolution,
                          **options: Any) -> Image.Image:
    """The bending-moment diagram of ``case_solution`` (e.g. ``analyze(model)[0]``) drawn on
    the structure: ordinates square to each member on its tension side, scaled to the
    largest |M|, with values at the extremes. Options as for :func:`moment_diagram_result`."""
    return moment_diagram_result(model, case_solution, **options).image
