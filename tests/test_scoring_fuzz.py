"""The scorer never crashes on what a VLM may write.

Ground truths are scored against hostile mutations of themselves (the same
mutators as the solver fuzz: deleted fields, junk values, NaN, huge numbers,
duplicates, rewiring, degenerate geometry, mechanisms, piles of loads, broken
JSON text). Every call must return a Verdict with a known stage and a ratio from
the credit table; nothing may raise or hang.
"""

from __future__ import annotations

import contextlib
import copy
import json
from collections import Counter

import numpy as np

from structeval.model import ModelError, parse_model
from structeval.scoring import CREDIT, score

from .test_fuzz import MUTATIONS, WEIGHTS, _pick, _seeds, deadline

CASES = 1200


def test_scorer_survives_hostile_candidates() -> None:
    rng = np.random.default_rng(20261130)
    grounds = []
    for doc in _seeds():
        try:
            grounds.append((doc, parse_model(doc)))
        except ModelError:
            continue
    grounds = [(doc, gt) for doc, gt in grounds if _stable(gt)][:30]
    assert len(grounds) >= 10
    p = WEIGHTS / WEIGHTS.sum()
    stages: Counter[str] = Counter()
    for _ in range(CASES):
        doc, gt = _pick(rng, grounds)
        cand = copy.deepcopy(doc)
        for _ in range(int(rng.integers(1, 3))):
            # a mutator may trip over an earlier mutation's junk: then keep the document
            with contextlib.suppress(TypeError, AttributeError, KeyError, IndexError):
                cand = MUTATIONS[int(rng.choice(len(MUTATIONS), p=p))](rng, cand)
        if rng.random() < 0.05:
            text = json.dumps(cand)
            cand = text[: int(rng.integers(len(text) + 1))]
        with deadline(20.0):
            verdict = score(gt, cand)
        assert verdict.stage in CREDIT and verdict.ratio == CREDIT[verdict.stage]
        assert verdict.message
        json.dumps(verdict.to_json(), allow_nan=False)  # the verdict is always valid JSON
        stages[verdict.stage] += 1
    # the mutations reach every stage, not just the validator
    assert {"invalid", "geometry", "supports", "loads", "perfect"} <= set(stages), stages


def _stable(gt) -> bool:  # type: ignore[no-untyped-def]
    from structeval.fe import MechanismError, analyze

    try:
        analyze(gt)
    except MechanismError:
        return False
    return True
