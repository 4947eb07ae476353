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
from collections.abc import Iterator
from typing import Any

from ..dataset.problem import Problem, make_problem
from ..dataset.wellposed import well_posed
from ..presentation import Presentation
from .sheet_storey import CASES, Building, frame_document, frame_model, sample_building

SPLIT = "sheets"
FAMILIES = ("storey",)
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


def load_table(b: Building) -> dict[str, Any]:
    """The load table: one row per load, its value and its factor in each case."""
    cases = sorted(CASES)
    edges = f"{b.numbers[0]} and {b.numbers[-1]}"
    rows = [["REF", "LOAD", "VALUE", *(f"LC {c}" for c in cases)]]

    def row(ref: str, what: str, value: str, key: str | None = None) -> None:
        rows.append([ref, what, value, *(_factor(CASES[c].get(key or ref)) for c in cases)])

    ld = b.loads
    row("G1", "Floor dead load", f"{_num(ld.floor_dead)} kN/m²")
    row("Q1", "Floor imposed load", f"{_num(ld.floor_imposed)} kN/m²")
    row("G2", "Roof dead load (on plan)", f"{_num(ld.roof_dead)} kN/m²")
    row("S", "Snow on roof (on plan)", f"{_num(ld.snow)} kN/m²")
    row("F", f"Facade line load, edge grid lines {edges}", f"{_num(ld.facade)} kN/m")
    for sb in b.secondary:
        row(sb.label, f"Line load on secondary beam {sb.label} (roof)", f"{_num(sb.load)} kN/m",
            "SB")
    row("W", "Wind at floor levels, as drawn on each elevation", "as drawn")
    return {"title": "LOAD TABLE", "rows": rows,
            "cases": ["LC 1: ultimate, gravity", "LC 2: ultimate, wind"]}


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
    number = rng.randint(100, 899)
    title = [["PROJECT", f"OFFICE BUILDING {seed}-{index}"],
             ["DRAWING", "FRAME ELEVATIONS, PLAN AND LOADS"],
             ["DRAWING NO.", f"S-{number}"], ["REVISION", rng.choice("ABCD")],
             ["SCALE", "NOT TO SCALE: USE DIMENSIONS"], ["UNITS", "m, kN"]]
    return {"family": "storey", "plan": plan, "elevations": elevations,
            "load_table": load_table(b), "notes": {"title": "GENERAL NOTES", "lines": notes(b)},
            "title_block": title}


def statement(grid: str, case: str) -> tuple[str, str]:
    return (f"Model the frame on grid line {grid} under load case {case}.",
            f"按荷载工况 {case} 建立轴线 {grid} 上框架的计算模型。")


def _fit(b: Building, case: str) -> str | None:
    """Why the building's drawn frames are unfit under ``case`` (None: all fit)."""
    for j in b.variants:
        reason = well_posed(frame_model(b, j, case), expect_bending=True)
        if reason is not None:
            return f"frame {b.numbers[j]}: {reason}"
    return None


def sheet_problem(seed: int, index: int) -> Problem:
    """The ``index``-th task of the sheets split of ``seed``."""
    rng = random.Random(f"{GENERATOR}:{seed}:{index}")
    for attempt in range(ATTEMPTS):  # noqa: B007 (the attempt is recorded)
        b = sample_building(rng)
        case = rng.choice(sorted(CASES))
        if _fit(b, case) is None:
            break
    else:
        raise RuntimeError(f"no well-posed sheet after {ATTEMPTS} attempts")
    shown = sorted(b.variants)
    target = rng.choice(shown)
    pid = sheet_id("storey", seed, index)
    grid = b.numbers[target]
    model = frame_model(b, target, case)
    en, zh = statement(grid, case)
    provenance = {"generator": GENERATOR, "version": VERSION, "seed": seed, "index": index,
                  "attempt": attempt, "family": "storey",
                  "params": {"bays": list(b.bays), "storeys": list(b.storeys),
                             "spacings": list(b.spacings), "frames": [b.numbers[j] for j in shown]}}
    problem = make_problem(pid, "frame", SPLIT, model, provenance,
                           (SHEET_STYLE, rng.randrange(2**31)),
                           presentation=Presentation(style=SHEET_STYLE))
    block = dict(problem.block)
    block["sheet"] = {
        "frame": grid, "label": f"grid line {grid}", "load_case": case,
        "statement": en, "statement_zh": zh,
        "alternates": [{"frame": b.numbers[j], "label": f"grid line {b.numbers[j]}",
                        "model": frame_document(b, j, case)} for j in shown if j != target],
        "image_sha256": "", "drawing": drawing(b, seed, index, rng)}
    return Problem(block, model)


def with_image_hash(problem: Problem) -> tuple[Problem, bytes]:
    """The problem with ``image_sha256`` filled in, and the image's bytes."""
    from ..render import render_sheet

    data = render_sheet(problem.block["sheet"]["drawing"],
                        problem.block["image"]["seed"]).encode("PNG")
    block = dict(problem.block)
    block["sheet"] = {**block["sheet"], "image_sha256": hashlib.sha256(data).hexdigest()}
    return Problem(block, problem.model), data


def sheet_problems(count: int, seed: int) -> Iterator[Problem]:
    for index in range(count):
        yield sheet_problem(seed, index)

