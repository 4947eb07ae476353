"""Read a run directory written by ``run_eval.py`` (format: ``harness/RUN_FORMAT.md``).

Result files travel: people mail them, edit them, publish them. Every report
tool therefore validates what it reads and turns any fault into a
:class:`ResultsError` naming the file and the JSON path, instead of a traceback
half-way through a table.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..model.errors import StructEvalError
from ..scoring.frames import FRAME_NAME
from ..statistics.factors import DEFAULT_IMAGE_MODE, recorded_image_mode, recorded_modality

RESULTS_FILE, RUN_FILE, TRACE_FILE = "results.json", "run.json", "trace.jsonl"
STATUSES = ("scored", "unavailable")
_MAX_LISTED = 20


class ResultsError(StructEvalError):
    """A results directory or file cannot be used as a run_eval result."""


@dataclass(frozen=True)
class TaskRow:
    """One task in one run, as results.json lists it (attribute names as the harness's
    ``TaskResult``, so the statistics accept either)."""

    id: str
    category: str
    difficulty: int
    run: int
    status: str
    ratio: float
    stage: str | None
    first_attempt_ratio: float | None
    first_attempt_stage: str | None
    attempts: int
    tokens: int = 0
    structure: str = ""  # the structure shown; results older than presentations: the id
    presentation: Mapping[str, str] = field(default_factory=dict)  # factor → value; may be {}
    wrong_frame: str | None = None  # a drawing sheet's other frame the answer modelled


@dataclass(frozen=True)
class RunInfo:
    """Who was evaluated and when (from run.json; a bare results.json has little of it)."""

    model: str
    prompt_type: str | None = None
    date: str | None = None  # YYYY-MM-DD of the first session
    tolerance: float | None = None
    modality: str | None = None  # image | dxf as run.json records it; None: not recorded
    image_mode: str | None = None  # fit | tiles as run.json records it; None: not recorded

    @property
    def shown(self) -> str | None:
        """The modality with the image mode when it is not the default (``image, tiles``):
        how reports tell runs of one model in several image modes apart."""
        if self.image_mode and self.image_mode != DEFAULT_IMAGE_MODE:
            return f"{self.modality or 'image'}, {self.image_mode}"
        return self.modality


@dataclass(frozen=True)
class RunResults:
    directory: Path
    results_path: Path
    summary: dict[str, Any]
    rows: tuple[TaskRow, ...]
    info: RunInfo

    @property
    def runs(self) -> list[int]:
        return sorted({r.run for r in self.rows})

    @property
    def task_ids(self) -> list[str]:
        """Task ids in the order results.json lists them (dataset order)."""
        return list(dict.fromkeys(r.id for r in self.rows))

    @property
    def label(self) -> str:
        return self.info.model

    def rows_of_run(self, run: int) -> list[TaskRow]:
        return [r for r in self.rows if r.run == run]


def resolve_results_path(path: str | Path) -> Path:
    """A results directory or a results.json path → the results.json path."""
    p = Path(path)
    if p.is_dir():
        p = p / RESULTS_FILE
    if not p.is_file():
        hint = ""
        if (p.parent / TRACE_FILE).exists():
            hint = (" (the run has not finished: results.json is written once every task is "
                    "done; continue it with run_eval.py --resume)")
        raise ResultsError(f"{p}: no such results file{hint}")
    return p


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_bytes())
    except OSError as exc:
        raise ResultsError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except (ValueError, RecursionError) as exc:
        raise ResultsError(f"{path}: not valid JSON ({exc})") from None


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(
        value)


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _row(entry: Any, where: str, problems: list[str]) -> TaskRow | None:
    if not isinstance(entry, dict):
        problems.append(f"{where}: must be an object")
        return None
    start = len(problems)
    checks = (
        ("id", lambda v: isinstance(v, str) and v != "", "a non-empty string"),
        ("category", lambda v: isinstance(v, str), "a string"),
        ("difficulty", lambda v: _integer(v) and v >= 1, "a positive integer"),
        ("status", lambda v: v in STATUSES, f"one of {', '.join(STATUSES)}"),
        ("ratio", lambda v: _number(v) and 0.0 <= v <= 1.0, "a number in [0, 1]"),
    )
    for key, ok, what in checks:
        if not ok(entry.get(key)):
            problems.append(f"{where}.{key}: must be {what}, got {entry.get(key)!r:.60}")
    optional = (
        ("run", lambda v: _integer(v) and v >= 0, "a non-negative integer"),
        ("stage", lambda v: isinstance(v, str), "a string"),
        ("first_attempt_ratio", lambda v: _number(v) and 0.0 <= v <= 1.0, "a number in [0, 1]"),
        ("first_attempt_stage", lambda v: isinstance(v, str), "a string"),
        ("attempts", lambda v: _integer(v) and v >= 0, "a non-negative integer"),
        ("tokens", lambda v: _integer(v) and v >= 0, "a non-negative integer"),
        ("structure", lambda v: isinstance(v, str) and v != "", "a non-empty string"),
        ("presentation", _presentation, "an object of factor → value (strings)"),
        ("wrong_frame", lambda v: isinstance(v, str) and FRAME_NAME.fullmatch(v) is not None,
         "a frame name"),
    )
    for key, ok, what in optional:
        if entry.get(key) is not None and not ok(entry[key]):
            problems.append(f"{where}.{key}: must be {what} or null, got {entry[key]!r:.60}")
    if len(problems) > start:
        return None
    return TaskRow(entry["id"], entry["category"], entry["difficulty"], entry.get("run") or 0,
                   entry["status"], float(entry["ratio"]), entry.get("stage"),
                   entry.get("first_attempt_ratio"), entry.get("first_attempt_stage"),
                   entry.get("attempts") or 0, entry.get("tokens") or 0,
                   entry.get("structure") or entry["id"], dict(entry.get("presentation") or {}),
                   entry.get("wrong_frame"))


def _presentation(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str)
                                           for k, v in value.items())


def _check_complete(rows: list[TaskRow], problems: list[str]) -> None:
    """Every task once per run, with one category and difficulty."""
    seen: dict[tuple[int, str], int] = {}
    first: dict[str, TaskRow] = {}
    for k, r in enumerate(rows):
        if (r.run, r.id) in seen:
            problems.append(f"tasks[{k}]: task {r.id!r} of run {r.run} is listed twice "
                            f"(also tasks[{seen[(r.run, r.id)]}])")
        seen[(r.run, r.id)] = k
        ref = first.setdefault(r.id, r)
        if (ref.category, ref.difficulty) != (r.category, r.difficulty):
            problems.append(f"tasks[{k}]: task {r.id!r} has category/difficulty "
                            f"{r.category}/{r.difficulty} here but {ref.category}/"
                            f"{ref.difficulty} in another run")
        elif (ref.structure, dict(ref.presentation)) != (r.structure, dict(r.presentation)):
            problems.append(f"tasks[{k}]: task {r.id!r} shows structure {r.structure!r} "
                            f"presented as {dict(r.presentation)} here but {ref.structure!r} "
                            f"as {dict(ref.presentation)} in another run")
    runs = sorted({r.run for r in rows})
    for task_id in first:
        missing = [run for run in runs if (run, task_id) not in seen]
        if missing:
            problems.append(f"task {task_id!r} is missing from run(s) {missing}")


def _info(directory: Path, fallback: str) -> RunInfo:
    """Model, prompt and date from run.json; an unreadable run.json only loses labels."""
    try:
        manifest = json.loads((directory / RUN_FILE).read_bytes())
    except (OSError, ValueError, RecursionError):
        return RunInfo(fallback)
    if not isinstance(manifest, dict):
        return RunInfo(fallback)
    grading = manifest.get("grading") if isinstance(manifest.get("grading"), dict) else {}
    sessions = manifest.get("sessions") if isinstance(manifest.get("sessions"), list) else []
    started = sessions[0].get("started_at") if sessions and isinstance(sessions[0], dict) else None
    date = started[:10] if isinstance(started, str) and len(started) >= 10 else None
    model = grading.get("model")
    prompt = grading.get("prompt_type")
    tol = grading.get("tolerance")
    return RunInfo(model if isinstance(model, str) and model else fallback,
                   prompt if isinstance(prompt, str) else None, date,
                   float(tol) if _number(tol) else None, recorded_modality(manifest),
                   recorded_image_mode(manifest))


def trace_fingerprints(run: RunResults) -> dict[str, str]:
    """Task id → fingerprint of what was asked (ground truth, image, notes) from the last
    ``task`` record in trace.jsonl; empty when there is no readable trace."""
    from ..harness.common.trace import TraceReader
    from ..safe_files import FileAccessError

    out: dict[str, str] = {}
    try:
        records = list(_task_records(TraceReader(run.directory / TRACE_FILE)))
    except FileAccessError:
        return {}
    for rec in records:
        task_id, fingerprint = rec.get("task_id"), rec.get("fingerprint")
        if rec.get("type") == "task" and isinstance(task_id, str) and isinstance(fingerprint, str) \
                and fingerprint:
            out[task_id] = fingerprint
    return out


def _task_records(records: Any) -> Any:
    """Only the ``task`` records, as the trace streams by."""
    return (rec for rec in records if rec.get("type") == "task")


def load_results(path: str | Path) -> RunResults:
    """Read and validate a run (directory or results.json), or raise ResultsError."""
    results_path = resolve_results_path(path)
    data = _read_json(results_path)
    if not isinstance(data, dict) or not isinstance(data.get("tasks"), list):
        raise ResultsError(f"{results_path}: not a run_eval results file (expected an object "
                           "with a 'tasks' list)")
    summary = data.get("summary") if isinstance(data.get("summary"), dict) else {}
    problems: list[str] = []
    rows = [row for k, entry in enumerate(data["tasks"])
            if (row := _row(entry, f"tasks[{k}]", problems)) is not None]
    if not problems:
        _check_complete(rows, problems)
    if not rows and not problems:
        problems.append("tasks: the run lists no task")
    if problems:
        listed = problems[:_MAX_LISTED]
        if len(problems) > _MAX_LISTED:
            listed.append(f"... and {len(problems) - _MAX_LISTED} more problem(s)")
        raise ResultsError(f"{results_path}: not usable:\n  " + "\n  ".join(listed))
    directory = results_path.parent
    return RunResults(directory, results_path, summary, tuple(rows),
                      _info(directory, directory.name or str(directory)))
