"""The shipped dataset v2 as a recipe: which structures, shown in which presentations.

Why a recipe rather than a pile of files: the benchmark's promises — matched
presentations share one structure, every factor value appears often enough to be
measured, levels spread over 1–5 per category, the default selection is balanced —
are properties of the *plan*, so they are written down once, here, and the files in
``data/`` are whatever this plan produces (``python tools/synthesize.py --recipe v2``
rebuilds them byte for byte; a test regenerates the raw files and compares).

Two new splits join ``core`` (the 346 v1 problems, unchanged but re-drawn):

* ``hard`` — large and compound structures from the generator's hard pool (frames
  up to 60+ members, trusses up to 70+, Gerber beams of up to six spans), one task
  each; those planned at level 4 are shown with one factor changed, those at level 5
  in rotating combinations of every factor value (:func:`hard_presentation`);
* ``matched`` — structures of the standard pool shown in four presentations each:
  the reference (``full``/``numeric``/``m-kN``/``en``/``a``/``cad``), the exam form
  (``exam`` dimensioning with ``parametric`` values), the Chinese form (``zh``), and
  one more that changes a single factor from the reference (symbol set ``b``,
  ``sketch``, ``exam-page`` or ``mm-kN``, rotating). Differences between a structure's
  presentations measure reading skills with the physics held constant.

The default selection of ``run_eval.py`` is drawn from these three splits by
:mod:`structeval.dataset.benchmark`, balanced over category × level.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from ..dataset.errors import DatasetError
from ..dataset.problem import IMAGE_TYPES, Problem, make_problem
from ..presentation import Presentation
from .generator import derived_rng, generate_problem
from .legible import DrawingCheck, every_drawing, shipped_drawing_fault
from .selection import HARD, STANDARD, Selection, plan, problem_id

REFERENCE = Presentation()
EXAM = Presentation(dimensioning="exam", values="parametric")
CHINESE = Presentation(language="zh")
#: the fourth presentation of a matched structure: one factor away from the reference
SINGLE_CHANGES: tuple[tuple[str, Presentation], ...] = (
    ("b", Presentation(symbols="b")),
    ("sketch", Presentation(style="sketch")),
    ("page", Presentation(style="exam-page")),
    ("mm", Presentation(units="mm-kN")),
)
STYLES = ("cad", "textbook", "scanned", "sketch", "exam-page")


@dataclass(frozen=True)
class SplitPlan:
    """How many structures a split draws, from which pool and seed."""

    split: str
    count: int
    seed: int
    selection: Selection


@dataclass(frozen=True)
class Recipe:
    name: str
    hard: SplitPlan
    matched: SplitPlan
    #: matched structures whose reference presentation also ships as a DXF drawing, and
    #: how many of them ship their Chinese presentation as DXF too
    dxf_structures: int
    dxf_chinese: int


V2 = Recipe("v2", hard=SplitPlan("hard", 270, 22, HARD),
            matched=SplitPlan("matched", 120, 21, STANDARD),
            dxf_structures=120, dxf_chinese=40)
RECIPES = {"v2": V2}


#: the one factor a hard structure planned at level 4 is shown with (cycled): it keeps
#: most of them at level 4, so level 4 does not empty into level 5
LIGHT_CHANGES: tuple[Presentation, ...] = (
    Presentation(units="mm-kN"), Presentation(symbols="b"), Presentation(language="zh"),
    Presentation(style="sketch"), Presentation(style="exam-page"),
    Presentation(style="textbook"))


def hard_presentation(index: int, planned_level: int) -> Presentation:
    """The presentation of the ``index``-th hard structure planned at ``planned_level``.

    Level 4: one factor changed (:data:`LIGHT_CHANGES`, cycled). Level 5: independent
    rotations over every factor (mm and symbol set b on two thirds each, zh on a sixth,
    exam dimensioning on half, parametric values on a quarter, each style on a fifth),
    so that combinations occur and every value is met on hard structures.
    """
    if planned_level <= 4:
        return LIGHT_CHANGES[index % len(LIGHT_CHANGES)]
    return Presentation(
        dimensioning="exam" if index % 2 == 1 else "full",
        values="parametric" if index % 4 == 3 else "numeric",
        units="mm-kN" if index % 3 != 2 else "m-kN",
        language="zh" if index % 6 == 2 else "en",
        symbols="b" if index % 3 != 0 else "a",
        style=STYLES[index % len(STYLES)],
    )


def matched_presentations(index: int) -> list[tuple[str, Presentation]]:
    """(id suffix, presentation) of matched structure ``index``."""
    suffix, single = SINGLE_CHANGES[index % len(SINGLE_CHANGES)]
    return [("ref", REFERENCE), ("exam", EXAM), ("zh", CHINESE), (suffix, single)]


def _image_seed(*key: object) -> int:
    return derived_rng("recipe-image", *key).randrange(2**31)


def _task(structure: Problem, suffix: str | None, shown: Presentation, *, dxf: bool,
          ) -> Problem:
    """One presentation of a generated structure: its own id (the structure's id plus
    ``suffix``; the structure's own id when there is none), image and notes; the model
    and provenance are the structure's (so the ground truth is shared byte for byte)."""
    sid = structure.id
    tid = sid if suffix is None else f"{sid}-{suffix}"
    if shown.style not in IMAGE_TYPES:
        raise DatasetError(f"the renderer cannot draw style {shown.style!r} (task {tid})")
    task = make_problem(tid, structure.block["category"], structure.block["split"],
                        structure.model, structure.block["provenance"],
                        (shown.style, _image_seed(sid, suffix)), presentation=shown)
    block: dict[str, Any] = dict(task.block)
    block["structure"] = sid
    if dxf:
        block["dxf"] = {"file": f"{tid}.dxf"}
    return replace(task, block=block)


#: (index, planned level) → the task drawings (id suffix, presentation) the split's
#: ``index``-th structure ships as
Showings = Callable[[int, int], list[tuple[str | None, Presentation]]]


def _structures(spec: SplitPlan, seen: set[str], showings: Showings, check: DrawingCheck,
                progress: bool) -> Iterator[tuple[int, Problem, list[tuple[str | None,
                                                                         Presentation]]]]:
    """The split's structures with the drawings each ships as. A structure is generated
    in the reference presentation (the level the generator aims at, balanced per
    category, is the structure's own; a task shown in a harder presentation scores more
    by the rule) and kept only if every one of its drawings is legible."""
    jobs: Iterable[tuple[int, tuple[str, int]]] = enumerate(
        plan(spec.count, selection=spec.selection))
    if progress:
        from tqdm import tqdm

        jobs = tqdm(list(jobs), desc=spec.split, unit="structure")
    for index, (category, level) in jobs:
        sid = problem_id(category, spec.seed, index, spec.selection.tag())
        shown = showings(index, level)
        drawings = [(p, _image_seed(sid, suffix)) for suffix, p in shown]
        structure = generate_problem(spec.seed, index, category, level, spec.split, seen,
                                     selection=spec.selection,
                                     presentation=REFERENCE.to_json(),
                                     accept=every_drawing(check, category, drawings))
        yield index, structure, shown


def hard_tasks(recipe: Recipe, seen: set[str], *, check: DrawingCheck = shipped_drawing_fault,
               progress: bool = False) -> list[Problem]:
    """The hard split: one task per structure (its id is the structure's), shown in the
    rotating presentation of :func:`hard_presentation`."""
    seen_at: dict[int, int] = {}  # planned level → structures so far

    def showings(_index: int, level: int) -> list[tuple[str | None, Presentation]]:
        k = seen_at.get(level, 0)
        seen_at[level] = k + 1
        return [(None, hard_presentation(k, level))]

    return [_task(structure, suffix, pres, dxf=False)
            for _index, structure, shown in _structures(recipe.hard, seen, showings, check,
                                                        progress)
            for suffix, pres in shown]


def matched_tasks(recipe: Recipe, seen: set[str], *, check: DrawingCheck = shipped_drawing_fault,
                  progress: bool = False) -> list[Problem]:
    """The matched split: four presentations per structure."""
    def showings(index: int, _level: int) -> list[tuple[str | None, Presentation]]:
        return list(matched_presentations(index))

    out = []
    for index, structure, shown in _structures(recipe.matched, seen, showings, check,
                                               progress):
        for suffix, pres in shown:
            dxf = ((suffix == "ref" and index < recipe.dxf_structures)
                   or (suffix == "zh" and index < recipe.dxf_chinese))
            out.append(_task(structure, suffix, pres, dxf=dxf))
    return out


def recipe_tasks(name: str, avoid: Iterable[str] = (), *, parts: Iterable[str] = ("hard",
                 "matched"), check: DrawingCheck = shipped_drawing_fault,
                 progress: bool = False) -> list[Problem]:
    """Every new task of recipe ``name`` (``hard`` then ``matched``); ``avoid`` holds
    fingerprints already shipped (the core set), which no new structure may repeat.
    ``check`` finds what is wrong with a task's drawing (default: the legibility rules
    on its layout); a structure with a faulty drawing is drafted again."""
    if name not in RECIPES:
        raise DatasetError(f"unknown recipe {name!r}; known: {', '.join(RECIPES)}")
    recipe = RECIPES[name]
    wanted = set(parts)
    unknown = wanted - {"hard", "matched"}
    if unknown:
        raise DatasetError(f"recipe parts are hard and matched, not {', '.join(sorted(unknown))}")
    # both parts are always drawn, in this order: which structures the matched split gets
    # depends on what the hard split took (no structure ships twice)
    seen = set(avoid)
    hard = hard_tasks(recipe, seen, check=check, progress=progress)
    matched = matched_tasks(recipe, seen, check=check, progress=progress)
    return (hard if "hard" in wanted else []) + (matched if "matched" in wanted else [])
