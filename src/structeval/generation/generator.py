"""Draw well-posed, distinct problems from the templates, reproducibly from a seed.

Problem ``index`` of a run depends only on (seed, index, category, level, selection):
its random stream is derived from those by hashing, and attempts that fail a check
move on to the next derived stream. So the same arguments always give the same
files, and the provenance (seed, index, attempt, selection) regenerates any single
problem (:func:`regenerate`).

A draft is accepted when it is a valid model, obeys the grid rules
(:mod:`structeval.dataset.grid_rules`), has the selection's minimum size, lands on the
target level of the difficulty rule *in the presentation it will be shown in*, is
stable and well-posed, and is not a duplicate.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..dataset.difficulty import difficulty, level_of, presentation_points
from ..dataset.errors import DatasetError
from ..dataset.fingerprint import fingerprint
from ..dataset.grid_rules import grid_problems
from ..dataset.paths import CATEGORIES
from ..dataset.problem import IMAGE_TYPES, Problem, make_problem
from ..dataset.wellposed import well_posed
from ..model import ModelError, model_to_json, parse_model
from ..model.types import Model
from ..presentation import Presentation, PresentationError
from .builder import merge_idle_points, renumber
from .families import MIN_COMPLEXITY, Skeleton, pick_family, pool_of
from .legible import DrawingCheck, drawing_fault
from .load_placement import add_loads
from .selection import STANDARD, Selection, plan, problem_id
from .stats import GenerationStats

GENERATOR = "structeval.dataset.generator"
GENERATOR_VERSION = 2
MAX_ATTEMPTS = 2000
STYLE_WEIGHTS = {"cad": 45, "textbook": 40, "scanned": 15}
#: how a miss moves the complexity of the next attempts
STEER = {"level too high": -1, "level too low": 1}
MAX_SHIFT = 2  # the standard pool aims with complexities 1, 3, 5: ±2 reaches every other

__all__ = ["GENERATOR", "GENERATOR_VERSION", "Selection", "generate_problem", "image_choice",
           "least_presentation_score", "plan", "problem_id", "regenerate", "synthesize"]


def derived_rng(*parts: object) -> random.Random:
    """A random stream determined by ``parts`` on every platform and Python version."""
    text = "|".join(str(p) for p in ("structeval", *parts))
    return random.Random(int.from_bytes(hashlib.sha256(text.encode()).digest()[:16], "big"))


def image_choice(*key: object) -> tuple[str, int]:
    """(style, image seed) for the problem ``key`` names: mostly clean CAD and textbook
    drawings, some scanned copies."""
    rng = derived_rng("image", *key)
    style = rng.choices(sorted(STYLE_WEIGHTS), weights=[STYLE_WEIGHTS[s]
                                                        for s in sorted(STYLE_WEIGHTS)])[0]
    return style, rng.randrange(2**31)


@dataclass(frozen=True)
class Draft:
    template: str
    complexity: int
    skeleton: Skeleton
    model: Model | None  # None when the draft is not even a valid model


def draft(seed: int, index: int, category: str, level: int, attempt: int,
          selection: Selection = STANDARD, shift: int = 0,
          complexity: int | None = None) -> Draft:
    """Attempt ``attempt`` of problem ``index``: a template, its skeleton and the loaded
    model exactly as the raw file will hold it. ``shift`` moves the template complexity
    away from the one that aims at ``level`` (see :func:`generate_problem`);
    ``complexity`` sets it outright (regeneration from a provenance)."""
    tag = selection.tag()
    rng = derived_rng("problem", seed, index, category, level, attempt, *([tag] if tag else []))
    name, template, aimed = pick_family(category, level, rng, pool=selection.pool,
                                        names=selection.families)
    if complexity is None:
        complexity = min(5, max(MIN_COMPLEXITY[pool_of(name)], aimed + shift))
    skeleton = template(rng, complexity)
    drafted = renumber(merge_idle_points(
        add_loads(rng, skeleton, truss=category == "truss", level=complexity)))
    try:
        model = parse_model(model_to_json(drafted))
    except ModelError:
        model = None
    return Draft(name, complexity, skeleton, model)


def rejection(model: Model | None, category: str, level: int, presentation: Presentation,
              selection: Selection, seen: set[str]) -> str | None:
    """Why a drafted model cannot ship (a short reason key), or None. A draft on another
    level says which way it missed: "level too high" or "level too low"."""
    if model is None:
        return "invalid"
    if grid_problems(model):
        return "grid rules"
    if len(model.links) < selection.min_members:
        return "too small"
    got = difficulty(model, presentation)
    if got != level:
        return "level too high" if got > level else "level too low"
    reason = well_posed(model, expect_bending=category != "truss")
    if reason is not None:
        return reason.split(":")[0].split(" (")[0]
    if fingerprint(model) in seen:
        return "duplicate"
    return None


def _presentation(fixed: Mapping[str, str] | None, style: str) -> Presentation:
    values = {"style": style, **(fixed or {})}
    try:
        shown = Presentation.from_json(values)
    except PresentationError as exc:
        raise DatasetError(str(exc)) from None
    if shown.style not in IMAGE_TYPES:
        raise DatasetError(f"style {shown.style!r} cannot be drawn by this renderer; choose "
                           f"one of {', '.join(IMAGE_TYPES)}")
    return shown


def least_presentation_score(fixed: Mapping[str, str] | None) -> int:
    """What the presentation adds to every task of a run at least (the style, when not
    fixed, at its most: it is drawn per problem)."""
    fixed = dict(fixed or {})
    shown = _presentation(fixed, fixed.get("style", "cad"))
    return presentation_points(shown, drawn=() if "style" in fixed else ("style",))


def _problem(seed: int, index: int, category: str, level: int, split: str, attempt: int,
             result: Draft, selection: Selection, shown: Presentation, image_seed: int,
             ) -> Problem:
    assert result.model is not None
    provenance = {"generator": GENERATOR, "version": GENERATOR_VERSION, "seed": seed,
                  "index": index, "attempt": attempt, "category": category,
                  "target_difficulty": level, **selection.to_provenance(),
                  "complexity": result.complexity, "family": result.skeleton.family,
                  "template": result.template, "params": result.skeleton.params}
    return make_problem(problem_id(category, seed, index, selection.tag()), category, split,
                        result.model, provenance, (shown.style, image_seed),
                        presentation=shown)


def generate_problem(seed: int, index: int, category: str, level: int, split: str,
                     seen: set[str], *, selection: Selection = STANDARD,
                     presentation: Mapping[str, str] | None = None,
                     stats: GenerationStats | None = None,
                     accept: Callable[[Model], str | None] | None = None,
                     drawing: DrawingCheck | None = None) -> Problem:
    """The first attempt that passes every check; its fingerprint is added to ``seen``.

    ``accept`` is the caller's own last check of a draft that passed all others (the
    recipe's: every drawing of the structure legible), returning a rejection reason or
    None; a draft it refuses counts as a rejected attempt like any other. ``drawing``
    checks the draft's own drawing (its presentation and image seed) the same way:
    :func:`.legible.drawing_fault`, the legibility rules at the delivery profile, for
    every writer of new tasks.

    ``presentation`` fixes factors of the task's presentation (the style is otherwise
    drawn per problem); the difficulty rule is evaluated in that presentation.

    Aiming: a draft that lands above the target level makes the next attempts use a
    simpler template complexity, one below makes them richer (within 1–5). So a
    presentation that adds points (exam dimensioning, parametric values) still finds
    its level quickly; the accepted complexity is recorded in the provenance.
    """
    tag = selection.tag()
    style, image_seed = image_choice(seed, index, *([tag] if tag else []))
    shown = _presentation(presentation, style)
    if level < level_of(presentation_points(shown)):
        raise DatasetError(f"difficulty {level} cannot be reached in presentation "
                           f"{shown.differs_from_default()}: it alone scores "
                           f"{presentation_points(shown)} points")
    rejected: dict[str, int] = {}
    shift = 0
    for attempt in range(MAX_ATTEMPTS):
        started = time.perf_counter()
        result = draft(seed, index, category, level, attempt, selection, shift)
        reason = rejection(result.model, category, level, shown, selection, seen)
        if reason is None and accept is not None:
            assert result.model is not None
            reason = accept(result.model)
        if reason is None and drawing is not None:
            assert result.model is not None
            reason = drawing(result.model, category, shown, image_seed)
        if stats is not None:
            stats.record(result.template, reason, time.perf_counter() - started,
                         None if result.model is None else len(result.model.links))
        if reason is not None:
            rejected[reason] = rejected.get(reason, 0) + 1
            if reason in STEER:
                shift = max(-MAX_SHIFT, min(MAX_SHIFT, shift + STEER[reason]))
            continue
        assert result.model is not None
        seen.add(fingerprint(result.model))
        return _problem(seed, index, category, level, split, attempt, result, selection,
                        shown, image_seed)
    raise DatasetError(f"no acceptable {category} problem of difficulty {level} in "
                       f"{MAX_ATTEMPTS} attempts (seed {seed}, index {index}); rejections: "
                       f"{dict(sorted(rejected.items()))}")


def synthesize(count: int, seed: int, *, category: str | None = None,
               difficulty_level: int | None = None, split: str = "test",
               avoid: Iterable[str] = (), selection: Selection = STANDARD,
               presentation: Mapping[str, str] | None = None,
               stats: GenerationStats | None = None, progress: bool = False,
               drawing: DrawingCheck | None = drawing_fault,
               ) -> list[Problem]:
    """``count`` distinct problems; ``avoid`` holds fingerprints already taken elsewhere.
    Each one's drawing keeps the legibility rules at the delivery profile (``drawing``;
    None skips the check, for callers that never draw the problems)."""
    seen = set(avoid)
    jobs: Iterable[tuple[int, tuple[str, int]]] = enumerate(
        plan(count, category, difficulty_level, selection,
             least_score=least_presentation_score(presentation)))
    if progress:
        from tqdm import tqdm

        jobs = tqdm(list(jobs), desc="generating", unit="problem")
    return [generate_problem(seed, i, cat, lv, split, seen, selection=selection,
                             presentation=presentation, stats=stats, drawing=drawing)
            for i, (cat, lv) in jobs]


def regenerate(block: Mapping[str, Any]) -> Problem:
    """The problem a generated raw file's ``problem`` block describes, rebuilt from its
    provenance alone (no search: the recorded attempt is drafted directly).

    Raises DatasetError when the block is not from this generator version or the
    recorded attempt no longer passes the checks (the generator changed since).
    """
    prov = block.get("provenance")
    if not isinstance(prov, Mapping) or prov.get("generator") != GENERATOR:
        raise DatasetError(f"problem {block.get('id')!r} was not made by the generator")
    if prov.get("version") != GENERATOR_VERSION:
        raise DatasetError(f"problem {block.get('id')!r} comes from generator version "
                           f"{prov.get('version')}; this is version {GENERATOR_VERSION}")
    try:
        selection = Selection.from_provenance(prov)
        seed, index, attempt = int(prov["seed"]), int(prov["index"]), int(prov["attempt"])
        category, level = str(prov["category"]), int(prov["target_difficulty"])
        complexity = int(prov["complexity"])
        image = block["image"]
        shown = Presentation.from_json(block.get("presentation"), style=image["style"])
        split = str(block["split"])
        image_seed = int(image["seed"])
    except (KeyError, TypeError, ValueError) as exc:  # PresentationError is a ValueError
        raise DatasetError(f"problem {block.get('id')!r}: its provenance or image block is "
                           f"incomplete or malformed ({type(exc).__name__}: {exc})") from None
    if category not in CATEGORIES or level not in range(1, 6) or complexity not in range(1, 6):
        raise DatasetError(f"problem {block.get('id')!r}: provenance names category "
                           f"{category!r}, level {level}, complexity {complexity}")
    result = draft(seed, index, category, level, attempt, selection, complexity=complexity)
    reason = rejection(result.model, category, level, shown, selection, set())
    if reason is not None:
        raise DatasetError(f"problem {block.get('id')!r}: its recorded attempt {attempt} is "
                           f"now rejected ({reason})")
    return _problem(seed, index, category, level, split, attempt, result, selection, shown,
                    image_seed)
