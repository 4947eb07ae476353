"""Scores by presentation factor: accuracy per value, paired deltas, robustness.

A task shows one structure in one presentation (``structeval.presentation``), and
tasks of one structure share its ground truth. So a difference between the
tasks of one structure is a difference in *reading*, with the physics held
constant, and the honest unit of comparison is the structure. Definitions
(results.json ``summary``; the README's "Reading the factor table" repeats them):

* ``by_factor[f][v]``: the accuracy row of ``by_category`` (tasks, unavailable,
  score, max_score, accuracy, pass_at_1_accuracy, avg_ratio) over the tasks whose
  factor ``f`` has value ``v``, for every factor with at least two values in the
  run, plus ``modality`` whenever the run records one.
* ``presentation_deltas[f]``: for each pair of values v after w (in the order of
  ``FACTORS``, so the default is the reference: ``zh − en``), over the structures
  with tasks at both values, per structure d = (mean credit of its tasks at v) −
  (mean credit of its tasks at w), and the delta is the difficulty-weighted mean
  of d over those structures, in percentage points (the same weighting as the
  headline accuracy), with a paired bootstrap 95 % CI resampling structures.
  Given for pass@1 (the headline: repair feedback would blur a reading
  difference) and after repair. A *controlled pair* is two tasks of one
  structure that differ in ``f`` only; the controlled delta is the same mean
  over the structures that have such pairs, d being the mean over its pairs.
* ``presentation_robustness``: of the structures shown in at least two
  presentations, the share whose stage is the same in every presentation
  (pass@1 stage, and after repair); with ``--runs K`` each run is judged on its
  own and the share is over (structure, run) pairs.

With ``--runs K`` a task's credit is its mean over the runs (as in
``statistics.runs``). Deltas and robustness use only tasks scored in every run:
an outage says nothing about reading, and a 0 for it would fake a presentation
effect; ``by_factor`` counts them 0 like every accuracy.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..presentation import FACTORS
from .groups import group_row
from .resampling import paired_bootstrap_ci
from .runs import TaskOutcome, TaskScores, per_task

MODALITY = "modality"
MODALITIES = ("image", "dxf")
DEFAULT_MODALITY = "image"  # what a run that records no modality was shown
IMAGE_MODE = "image_mode"
DEFAULT_IMAGE_MODE = "fit"  # how a run that records no image mode was shown its image
#: every analysed factor with its values in display order (the default first)
FACTOR_VALUES: dict[str, tuple[str, ...]] = {**FACTORS, MODALITY: MODALITIES}
MINUS = "\u2212"


def recorded_modality(manifest: Any) -> str | None:
    """The modality a run.json records (``grading.modality``, else a top-level
    ``modality``, else the last session's), or None when it records none.

    Read defensively: run.json is a file people edit, and runs made before
    ``--modality`` existed have no such field at all."""
    return recorded_setting(manifest, MODALITY)


def recorded_image_mode(manifest: Any) -> str | None:
    """The ``--image-mode`` a run.json records (found as the modality is), or None: runs made
    before image modes were shown each image whole, as ``fit`` does."""
    return recorded_setting(manifest, IMAGE_MODE)


def recorded_setting(manifest: Any, key: str) -> str | None:
    """A text setting of run.json: ``grading.<key>``, else top-level, else the last
    session's; None when absent or not a non-empty text."""
    if not isinstance(manifest, Mapping):
        return None
    grading = manifest.get("grading")
    sessions = manifest.get("sessions")
    last = sessions[-1] if isinstance(sessions, list) and sessions else None
    for source in (grading, manifest, last):
        value = source.get(key) if isinstance(source, Mapping) else None
        if isinstance(value, str) and value:
            return value
    return None


def task_factors(row: TaskOutcome | TaskScores, modality: str | None = None) -> dict[str, str]:
    """The analysed factors of a task: the presentation factors it records (none for
    results written before presentations existed) and the run's modality, if recorded."""
    shown = row.presentation or {}
    out = {f: shown[f] for f in FACTORS if isinstance(shown.get(f), str)}
    if modality:
        out[MODALITY] = modality
    return out


def value_order(factor: str, values: Iterable[str]) -> list[str]:
    """Known values in their defined order, unknown ones (a newer dataset) after, sorted."""
    known = FACTOR_VALUES.get(factor, ())
    return sorted(set(values), key=lambda v: (known.index(v) if v in known else len(known), v))


# --------------------------------------------------------------------------- by_factor


def by_factor(rows: Sequence[TaskOutcome], modality: str | None = None,
              ) -> dict[str, dict[str, dict[str, Any]]]:
    """``summary.by_factor``: factor → value → accuracy row (see the module docstring)."""
    groups: dict[str, dict[str, list[TaskOutcome]]] = {}
    for r in rows:
        for factor, value in task_factors(r, modality).items():
            groups.setdefault(factor, {}).setdefault(value, []).append(r)
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for factor in FACTOR_VALUES:
        values = groups.get(factor, {})
        if len(values) >= 2 or (factor == MODALITY and values):
            out[factor] = {v: group_row(values[v]) for v in value_order(factor, values)}
    return out


# --------------------------------------------------------------------------- deltas


@dataclass(frozen=True)
class _Shown:
    """A task usable for deltas, with its factors."""

    task: TaskScores
    factors: dict[str, str]


def _mean(values: Iterable[float]) -> float:
    items = list(values)
    return sum(items) / len(items)


def _structures(tasks: Sequence[TaskScores], modality: str | None) -> dict[str, list[_Shown]]:
    """Structure → its tasks scored in every run (structures in first-appearance order,
    so the bootstrap sees the same sequence for the same results)."""
    out: dict[str, list[_Shown]] = {}
    for t in tasks:
        if t.scored_in_every_run:
            out.setdefault(t.structure or t.id, []).append(_Shown(t, task_factors(t, modality)))
    return out


def _controlled(x: _Shown, y: _Shown, factor: str) -> bool:
    """Whether two tasks differ in ``factor`` only (every other factor known and equal)."""
    keys = (set(x.factors) | set(y.factors)) - {factor}
    return all(x.factors.get(k) is not None and x.factors.get(k) == y.factors.get(k)
               for k in keys)


def _interval(a: Sequence[float], b: Sequence[float], weights: Sequence[float],
              ) -> dict[str, Any]:
    return paired_bootstrap_ci(a, b, weights).scaled(100.0).to_json()


@dataclass
class _Sides:
    """Per structure: mean credit at v and at w (pass@1 and after repair) and a weight."""

    first_v: list[float]
    first_w: list[float]
    final_v: list[float]
    final_w: list[float]
    weights: list[float]

    @classmethod
    def empty(cls) -> _Sides:
        return cls([], [], [], [], [])

    def add(self, at_v: Sequence[TaskScores], at_w: Sequence[TaskScores]) -> None:
        self.first_v.append(_mean(t.first_ratio for t in at_v))
        self.first_w.append(_mean(t.first_ratio for t in at_w))
        self.final_v.append(_mean(t.ratio for t in at_v))
        self.final_w.append(_mean(t.ratio for t in at_w))
        self.weights.append(_mean(t.difficulty for t in (*at_v, *at_w)))

    def intervals(self) -> dict[str, Any]:
        return {"pass_at_1": _interval(self.first_v, self.first_w, self.weights),
                "after_repair": _interval(self.final_v, self.final_w, self.weights)}


def _delta(factor: str, value: str, reference: str,
           structures: Mapping[str, list[_Shown]]) -> dict[str, Any] | None:
    sides, controlled = _Sides.empty(), _Sides.empty()
    counts = {value: 0, reference: 0}
    pairs = 0
    for shown in structures.values():
        at_v = [s for s in shown if s.factors.get(factor) == value]
        at_w = [s for s in shown if s.factors.get(factor) == reference]
        if not at_v or not at_w:
            continue
        sides.add([s.task for s in at_v], [s.task for s in at_w])
        counts[value] += len(at_v)
        counts[reference] += len(at_w)
        matched = [(x, y) for x in at_v for y in at_w if _controlled(x, y, factor)]
        if matched:
            pairs += len(matched)
            controlled.add([x.task for x, _ in matched], [y.task for _, y in matched])
    if not sides.weights:
        return None
    return {"value": value, "reference": reference, "label": f"{value} {MINUS} {reference}",
            "structures": len(sides.weights), "tasks": counts, "controlled_pairs": pairs,
            **sides.intervals(),
            "controlled": ({"structures": len(controlled.weights), "pairs": pairs,
                            **controlled.intervals()} if pairs else None)}


def presentation_deltas(tasks: Sequence[TaskScores], modality: str | None = None,
                        ) -> dict[str, list[dict[str, Any]]]:
    """``summary.presentation_deltas``: factor → one entry per value pair that some
    structure was answered at (see the module docstring)."""
    structures = _structures(tasks, modality)
    out: dict[str, list[dict[str, Any]]] = {}
    for factor in FACTOR_VALUES:
        values = value_order(factor, (s.factors[factor] for shown in structures.values()
                                      for s in shown if factor in s.factors))
        for j, reference in enumerate(values):
            for value in values[j + 1:]:
                entry = _delta(factor, value, reference, structures)
                if entry is not None:
                    out.setdefault(factor, []).append(entry)
    return out


# --------------------------------------------------------------------------- robustness


def _agreement(groups: Sequence[list[_Shown]], runs: int, first: bool) -> dict[str, Any]:
    robust = 0
    for shown in groups:
        for k in range(runs):
            stages = {(s.task.first_stages if first else s.task.stages)[k] for s in shown}
            robust += len(stages) == 1
    compared = len(groups) * runs
    return {"share": round(robust / compared, 6) if compared else None, "robust": robust,
            "compared": compared, "structures": len(groups), "runs": runs}


def presentation_robustness(tasks: Sequence[TaskScores], modality: str | None = None,
                            ) -> dict[str, dict[str, Any]]:
    """``summary.presentation_robustness``: share of multi-presentation structures whose
    stage is the same in every presentation, at pass@1 and after repair."""
    structures = _structures(tasks, modality)
    groups = [shown for shown in structures.values()
              if len({tuple(sorted(s.factors.items())) for s in shown}) >= 2]
    runs = min((len(t.stages) for t in tasks), default=0)  # every task has every run
    return {"pass_at_1": _agreement(groups, runs, True),
            "after_repair": _agreement(groups, runs, False)}


def factor_summary(rows: Sequence[TaskOutcome], modality: str | None = None,
                   ) -> dict[str, Any]:
    """The three factor entries of results.json's summary, from the rows of a run."""
    rows = list(rows)
    tasks = per_task(rows)
    return {"by_factor": by_factor(rows, modality),
            "presentation_deltas": presentation_deltas(tasks, modality),
            "presentation_robustness": presentation_robustness(tasks, modality)}
