"""Re-grade the stored answers of a run with the current scorer and dataset — no API call.

A run's answers are evidence that outlives its grading: after a scorer fix, a
ground-truth correction, or to see a run at another ``--tolerance``, the stored
answers can be graded again for nothing. What is recomputed, exactly:

* **attempt 1 of every scored task** is graded again from its stored answer text
  (``response.text`` in trace.jsonl) against the current ground truth, with the
  current extraction, validator and scorer, at the given tolerance, in the run's
  language: its ``extraction``, ``validation``, ``solver`` and ``verdict`` are
  replaced and the record is marked ``"rescored": true``. pass@1 is therefore
  recomputed exactly;
* **repair attempts (2, 3, …) are kept as recorded**, verdict included, and marked
  ``"rescored": false, "kept_as_recorded": true``: their answers were written in
  reply to feedback that the current scorer might phrase differently, so grading
  them again would pretend to know what the model would have answered. The
  task's after-repair credit is the best of the re-graded first attempt and the
  recorded repairs (the first attempt reaching it);
* unavailable tasks stay unavailable (``--resume`` on the new directory runs them);
* everything else is copied: tokens, costs, answer flags, the API's model names,
  the negotiated parameters, the prompts; category and difficulty come from the
  current dataset.

The result is a normal run directory (run.json, trace.jsonl, results.json) that
``tools/report.py``, ``tools/compare.py`` and ``tools/leaderboard.py`` accept:
run.json keeps the run's settings with the tolerance used and a ``rescored``
block (source, time, tolerance recorded and used, counts, the answers'
provenance); its provenance is the current code's, since it made the verdicts.
The trace holds the source trace verbatim, then one rescore session with the
rewritten attempts and the new task records. Rescoring with the same tolerance,
scorer and dataset reproduces the source's results.json task rows byte for byte.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ...model.errors import StructEvalError
from ...safe_files import FileAccessError, explain_os_error, refuse_symlink, write_atomic
from ...statistics.factors import recorded_modality
from ...statistics.runs import run_statistics
from ..answers.grading import GradingCrash, grade_answer, language_grader
from ..common.trace import Redactor, TraceReader, dumps_line
from ..inputs.task_input import DxfError, ImageError, prepare_input
from . import provenance
from .repair_loop import scored_result, task_factors, task_fingerprint
from .results import SCORED, UNAVAILABLE, TaskResult, summarize
from .runner import data_root, default_data_dir, previous_state, write_json_atomic

RESCORE_NOTE = ("attempt 1 of every scored task re-graded from its stored answer with the "
                "current scorer and dataset; repair attempts kept as recorded")


class RescoreError(StructEvalError):
    """The run directory cannot be rescored as asked (one sentence for users)."""


@dataclass(frozen=True)
class RescoreOutcome:
    output: Path
    summary: dict[str, Any]
    rescored: int  # first attempts re-graded
    kept: int  # repair attempts kept as recorded
    changed: int  # tasks whose pass@1 or final credit changed
    input_changed: list[str]  # tasks whose image, DXF or notes differ from what was asked


def _read_manifest(directory: Path) -> dict[str, Any]:
    path = directory / "run.json"
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RescoreError(f"{directory} holds no run.json: not a run directory") from None
    except (OSError, ValueError) as exc:
        raise RescoreError(f"{path} is unreadable ({exc})") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("grading"), dict):
        raise RescoreError(f"{path} is not a run description (no grading settings)")
    return manifest


def _recorded_data_dir(manifest: dict[str, Any]) -> str | None:
    """The last session's --data-dir as run.json keeps it (a folder, or a dataset
    reference the loader understands)."""
    sessions = manifest.get("sessions")
    if isinstance(sessions, list) and sessions and isinstance(sessions[-1], dict):
        recorded = sessions[-1].get("data_dir")
        if isinstance(recorded, str) and recorded:
            return recorded
    return None


def _attempts(records: Iterable[dict[str, Any]]) -> dict[tuple[int, str, int], list[dict]]:
    """(run, task id, session) → that session's attempt records of the task, in order."""
    out: dict[tuple[int, str, int], list[dict[str, Any]]] = {}
    for rec in records:
        if rec.get("type") != "attempt" or not isinstance(rec.get("task_id"), str):
            continue
        run, session = rec.get("run", 0), rec.get("session", 0)
        if isinstance(run, int) and isinstance(session, int):
            out.setdefault((run, rec["task_id"], session), []).append(rec)
    return out


def _latest_task_records(records: Iterable[dict[str, Any]]) -> dict[tuple[int, str], dict]:
    out: dict[tuple[int, str], dict[str, Any]] = {}
    for rec in records:
        if rec.get("type") == "task" and isinstance(rec.get("task_id"), str):
            out[(rec.get("run", 0), rec["task_id"])] = rec
    return out


def _recorded_identity(attempt: dict[str, Any]) -> str | None:
    """The sha256 of the input an attempt was sent (image or DXF), as its record says."""
    for kind, key in (("image", "original"), ("dxf", None)):
        block = attempt.get(kind)
        if isinstance(block, dict):
            inner = block.get(key) if key else block
            if isinstance(inner, dict) and isinstance(inner.get("sha256"), str):
                return inner["sha256"]
    messages = (attempt.get("request") or {}).get("messages") or []
    for message in messages[1:2]:  # the task message (the system prompt has a sha256 too)
        for part in message.get("content") or [] if isinstance(message, dict) else []:
            url = (part.get("image_url") or {}).get("url") if isinstance(part, dict) else None
            found = re.search(r"sha256=([0-9a-f]{64})", url or "")
            if found:
                return found.group(1)
    return None


def rescore_run(source: Path, *, output: Path | None = None, tolerance: float | None = None,
                data_dir: Path | None = None, progress: Callable[[int, int], None] | None = None,
                ) -> RescoreOutcome:
    """Re-grade ``source`` into ``output`` (default ``<source>-rescored``); RescoreError,
    DatasetError or FileAccessError (all StructEvalError) with one sentence when it cannot."""
    from ...dataset import load_tasks

    source = Path(source)
    manifest = _read_manifest(source)
    grading = dict(manifest["grading"])
    recorded_tolerance = grading.get("tolerance", 0.02)
    tolerance = float(recorded_tolerance if tolerance is None else tolerance)
    if not tolerance > 0:
        raise RescoreError("--tolerance must be > 0")
    lang = grading.get("lang") or "en"
    modality = recorded_modality(manifest) or "image"
    output = Path(output) if output is not None else source.with_name(source.name + "-rescored")
    if output.resolve() == source.resolve():
        raise RescoreError("--output must be a new directory, not the run being rescored")
    if output.exists() and any(output.iterdir()):
        raise RescoreError(f"{output} already exists and is not empty; choose another --output")
    reader = TraceReader(source / "trace.jsonl")
    records = list(reader)
    if not records:
        raise RescoreError(f"{source}/trace.jsonl holds no records: nothing to rescore")
    finished, next_session, past_wall, _ = previous_state(records)
    latest = _latest_task_records(records)
    attempts = _attempts(records)

    source_data: Any = data_dir or _recorded_data_dir(manifest) or default_data_dir()
    ids = {task_id for _, task_id in finished}
    tasks = {t.id: t for t in load_tasks(source_data) if t.id in ids}
    root = data_root(list(tasks.values()), source_data)
    missing = sorted(ids - set(tasks))
    if missing:
        raise RescoreError(f"{len(missing)} task(s) of the run are not in the dataset {root} "
                           f"(e.g. {', '.join(missing[:5])}); pass the run's --data-dir")
    order = _order(source, finished, tasks)
    grader = language_grader(lang)
    redact = Redactor()
    session = next_session
    out_records: list[tuple[str, int, dict[str, Any]]] = []
    results: list[TaskResult] = []
    rescored = kept = changed = 0
    input_changed: list[str] = []
    for k, (run, task_id) in enumerate(order):
        if progress is not None:
            progress(k, len(order))
        old = finished.get((run, task_id))
        if old is None:  # not run (--max-cost): as the source's results listed it
            results.append(_not_run(tasks[task_id], run))
            continue
        record = latest[(run, task_id)]
        task = tasks[task_id]
        base = {"id": task.id, "category": task.category, "difficulty": int(task.difficulty),
                "run": run, "structure": str(getattr(task, "structure", "") or task.id),
                "presentation": task_factors(task)}
        mine = attempts.get((run, task_id, record.get("session", 0)), [])
        if old.status != SCORED:
            results.append(replace(old, **{k2: v for k2, v in base.items() if k2 != "id"}))
            out_records += [("attempt", run, _annotated(a, False)) for a in mine]
            out_records.append(("task", run, results[-1].trace_record()))
            continue
        graded_records = [a for a in mine if a.get("outcome") == "graded"]
        first = next((a for a in graded_records if a.get("attempt") == 1), None)
        text = ((first or {}).get("response") or {}).get("text")
        if first is None or not isinstance(text, str):
            raise RescoreError(f"task {task_id} (run {run}) has no stored first answer in the "
                               "trace; it cannot be rescored")
        try:
            new = grade_answer(task.model, text, tolerance=tolerance, grader=grader, lang=lang)
        except GradingCrash as exc:
            raise RescoreError(f"task {task_id}: {exc}") from None
        rescored += 1
        grades = [(new.grade.ratio, new.grade.stage, old.first_flags)]
        rewritten = [{**_annotated(first, True), **new.trace_fields()}]
        for a in graded_records:
            if a is first:
                continue
            verdict = a.get("verdict") or {}
            grades.append((float(verdict.get("ratio", 0.0)), str(verdict.get("stage")),
                           tuple((a.get("response") or {}).get("flags") or ())))
            rewritten.append(_annotated(a, False))
            kept += 1
        rewritten += [_annotated(a, False) for a in mine if a.get("outcome") != "graded"]
        fingerprint = _fingerprint(task, modality, first, old.fingerprint, input_changed)
        result = scored_result(base, grades, tokens=old.tokens, fingerprint=fingerprint,
                               costs=old.costs, seen=old.seen)
        if (result.ratio, result.first_attempt_ratio) != (old.ratio, old.first_attempt_ratio):
            changed += 1
        results.append(result)
        out_records += [("attempt", run, r) for r in rewritten]
        out_records.append(("task", run, result.trace_record()))
    now = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    current = provenance.collect(root, sorted(tasks))
    info = {"from": str(source.resolve()), "at": now, "tolerance": tolerance,
            "tolerance_recorded": recorded_tolerance, "rescored_first_attempts": rescored,
            "kept_repair_attempts": kept, "tasks_changed": changed,
            "input_changed": input_changed, "what": RESCORE_NOTE,
            "answers_provenance": manifest.get("provenance")}
    new_manifest = _new_manifest(manifest, grading, tolerance, source_data, session, now,
                                 current, info)
    summary = _summary(source, results, past_wall, new_manifest, current, info)
    _write(output, source, records, out_records, session, new_manifest, summary, results,
           redact)
    return RescoreOutcome(output, summary, rescored, kept, changed, input_changed)


def _order(source: Path, finished: dict[tuple[int, str], TaskResult],
           tasks: dict[str, Any]) -> list[tuple[int, str]]:
    """(run, id) pairs in the source results' order (dataset order), else run-major."""
    try:
        rows = json.loads((source / "results.json").read_text(encoding="utf-8"))["tasks"]
        order = [(int(r.get("run") or 0), str(r["id"])) for r in rows]
        if all(task_id in tasks for _, task_id in order) and set(finished) <= set(order):
            return order
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    runs = sorted({run for run, _ in finished})
    return [(run, t) for run in runs for t in sorted(tasks) if (run, t) in finished]


def _not_run(task: Any, run: int) -> TaskResult:
    return TaskResult(task.id, task.category, int(task.difficulty), run, UNAVAILABLE, 0.0,
                      None, None, None, 0, reason="not run: --max-cost was reached",
                      structure=str(getattr(task, "structure", "") or task.id),
                      presentation=task_factors(task), stopped=True)


def _annotated(record: dict[str, Any], rescored: bool) -> dict[str, Any]:
    out = {k: v for k, v in record.items() if k not in ("type", "run", "session", "elapsed_s")}
    out["rescored"] = rescored
    if not rescored and record.get("outcome") == "graded":
        out["kept_as_recorded"] = True
    return out


def _fingerprint(task: Any, modality: str, first: dict[str, Any], old: str,
                 changed: list[str]) -> str:
    """The current fingerprint when the input asked about is still the task's (a new ground
    truth is what a rescore is for); the recorded one, noted, when the input changed."""
    try:
        shown = prepare_input(task, modality)
    except (ImageError, DxfError):
        changed.append(task.id)
        return old
    recorded = _recorded_identity(first)
    if recorded is not None and recorded != shown.identity:
        changed.append(task.id)
        return old
    return task_fingerprint(task, shown)


def _new_manifest(manifest: dict[str, Any], grading: dict[str, Any], tolerance: float,
                  source_data: Any, session: int, now: str, current: dict[str, Any],
                  info: dict[str, Any]) -> dict[str, Any]:
    sessions = [s for s in manifest.get("sessions") or [] if isinstance(s, dict)]
    recorded = str(source_data) if str(source_data).startswith("hf://") \
        else str(Path(source_data).resolve())
    sessions.append({"session": session, "started_at": now, "rescore": True,
                     "data_dir": recorded, "provenance": current})
    return {**manifest, "grading": {**grading, "tolerance": tolerance}, "sessions": sessions,
            "provenance": current, "rescored": info}


def _summary(source: Path, results: list[TaskResult], past_wall: float,
             manifest: dict[str, Any], current: dict[str, Any],
             info: dict[str, Any]) -> dict[str, Any]:
    summary = summarize(results, wall_s=past_wall, modality=recorded_modality(manifest))
    try:
        old = json.loads((source / "results.json").read_text(encoding="utf-8"))["summary"]
    except (OSError, ValueError, KeyError, TypeError):
        old = {}
    old = old if isinstance(old, dict) else {}
    for key in ("modality", "lang", "skipped", "negotiated"):
        if key in old:
            summary[key] = old[key]
    if isinstance(old.get("cost"), dict):
        summary["cost"].update({k: v for k, v in old["cost"].items()
                                if k in ("prices", "max_cost")})
    summary["stopped_by_max_cost"] = sum(r.stopped for r in results)
    summary["cache"] = None
    summary["provenance"] = current
    summary["rescored"] = {k: v for k, v in info.items() if k != "answers_provenance"}
    summary["statistics"] = run_statistics(results)
    return summary


def _write(output: Path, source: Path, records: list[dict[str, Any]],
           out_records: list[tuple[str, int, dict[str, Any]]], session: int,
           manifest: dict[str, Any], summary: dict[str, Any], results: list[TaskResult],
           redact: Redactor) -> None:
    try:
        output.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FileAccessError(explain_os_error(exc, output, "create")) from None
    for name in ("run.json", "trace.jsonl", "results.json"):
        refuse_symlink(output / name, "run file")
    write_json_atomic(output / "run.json", manifest, redact)
    base = {"session": session, "elapsed_s": 0.0}
    lines = [dumps_line(rec, redact) for rec in records]
    lines.append(dumps_line({"type": "session", "run": 0, **base, "resumed": True,
                             "rescore": True, "from": str(source.resolve()), "reused": 0,
                             "pending": len(results)}, redact))
    lines += [dumps_line({"type": kind, "run": run, **base, **rec}, redact)
              for kind, run, rec in out_records]
    lines.append(dumps_line({"type": "session_end", "run": 0, **base, "wall_s": 0.0}, redact))
    # one atomic write (a rescore is not resumed line by line, unlike a run's trace)
    write_atomic(output / "trace.jsonl", ("\n".join(lines) + "\n").encode("utf-8"))
    write_json_atomic(output / "results.json",
                       {"summary": summary, "tasks": [r.results_entry() for r in results]},
                       redact)
