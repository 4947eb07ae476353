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
from dataclasses import dataclass
from typing import Any

from ..model import ModelError, model_to_json, parse_model
from ..model.types import Model
from .builder import merge_idle_points, renumber
from .difficulty import difficulty
from .errors import DatasetError
from .families import pick_family
from .fingerprint import fingerprint
from .loading import add_loads
from .notes import task_notes
from .paths import CATEGORIES, DIFFICULTIES
from .wellposed import well_posed

GENERATOR = "structeval.dataset.generator"
GENERATOR_VERSION = 1
MAX_ATTEMPTS = 2000
STYLE_WEIGHTS = {"cad": 45, "textbook": 40, "scanned": 15}
#: scanned copies are noisy photos of paper: JPEG keeps them ~50 KB where PNG takes ~120 KB
IMAGE_TYPES = {"cad": "png", "textbook": "png", "scanned": "jpg"}


@dataclass(frozen=True)
class Problem:
    """A generated or hand-authored problem, ready to be written as a raw file."""

    block: dict[str, Any]
    model: Model

    @property
    def id(self) -> str:
        return str(self.block["id"])


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


def make_problem(pid: str, category: str, split: str, model: Model,
                 provenance: dict[str, Any] | str, image: tuple[str, int], *,
                 difficulty_level: int | None = None, title: str | None = None) -> Problem:
    """The problem block every raw file carries (see :mod:`rawfile`)."""
    block: dict[str, Any] = {"id": pid, "category": category}
    if title:
        block["title"] = title
    if difficulty_level is not None:
        block["difficulty"] = difficulty_level
    block.update(split=split, notes=task_notes(model, category),
                 image={"file": f"{pid}.{IMAGE_TYPES[image[0]]}", "style": image[0],
                        "seed": image[1]},
                 provenance=provenance)
    return Problem(block, model)


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
