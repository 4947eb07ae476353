"""The ``sheets`` split: tasks that show a building on a drawing sheet and ask for one
of its frames under one load case.

Each task's raw file holds the target frame as it must be analysed (the loads a
reader derives from the plan and the load table included), and ``problem.sheet``:
which frame and case the statement names, every other frame drawn on the sheet under
the same case (``alternates``: a reader who models the wrong elevation gives one of
these), the sha256 of the image and the ``drawing`` block the renderer draws the
sheet from, byte for byte. Everything comes from ``random.Random`` seeded by the
split's seed and the task's index, so the same ``--seed`` writes the same bytes and
a hidden seed gives fresh sheets.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ..dataset.problem import Problem, make_problem
from ..dataset.wellposed import well_posed
from ..model.types import Model
from ..presentation import Presentation
from . import sheet_gerber as gerber
from . import sheet_portal as portal
from .sheet_storey import CASES, Building, frame_document, frame_model, sample_building

SPLIT = "sheets"
#: the structures a sheet can show: multi-storey buildings, Gerber bridges, portal sheds
#: with roof trusses
FAMILIES = ("storey", "gerber", "portal")
GENERATOR = "structeval.generation.sheets"
VERSION = 1
ATTEMPTS = 40
SHEET_STYLE = "sheet"


def sheet_id(family: str, seed: int, index: int) -> str:
    return f"sheet-{family}-s{seed}-{index:04d}"


def _num(v: float) -> str:
    """A table value: 4.5, 12, 0.8 (no trailing zeros)."""
    return f"{v:.3f}".rstrip("0").rstrip(".")


def _factor(v: float | None) -> str:
    return "—" if v is None else f"{v:.2f}"


Row = tuple[str, str, str, str | None]  # ref, what, value, factor key (None: the ref)


def _table(cases: dict[str, dict[str, float]], entries: list[Row],
           names: list[str]) -> dict[str, Any]:
    """A load table: one row per load, its value and its factor in each case."""
    order = sorted(cases)
    rows = [["REF", "LOAD", "VALUE", *(f"LC {c}" for c in order)]]
    for ref, what, value, key in entries:
        rows.append([ref, what, value, *(_factor(cases[c].get(key or ref)) for c in order)])
    return {"title": "LOAD TABLE", "rows": rows, "cases": names}


def _title_block(rng: random.Random, project: str, drawing: str,
                 prefix: str) -> list[list[str]]:
    number = rng.randint(100, 899)
    return [["PROJECT", project], ["DRAWING", drawing],
            ["DRAWING NO.", f"{prefix}-{number}"], ["REVISION", rng.choice("ABCD")],
            ["SCALE", "NOT TO SCALE: USE DIMENSIONS"], ["UNITS", "m, kN"]]


def _sheet_block(family: str, plan: dict[str, Any], elevations: list[dict[str, Any]],
                 table: dict[str, Any], notes: list[str],
                 title: list[list[str]]) -> dict[str, Any]:
    return {"family": family, "plan": plan, "elevations": elevations, "load_table": table,
            "notes": {"title": "GENERAL NOTES", "lines": notes}, "title_block": title}


def load_table(b: Building) -> dict[str, Any]:
    """The building's load table."""
    edges = f"{b.numbers[0]} and {b.numbers[-1]}"
    ld = b.loads
    entries: list[Row] = [
        ("G1", "Floor dead load", f"{_num(ld.floor_dead)} kN/m²", None),
        ("Q1", "Floor imposed load", f"{_num(ld.floor_imposed)} kN/m²", None),
        ("G2", "Roof dead load (on plan)", f"{_num(ld.roof_dead)} kN/m²", None),
        ("S", "Snow on roof (on plan)", f"{_num(ld.snow)} kN/m²", None),
        ("F", f"Facade line load, edge grid lines {edges}", f"{_num(ld.facade)} kN/m", None),
        *((sb.label, f"Line load on secondary beam {sb.label} (roof)", f"{_num(sb.load)} kN/m",
           "SB") for sb in b.secondary),
        ("W", "Wind at floor levels, as drawn on each elevation", "as drawn", None)]
    return _table(CASES, entries, ["LC 1: ultimate, gravity", "LC 2: ultimate, wind"])


def notes(b: Building) -> list[str]:
    first, last = b.numbers[0], b.numbers[-1]
    out = [
        "Dimensions and levels in metres; loads in kN, kN/m and kN/m².",
        f"Slabs span one way between the frames on grid lines {first} to {last}: each frame "
        "carries the area loads over half the distance to each neighbouring grid line.",
        "Floor loads act on the beams of every floor; roof loads on the roof beams only.",
        "Facade line loads act on every beam of the edge frames.",
        "Wind loads act at the floor levels as drawn on each elevation, unfactored.",
        "Columns 2EI; beams and bracing EI (E, A and Iz as the FrameCalc defaults, "
        "columns with twice Iz).",
        "Bracing members are pin-ended; beams with hinges drawn at their ends are pin-ended.",
    ]
    if b.secondary:
        out.append("Secondary beams SB are simply supported between the frames and frame "
                   "into the main roof beams at mid-bay.")
    return out


def drawing(b: Building, seed: int, index: int, rng: random.Random) -> dict[str, Any]:
    """Everything the renderer needs to draw the sheet again, byte for byte."""
    xs, ys = b.xs, b.ys
    plan = {"title": "PLAN AT TYPICAL FLOOR AND ROOF", "letters": list(b.letters), "x": xs,
            "numbers": list(b.numbers), "y": ys,
            "secondary": [{"label": sb.label, "x": (xs[sb.bay] + xs[sb.bay + 1]) / 2,
                           "y0": ys[sb.span], "y1": ys[sb.span + 1]} for sb in b.secondary]}
    elevations = [{"grid": b.numbers[j], "title": f"ELEVATION ON GRID {b.numbers[j]}",
                   "levels": b.levels, "model": frame_document(b, j, None)}
                  for j in sorted(b.variants)]
    title = _title_block(rng, f"OFFICE BUILDING {seed}-{index}",
                         "FRAME ELEVATIONS, PLAN AND LOADS", "S")
    return _sheet_block("storey", plan, elevations, load_table(b), notes(b), title)


def statement(grid: str, case: str, family: str = "storey") -> tuple[str, str]:
    """The task statement (en, zh): the frame or girder on a grid line, a load case."""
    if family == "gerber":
        return (f"Model the girder on grid line {grid} under load case {case}.",
                f"按荷载工况 {case} 建立轴线 {grid} 上主梁的计算模型。")
    return (f"Model the frame on grid line {grid} under load case {case}.",
            f"按荷载工况 {case} 建立轴线 {grid} 上框架的计算模型。")


T = TypeVar("T")


def _sample(rng: random.Random, sample: Callable[[random.Random], T],
            cases: dict[str, dict[str, float]], frames: Callable[[T], Iterable[int]],
            model: Callable[[T, int, str], Model], what: str) -> tuple[T, str, int]:
    """A structure, its load case and the attempt it took: drawn again until every frame
    the sheet shows is well-posed under that case."""
    for attempt in range(ATTEMPTS):
        x = sample(rng)
        case = rng.choice(sorted(cases))
        if not any(well_posed(model(x, j, case), expect_bending=True) for j in frames(x)):
            return x, case, attempt
    raise RuntimeError(f"no well-posed {what} sheet after {ATTEMPTS} attempts")


def sheet_problem(seed: int, index: int, family: str = "storey") -> Problem:
    """The ``index``-th task of the sheets split of ``seed`` in ``family``."""
    if family not in _FAMILIES:
        raise ValueError(f"unknown sheet family {family!r} (one of {', '.join(FAMILIES)})")
    return _family_problem(family, _FAMILIES[family], seed, index)


@dataclass(frozen=True)
class _Family(Generic[T]):
    """How one sheet family samples, models and draws its structure (a building, bridge
    or shed): the one path from a seed to a task that every family takes."""

    stream: str  # the prefix of the family's random stream (seeded per task)
    sample: Callable[[random.Random], T]
    cases: dict[str, dict[str, float]]
    frames: Callable[[T], Iterable[int]]  # the grid lines whose frames the sheet draws
    model: Callable[[T, int, str], Model]
    document: Callable[[T, int, str | None], dict[str, Any]]
    what: str
    params: Callable[[T, list[str]], dict[str, Any]]  # given the drawn frames' names
    drawing: Callable[[T, int, int, random.Random], dict[str, Any]]


def _family_problem(family: str, how: _Family[Any], seed: int, index: int) -> Problem:
    rng = random.Random(f"{how.stream}:{seed}:{index}")
    x, case, attempt = _sample(rng, how.sample, how.cases, how.frames, how.model, how.what)
    shown = sorted(how.frames(x))
    target = rng.choice(shown)
    params = how.params(x, [x.numbers[j] for j in shown])
    alternates = [(x.numbers[j], how.document(x, j, case)) for j in shown if j != target]
    return _problem(family, seed, index, attempt, params, rng, how.model(x, target, case),
                    x.numbers[target], case, alternates,
                    lambda: how.drawing(x, seed, index, rng))


def _problem(family: str, seed: int, index: int, attempt: int, params: dict[str, Any],
             rng: random.Random, model: Model, grid: str, case: str,
             alternates: list[tuple[str, dict[str, Any]]],
             draw: Callable[[], dict[str, Any]]) -> Problem:
    """The task of one family's sampled structure: its problem block and ``sheet``."""
    pid = sheet_id(family, seed, index)
    en, zh = statement(grid, case, family)
    provenance = {"generator": GENERATOR, "version": VERSION, "seed": seed, "index": index,
                  "attempt": attempt, "family": family, "params": params}
    category = "beam" if family == "gerber" else "frame"
    problem = make_problem(pid, category, SPLIT, model, provenance,
                           (SHEET_STYLE, rng.randrange(2**31)),
                           presentation=Presentation(style=SHEET_STYLE))
    block = dict(problem.block)
    block["sheet"] = {
        "frame": grid, "label": f"grid line {grid}", "load_case": case,
        "statement": en, "statement_zh": zh,
        "alternates": [{"frame": name, "label": f"grid line {name}", "model": doc}
                       for name, doc in alternates],
        "image_sha256": "", "drawing": draw()}
    return Problem(block, model)


# -- Gerber bridges --------------------------------------------------------------------------

def gerber_table(b: gerber.Bridge) -> dict[str, Any]:
    """The bridge's load table."""
    edges = f"{b.numbers[0]} and {b.numbers[-1]}"
    ld = b.loads
    entries: list[Row] = [
        ("G1", "Deck slab self-weight", f"{_num(ld.deck)} kN/m²", None),
        ("G2", "Deck surfacing", f"{_num(ld.surfacing)} kN/m²", None),
        ("Q1", "Traffic load on the deck", f"{_num(ld.traffic)} kN/m²", None),
        ("P", f"Parapet line load, edge girders {edges}", f"{_num(ld.parapet)} kN/m", None),
        *((c.label, f"Line load on cross girder {c.label}", f"{_num(c.load)} kN/m", "XG")
          for c in b.cross),
        ("T", "Axle loads, as drawn on each elevation", "as drawn", None)]
    return _table(gerber.CASES, entries,
                  ["LC 1: ultimate, traffic", "LC 2: characteristic, no deck traffic"])


def gerber_notes(b: gerber.Bridge) -> list[str]:
    first, last = b.numbers[0], b.numbers[-1]
    out = [
        "Dimensions in metres; loads in kN, kN/m and kN/m².",
        f"The deck spans across the girders on grid lines {first} to {last}: each girder "
        "carries the deck's area loads over half the distance to each neighbouring grid line.",
        "Parapet line loads act along the whole length of the edge girders.",
        "Axle loads act where drawn on each elevation, unfactored.",
        "Girders EI (E, A and Iz as the FrameCalc defaults), continuous over the bearings "
        "except at the Gerber hinges drawn.",
        "Bearings: fixed (pinned) where drawn, sliding elsewhere.",
    ]
    if b.cross:
        out.append("Cross girders XG are simply supported between two girders and frame "
                   "into them at mid-span.")
    return out


def gerber_drawing(b: gerber.Bridge, seed: int, index: int,
                   rng: random.Random) -> dict[str, Any]:
    xs, ys = b.xs, b.ys
    plan = {"title": "PLAN OF DECK", "letters": list(b.letters), "x": xs,
            "numbers": list(b.numbers), "y": ys,
            "secondary": [{"label": c.label, "x": (xs[c.bay] + xs[c.bay + 1]) / 2,
                           "y0": ys[c.span], "y1": ys[c.span + 1]} for c in b.cross]}
    elevations = [{"grid": b.numbers[j], "title": f"ELEVATION ON GRID {b.numbers[j]}",
                   "levels": [0.0], "columns": xs,
                   "model": gerber.girder_document(b, j, None)} for j in sorted(b.girders)]
    title = _title_block(rng, f"ROAD BRIDGE {seed}-{index}",
                         "GIRDER ELEVATIONS, DECK PLAN AND LOADS", "B")
    return _sheet_block("gerber", plan, elevations, gerber_table(b), gerber_notes(b), title)


# -- portal sheds with roof trusses ----------------------------------------------------------

def portal_table(s: portal.Shed) -> dict[str, Any]:
    """The shed's load table."""
    ld = s.loads
    entries: list[Row] = [
        ("G1", "Roof sheeting and purlins (on plan)", f"{_num(ld.dead)} kN/m²", None),
        ("G2", "Services hung from the trusses (on plan)", f"{_num(ld.services)} kN/m²", None),
        ("S", "Snow on roof (on plan)", f"{_num(ld.snow)} kN/m²", None),
        ("W", "Wind at the column heads, as drawn on each elevation", "as drawn", None)]
    return _table(portal.CASES, entries,
                  ["LC 1: ultimate, snow leading", "LC 2: ultimate, wind leading"])


def portal_notes(s: portal.Shed) -> list[str]:
    first, last = s.numbers[0], s.numbers[-1]
    return [
        "Dimensions and levels in metres; loads in kN and kN/m².",
        f"Purlins span between the frames on grid lines {first} to {last}: each frame "
        "carries the roof loads over half the distance to each neighbouring grid line.",
        "Purlins sit at every top-chord panel point of the trusses; each carries the roof "
        "over half the distance to the neighbouring panel points on plan.",
        "Roof loads act on plan; wind loads act at the column heads as drawn on each "
        "elevation, unfactored.",
        "Columns 2EI, continuous from the base to the top chord; truss members EI (E, A "
        "and Iz as the FrameCalc defaults), pin-ended at every panel point.",
    ]


def portal_drawing(s: portal.Shed, seed: int, index: int,
                   rng: random.Random) -> dict[str, Any]:
    heights = s.heights()
    plan = {"title": "ROOF PLAN", "letters": list(s.letters), "x": s.xs,
            "numbers": list(s.numbers), "y": s.ys, "secondary": []}
    elevations = [{"grid": s.numbers[j], "title": f"ELEVATION ON GRID {s.numbers[j]}",
                   "levels": heights, "marks": [0.0, s.eaves, heights[-1]], "columns": s.xs,
                   "model": portal.shed_document(s, j, None)} for j in sorted(s.variants)]
    title = _title_block(rng, f"STORAGE HALL {seed}-{index}",
                         "PORTAL FRAME ELEVATIONS, ROOF PLAN AND LOADS", "S")
    return _sheet_block("portal", plan, elevations, portal_table(s), portal_notes(s), title)


#: every sheet family's path from a seed to a task (the storey stream keeps the prefix it
#: had before there were other families, so its sheets are the same bytes)
_FAMILIES: dict[str, _Family[Any]] = {
    "storey": _Family(GENERATOR, sample_building, CASES, lambda b: b.variants, frame_model,
                      frame_document, "building",
                      lambda b, frames: {"bays": list(b.bays), "storeys": list(b.storeys),
                                         "spacings": list(b.spacings), "frames": frames},
                      drawing),
    "gerber": _Family(f"{GENERATOR}:gerber", gerber.sample_bridge, gerber.CASES,
                      lambda b: b.girders, gerber.girder_model, gerber.girder_document,
                      "bridge",
                      lambda b, frames: {"spans": list(b.spans), "spacings": list(b.spacings),
                                         "girders": frames},
                      gerber_drawing),
    "portal": _Family(f"{GENERATOR}:portal", portal.sample_shed, portal.CASES,
                      lambda s: s.variants, portal.shed_model, portal.shed_document, "shed",
                      lambda s, frames: {"bays": list(s.bays), "eaves": s.eaves,
                                         "depth": s.depth, "spacings": list(s.spacings),
                                         "frames": frames},
                      portal_drawing),
}


def with_image_hash(problem: Problem) -> tuple[Problem, bytes]:
    """The problem with ``image_sha256`` filled in, and the image's bytes."""
    from ..render import render_sheet

    data = render_sheet(problem.block["sheet"]["drawing"],
                        problem.block["image"]["seed"]).encode("PNG")
    block = dict(problem.block)
    block["sheet"] = {**block["sheet"], "image_sha256": hashlib.sha256(data).hexdigest()}
    return Problem(block, problem.model), data


def sheet_problems(count: int, seed: int, family: str = "storey") -> Iterator[Problem]:
    for index in range(count):
        yield sheet_problem(seed, index, family)

