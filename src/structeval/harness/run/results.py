"""Per-task outcomes and the numbers a run is judged by.

Metric definitions (the README repeats them):

* weighted accuracy = Σ(ratio × difficulty) / Σ(difficulty) over *all* selected
  tasks, in percent; an ``unavailable`` task contributes 0 (it was selected, so
  dropping it would flatter a run whose endpoint failed on hard tasks);
* average ratio and pass@1 (first attempt only) are computed the same way;
* diagnostics — the stage distribution, per-stage counts — cover *scored* tasks
  only, since an unavailable task has no stage;
* the headline is pass@1 weighted accuracy (the first answer's credit): a repair
  round after a located fault can turn a binary misreading (a couple's sense, a
  roller's direction) into a coin flip the feedback settles, so after-repair
  accuracy is reported beside it, never instead of it.

Sums run over tasks in dataset order, never completion order, so the same
answers give the same bytes whatever the concurrency.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ...scoring.frames import FRAME_NAME
from ...statistics.factors import factor_summary
from ...statistics.groups import group_row
from ...statistics.groups import percent as _pct
from ...statistics.runs import first_ratio
from ..answers.grading import STAGES

SCORED, UNAVAILABLE = "scored", "unavailable"


MAX_TOKENS = 10**9  # per count; larger numbers in a trace are not believable


def _count(value: Any, name: str) -> int:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < MAX_TOKENS:
        raise ValueError(f"{name} {value!r} is not a token count")
    return value


@dataclass(frozen=True)
class Tokens:
    """Token counts summed over attempts whose usage was known; ``unknown`` counts the
    attempts whose usage was missing or not believable (left out of the sums).
    ``reasoning`` is the part of ``completion`` that reasoning models report as spent on
    hidden reasoning (summed where reported)."""

    prompt: int = 0
    completion: int = 0
    total: int = 0
    unknown: int = 0
    reasoning: int = 0

    def __add__(self, other: Tokens) -> Tokens:
        return Tokens(self.prompt + other.prompt, self.completion + other.completion,
                      self.total + other.total, self.unknown + other.unknown,
                      self.reasoning + other.reasoning)

    def to_json(self) -> dict[str, int]:
        out = {"prompt": self.prompt, "completion": self.completion, "total": self.total}
        if self.reasoning:
            out["reasoning"] = self.reasoning
        if self.unknown:
            out["unknown"] = self.unknown
        return out

    @classmethod
    def from_json(cls, data: Any) -> Tokens:
        """Counts from a trace record; ValueError for anything but small non-negative ints."""
        data = data if isinstance(data, dict) else {}
        return cls(*(_count(data.get(k), k) for k in ("prompt", "completion", "total",
                                                        "unknown", "reasoning")))


#: how an answer ended, counted per stage: cut off by the token limit, or nothing said
ANSWER_FLAGS = ("length", "empty")


@dataclass(frozen=True)
class Costs:
    """Dollars of a task's attempts at the run's prices: ``usd`` what its answers cost
    when they were made (None: no prices), ``paid`` what was sent in this run's sessions
    (cached replies are free), ``unknown`` attempts whose usage was unknown."""

    usd: float | None = None
    paid: float = 0.0
    unknown: int = 0

    def __add__(self, other: Costs) -> Costs:
        usd = None if self.usd is None and other.usd is None else \
            (self.usd or 0.0) + (other.usd or 0.0)
        return Costs(usd, self.paid + other.paid, self.unknown + other.unknown)

    def to_json(self) -> dict[str, Any]:
        return {"usd": _usd(self.usd), "paid_usd": _usd(self.paid), "unknown": self.unknown}

    @classmethod
    def from_json(cls, data: Any) -> Costs:
        if not isinstance(data, dict):
            return cls()
        usd, paid = data.get("usd"), data.get("paid_usd", 0.0)
        return cls(None if usd is None else _money(usd), _money(paid or 0.0),
                   _count(data.get("unknown"), "unknown"))


def _money(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not 0.0 <= value < 1e9:  # NaN fails too
        raise ValueError(f"cost {value!r} is not an amount in USD")
    return float(value)


def _usd(value: float | None) -> float | None:
    return None if value is None else round(value, 8)


@dataclass(frozen=True)
class Seen:
    """What the API said about itself over a task's attempts (provenance), and how the
    attempts were answered: ``requests`` sent, ``cached`` served by the response cache."""

    models: tuple[str, ...] = ()
    fingerprints: tuple[str, ...] = ()
    requests: int = 0
    cached: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"api_models": list(self.models), "system_fingerprints": list(self.fingerprints),
                "requests": self.requests, "cached": self.cached}

    @classmethod
    def from_json(cls, data: Any) -> Seen:
        if not isinstance(data, dict):
            return cls()
        def labels(key: str) -> tuple[str, ...]:
            found = data.get(key)
            return tuple(sorted({v for v in found if isinstance(v, str)}))[:50] \
                if isinstance(found, list) else ()
        return cls(labels("api_models"), labels("system_fingerprints"),
                   _count(data.get("requests"), "requests"), _count(data.get("cached"), "cached"))


@dataclass(frozen=True)
class TaskResult:
    id: str
    category: str
    difficulty: int
    run: int
    status: str  # scored | unavailable
    ratio: float  # best over attempts; 0 when unavailable
    stage: str | None  # stage of the best attempt
    first_attempt_ratio: float | None
    first_attempt_stage: str | None
    attempts: int  # attempts that reached the model and were graded
    tokens: Tokens = field(default_factory=Tokens)
    best_attempt: int | None = None
    fingerprint: str = ""
    reason: str | None = None  # why unavailable
    structure: str = ""  # the structure the task shows (tasks of one structure share the GT)
    presentation: dict[str, str] = field(default_factory=dict)  # factor → value
    first_flags: tuple[str, ...] = ()  # ANSWER_FLAGS of the first attempt
    best_flags: tuple[str, ...] = ()  # ANSWER_FLAGS of the best attempt
    costs: Costs = field(default_factory=Costs)
    seen: Seen = field(default_factory=Seen)
    stopped: bool = False  # not run: --max-cost was reached first (never written to the trace)
    wrong_frame: str | None = None  # a sheet's other frame the best attempt modelled

    def _frame(self) -> dict[str, Any]:
        """``wrong_frame`` where one was diagnosed (absent otherwise, so the files of a run
        without sheets are what they were)."""
        return {"wrong_frame": self.wrong_frame} if self.wrong_frame else {}

    @property
    def score(self) -> float:
        return self.ratio * self.difficulty

    def _common(self) -> dict[str, Any]:
        return {"category": self.category, "difficulty": self.difficulty, "run": self.run,
                "structure": self.structure or self.id, "presentation": dict(self.presentation),
                "status": self.status, "ratio": self.ratio, "score": self.score,
                "stage": self.stage, "first_attempt_ratio": self.first_attempt_ratio,
                "first_attempt_stage": self.first_attempt_stage, "attempts": self.attempts}

    def results_entry(self) -> dict[str, Any]:
        """The task's line in results.json."""
        return {"id": self.id, **self._common(), "tokens": self.tokens.total,
                "reason": self.reason, "first_attempt_flags": list(self.first_flags),
                "flags": list(self.best_flags), "cost_usd": _usd(self.costs.usd),
                **self._frame()}

    def trace_record(self) -> dict[str, Any]:
        """The ``task`` record of trace.jsonl (type/session/elapsed are added by the writer)."""
        return {"task_id": self.id, **self._common(), "best_attempt": self.best_attempt,
                "tokens": self.tokens.to_json(), "fingerprint": self.fingerprint,
                "reason": self.reason, "first_attempt_flags": list(self.first_flags),
                "flags": list(self.best_flags), "cost": self.costs.to_json(),
                "seen": self.seen.to_json(), **self._frame()}

    @classmethod
    def from_trace_record(cls, rec: dict[str, Any]) -> TaskResult:
        """The result a ``task`` record describes; ValueError (or KeyError/TypeError) for a
        record no session of ours could have written — a hand-edited ``ratio: NaN``, a
        stage that does not exist — so that --resume runs the task again instead."""
        status = rec["status"]
        if status not in (SCORED, UNAVAILABLE):
            raise ValueError(f"status {status!r}")
        difficulty = rec["difficulty"]
        if isinstance(difficulty, bool) or difficulty not in (1, 2, 3, 4, 5):
            raise ValueError(f"difficulty {difficulty!r}")
        run, attempts = rec.get("run", 0), rec.get("attempts", 0)
        for name, value in (("run", run), ("attempts", attempts)):
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 10**6:
                raise ValueError(f"{name} {value!r}")
        best = rec.get("best_attempt")
        if best is not None and (isinstance(best, bool) or not isinstance(best, int)):
            raise ValueError(f"best_attempt {best!r}")
        for name in ("task_id", "category"):
            if not isinstance(rec[name], str):
                raise ValueError(f"{name} {rec[name]!r}")
        return cls(id=rec["task_id"], category=rec["category"], difficulty=difficulty, run=run,
                   status=status, ratio=_ratio(rec["ratio"], "ratio"),
                   stage=_stage(rec.get("stage")),
                   first_attempt_ratio=_optional_ratio(rec.get("first_attempt_ratio")),
                   first_attempt_stage=_stage(rec.get("first_attempt_stage")),
                   attempts=attempts, tokens=Tokens.from_json(rec.get("tokens")),
                   best_attempt=best, fingerprint=str(rec.get("fingerprint", "")),
                   reason=rec.get("reason") if isinstance(rec.get("reason"), str) else None,
                   structure=str(rec.get("structure") or rec["task_id"]),
                   presentation=_factors(rec.get("presentation")),
                   first_flags=_flags(rec.get("first_attempt_flags")),
                   best_flags=_flags(rec.get("flags")), costs=Costs.from_json(rec.get("cost")),
                   seen=Seen.from_json(rec.get("seen")),
                   wrong_frame=recorded_frame(rec.get("wrong_frame")))


def _ratio(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not 0.0 <= value <= 1.0:  # NaN fails the comparison too
        raise ValueError(f"{name} {value!r} is not a credit between 0 and 1")
    return float(value)


def recorded_grade(verdict: Any, flags: Any) -> tuple[float, str, tuple[str, ...]]:
    """(ratio, stage, answer flags) of a graded attempt record (its ``verdict`` and its
    response's ``flags``), held to the same checks as a task record (ValueError): a
    repair's recorded credit counts in a task's score, so an edited ``ratio: 7.5`` must
    not reach it."""
    if not isinstance(verdict, dict):
        raise ValueError(f"verdict {verdict!r} is not an object")
    stage = _stage(verdict.get("stage"))
    if stage is None:
        raise ValueError("verdict has no stage")
    return _ratio(verdict.get("ratio"), "verdict ratio"), stage, _flags(flags)


def recorded_frame(value: Any) -> str | None:
    """A recorded wrong frame: a short name (a sheet's frame names are), else ValueError —
    it is shown in reports, so an edited one must not carry anything else there."""
    if value is None:
        return None
    if not isinstance(value, str) or not FRAME_NAME.fullmatch(value):
        raise ValueError(f"wrong_frame {value!r:.40} is not a frame name")
    return value


def _optional_ratio(value: Any) -> float | None:
    return None if value is None else _ratio(value, "first_attempt_ratio")


def _stage(value: Any) -> str | None:
    if value is not None and value not in STAGES:
        raise ValueError(f"stage {value!r}")
    return value


def _flags(data: Any) -> tuple[str, ...]:
    if data is None:
        return ()
    if not isinstance(data, list) or any(flag not in ANSWER_FLAGS for flag in data):
        raise ValueError(f"answer flags {data!r}")
    return tuple(flag for flag in ANSWER_FLAGS if flag in data)


def _factors(data: Any) -> dict[str, str]:
    """A stored presentation (factor → value); anything else is no presentation."""
    if not isinstance(data, dict):
        return {}
    return {str(k): str(v) for k, v in data.items() if isinstance(v, str)}


def _grouped(results: list[TaskResult], key: Any) -> dict[str, dict[str, Any]]:
    groups: dict[Any, list[TaskResult]] = {}
    for r in results:
        groups.setdefault(key(r), []).append(r)
    return {str(k): group_row(groups[k]) for k in sorted(groups)}


def stage_counts(stages: Iterable[str | None]) -> dict[str, int]:
    counts = dict.fromkeys(STAGES, 0)
    for stage in stages:
        if stage in counts:
            counts[stage] += 1
    return counts


def summarize(results: list[TaskResult], *, wall_s: float,
              modality: str | None = None) -> dict[str, Any]:
    """The ``summary`` object of results.json (the tasks of every run, in dataset order).

    ``modality`` is what run.json records (None: not recorded); it adds a
    ``by_factor.modality`` entry. The factor entries are defined in
    ``structeval.statistics.factors``."""
    scored = [r for r in results if r.status == SCORED]
    overall = group_row(results)
    tokens, costs = Tokens(), Costs()
    for r in results:
        tokens = tokens + r.tokens
        costs = costs + r.costs
    return {
        "headline": headline(overall["pass_at_1_accuracy"], overall["accuracy"]),
        "weighted_accuracy": overall["accuracy"],
        "avg_ratio": overall["avg_ratio"],
        "pass_at_1_weighted_accuracy": overall["pass_at_1_accuracy"],
        "pass_at_1_avg_ratio": _pct(sum(first_ratio(r) for r in results), len(results)),
        "stages": stage_counts(r.stage for r in scored),
        "pass_at_1_stages": stage_counts(r.first_attempt_stage for r in scored),
        "answer_flags": answer_flags(scored),
        "tokens": tokens.to_json(),
        "cost": {**costs.to_json(), "tasks_priced": sum(r.costs.usd is not None
                                                       for r in results)},
        "api": {"models": sorted({m for r in results for m in r.seen.models}),
                "system_fingerprints": sorted({f for r in results for f in r.seen.fingerprints}),
                "requests": sum(r.seen.requests for r in results),
                "cached": sum(r.seen.cached for r in results)},
        "wall_s": round(wall_s, 3),
        "tasks": len(results),
        "scored": len(scored),
        "unavailable": len(results) - len(scored),
        "by_category": _grouped(results, lambda r: r.category),
        "by_difficulty": _grouped(results, lambda r: r.difficulty),
        **factor_summary(results, modality),
    }


HEADLINE = "pass_at_1_weighted_accuracy"


def headline(pass_at_1: float, after_repair: float) -> dict[str, Any]:
    """The number a run is quoted by (pass@1 weighted accuracy) with after-repair beside it."""
    return {"metric": HEADLINE, "label": "pass@1 weighted accuracy", "value": pass_at_1,
            "after_repair": after_repair}


def answer_flags(scored: Iterable[TaskResult]) -> dict[str, dict[str, dict[str, int]]]:
    """Per stage, how many answers were cut off by the token limit (``length``) or empty:
    of the first attempts (``pass_at_1``, by first-attempt stage) and of the best attempts
    (``after_repair``, by final stage)."""
    done = list(scored)
    return {"pass_at_1": {flag: stage_counts(r.first_attempt_stage for r in done
                                             if flag in r.first_flags)
                          for flag in ANSWER_FLAGS},
            "after_repair": {flag: stage_counts(r.stage for r in done if flag in r.best_flags)
                             for flag in ANSWER_FLAGS}}


def running_accuracy(results: Iterable[TaskResult]) -> float:
    """Weighted accuracy (%) of the tasks finished so far, for the progress bar."""
    done = list(results)
    return _pct(sum(r.score for r in done), sum(r.difficulty for r in done))
