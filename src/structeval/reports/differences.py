"""What to colour when the model's structure is drawn beside the truth.

Nothing is matched by id (a model may name, order and split things as it
likes): the candidate is laid over the ground truth with the scorer's own
alignment (:mod:`structeval.scoring.align`), and the scorer's locators
(:mod:`structeval.scoring.locate`) supply both the notes and the raw
comparisons. This module only turns those comparisons into highlight colours
for :func:`structeval.render.render_model`, one map per figure.

Colours (Okabe–Ito, distinguishable with the common colour-vision deficiencies):
*missing* — in the drawing, not in the model (marked on the ground truth);
*extra* — in the model, not in the drawing (marked on the reconstruction);
*differs* — present in both but not the same (marked on both).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

import numpy as np

from ..model.types import Model
from ..scoring.align import Alignment, align
from ..scoring.canonical import same_restraint
from ..scoring.locate import (
    geometry_problems,
    joint_groups,
    load_buckets,
    load_problems,
    release_problems,
    support_problems,
)

MISSING, EXTRA, DIFFERS = "#d55e00", "#0072b2", "#cc79a7"
LEGEND = (("missing", MISSING, "in the drawing, missing from the model"),
          ("extra", EXTRA, "in the model, not in the drawing"),
          ("differs", DIFFERS, "in both, but not the same"))


@dataclass
class Differences:
    """Highlight maps for the two figures and the scorer's notes, by kind."""

    gt_marks: dict[str, str] = field(default_factory=dict)
    cand_marks: dict[str, str] = field(default_factory=dict)
    notes: dict[str, list[str]] = field(default_factory=dict)  # members/supports/hinges/loads

    @property
    def any(self) -> bool:
        return any(self.notes.values())


def _mark(marks: dict[str, str], keys: Iterable[str], colour: str) -> None:
    for key in keys:
        marks.setdefault(key, colour)


def _members(gt: Model, cand: Model, al: Alignment, out: Differences) -> None:
    _mark(out.gt_marks, (f"link:{gt.links[i].id}" for i in al.missing_links), MISSING)
    _mark(out.cand_marks, (f"link:{cand.links[j].id}" for j in al.extra_links), EXTRA)
    out.notes["members"] = geometry_problems(gt, cand, al)


def _supports(gt: Model, cand: Model, al: Alignment, out: Differences) -> None:
    for i, s in enumerate(gt.supports):
        j = int(al.support_map[i])
        if j < 0:
            _mark(out.gt_marks, [f"support:{s.id}"], MISSING)
        elif not same_restraint(s, cand.supports[j]):
            _mark(out.gt_marks, [f"support:{s.id}"], DIFFERS)
            _mark(out.cand_marks, [f"support:{cand.supports[j].id}"], DIFFERS)
    _mark(out.cand_marks, (f"support:{cand.supports[j].id}" for j in al.extra_supports), EXTRA)
    out.notes["supports"] = support_problems(gt, cand, al)


def _places(model: Model, offset: np.ndarray, tol: float) -> dict[str, tuple[int, int]]:
    """Point id → the rounded place key the joint comparison uses."""
    return {p.id: (round((p.x + float(offset[0])) / tol), round((p.y + float(offset[1])) / tol))
            for p in model.points}


def _joint_keys(model: Model, place_of: dict[str, tuple[int, int]],
                places: set[tuple[int, int]]) -> list[str]:
    """Highlight keys of the hinges and joint letters at the given places."""
    keys: list[str] = []
    for lk in model.links:
        for end, pid, hinged in (("A", lk.a, lk.hinge_a), ("B", lk.b, lk.hinge_b)):
            if place_of[pid] in places:
                keys += [f"hinge:{pid}", f"point:{pid}"]
                if hinged:
                    keys.append(f"hinge:{lk.id}:{end}")
    return list(dict.fromkeys(keys))


def _hinges(gt: Model, cand: Model, al: Alignment, out: Differences) -> None:
    offset = np.asarray(al.offset, dtype=float)
    all_xy = np.vstack([al.gt.xy, al.cand.xy])
    g = joint_groups(gt, all_xy, np.zeros(2), al.tol)
    c = joint_groups(cand, all_xy, offset, al.tol)
    differing = {k for k in set(g) & set(c) if g[k] != c[k]}
    _mark(out.gt_marks, _joint_keys(gt, _places(gt, np.zeros(2), al.tol), differing), DIFFERS)
    _mark(out.cand_marks, _joint_keys(cand, _places(cand, offset, al.tol), differing), DIFFERS)
    out.notes["hinges"] = release_problems(gt, cand, al)


def _single_load_buckets(model: Model, al: Alignment, offset: np.ndarray) -> list[np.ndarray]:
    """Where each load acts, as the scorer's per-point/per-member resultants of it alone."""
    return [load_buckets(replace(model, loads=(ld,)), al, offset) for ld in model.loads]


def _same(a: np.ndarray, b: np.ndarray, tolerance: float) -> bool:
    scale = max(float(np.abs(a).max()), float(np.abs(b).max()), 1e-12)
    return bool(np.allclose(a, b, rtol=tolerance, atol=tolerance * scale))


def _loads(gt: Model, cand: Model, al: Alignment, tolerance: float, out: Differences) -> None:
    """Pair loads one to one by their resultants; unpaired ones at the same places as an
    unpaired load of the other side differ, the rest are missing or extra. Loads are only
    marked when the scorer finds the totals wrong somewhere (two half loads for one are
    the same physics and stay unmarked)."""
    notes = load_problems(gt, cand, al, tolerance)
    out.notes["loads"] = notes
    if not notes:
        return
    gb = _single_load_buckets(gt, al, np.zeros(2))
    cb = _single_load_buckets(cand, al, np.asarray(al.offset, dtype=float))
    free = list(range(len(cb)))
    lone_gt = []
    for i, b in enumerate(gb):
        match = next((j for j in free if _same(b, cb[j], tolerance)), None)
        if match is None:
            lone_gt.append(i)
        else:
            free.remove(match)

    def rows(b: np.ndarray) -> frozenset[int]:
        return frozenset(np.flatnonzero(np.abs(b).sum(axis=1) > 0).tolist())

    cand_rows = {j: rows(cb[j]) for j in free}
    gt_rows = {i: rows(gb[i]) for i in lone_gt}
    for i in lone_gt:
        twins = [j for j in free if cand_rows[j] & gt_rows[i]]
        _mark(out.gt_marks, [f"load:{gt.loads[i].id}"], DIFFERS if twins else MISSING)
        _mark(out.cand_marks, (f"load:{cand.loads[j].id}" for j in twins), DIFFERS)
    _mark(out.cand_marks, (f"load:{cand.loads[j].id}" for j in free), EXTRA)


def find_differences(gt: Model, cand: Model, tolerance: float) -> Differences:
    """Highlights and notes for the ground truth and a parsed candidate."""
    al = align(gt, cand)
    out = Differences()
    _members(gt, cand, al, out)
    _supports(gt, cand, al, out)
    _hinges(gt, cand, al, out)
    _loads(gt, cand, al, tolerance, out)
    return out
