"""``run_eval.py --debug``: prove every task is gradable before paying for a model run.

For each task: the image opens, the ground-truth model solves and is not a
near-mechanism (its answer would be round-off), the fresh solution equals the
stored one (so the GT on disk is what the solver says today), and the scorer
gives the ground truth against itself full credit (so a perfect answer can
actually score 1.0).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from ..fe import analyze
from ..model import model_to_json
from ..model.errors import StructEvalError
from ..model.types import Model
from .ground_truth import solution_summary
from .loader import Task
from .paths import CATEGORIES
from .wellposed import near_mechanism

REL_TOL = 1e-9  # of the problem's largest value of the kind; stored values carry 12 digits


@dataclass(frozen=True)
class TaskCheck:
    id: str
    category: str
    difficulty: int
    reasons: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return not self.reasons


@dataclass
class DebugReport:
    checks: list[TaskCheck] = field(default_factory=list)
    scorer: str = "available"  # or "unavailable: <why>"
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(c.passed for c in self.checks)

    @property
    def failures(self) -> list[tuple[str, str]]:
        return [(c.id, "; ".join(c.reasons)) for c in self.checks if not c.passed]

    def table(self) -> str:
        rows = [("category", "tasks", "passed", "%")]
        groups = [c for c in CATEGORIES if any(k.category == c for k in self.checks)]
        groups += sorted({k.category for k in self.checks} - set(groups))
        for name in [*groups, "OVERALL"]:
            subset = [k for k in self.checks if name in ("OVERALL", k.category)]
            passed = sum(k.passed for k in subset)
            share = 100.0 * passed / len(subset) if subset else 0.0
            rows.append((name, str(len(subset)), str(passed), f"{share:.1f}"))
        lines = [f"{a:<10} {b:>6} {c:>7} {d:>6}" for a, b, c, d in rows]
        lines.insert(1, "-" * len(lines[0]))
        lines.insert(len(lines) - 1, "-" * len(lines[0]))
        lines.append(f"scorer: {self.scorer}; {self.seconds:.1f} s")
        return "\n".join(lines)


Scorer = Callable[[Model, Any], Any]


def _load_scorer() -> tuple[Scorer | None, str]:
    try:
        from ..scoring import score  # type: ignore[attr-defined]
    except Exception as exc:  # any import failure means "not usable", never a crash
        return None, f"unavailable: {type(exc).__name__}: {exc}"
    return score, "available"


def _close(a: Any, b: Any, scale: float) -> bool:
    return (isinstance(a, (int, float)) and isinstance(b, (int, float))
            and abs(a - b) <= REL_TOL * (scale + abs(b)))


def compare_solutions(stored: Any, fresh: dict[str, Any]) -> list[str]:
    """Where the stored solution differs from a fresh one (empty when they agree)."""
    if not isinstance(stored, dict):
        return ["stored solution is not an object"]
    out = []
    old_r, new_r = stored.get("reactions"), fresh["reactions"]
    keys = [(r.get("atId"), r.get("type")) if isinstance(r, dict) else None
            for r in old_r] if isinstance(old_r, list) else None
    if keys != [(r["atId"], r["type"]) for r in new_r]:
        out.append("reactions list differs in supports or components")
    else:
        r_scale = max((abs(r["value"]) for r in new_r), default=0.0)
        for old, new in zip(old_r, new_r, strict=True):
            if not _close(old.get("value"), new["value"], r_scale):
                out.append(f"reaction {new['atId']}.{new['type']}: stored {old.get('value')}, "
                           f"solver {new['value']}")
    m_scale = float(fresh["max_abs_moment"])
    if not _close(stored.get("max_abs_moment"), fresh["max_abs_moment"], m_scale):
        out.append(f"max |M|: stored {stored.get('max_abs_moment')}, solver "
                   f"{fresh['max_abs_moment']}")
    old_s, new_s = stored.get("moment_stations"), fresh["moment_stations"]
    if not isinstance(old_s, dict) or list(old_s) != list(new_s):
        out.append("moment stations cover other links")
    else:
        for lid, values in new_s.items():
            row = old_s[lid]
            if not isinstance(row, list) or len(row) != len(values) or not all(
                    _close(a, b, m_scale) for a, b in zip(row, values, strict=True)):
                out.append(f"moment stations of link {lid} differ")
    return out


def _check_image(task: Task) -> list[str]:
    try:
        with Image.open(task.image_path) as img:
            img.verify()
    except Exception as exc:  # a broken file must be reported, whatever PIL raises
        return [f"image {task.image_path.name} does not open: {type(exc).__name__}: {exc}"]
    return []


def _check_sheet(task: Task, scorer: Scorer | None) -> list[str]:
    """A sheet task's other frames: each solves to the solution its ground truth records,
    and none is the target under another name (the scorer gives the target less than 1.0
    against it) — else the statement would not say which frame to model, and a
    wrong-frame answer could not be told from a right one."""
    sheet = task.sheet
    if sheet is None:
        return []
    recorded = {a.get("frame"): a.get("solution") for a in task.meta["sheet"]["alternates"]
                if isinstance(a, dict)}
    reasons = []
    for alternate in sheet.alternates:
        assert alternate.model is not None
        try:
            fresh = solution_summary(alternate.model)
        except StructEvalError as exc:
            reasons.append(f"frame {alternate.frame} of the sheet does not solve: {exc}")
            continue
        reasons += [f"frame {alternate.frame} of the sheet: {r}"
                    for r in compare_solutions(recorded.get(alternate.frame), fresh)]
        if scorer is not None:
            try:
                same = scorer(alternate.model, model_to_json(task.model)).ratio >= 1.0
            except Exception as exc:  # the scorer's crash is a finding, as above
                reasons.append(f"scorer failed on frame {alternate.frame}: "
                               f"{type(exc).__name__}: {exc}")
                continue
            if same:
                reasons.append(f"frame {alternate.frame} of the sheet is the target frame "
                               f"{sheet.target.frame} under another name (the scorer cannot "
                               "tell them apart)")
    return reasons


def _check_task(task: Task, scorer: Scorer | None) -> TaskCheck:
    if task.unavailable:
        return TaskCheck(task.id, task.category, task.difficulty, (task.unavailable,))
    reasons = _check_image(task) + _check_sheet(task, scorer)
    try:
        solution = analyze(task.model)[0]
        fresh = solution_summary(task.model, solution)
    except StructEvalError as exc:
        reasons.append(f"ground truth does not solve: {exc}")
    else:
        reasons += compare_solutions(task.meta.get("solution"), fresh)
        reason = near_mechanism(task.model, solution)
        if reason is not None:
            reasons.append(f"ground truth is ill-conditioned: {reason}")
    if scorer is not None:
        try:
            verdict = scorer(task.model, model_to_json(task.model))
            if getattr(verdict, "ratio", None) != 1.0:
                reasons.append(f"scorer gives the ground truth {getattr(verdict, 'ratio', '?')} "
                               f"against itself ({getattr(verdict, 'stage', '?')}: "
                               f"{getattr(verdict, 'message', '')})")
        except Exception as exc:  # the scorer is another module; its crash is a finding
            reasons.append(f"scorer failed: {type(exc).__name__}: {exc}")
    else:
        reasons.append("scorer unavailable")
    return TaskCheck(task.id, task.category, task.difficulty, tuple(reasons))


def verify_tasks(tasks: Sequence[Task], progress: bool = True) -> DebugReport:
    """Check every task; never raises for a bad task, it becomes a failure with its reason."""
    start = time.perf_counter()
    scorer, status = _load_scorer()
    items: Iterable[Task] = tasks
    if progress:
        from tqdm import tqdm

        items = tqdm(tasks, desc="verify", unit="task")
    report = DebugReport(scorer=status)
    report.checks = [_check_task(t, scorer) for t in items]
    report.seconds = time.perf_counter() - start
    return report
