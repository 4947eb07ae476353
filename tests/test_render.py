"""The renderer draws every element, legibly, where FrameCalc's rules put it.

Legibility is checked on the layout record (exact shapes: members and arrows as
capsules, labels and symbols as boxes) and spot-checked on pixels; completeness
by owner ids; geometry against :mod:`structeval.model.semantics` and hand-derived
numbers (dimension chains must add up to the model's coordinates, moment extremes
to textbook formulas).
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from structeval.fe import analyze
from structeval.model import Model, ModelError, parse_model
from structeval.model.semantics import (
    distributed_extent,
    force_direction,
    link_axis,
    world_point_of_load,
)
from structeval.model.types import DistributedLoad
from structeval.render import (
    STYLES,
    RenderError,
    RenderResult,
    moment_diagram_result,
    render_model,
    render_moment_diagram,
)
from structeval.render.scene.shapes import Box, Capsule, touches

from .conftest import ROOT, shared_dir


# ---------------------------------------------------------------- small models of every kind
def _p(pid: str, x: float, y: float) -> dict:
    return {"id": pid, "x": x, "y": y}


def _l(lid: str, a: str, b: str, **ends: str) -> dict:
    return {"id": lid, "a": a, "b": b, **ends}


def _s(sid: str, at: str, kind: str, angle: float = 0) -> dict:
    return {"id": sid, "at": {"type": "point", "id": at}, "kind": kind, "angleDeg": angle}


def _force(lid: str, on: str, target: str, value: float, angle: float, mode: str = "world",
           **pos: object) -> dict:
    return {"id": lid, "kind": "pointLoad", "at": {"type": on, "id": target}, "value": value,
            "angleDeg": angle, "angleMode": mode, "flip": 1, **pos}


def _line(lid: str, link: str, w0: float, w1: float, start: float = 0, end: float = 0,
          angle: float = 270, mode: str = "world") -> dict:
    return {"id": lid, "kind": "distributedLoad", "at": {"type": "link", "id": link},
            "wStart": w0, "wEnd": w1, "fromStart": start, "fromEnd": end, "angleDeg": angle,
            "angleMode": mode, "flip": 1}


def _couple(lid: str, on: str, target: str, value: float, flip: int, **pos: object) -> dict:
    return {"id": lid, "kind": "bendingMoment", "at": {"type": on, "id": target},
            "value": value, "flip": flip, **pos}


def _warren(panels: int) -> dict:
    pts = [_p(f"N{i}", 1.5 * i, 0 if i % 2 == 0 else 1.5) for i in range(2 * panels + 1)]
    hinged = {"endA": "hinge", "endB": "hinge"}
    n = len(pts)
    links = [_l(f"C{i}", f"N{i}", f"N{i + 1}", **hinged) for i in range(n - 1)]
    links += [_l(f"T{i}", f"N{i}", f"N{i + 2}", **hinged) for i in range(n - 2)]
    loads = [_force(f"F{i}", "point", f"N{i}", 10, 270) for i in range(1, n - 1, 2)]
    return {"points": pts, "links": links, "loads": loads,
            "supports": [_s("S1", "N0", "pin"), _s("S2", f"N{n - 1}", "roller")]}


OWN: dict[str, dict] = {
    "beam-trapezoid-partial": {
        "points": [_p("A", 0, 0), _p("B", 6, 0), _p("C", 8, 0)],
        "links": [_l("L1", "A", "B"), _l("L2", "B", "C")],
        "supports": [_s("S1", "A", "pin"), _s("S2", "B", "roller")],
        "loads": [_line("Q1", "L1", 4, 10, start=1, end=0.5), _line("Q2", "L2", 0, 6),
                  _force("F1", "link", "L1", 12, 270, refEnd="A", offsetMode="m", offset=3),
                  _force("F2", "point", "C", 8, 240)]},
    "beam-gerber-couples": {
        "points": [_p("P1", 0, 0), _p("P2", 4, 0), _p("P3", 6, 0), _p("P4", 10, 0)],
        "links": [_l("L1", "P1", "P2"), _l("L2", "P2", "P3", endB="hinge"),
                  _l("L3", "P3", "P4")],
        "supports": [_s("S1", "P1", "fixed"), _s("S2", "P2", "roller"),
                     _s("S3", "P4", "roller")],
        "loads": [_couple("M1", "point", "P3", 20, -1),
                  _couple("M2", "link", "L3", 15, 1, refEnd="B", offsetMode="percent",
                          offsetPercent=25, offset=1),
                  _line("Q1", "L1", 5, 5)]},
    "frame-gable-inclined": {
        "points": [_p("A", 0, 0), _p("B", 0, 4), _p("C", 5, 6), _p("D", 10, 4), _p("E", 10, 0)],
        "links": [_l("L1", "A", "B"), _l("L2", "B", "C", endB="hinge"), _l("L3", "C", "D"),
                  _l("L4", "D", "E")],
        "supports": [_s("S1", "A", "fixed"), _s("S2", "E", "roller", 30)],
        "loads": [_line("Q1", "L2", 5, 5, angle=-90, mode="relative"),
                  _line("Q2", "L3", 3, 3, angle=-90, mode="relative"),
                  _force("F1", "point", "B", 10, 0),
                  _couple("M1", "link", "L4", 15, -1, refEnd="A", offsetMode="m", offset=2)]},
    "frame-sliders-axial": {
        "points": [_p("A", 0, 0), _p("B", 0, 3), _p("C", 4, 3), _p("D", 4, 0), _p("E", 7, 3)],
        "links": [_l("L1", "A", "B"), _l("L2", "B", "C"), _l("L3", "C", "D"),
                  _l("L4", "C", "E")],
        "supports": [_s("S1", "A", "slider", 90), _s("S2", "D", "slider", 0),
                     _s("S3", "E", "roller", 90)],
        "loads": [_line("Q1", "L2", 6, 6), _force("F1", "point", "C", 5, 180),
                  _force("F2", "link", "L1", 7, 270, refEnd="A", offsetMode="m", offset=1.5),
                  _line("Q2", "L1", 2, 2, angle=0)]},
    "truss-warren-27-points": _warren(13),
}

KINDS = ("beam", "frame", "truss")


def own(name: str) -> Model:
    return parse_model(OWN[name])


def conformance_models() -> list[tuple[str, Path | None]]:
    shared = shared_dir()
    if shared is None:
        return [("(conformance corpus absent)", None)]
    folder = shared / "framecalc" / "conformance"
    return [(p.name.split(".")[0], p) for p in sorted(folder.glob("*.model.json"))]


def dataset_sample(per_category: int = 6) -> list[tuple[str, Path | None]]:
    """Generated and hand-authored problems shipped in data/, a spread of each category."""
    files = sorted((ROOT / "data" / "raw_models").glob("*.json"))
    picked: list[tuple[str, Path | None]] = []
    for kind in KINDS:
        mine = [f for f in files if f.name.startswith(kind)]
        step = max(1, len(mine) // per_category)
        picked += [(f.stem, f) for f in mine[::step][:per_category]]
        picked += [(f.stem, f) for f in mine if "classic" in f.name][:2]
    return picked or [("(data/raw_models absent)", None)]


# ---------------------------------------------------------------- checks on a render
def legibility_problems(res: RenderResult) -> list[str]:
    """Labels outside the canvas or touching any other drawn thing."""
    w, h = res.image.size
    labels = [it for it in res.layout if it.kind == "label"]
    graphics = [it for it in res.layout if it.kind != "label"]
    out = []
    for i, lab in enumerate(labels):
        x0, y0, x1, y1 = lab.bbox
        if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
            out.append(f"label {lab.text!r} ({lab.owner}) outside the {w}×{h} canvas")
        box = Box(lab.bbox)
        for g in graphics:
            if any(touches(box, s, 0.0) for s in g.shapes):
                out.append(f"label {lab.text!r} ({lab.owner}) overlaps {g.kind} {g.owner} "
                           f"({g.role})")
        for other in labels[i + 1:]:
            if touches(box, Box(other.bbox), 0.0):
                out.append(f"labels {lab.text!r} and {other.text!r} overlap")
    return out


def completeness_problems(res: RenderResult, model: Model) -> list[str]:
    out = []
    drawn = {(it.kind, it.owner) for it in res.layout}
    labelled = {it.owner for it in res.layout if it.kind == "label"}
    out += [f"link {lk.id} not drawn" for lk in model.links if ("member", lk.id) not in drawn]
    out += [f"support {s.id} not drawn" for s in model.supports
            if ("support", s.id) not in drawn]
    out += [f"load {ld.id} not drawn" for ld in model.loads if ("load", ld.id) not in drawn]
    out += [f"load {ld.id} has no value" for ld in model.loads if ld.id not in labelled]
    if list(res.letters.values()) != [p.id for p in model.points]:
        out.append("letters do not follow the model's point order")
    for letter, pid in res.letters.items():
        if not any(it.kind == "label" and it.owner == pid and it.text == letter
                   for it in res.layout):
            out.append(f"letter {letter} of {pid} not drawn")
    return out


def point_px(res: RenderResult, model: Model, pid: str) -> tuple[float, float]:
    """A point's pixel position, read from the member items (their capsules end there)."""
    for it in res.layout:
        if it.kind == "member":
            lk = model.link(it.owner)
            cap = it.shapes[0]
            assert isinstance(cap, Capsule)
            if lk.a == pid:
                return cap.a
            if lk.b == pid:
                return cap.b
    raise AssertionError(pid)


def features(model: Model) -> list[tuple[float, float]]:
    """Everything a reader must be able to place: joints, loads on members, load edges."""
    out = [(p.x, p.y) for p in model.points]
    for load in model.loads:
        if load.target.type == "point":
            continue
        if not isinstance(load, DistributedLoad):
            out.append(world_point_of_load(model, load))
            continue
        lk = model.link(load.target.id)
        a, b = model.point(lk.a), model.point(lk.b)
        s0, s1, length = distributed_extent(model, load)
        out += [(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t) for t in (s0 / length,
                                                                          s1 / length)]
    return out


def _metres(text: str) -> float:
    m = re.fullmatch(r"(\d+(?:\.\d+)?) m", text or "")
    assert m, f"dimension text {text!r} is not 'N m'"
    return float(m.group(1))


def dimension_problems(res: RenderResult, model: Model) -> list[str]:
    """Rebuild every distinct x and y from the dimension texts alone, as a reader would."""
    out = []
    pts = features(model)
    for axis, coord, centre in (("x", 0, lambda b: (b[0] + b[2]) / 2),
                                ("y", 1, lambda b: -(b[1] + b[3]) / 2)):
        wanted = sorted({round(p[coord], 3) for p in pts})
        if len(wanted) < 2:
            continue
        start = wanted[0]
        found: set[float] = {start, wanted[-1]}
        for role in ("value", "far-value"):
            texts = sorted((centre(it.bbox), _metres(it.text or "")) for it in res.layout
                           if it.kind == "label" and it.owner == axis and it.role == role)
            pos = start
            for _, length in texts:
                pos += length
                found.add(round(pos, 3))
        missing = [v for v in wanted if not any(abs(v - f) <= 0.002 * len(wanted) for f in found)]
        if missing:
            out.append(f"{axis} = {missing} cannot be read from the dimensions")
        totals = [_metres(it.text or "") for it in res.layout
                  if it.owner == axis and it.role == "total-value"]
        near = [it for it in res.layout if it.owner == axis and it.role == "value"]
        if (len(near) > 1 or totals) and totals != [round(wanted[-1] - wanted[0], 3)]:
            out.append(f"overall {axis} dimension {totals} != {wanted[-1] - wanted[0]}")
    return out


def arrow_problems(res: RenderResult, model: Model) -> list[str]:
    """Point-load arrows point along the force FrameCalc applies (figure y is down)."""
    out = []
    for load in model.loads:
        if load.kind != "pointLoad":
            continue
        dx, dy = force_direction(model, load)  # type: ignore[arg-type]
        sign = -1.0 if load.value < 0 else 1.0
        want = (dx * sign, -dy * sign)
        arrows = [it for it in res.layout if it.owner == load.id and it.role == "arrow"]
        if len(arrows) != 1:
            out.append(f"{load.id}: {len(arrows)} arrows")
            continue
        first, last = arrows[0].shapes[0], arrows[0].shapes[-1]
        assert isinstance(first, Capsule) and isinstance(last, Capsule)
        d = (last.b[0] - first.a[0], last.b[1] - first.a[1])
        cos = (d[0] * want[0] + d[1] * want[1]) / math.hypot(*d)
        if cos < 0.9999:
            out.append(f"{load.id}: arrow direction {d} is not {want}")
    return out


def assert_good(res: RenderResult, model: Model, *, geometry: bool = True) -> None:
    problems = legibility_problems(res) + completeness_problems(res, model)
    if geometry:  # exact pixel geometry is only unrotated for cad/textbook
        problems += dimension_problems(res, model) + arrow_problems(res, model)
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------- legibility and completeness
@pytest.mark.parametrize("name", sorted(OWN))
@pytest.mark.parametrize("style", sorted(STYLES))
def test_own_models_legible_complete(name: str, style: str) -> None:
    model = own(name)
    res = render_model(model, style=style, seed=7)
    assert_good(res, model, geometry=style != "scanned")


@pytest.mark.parametrize("name,path", conformance_models())
def test_conformance_models_legible_complete(name: str, path: Path | None) -> None:
    if path is None:
        pytest.skip("../shared/framecalc/conformance is not available here")
    model = parse_model(path.read_text())
    styles = sorted(STYLES)
    style = styles[sum(map(ord, name)) % len(styles)]  # every style gets its share
    assert_good(render_model(model, style=style, seed=3), model, geometry=style != "scanned")


@pytest.mark.parametrize("name,path", dataset_sample())
def test_dataset_problems_legible_complete(name: str, path: Path | None) -> None:
    if path is None:
        pytest.skip("data/raw_models holds no problems here")
    raw = json.loads(path.read_text())
    model = parse_model(raw)
    image = raw.get("problem", {}).get("image", {})
    style, seed = image.get("style", "cad"), int(image.get("seed", 0))
    # the scanned style and the exam page tilt the figure: directions are checked untilted
    assert_good(render_model(model, style=style, seed=seed), model,
                geometry=style not in ("scanned", "exam-page"))


def test_labels_keep_off_members_in_pixels() -> None:
    """Spot-check on pixels: paint every member pure red; no red ink inside any label box."""
    for name in ("frame-gable-inclined", "truss-warren-27-points", "frame-sliders-axial"):
        model = own(name)
        res = render_model(model, highlight={f"link:{lk.id}": "#ff0000" for lk in model.links})
        px = np.asarray(res.image).astype(int)
        red = (px[..., 0] > 150) & (px[..., 1] < 90) & (px[..., 2] < 90)
        assert red.sum() > 500  # the members really are red
        for it in res.layout:
            if it.kind == "label":
                x0, y0, x1, y1 = (math.floor(it.bbox[0]) + 1, math.floor(it.bbox[1]) + 1,
                                  math.ceil(it.bbox[2]) - 1, math.ceil(it.bbox[3]) - 1)
                assert not red[y0:y1, x0:x1].any(), f"{name}: member ink under {it.text!r}"


def test_letters_sit_next_to_their_points() -> None:
    for name in sorted(OWN):
        model = own(name)
        res = render_model(model)
        for letter, pid in res.letters.items():
            x, y = point_px(res, model, pid)
            (box,) = [it.bbox for it in res.layout if it.kind == "label" and it.text == letter]
            gap = math.hypot(max(box[0] - x, 0, x - box[2]), max(box[1] - y, 0, y - box[3]))
            assert gap <= 40 * res.zoom, f"{name}: letter {letter} is {gap:.0f} px from {pid}"
    names = list(render_model(own("truss-warren-27-points")).letters)
    # A … Z without I and O (they read as 1 and 0), then AA: 24 single letters
    assert names[7:9] == ["H", "J"] and names[12:14] == ["N", "P"]
    assert names[23:25] == ["Z", "AA"] and not any(c in "IO" for n in names for c in n)


# ---------------------------------------------------------------- geometry follows FORMAT.md
def test_hinge_circles_follow_releases() -> None:
    truss = render_model(own("truss-warren-27-points"))
    joints = [it for it in truss.layout if it.kind == "hinge"]
    assert len(joints) == 27 and all(it.owner_type == "point" for it in joints)
    gerber = render_model(own("beam-gerber-couples"))
    (end,) = [it for it in gerber.layout if it.kind == "hinge"]
    assert (end.owner, end.role) == ("L2", "hinge-B")
    model = own("beam-gerber-couples")
    x, y = point_px(gerber, model, "P3")
    cx, cy = (end.bbox[0] + end.bbox[2]) / 2, (end.bbox[1] + end.bbox[3]) / 2
    assert cx < x and abs(cy - y) < 1.0  # beside the joint, on L2 (which lies to the left)


@pytest.mark.parametrize("kind,angle,horizontal", [
    ("roller", 0, False), ("roller", 90, True), ("roller", 180, False), ("roller", 270, True),
    ("slider", 0, True), ("slider", 90, False), ("slider", 180, True), ("slider", 270, False)])
def test_roller_and_slider_axes_follow_angle(kind: str, angle: float, horizontal: bool) -> None:
    """FORMAT.md S2/S3: roller n = (−sin θ, cos θ), slider n = (cos θ, sin θ); the symbol
    stands on the ground along n, so it sits beside the joint when n is horizontal."""
    model = parse_model({"points": [_p("A", 0, 0), _p("B", 4, 0), _p("C", 4, 4)],
                         "links": [_l("L1", "A", "B"), _l("L2", "B", "C")],
                         "supports": [_s("S1", "A", kind, angle), _s("S2", "C", "fixed")],
                         "loads": []})
    res = render_model(model)
    x, y = point_px(res, model, "A")
    (sym,) = [it for it in res.layout if it.owner == "S1" and it.kind == "support"
              and it.role == kind]
    dx = (sym.bbox[0] + sym.bbox[2]) / 2 - x
    dy = (sym.bbox[1] + sym.bbox[3]) / 2 - y
    assert (abs(dx) > 3 * abs(dy)) == horizontal, (dx, dy)
    if horizontal:
        assert dx < 0  # the member goes right: the symbol stands on its free side


def test_angled_roller_and_force_get_their_angle_written() -> None:
    res = render_model(own("frame-gable-inclined"))
    assert [it.text for it in res.layout if it.owner == "S2" and it.kind == "label"] == ["30°"]
    res = render_model(own("beam-trapezoid-partial"))
    assert [it.text for it in res.layout
            if it.owner == "F2" and it.role == "angle" and it.kind == "label"] == ["60°"]


def test_distributed_rows_are_square_to_inclined_members() -> None:
    model = own("frame-gable-inclined")
    res = render_model(model)
    for load_id, link_id in (("Q1", "L2"), ("Q2", "L3")):
        ex, ey, _ = link_axis(model, model.link(link_id))
        (row,) = [it for it in res.layout if it.owner == load_id and it.role == "row"]
        assert row.glyph is not None
        arrows = list(zip(row.glyph.paths["tails"], row.glyph.paths["tips"], strict=True))
        assert len(arrows) >= 8
        for tail, tip in arrows:
            d = (tip[0] - tail[0], tip[1] - tail[1])
            assert abs(d[0] * ex - d[1] * ey) / math.hypot(*d) < 1e-9


def test_trapezoid_labels_both_ends_and_arrow_lengths_vary() -> None:
    res = render_model(own("beam-trapezoid-partial"))
    texts = sorted(it.text or "" for it in res.layout if it.owner == "Q1" and it.kind == "label")
    assert texts == ["10 kN/m", "4 kN/m"]
    (row,) = [it for it in res.layout if it.owner == "Q1" and it.role == "row"]
    # partial load: the row spans 1 m … 5.5 m of the 6 m link only
    model = own("beam-trapezoid-partial")
    x_a, _ = point_px(res, model, "A")
    x_b, _ = point_px(res, model, "B")
    k = (x_b - x_a) / 6.0
    assert row.bbox[0] == pytest.approx(x_a + 1.0 * k, abs=6)
    assert row.bbox[2] == pytest.approx(x_a + 5.5 * k, abs=6)
    shafts = [s for s in row.shapes if isinstance(s, Capsule) and s.r < 2.5
              and abs(s.a[0] - s.b[0]) < 1e-6]
    lengths = sorted(abs(s.b[1] - s.a[1]) for s in shafts)
    assert lengths[-1] > 1.8 * lengths[0]


# ---------------------------------------------------------------- styles, determinism, colours
def test_same_seed_same_bytes_and_styles_differ() -> None:
    model = own("frame-gable-inclined")
    encoded = {}
    for style in STYLES:
        a = render_model(model, style=style, seed=5).encode()
        b = render_model(model, style=style, seed=5).encode()
        assert a == b, style
        encoded[style] = a
    # a figure in style sheet is the cad figure (the sheet around it is render_sheet's)
    assert encoded["sheet"] == encoded["cad"]
    assert len(set(encoded.values())) == len(STYLES) - 1
    for style in ("textbook", "scanned"):
        assert (render_model(model, style=style, seed=1).encode()
                != render_model(model, style=style, seed=2).encode())


def test_scanned_style_is_degraded() -> None:
    model = own("beam-trapezoid-partial")
    clean = np.asarray(render_model(model, style="cad").image).astype(float)
    scan = np.asarray(render_model(model, style="scanned", seed=4).image).astype(float)
    assert (clean == 255).mean() > 0.8  # CAD: pure white paper
    assert (scan == 255).mean() < 0.05  # scanned: toned, noisy paper
    mono = scan.mean(axis=2)
    assert mono.std() > 5  # not a blank page


def test_highlight_colours_only_their_elements() -> None:
    model = own("frame-gable-inclined")
    colours = {"L3": (255, 0, 0), "S2": (0, 0, 255), "Q1": (0, 200, 0), "hinge:L2:B": "#ff00ff"}
    res = render_model(model, highlight=colours)
    plain = np.asarray(render_model(model).image).astype(int)
    px = np.asarray(res.image).astype(int)
    for owner, rgb in (("L3", (255, 0, 0)), ("S2", (0, 0, 255)), ("Q1", (0, 200, 0)),
                       ("L2", (255, 0, 255))):
        near = np.abs(px - np.array(rgb)).sum(axis=2) < 60
        assert near.sum() > 20, owner
        assert not (np.abs(plain - np.array(rgb)).sum(axis=2) < 60).any()
        ys, xs = np.nonzero(near)
        boxes = [it.bbox for it in res.layout if it.owner == owner]
        inside = np.zeros(len(xs), dtype=bool)
        for b in boxes:
            inside |= (xs >= b[0] - 2) & (xs <= b[2] + 2) & (ys >= b[1] - 2) & (ys <= b[3] + 2)
        assert inside.all(), owner
    labels = [it for it in res.layout if it.owner == "Q1" and it.kind == "label"]
    assert labels  # the load's value is coloured with it
    b = labels[0].bbox
    patch = px[int(b[1]):int(b[3]) + 1, int(b[0]):int(b[2]) + 1]
    assert (np.abs(patch - np.array((0, 200, 0))).sum(axis=2) < 120).any()


def test_ghost_scheme_is_pale() -> None:
    model = own("frame-gable-inclined")
    ink = np.asarray(render_model(model).image).min()
    ghost = np.asarray(render_model(model, scheme="ghost").image).min()
    assert ink < 40 and ghost > 100


def test_same_scale_for_side_by_side() -> None:
    truth = render_model(own("frame-gable-inclined"))
    other = render_model(own("beam-trapezoid-partial"), scale=truth.scale, zoom=truth.zoom)
    assert (other.scale, other.zoom) == (truth.scale, truth.zoom)
    model = own("beam-trapezoid-partial")
    xa, _ = point_px(other, model, "A")
    xc, _ = point_px(other, model, "C")
    assert xc - xa == pytest.approx(8 * truth.scale * truth.zoom)


# ---------------------------------------------------------------- bending-moment diagrams
def _beam(load: dict, left: str = "pin", right: str | None = "roller") -> Model:
    supports = [_s("S1", "A", left)] + ([_s("S2", "B", right)] if right else [])
    return parse_model({"points": [_p("A", 0, 0), _p("B", 4, 0)],
                        "links": [_l("L1", "A", "B")], "supports": supports, "loads": [load]})


def test_moment_diagram_simple_beam_sags_below_with_ql2_over_8() -> None:
    model = _beam(_line("Q", "L1", 10, 10))  # qL²/8 = 10·16/8 = 20 kN·m
    res = moment_diagram_result(model, analyze(model)[0])
    texts = [it.text for it in res.layout if it.kind == "label"]
    assert "20" in texts and any("max |M| = 20" in (t or "") for t in texts)
    (diagram,) = [it for it in res.layout if it.kind == "diagram"]
    _, y = point_px(res, model, "A")
    assert diagram.bbox[1] >= y - 2 and diagram.bbox[3] > y + 40  # tension side: below
    assert not legibility_problems(res)


def test_moment_diagram_cantilever_hogs_above_with_pl() -> None:
    model = _beam(_force("F", "point", "B", 5, 270), left="fixed", right=None)  # PL = 20
    res = moment_diagram_result(model, analyze(model)[0])
    assert "20" in [it.text for it in res.layout if it.kind == "label"]
    (diagram,) = [it for it in res.layout if it.kind == "diagram"]
    _, y = point_px(res, model, "A")
    assert diagram.bbox[3] <= y + 2 and diagram.bbox[1] < y - 40  # tension side: above


def test_moment_diagram_of_a_pin_jointed_truss_is_empty_not_round_off_blown_up() -> None:
    """Joint loads on a pin-jointed truss give |M| ~ 1e-17: that is zero, not a diagram."""
    hinged = {"endA": "hinge", "endB": "hinge"}
    model = parse_model({
        "points": [_p("A", 0, 0), _p("B", 4, 0), _p("C", 2, 2)],
        "links": [{**_l("L1", "A", "B"), **hinged}, {**_l("L2", "B", "C"), **hinged},
                  {**_l("L3", "C", "A"), **hinged}],
        "supports": [_s("S1", "A", "pin"), _s("S2", "B", "roller")],
        "loads": [_force("F", "point", "C", 10, 250)]})
    sol = analyze(model)[0]
    assert 0 < sol.max_abs_moment < 1e-9  # round-off, not mechanics
    res = moment_diagram_result(model, sol)
    assert not [it for it in res.layout if it.kind == "diagram"]
    assert any("max |M| = 0" in (it.text or "") for it in res.layout if it.kind == "label")


def test_moment_diagram_image_and_conformance_legibility() -> None:
    model = own("beam-gerber-couples")
    image = render_moment_diagram(model, analyze(model)[0], style="textbook", seed=1)
    assert image.mode == "RGB" and image.width > 300
    for name, path in conformance_models()[::4]:
        if path is None:
            pytest.skip("conformance corpus absent")
        m = parse_model(path.read_text())
        res = moment_diagram_result(m, analyze(m)[0])
        assert not legibility_problems(res), name


# ---------------------------------------------------------------- bad input is an explained error
def test_bad_options_and_inputs_are_typed_errors(tmp_path: Path) -> None:
    model = own("beam-trapezoid-partial")
    with pytest.raises(RenderError, match="unknown style"):
        render_model(model, style="watercolour")
    with pytest.raises(RenderError, match="colour scheme"):
        render_model(model, scheme="neon")
    with pytest.raises(RenderError, match="highlight colour"):
        render_model(model, highlight={"L1": "not-a-colour"})
    with pytest.raises(RenderError, match="scale"):
        render_model(model, scale=-3)
    with pytest.raises(RenderError, match="smaller scale"):
        render_model(model, scale=1e6)
    with pytest.raises(ModelError):
        render_model({"points": [], "links": []})
    with pytest.raises(RenderError, match=r"\.png"):
        render_model(model).save(tmp_path / "x.gif")
    other = own("frame-gable-inclined")
    with pytest.raises(RenderError, match="solution"):
        moment_diagram_result(model, analyze(other)[0])
    many = {"points": [_p(f"P{i}", i, 0) for i in range(1200)],
            "links": [_l(f"L{i}", f"P{i}", f"P{i + 1}") for i in range(1199)],
            "supports": [_s("S1", "P0", "fixed")], "loads": []}
    with pytest.raises(RenderError, match="elements"):
        render_model(many)


# ---------------------------------------------------------------- command line
def test_cli_renders_same_bytes_and_rejects_invalid(tmp_path: Path) -> None:
    src = tmp_path / "model.json"
    src.write_text(json.dumps(OWN["frame-gable-inclined"]))
    out = tmp_path / "figure.png"
    layout = tmp_path / "layout.json"
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "render.py"), str(src), "-o",
                          str(out), "--style", "textbook", "--seed", "9", "--layout",
                          str(layout)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    expected = render_model(own("frame-gable-inclined"), style="textbook", seed=9).encode()
    assert out.read_bytes() == expected  # the same bytes in another process
    record = json.loads(layout.read_text())
    assert record["letters"]["A"] == "A" and record["items"]

    bad = tmp_path / "bad.json"
    bad.write_text('{"points": [{"id": "P1", "x": 0}, {"id": "P2", "x": 1, "y": 0}], '
                   '"links": [{"id": "L1", "a": "P1", "b": "P2"}]}')
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "render.py"), str(bad), "-o",
                          str(tmp_path / "bad.png")], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 2
    assert "invalid FrameCalc model" in run.stderr and "points[0].y" in run.stderr
    assert not (tmp_path / "bad.png").exists()


# ---------------------------------------------------------------- any valid model can be drawn
@st.composite
def small_models(draw: st.DrawFn) -> dict:
    """Chains of 2–6 joints on a 0.5 m grid with every support kind and load kind."""
    n = draw(st.integers(2, 6))
    cells = draw(st.lists(st.tuples(st.integers(0, 16), st.integers(0, 8)), min_size=n,
                          max_size=n, unique=True))
    pts = [_p(f"P{i}", 0.5 * x, 0.5 * y) for i, (x, y) in enumerate(cells)]
    ends = st.sampled_from(["rigid", "rigid", "hinge"])
    links = [_l(f"L{i}", f"P{i}", f"P{i + 1}", endA=draw(ends), endB=draw(ends))
             for i in range(n - 1)]
    at = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3, unique=True))
    kinds = st.sampled_from(["pin", "roller", "fixed", "slider"])
    angles = st.sampled_from([0, 90, 180, 270, 30, -45])
    supports = [_s(f"S{i}", f"P{i}", draw(kinds), draw(angles)) for i in at]
    loads: list[dict] = []
    for j in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["force", "line", "couple"]))
        link = f"L{draw(st.integers(0, n - 2))}"
        value = draw(st.sampled_from([0, 5, -8, 12.5, 250]))
        if kind == "line":
            loads.append(_line(f"Q{j}", link, value, draw(st.sampled_from([0, 5, 20])),
                               angle=draw(st.sampled_from([270, -90, 0])),
                               mode=draw(st.sampled_from(["world", "relative"]))))
            continue
        pos = {"refEnd": draw(st.sampled_from("AB")), "offsetMode": "percent",
               "offsetPercent": draw(st.sampled_from([0, 30, 50, 100])), "offset": 0}
        on_point = draw(st.booleans())
        target = ("point", f"P{draw(st.integers(0, n - 1))}") if on_point else ("link", link)
        extra = {} if on_point else pos
        if kind == "force":
            loads.append(_force(f"F{j}", *target, value, draw(st.sampled_from([0, 90, 270, 135])),
                                draw(st.sampled_from(["world", "relative"])), **extra))
        else:
            loads.append(_couple(f"M{j}", *target, value, draw(st.sampled_from([1, -1])), **extra))
    return {"points": pts, "links": links, "supports": supports, "loads": loads}


@settings(max_examples=40, deadline=None, derandomize=True)
@given(small_models(), st.sampled_from(sorted(STYLES)))
def test_any_valid_model_is_drawn_legibly(raw: dict, style: str) -> None:
    try:
        model = parse_model(raw)
    except ModelError:
        assume(False)
        return
    assert_good(render_model(model, style=style, seed=1), model, geometry=style != "scanned")
