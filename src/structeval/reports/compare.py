"""Is model A better than model B on the same tasks? Paired differences, overall and by group.

Two runs are only comparable task by task: a difference measured on different
task sets mixes "which model" with "which tasks". So the comparison refuses
mismatched sets unless the caller explicitly asks for the intersection, and
it says which tasks were dropped.

``--by-factor`` adds the same paired comparison per presentation factor value
(the tasks both runs have that show, e.g., ``language=zh``). Two runs of one
model on the same tasks that differ only in modality (one shown the image,
one the DXF file) measure what perceiving the drawing costs: the comparison is
then labelled the *perception gap*, dxf − image. Two image runs that differ in
``--image-mode`` (fit, tiles) show the same images, so their fingerprints are
compared and A − B is labelled as what the image mode changes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..statistics.factors import (
    DEFAULT_IMAGE_MODE,
    DEFAULT_MODALITY,
    FACTOR_VALUES,
    MINUS,
    MODALITY,
    value_order,
)
from ..statistics.resampling import (
    Interval,
    WilcoxonResult,
    paired_bootstrap_ci,
    weighted_mean,
    wilcoxon_signed_rank,
)
from ..statistics.runs import TaskScores, per_task
from .runfiles import ResultsError, RunResults, trace_fingerprints

_SHOWN_IDS = 8


class TaskSetMismatch(ResultsError):
    """The two runs were not made on the same tasks."""


@dataclass(frozen=True)
class GroupComparison:
    name: str
    tasks: int
    a_accuracy: float  # weighted accuracy, percent
    b_accuracy: float
    difference: Interval  # A − B, percentage points
    wilcoxon: WilcoxonResult  # on per-task score differences (difficulty × ratio)
    a_better: int  # tasks where A scored more
    ties: int
    b_better: int

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "tasks": self.tasks, "a_accuracy": self.a_accuracy,
                "b_accuracy": self.b_accuracy, "difference": self.difference.to_json(),
                "wilcoxon": self.wilcoxon.to_json(), "a_better": self.a_better,
                "ties": self.ties, "b_better": self.b_better}


PERCEPTION_GAP = f"dxf {MINUS} image"


@dataclass(frozen=True)
class Modalities:
    """What each run was shown (run.json; not recorded = image) and, for an image run
    against a DXF run, which way round A − B reads as the perception gap."""

    a: str
    b: str

    @property
    def differ(self) -> bool:
        return self.a != self.b

    @property
    def gap_sign(self) -> int:
        """+1 when A − B is dxf − image, −1 when B − A is, 0 when it is no such pair."""
        return {("dxf", "image"): 1, ("image", "dxf"): -1}.get((self.a, self.b), 0)

    def gap(self, g: GroupComparison) -> Interval:
        """dxf − image for a group (the A − B interval, turned round when A is the image run)."""
        d = g.difference
        if self.gap_sign > 0:
            return d
        return Interval(-d.estimate + 0.0, -d.high + 0.0, -d.low + 0.0, d.level, d.resamples,
                        d.seed, d.n)

    def to_json(self, overall: GroupComparison,
                groups: dict[str, list[GroupComparison]] | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {"a": self.a, "b": self.b, "differ": self.differ}
        if self.gap_sign:
            out["perception_gap"] = {"label": PERCEPTION_GAP,
                                     "equals": "A - B" if self.gap_sign > 0 else "B - A",
                                     "overall": self.gap(overall).to_json()}
            for key, rows in (groups or {}).items():
                out["perception_gap"][key] = {g.name: self.gap(g).to_json() for g in rows}
        return out


@dataclass(frozen=True)
class Comparison:
    a: RunResults
    b: RunResults
    overall: GroupComparison
    by_category: list[GroupComparison]
    by_difficulty: list[GroupComparison]
    only_a: list[str]  # tasks dropped because only A has them (intersection mode)
    only_b: list[str]
    modalities: Modalities
    by_factor: dict[str, list[GroupComparison]] | None = None  # None: not asked for

    def to_json(self) -> dict[str, Any]:
        out = {"a": {"path": str(self.a.results_path), "model": self.a.label,
                     "runs": len(self.a.runs), "modality": self.modalities.a,
                     "image_mode": image_mode(self.a)},
               "b": {"path": str(self.b.results_path), "model": self.b.label,
                     "runs": len(self.b.runs), "modality": self.modalities.b,
                     "image_mode": image_mode(self.b)},
               "modality": self.modalities.to_json(self.overall, {
                   "by_category": self.by_category, "by_difficulty": self.by_difficulty}),
               "overall": self.overall.to_json(),
               "by_category": [g.to_json() for g in self.by_category],
               "by_difficulty": [g.to_json() for g in self.by_difficulty],
               "only_a": self.only_a, "only_b": self.only_b}
        if self.by_factor is not None:
            out["by_factor"] = {f: [g.to_json() for g in groups]
                                for f, groups in self.by_factor.items()}
        return out


def image_mode(run: RunResults) -> str:
    """How the run was shown its images (run.json; not recorded = fit)."""
    return run.info.image_mode or DEFAULT_IMAGE_MODE


def _image_mode_lines(c: Comparison) -> list[str]:
    """Two runs of the same images in two image modes: A − B is what the mode changes."""
    a, b = image_mode(c.a), image_mode(c.b)
    if a == b or c.modalities.differ:
        return []
    return [f"Image mode: A {a}, B {b}: A − B is what showing the images as {a} rather than "
            f"{b} changes (the same images, so the task fingerprints were compared)"]


def _listing(ids: list[str]) -> str:
    shown = ", ".join(ids[:_SHOWN_IDS])
    return shown + (f", … ({len(ids)} in all)" if len(ids) > _SHOWN_IDS else "")


def _shown_differently(x: TaskScores, y: TaskScores) -> bool:
    """Another structure or presentation under the same id (results that record them)."""
    if not x.presentation or not y.presentation:
        return False  # results older than presentations say nothing either way
    return (x.structure, dict(x.presentation)) != (y.structure, dict(y.presentation))


def _paired_tasks(a: RunResults, b: RunResults, intersection: bool, same_inputs: bool,
                  ) -> tuple[list[tuple[TaskScores, TaskScores]], list[str], list[str]]:
    """The tasks both runs answered, paired; ``same_inputs`` is False when the runs were
    shown different modalities, whose fingerprints (of the input sent) differ by design."""
    ta = {t.id: t for t in per_task(a.rows)}
    tb = {t.id: t for t in per_task(b.rows)}
    only_a = [i for i in ta if i not in tb]
    only_b = [i for i in tb if i not in ta]
    if (only_a or only_b) and not intersection:
        lines = [f"the runs were made on different task sets ({len(ta)} tasks in A, "
                 f"{len(tb)} in B); refusing to compare them"]
        if only_a:
            lines.append(f"only in A ({a.results_path}): {_listing(only_a)}")
        if only_b:
            lines.append(f"only in B ({b.results_path}): {_listing(only_b)}")
        lines.append("pass --intersection to compare on the tasks both runs share")
        raise TaskSetMismatch("\n  ".join(lines))
    fa, fb = (trace_fingerprints(a), trace_fingerprints(b)) if same_inputs else ({}, {})
    changed = [i for i in ta if i in tb
               and ((ta[i].difficulty, ta[i].category) != (tb[i].difficulty, tb[i].category)
                    or _shown_differently(ta[i], tb[i])
                    or (i in fa and i in fb and fa[i] != fb[i]))]
    if changed:
        raise TaskSetMismatch(
            "the same task ids were asked differently in the two runs (another category, "
            "difficulty, structure, presentation, ground truth, image or notes: the dataset "
            f"changed between them): {_listing(changed)}; such runs cannot be compared")
    pairs = [(ta[i], tb[i]) for i in ta if i in tb]
    if not pairs:
        raise TaskSetMismatch("the runs share no task: nothing to compare")
    return pairs, only_a, only_b


def _group(name: str, pairs: list[tuple[TaskScores, TaskScores]]) -> GroupComparison:
    weights = [x.difficulty for x, _ in pairs]
    ra = [x.ratio for x, _ in pairs]
    rb = [y.ratio for _, y in pairs]
    diff = paired_bootstrap_ci(ra, rb, weights).scaled(100.0)
    scores = [w * (p - q) for w, p, q in zip(weights, ra, rb, strict=True)]
    test = wilcoxon_signed_rank(scores)
    rounded = [round(s, 9) for s in scores]
    return GroupComparison(name, len(pairs), round(100.0 * weighted_mean(ra, weights), 4),
                           round(100.0 * weighted_mean(rb, weights), 4), diff, test,
                           sum(s > 0 for s in rounded), sum(s == 0 for s in rounded),
                           sum(s < 0 for s in rounded))


def _groups(pairs: list[tuple[TaskScores, TaskScores]], key: Callable[[TaskScores], Any],
            label: Callable[[Any], str]) -> list[GroupComparison]:
    grouped: dict[Any, list[tuple[TaskScores, TaskScores]]] = {}
    for pair in pairs:
        grouped.setdefault(key(pair[0]), []).append(pair)
    return [_group(label(k), grouped[k]) for k in sorted(grouped)]


def _factor_groups(pairs: list[tuple[TaskScores, TaskScores]],
                   ) -> dict[str, list[GroupComparison]]:
    """Factor → one comparison per value, for every factor with two or more values on the
    shared tasks (a factor with one value would only repeat the overall row)."""
    out: dict[str, list[GroupComparison]] = {}
    for factor in FACTOR_VALUES:
        if factor == MODALITY:
            continue  # a run has one modality: it is what A and B differ in, not a group
        grouped: dict[str, list[tuple[TaskScores, TaskScores]]] = {}
        for x, y in pairs:
            value = (x.presentation or y.presentation).get(factor)
            if isinstance(value, str):
                grouped.setdefault(value, []).append((x, y))
        if len(grouped) >= 2:
            out[factor] = [_group(f"{factor}={v}", grouped[v])
                           for v in value_order(factor, grouped)]
    return out


def compare_runs(a: RunResults, b: RunResults, *, intersection: bool = False,
                 by_factor: bool = False) -> Comparison:
    """Paired comparison of two runs; raises TaskSetMismatch when the task sets differ
    (unless ``intersection``) or disagree about a task. ``by_factor`` adds the
    comparison per presentation factor value."""
    modalities = Modalities(a.info.modality or DEFAULT_MODALITY,
                            b.info.modality or DEFAULT_MODALITY)
    pairs, only_a, only_b = _paired_tasks(a, b, intersection, not modalities.differ)
    return Comparison(a, b, _group("OVERALL", pairs),
                      _groups(pairs, lambda t: t.category, str),
                      _groups(pairs, lambda t: t.difficulty, lambda d: f"difficulty {d}"),
                      only_a, only_b, modalities,
                      _factor_groups(pairs) if by_factor else None)


def _p(p: float) -> str:
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


def _row(g: GroupComparison, width: int) -> str:
    ci = f"[{g.difference.low:+.2f}, {g.difference.high:+.2f}]"
    return (f"{g.name:<{width}}{g.tasks:>6}{g.a_accuracy:>8.2f}%{g.b_accuracy:>8.2f}%"
            f"{g.difference.estimate:>+9.2f}{ci:>20}{_p(g.wilcoxon.p_value):>12}"
            f"{f'{g.a_better}/{g.ties}/{g.b_better}':>14}")


def _modality_lines(c: Comparison) -> list[str]:
    m = c.modalities
    if not m.differ:
        return []
    if not m.gap_sign:
        return [f"Modality: A was shown {m.a}, B {m.b}; the task fingerprints were not "
                "compared (the inputs differ by design)"]
    way = "A − B" if m.gap_sign > 0 else "B − A, the negative of every A − B below"
    gap = m.gap(c.overall)
    return [f"Modality: A {m.a}, B {m.b}: this is the perception gap ({PERCEPTION_GAP}) = {way} "
            "(task fingerprints not compared: the inputs differ by design)",
            f"Perception gap ({PERCEPTION_GAP}), overall: {gap.estimate:+.2f} points "
            f"(95% CI {gap.low:+.2f} to {gap.high:+.2f}; Wilcoxon p "
            f"{_p(c.overall.wilcoxon.p_value)})",
            "Perception gap by category: " + ", ".join(
                f"{g.name} {m.gap(g).estimate:+.2f}" for g in c.by_category)
            + "; by difficulty: " + ", ".join(
                f"{g.name.removeprefix('difficulty ')} {m.gap(g).estimate:+.2f}"
                for g in c.by_difficulty)]


def format_comparison(c: Comparison) -> str:
    """The plain-text table tools/compare.py prints."""
    def runs(r: RunResults) -> str:
        k = len(r.runs)
        return f"{k} runs" if k > 1 else "1 run"

    m = c.modalities
    lines = [f"A: {c.a.label} ({runs(c.a)}, {c.a.info.shown or m.a})  {c.a.results_path}",
             f"B: {c.b.label} ({runs(c.b)}, {c.b.info.shown or m.b})  {c.b.results_path}"]
    if c.only_a or c.only_b:
        lines.append(f"Intersection: {c.overall.tasks} shared task(s); dropped {len(c.only_a)} "
                     f"only in A, {len(c.only_b)} only in B")
    lines += _modality_lines(c) + _image_mode_lines(c)
    groups = [c.overall, *c.by_category, *c.by_difficulty]
    factor_rows = [g for gs in (c.by_factor or {}).values() for g in gs]
    width = max([14] + [len(g.name) + 2 for g in groups + factor_rows])
    head = (f"{'Group':<{width}}{'Tasks':>6}{'A acc':>9}{'B acc':>9}{'A−B':>9}"
            f"{'95% CI':>20}{'Wilcoxon p':>12}{'A>B/=/B>A':>14}")
    lines += ["", head, "-" * len(head)]
    lines += [_row(g, width) for g in groups]
    if c.by_factor is not None:
        lines += ["", "By presentation factor value (tasks both runs have):"]
        lines += [_row(g, width) for g in factor_rows] or [
            "  no presentation factor takes two values on the shared tasks (the results "
            "record no presentation, or every task is shown the same way)"]
    o = c.overall
    lines += ["", "Accuracies are difficulty-weighted (%); A−B in percentage points with a paired "
              f"task bootstrap ({o.difference.resamples} resamples, seed {o.difference.seed}); "
              "Wilcoxon signed-rank (two-sided) on per-task score differences "
              f"({o.wilcoxon.method} for the overall row). Tasks answered in several runs "
              "count with their mean ratio."]
    return "\n".join(lines)
