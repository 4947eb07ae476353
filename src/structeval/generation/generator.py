"""Draw well-posed, distinct problems from the templates, reproducibly from a seed.

Problem ``index`` of a run depends only on (seed, index, category, level): its
random stream is derived from those by hashing, and attempts that fail a check
move on to the next derived stream. So the same arguments always give the same
files, and the provenance (seed, index, attempt) regenerates any single problem.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable

from ..dataset.difficulty import difficulty
from ..dataset.errors import DatasetError
from ..dataset.fingerprint import fingerprint
from ..dataset.paths import CATEGORIES, DIFFICULTIES
from ..dataset.problem import Problem, make_problem
from ..dataset.wellposed import well_posed
from ..model import ModelError, model_to_json, parse_model
from .builder import merge_idle_points, renumber
from .families import pick_family
from .load_placement import add_loads

GENERATOR = "structeval.dataset.generator"
GENERATOR_VERSION = 1
MAX_ATTEMPTS = 2000
STYLE_WEIGHTS = {"cad": 45, "textbook": 40, "scanned": 15}
def derived_rng(*parts: object) -> random.Random:
    """A random stream determined by ``parts`` on every platform and Python version."""
    text = "|".join(str(p) for p in ("structeval", *parts))
    return random.Random(int.from_bytes(hashlib.sha256(text.encode()).digest()[:16], "big"))


def plan(count: int, category: str | None = None, difficulty_level: int | None = None,
         ) -> list[tuple[str, int]]:
    """(category, level) of each problem: unset choices cycle, so any run is balanced."""
    cats = [category] if category else list(CATEGORIES)
    levels = [difficulty_level] if difficulty_level else list(DIFFICULTIES)
    combos = [(c, lv) for lv in levels for c in cats]
    return [combos[i % len(combos)] for i in range(count)]


def image_choice(*key: object) -> tuple[str, int]:
    """(style, image seed) for the problem ``key`` names: mostly clean CAD and textbook
    drawings, some scanned copies."""
    rng = derived_rng("image", *key)
    style = rng.choices(sorted(STYLE_WEIGHTS), weights=[STYLE_WEIGHTS[s]
                                                        for s in sorted(STYLE_WEIGHTS)])[0]
    return style, rng.randrange(2**31)


def problem_id(category: str, seed: int, index: int) -> str:
    return f"{category}-s{seed}-{index:04d}"


def generate_problem(seed: int, index: int, category: str, level: int, split: str,
                     seen: set[str]) -> Problem:
    """The first attempt that passes every check; its fingerprint is added to ``seen``."""
    rejected: dict[str, int] = {}
    for attempt in range(MAX_ATTEMPTS):
        rng = derived_rng("problem", seed, index, category, level, attempt)
        family, template = pick_family(category, level, rng)
        skeleton = template(rng, level)
        drafted = renumber(merge_idle_points(
            add_loads(rng, skeleton, truss=category == "truss", level=level)))
        try:
            model = parse_model(model_to_json(drafted))  # exactly what the file will hold
        except ModelError:
            rejected["invalid"] = rejected.get("invalid", 0) + 1
            continue
        if difficulty(model) != level:
            rejected["other level"] = rejected.get("other level", 0) + 1
            continue
        reason = well_posed(model, expect_bending=category != "truss")
        if reason is not None:
            key = reason.split(":")[0].split(" (")[0]
            rejected[key] = rejected.get(key, 0) + 1
            continue
        fp = fingerprint(model)
        if fp in seen:
            rejected["duplicate"] = rejected.get("duplicate", 0) + 1
            continue
        seen.add(fp)
        provenance = {"generator": GENERATOR, "version": GENERATOR_VERSION, "seed": seed,
                      "index": index, "attempt": attempt, "category": category,
                      "target_difficulty": level, "family": skeleton.family,
                      "template": family, "params": skeleton.params}
        return make_problem(problem_id(category, seed, index), category, split, model,
                            provenance, image_choice(seed, index), difficulty_level=level)
    raise DatasetError(f"no acceptable {category} problem of difficulty {level} in "
                       f"{MAX_ATTEMPTS} attempts (seed {seed}, index {index}); rejections: "
                       f"{rejected}")


def synthesize(count: int, seed: int, *, category: str | None = None,
               difficulty_level: int | None = None, split: str = "test",
               avoid: Iterable[str] = ()) -> list[Problem]:
    """``count`` distinct problems; ``avoid`` holds fingerprints already taken elsewhere."""
    seen = set(avoid)
    return [generate_problem(seed, i, cat, lv, split, seen)
            for i, (cat, lv) in enumerate(plan(count, category, difficulty_level))]
