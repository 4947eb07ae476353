"""Seeded random FrameCalc models that are valid and stable, for differential testing.

Why a generator of our own: the differential test must reach what hand-written
cases miss — hinges anywhere (hinge–hinge links, nodes where every end is
hinged), supports at any angle, every load kind in every encoding the format
allows (relative and world angles, flip, refEnd B, percent offsets, partial
trapezoidal loads, couples on links and points). Families mimic the drawings of
the benchmark (continuous beams, storey frames, trusses) plus jittered grids
for shapes nobody draws.

Every model is emitted as FrameCalc JSON (a dict), checked valid with
``parse_model`` and stable with our solver; a candidate that is a mechanism or
invalid is thrown away and the next one drawn, so the output is a pure function
of the seed.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from structeval.fe import MechanismError, analyze
from structeval.model import ModelError, parse_model

Json = dict[str, Any]

#: Support angles: the axis-aligned ones a drawing uses most, and inclined ones.
AXIS_ANGLES = (0.0, 90.0, 180.0, 270.0)
INCLINED_ANGLES = (30.0, -20.0, 45.0, 135.0, 210.0, 300.0, 60.0)


class _Builder:
    """Accumulates points, links, supports and loads with fresh ids."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.points: list[Json] = []
        self.links: list[Json] = []
        self.supports: list[Json] = []
        self.loads: list[Json] = []
        self.xy: dict[str, tuple[float, float]] = {}

    def point(self, x: float, y: float) -> str:
        pid = f"P{len(self.points) + 1}"
        self.points.append({"id": pid, "x": round(float(x), 6), "y": round(float(y), 6)})
        self.xy[pid] = (round(float(x), 6), round(float(y), 6))
        return pid

    def link(self, a: str, b: str, *, hinge_p: float = 0.0, hinge_a: bool | None = None,
             hinge_b: bool | None = None) -> str:
        rng = self.rng
        if rng.random() < 0.3:  # drawn "backwards": relative loads and m signs turn with it
            a, b = b, a
            hinge_a, hinge_b = hinge_b, hinge_a
        lid = f"L{len(self.links) + 1}"
        entry: Json = {"id": lid, "a": a, "b": b}
        ha = bool(rng.random() < hinge_p) if hinge_a is None else hinge_a
        hb = bool(rng.random() < hinge_p) if hinge_b is None else hinge_b
        if ha or rng.random() < 0.5:
            entry["endA"] = "hinge" if ha else "rigid"
        if hb or rng.random() < 0.5:
            entry["endB"] = "hinge" if hb else "rigid"
        if rng.random() < 0.85:  # realistic steel-like sections; otherwise the default one
            entry.update(E=float(rng.uniform(1.5e8, 2.5e8)), A=float(rng.uniform(5e-3, 2e-2)),
                         Iz=float(rng.uniform(5e-5, 5e-4)))
        self.links.append(entry)
        return lid

    def support(self, at: str, kind: str, angle: float = 0.0) -> None:
        self.supports.append({"id": f"S{len(self.supports) + 1}",
                              "at": {"type": "point", "id": at}, "kind": kind,
                              "angleDeg": angle})

    def length(self, link: Json) -> float:
        (xa, ya), (xb, yb) = self.xy[link["a"]], self.xy[link["b"]]
        return math.hypot(xb - xa, yb - ya)

    def json(self) -> Json:
        return {"points": self.points, "links": self.links, "supports": self.supports,
                "loads": self.loads}


# ------------------------------------------------------------------ loads


def _angle_fields(rng: np.random.Generator) -> Json:
    """A direction in one of the encodings FORMAT.md allows (D1–D3, with defaults)."""
    angle = float(rng.choice([0.0, 90.0, 180.0, 270.0])) if rng.random() < 0.5 else round(
        float(rng.uniform(0.0, 360.0)), 3)
    out: Json = {"angleDeg": angle, "flip": int(rng.choice([1, -1]))}
    mode = rng.choice(["world", "relative", "global", "missing"])
    if mode != "missing":
        out["angleMode"] = str(mode)
    return out


def _position_fields(rng: np.random.Generator, length: float) -> Json:
    """Where a concentrated load sits on a link (P1/P2), sometimes at an end exactly."""
    r = rng.random()
    d = 0.0 if r < 0.05 else length if r < 0.1 else float(rng.uniform(0.05, 0.95)) * length
    out: Json = {"refEnd": str(rng.choice(["A", "B"]))}
    if rng.random() < 0.5:
        out.update(offsetMode=str(rng.choice(["m", "length"])), offset=round(d, 6))
    else:
        out.update(offsetMode="percent", offsetPercent=round(100.0 * d / length, 6))
    return out


def _add_loads(b: _Builder, count: int, rotational_points: set[str]) -> None:
    """``count`` loads of every kind; couples on points only where a rotation is held."""
    rng = b.rng
    point_ids = [p["id"] for p in b.points]
    couple_points = sorted(rotational_points)
    for _ in range(count):
        lid = f"LD{len(b.loads) + 1}"
        kind = rng.choice(["pointOnPoint", "pointOnLink", "distributed", "coupleOnLink",
                           "coupleOnPoint"], p=[0.2, 0.25, 0.3, 0.15, 0.1])
        link = b.links[int(rng.integers(len(b.links)))]
        length = b.length(link)
        if kind == "pointOnPoint" or (kind == "coupleOnPoint" and not couple_points):
            load: Json = {"kind": "pointLoad", "at": {"type": "point",
                                                      "id": str(rng.choice(point_ids))},
                          "value": round(float(rng.uniform(1.0, 50.0)), 3), **_angle_fields(rng)}
        elif kind == "pointOnLink":
            load = {"kind": "pointLoad", "at": {"type": "link", "id": link["id"]},
                    "value": round(float(rng.uniform(1.0, 50.0)), 3), **_angle_fields(rng),
                    **_position_fields(rng, length)}
        elif kind == "distributed":
            load = {"kind": "distributedLoad", "at": {"type": "link", "id": link["id"]},
                    "wStart": round(float(rng.uniform(-20.0, 20.0)), 3), **_angle_fields(rng)}
            if rng.random() < 0.6:
                load["wEnd"] = round(float(rng.uniform(-20.0, 20.0)), 3)
            if rng.random() < 0.6:
                a, c = sorted(rng.uniform(0.0, 0.45, size=2) * length)
                load.update(fromStart=round(float(a), 6), fromEnd=round(float(c), 6))
        elif kind == "coupleOnLink":
            load = {"kind": "bendingMoment", "at": {"type": "link", "id": link["id"]},
                    "value": round(float(rng.uniform(1.0, 40.0)), 3),
                    "flip": int(rng.choice([1, -1])), **_position_fields(rng, length)}
        else:
            load = {"kind": "bendingMoment",
                    "at": {"type": "point", "id": str(rng.choice(couple_points))},
                    "value": round(float(rng.uniform(1.0, 40.0)), 3),
                    "flip": int(rng.choice([1, -1]))}
        b.loads.append({"id": lid, **load})


def _rotational_points(b: _Builder) -> set[str]:
    """Points whose rotation is a real unknown or held: a couple there is resisted."""
    held = {s["at"]["id"] for s in b.supports if s["kind"] in ("fixed", "slider")}
    for lk in b.links:
        if lk.get("endA", "rigid") == "rigid":
            held.add(lk["a"])
        if lk.get("endB", "rigid") == "rigid":
            held.add(lk["b"])
    return held


def _support_kind(rng: np.random.Generator, weights: dict[str, float]) -> tuple[str, float]:
    kinds = list(weights)
    p = np.array([weights[k] for k in kinds])
    kind = str(rng.choice(kinds, p=p / p.sum()))
    if kind in ("roller", "slider"):
        angle = float(rng.choice(AXIS_ANGLES)) if rng.random() < 0.6 else float(
            rng.choice(INCLINED_ANGLES))
        return kind, angle
    return kind, float(rng.choice([0.0, 90.0, 270.0])) if rng.random() < 0.2 else 0.0


# --------------------------------------------------------------- families


def _beam(rng: np.random.Generator) -> Json:
    """Continuous or Gerber beam along x: spans, interior points, hinges at joints."""
    b = _Builder(rng)
    spans = int(rng.integers(1, 5))
    xs = [0.0]
    for _ in range(spans):
        xs.append(xs[-1] + round(float(rng.uniform(2.0, 6.0)), 2))
    stations = sorted(set(xs) | {round(float(x), 2) for x in
                                 rng.uniform(0.0, xs[-1], size=int(rng.integers(0, 3)))})
    ids = [b.point(x, 0.0) for x in stations]
    for a, c in itertools.pairwise(ids):
        b.link(a, c, hinge_p=0.12)
    support_at = [ids[stations.index(x)] for x in xs]
    for k, pid in enumerate(support_at):
        if k == 0 or rng.random() < 0.8:
            b.support(pid, *_support_kind(rng, {"pin": 2, "roller": 4, "fixed": 1.5,
                                                "slider": 0.5}))
    _add_loads(b, int(rng.integers(1, 6)), _rotational_points(b))
    return b.json()


def _frame(rng: np.random.Generator) -> Json:
    """Storey frame: columns and beams on a grid, optional gable and braces, hinges."""
    b = _Builder(rng)
    bays, storeys = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    xs = np.concatenate([[0.0], np.cumsum(np.round(rng.uniform(3.0, 6.0, bays), 2))])
    ys = np.concatenate([[0.0], np.cumsum(np.round(rng.uniform(2.5, 4.0, storeys), 2))])
    grid = [[b.point(x, y) for x in xs] for y in ys]
    hinge_p = float(rng.choice([0.0, 0.1, 0.25]))
    gable = rng.random() < 0.3
    for j in range(1, storeys + 1):
        for i in range(bays + 1):
            b.link(grid[j - 1][i], grid[j][i], hinge_p=hinge_p)
        for i in range(bays):
            if j == storeys and gable:
                apex = b.point(0.5 * (xs[i] + xs[i + 1]), ys[j] + float(rng.uniform(1.0, 2.5)))
                b.link(grid[j][i], apex, hinge_p=hinge_p)
                b.link(apex, grid[j][i + 1], hinge_p=hinge_p)
            else:
                b.link(grid[j][i], grid[j][i + 1], hinge_p=hinge_p)
            if rng.random() < 0.2:  # one diagonal per panel, so links never cross
                corner = [grid[j - 1][i], grid[j][i + 1]] if rng.random() < 0.5 else [
                    grid[j][i], grid[j - 1][i + 1]]
                b.link(*corner, hinge_a=True, hinge_b=True)
    for i in range(bays + 1):
        if i in (0, bays) or rng.random() < 0.7:
            b.support(grid[0][i], *_support_kind(rng, {"fixed": 4, "pin": 3, "roller": 1,
                                                       "slider": 1}))
    _add_loads(b, int(rng.integers(1, 7)), _rotational_points(b))
    return b.json()


def _truss(rng: np.random.Generator) -> Json:
    """Pratt, Howe or Warren truss; pin-jointed (every end hinged) or rigid-jointed."""
    b = _Builder(rng)
    panels = int(rng.integers(2, 7))
    w, h = float(rng.uniform(1.5, 3.0)), float(rng.uniform(1.5, 3.0))
    style = str(rng.choice(["pratt", "howe", "warren"]))
    pinned = rng.random() < 0.7
    ends = {"hinge_a": True, "hinge_b": True} if pinned else {"hinge_p": 0.1}
    bottom = [b.point(i * w, 0.0) for i in range(panels + 1)]
    if style == "warren":
        top = [b.point((i + 0.5) * w, h) for i in range(panels)]
        for i in range(panels):
            b.link(bottom[i], top[i], **ends)  # type: ignore[arg-type]
            b.link(top[i], bottom[i + 1], **ends)  # type: ignore[arg-type]
            if i:
                b.link(top[i - 1], top[i], **ends)  # type: ignore[arg-type]
    else:
        top = [b.point(i * w, h) for i in range(1, panels)]
        for i in range(panels):
            b.link(bottom[i], bottom[i + 1], **ends)  # type: ignore[arg-type]
        b.link(bottom[0], top[0], **ends)  # type: ignore[arg-type]
        b.link(top[-1], bottom[-1], **ends)  # type: ignore[arg-type]
        for i in range(len(top)):
            b.link(bottom[i + 1], top[i], **ends)  # type: ignore[arg-type]
            if i:
                b.link(top[i - 1], top[i], **ends)  # type: ignore[arg-type]
                diagonal = (bottom[i], top[i]) if (style == "pratt") == (i < panels / 2) else (
                    top[i - 1], bottom[i + 1])
                b.link(*diagonal, **ends)  # type: ignore[arg-type]
    b.support(bottom[0], *_support_kind(rng, {"pin": 4, "fixed": 1}))
    b.support(bottom[-1], *_support_kind(rng, {"roller": 4, "pin": 1, "slider": 0.5}))
    _add_loads(b, int(rng.integers(1, 6)), _rotational_points(b))
    return b.json()


def _grid(rng: np.random.Generator) -> Json:
    """Jittered grid with a random connected set of edges: shapes nobody draws."""
    b = _Builder(rng)
    nx, ny = int(rng.integers(2, 5)), int(rng.integers(2, 4))
    ids = [[b.point(i * 3.0 + rng.uniform(-0.6, 0.6), j * 3.0 + rng.uniform(-0.6, 0.6))
            for i in range(nx)] for j in range(ny)]
    edges = [(ids[j][i], ids[j][i + 1]) for j in range(ny) for i in range(nx - 1)]
    edges += [(ids[j][i], ids[j + 1][i]) for j in range(ny - 1) for i in range(nx)]
    edges += [(ids[j][i], ids[j + 1][i + 1]) if rng.random() < 0.5 else
              (ids[j][i + 1], ids[j + 1][i]) for j in range(ny - 1) for i in range(nx - 1)]
    keep = [e for e in edges if rng.random() < 0.75]
    used = {p for e in keep for p in e}
    for e in edges:  # every point on some link
        if not {e[0], e[1]} <= used and e not in keep:
            keep.append(e)
            used |= set(e)
    for a, c in keep:
        b.link(a, c, hinge_p=0.25)
    candidates = [p["id"] for p in b.points]
    for pid in rng.choice(candidates, size=int(rng.integers(2, 4)), replace=False):
        b.support(str(pid), *_support_kind(rng, {"fixed": 2, "pin": 3, "roller": 2,
                                                 "slider": 1}))
    _add_loads(b, int(rng.integers(1, 7)), _rotational_points(b))
    return b.json()


FAMILIES: dict[str, Callable[[np.random.Generator], Json]] = {
    "beam": _beam, "frame": _frame, "truss": _truss, "grid": _grid,
}


#: Largest nodal displacement accepted, as a share of the model's size. Near-mechanisms
#: that sag by metres under these loads are excluded: real drawings are far stiffer
#: (span/250 is a usual service limit), and there the reference code's own result
#: drifts with its support-spring stiffness (its penalty supports and global-axis LU
#: lose digits), so it could not referee to 1e-6.
MAX_DEFLECTION = 1 / 50


def is_stable(doc: Json) -> bool:
    """Valid, not a mechanism (by our own parser and solver) and not floppy."""
    try:
        model = parse_model(doc)
        solution = analyze(model)[0]
    except (ModelError, MechanismError):
        return False
    xy = np.array([(p.x, p.y) for p in model.points])
    size = float(np.ptp(xy, axis=0).max())
    moved = float(np.hypot(solution.raw.displacements[:, 0],
                           solution.raw.displacements[:, 1]).max())
    return moved <= MAX_DEFLECTION * size


def random_models(seed: int, count: int, *, keep_rejected: list[Json] | None = None,
                  ) -> list[tuple[str, Json]]:
    """``count`` stable models (family name, FrameCalc JSON), families in rotation.

    Rejected candidates (mechanisms, invalid or floppy) are appended to
    ``keep_rejected`` when given, so a test can check them against an independent
    verdict.
    """
    rng = np.random.default_rng(seed)
    names = list(FAMILIES)
    out: list[tuple[str, Json]] = []
    attempts = 0
    while len(out) < count:
        attempts += 1
        if attempts > 50 * count:
            raise RuntimeError("generator keeps producing unstable models")
        family = names[len(out) % len(names)]
        doc = FAMILIES[family](rng)
        if is_stable(doc):
            out.append((family, doc))
        elif keep_rejected is not None:
            keep_rejected.append(doc)
    return out
