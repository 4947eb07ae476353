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
* every task of the source run is kept: unavailable tasks stay unavailable, and
  tasks ``--max-cost`` never started stay not run (they have no trace record, so
  results.json is where they are found), so the denominators, pass@1 and
  ``stopped_by_max_cost`` are the source's (``--resume`` on the new directory runs
  both kinds);
* trace records are believed only through the checks ``--resume`` applies
  (:mod:`.trace_state`): a task whose task record or graded attempts cannot be
  believed (edited by hand: a ratio outside [0, 1] or not a number, a verdict or
  response that is not an object, unknown flags, an odd status or difficulty, a line
  that is not JSON) is counted unavailable with the reason ``unreadable trace
  record: …`` and noted — it keeps its difficulty in every denominator;
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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ...model.errors import StructEvalError
from ...safe_files import FileAccessError, explain_os_error, refuse_symlink, write_atomic
from ...statistics.factors import recorded_modality
from ...statistics.runs import run_statistics
from ..answers.grading import Grader, GradingCrash, grade_answer, language_grader
from ..common.trace import Redactor, TraceReader, dumps_line
from ..inputs.task_input import DxfError, ImageError, prepare_input
from . import provenance
from .repair_loop import NOT_RUN, scored_result, task_base, task_fingerprint
from .results import SCORED, UNAVAILABLE, TaskResult, summarize
from .runner import data_root, default_data_dir, write_json_atomic
from .trace_state import GradedAttempt, TraceState, graded_attempt, previous_state, short_reason

#: How the reason of a task whose trace records cannot be believed begins.
UNREADABLE = "unreadable trace record"

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
    unreadable: list[str] = field(default_factory=list)  # "id (run r): why", counted 0
    notes: list[str] = field(default_factory=list)  # what could not be taken as written


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


def _recorded_identity(attempt: dict[str, Any]) -> str | None:
    """The sha256 of the input an attempt was sent (image or DXF), as its record says
    (None when the record does not say it in the shape a session writes)."""
    for kind, key in (("image", "original"), ("dxf", None)):
        block = attempt.get(kind)
        if isinstance(block, dict):
            inner = block.get(key) if key else block
            if isinstance(inner, dict) and isinstance(inner.get("sha256"), str):
                return inner["sha256"]
    request = attempt.get("request")
    messages = request.get("messages") if isinstance(request, dict) else None
    for message in messages[1:2] if isinstance(messages, list) else []:  # the task message
        parts = message.get("content") if isinstance(message, dict) else None
        for part in parts if isinstance(parts, list) else []:
            image_url = part.get("image_url") if isinstance(part, dict) else None
            url = image_url.get("url") if isinstance(image_url, dict) else None
            found = re.search(r"sha256=([0-9a-f]{64})", url if isinstance(url, str) else "")
            if found:
                return found.group(1)
    return None


def _shown(task_id: str) -> str:
    """A task id from a file, fit for a terminal line."""
    return task_id if task_id.isprintable() and len(task_id) <= 80 else repr(task_id)[:80]


@dataclass(frozen=True)
class _Selection:
    """The (run, task) pairs of the source run in its results' order, and what its
    results.json said of the pairs the trace holds no record of."""

    order: list[tuple[int, str]]
    reasons: dict[tuple[int, str], str]  # the source row's reason, for pairs with one
    results_readable: bool


def _source_rows(source: Path) -> list[dict[str, Any]] | None:
    try:
        rows = json.loads((source / "results.json").read_text(encoding="utf-8"))["tasks"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return rows if isinstance(rows, list) else None


def _selection(source: Path, state: TraceState) -> _Selection:
    """Every task of the source run: those its results.json lists (tasks --max-cost never
    started have no trace record, so only the results know them) and those its trace
    holds, believable or not; in the results' order (dataset order), then run-major."""
    rows = _source_rows(source)
    order: list[tuple[int, str]] = []
    reasons: dict[tuple[int, str], str] = {}
    for row in rows or []:
        run, task_id = (row.get("run", 0), row.get("id")) if isinstance(row, dict) \
            else (None, None)
        if isinstance(run, bool) or not isinstance(run, int) or not 0 <= run < 10**6 \
                or not isinstance(task_id, str) or not task_id:
            continue
        if (run, task_id) not in reasons:
            order.append((run, task_id))
            reasons[(run, task_id)] = row["reason"] if isinstance(row.get("reason"), str) \
                else ""
    listed = set(order)
    rest = {key for key in (*state.finished, *state.unreadable) if key not in listed}
    order += sorted(rest)
    return _Selection(order, reasons, rows is not None)


def _missing_record(selection: _Selection, state: TraceState, key: tuple[int, str],
                    skipped_lines: int) -> str | None:
    """Why a pair without a believable task record is unreadable; None when it was simply
    never run (--max-cost stopped the source run first)."""
    if key in state.unreadable:
        return state.unreadable[key]
    if selection.reasons.get(key, "").startswith(NOT_RUN):
        return None
    lines = (f"; {skipped_lines} line(s) of the trace could not be read (torn or edited)"
             if skipped_lines else "")
    return "no believable task record in the trace" + lines


def rescore_run(source: Path, *, output: Path | None = None, tolerance: float | None = None,
                data_dir: Path | None = None, progress: Callable[[int, int], None] | None = None,
                ) -> RescoreOutcome:
    """Re-grade ``source`` into ``output`` (default ``<source>-rescored``); RescoreError,
    DatasetError or FileAccessError (all StructEvalError) with one sentence when it cannot.

    Every task of the source run is kept: tasks never run stay not run, unavailable ones
    unavailable, and a task whose trace records cannot be believed (edited by hand) is
    counted unavailable with the reason (``RescoreOutcome.unreadable``)."""
    from ...dataset import load_tasks

    source = Path(source)
    manifest = _read_manifest(source)
    grading = dict(manifest["grading"])
    recorded_tolerance = _recorded_tolerance(grading)
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
    state = previous_state(records)
    attempts = _attempts(records)
    selection = _selection(source, state)

    source_data: Any = data_dir or _recorded_data_dir(manifest) or default_data_dir()
    ids = {task_id for _, task_id in selection.order}
    tasks = {t.id: t for t in load_tasks(source_data) if t.id in ids}
    root = data_root(list(tasks.values()), source_data)
    missing = sorted(ids - set(tasks))
    if missing:
        raise RescoreError(f"{len(missing)} task(s) of the run are not in the dataset {root} "
                           f"(e.g. {', '.join(map(_shown, missing[:5]))}); pass the run's "
                           "--data-dir")
    grader = language_grader(lang)
    redact = Redactor()
    session = state.next_session
    out_records: list[tuple[str, int, dict[str, Any]]] = []
    results: list[TaskResult] = []
    rescored = kept = changed = 0
    input_changed: list[str] = []
    unreadable: list[str] = []
    for k, (run, task_id) in enumerate(selection.order):
        if progress is not None:
            progress(k, len(selection.order))
        task = tasks[task_id]
        base = task_base(task, run)
        old = state.finished.get((run, task_id))
        why = None
        if old is None:
            why = _missing_record(selection, state, (run, task_id), reader.skipped)
            if why is None:  # not run (--max-cost): as the source's results listed it
                results.append(_not_run(base, selection.reasons[(run, task_id)]))
                continue
        elif old.status != SCORED:
            mine = attempts.get((run, task_id, state.sessions[(run, task_id)]), [])
            results.append(replace(old, **{k2: v for k2, v in base.items() if k2 != "id"}))
            out_records += [("attempt", run, _annotated(a, False)) for a in mine]
            out_records.append(("task", run, results[-1].trace_record()))
            continue
        else:
            mine = attempts.get((run, task_id, state.sessions[(run, task_id)]), [])
            try:
                graded = _graded(mine)
            except ValueError as exc:
                why = short_reason(exc)
        if why is not None:
            unreadable.append(f"{_shown(task_id)} (run {run}): {why}")
            results.append(_unreadable(base, why))
            out_records.append(("task", run, results[-1].trace_record()))
            continue
        result, rewritten = _regraded(task, base, old, graded, mine, tolerance=tolerance,
                                      grader=grader, lang=lang, modality=modality,
                                      input_changed=input_changed)
        rescored += 1
        kept += len(graded) - 1
        if (result.ratio, result.first_attempt_ratio) != (old.ratio, old.first_attempt_ratio):
            changed += 1
        results.append(result)
        out_records += [("attempt", run, r) for r in rewritten]
        out_records.append(("task", run, result.trace_record()))
    ignored = state.rejected - len(state.unreadable)
    now = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    current = provenance.collect(root, list(tasks.values()))
    info = {"from": str(source.resolve()), "at": now, "tolerance": tolerance,
            "tolerance_recorded": recorded_tolerance, "rescored_first_attempts": rescored,
            "kept_repair_attempts": kept, "tasks_changed": changed,
            "input_changed": input_changed, "unreadable": unreadable,
            "ignored_records": ignored + reader.skipped, "what": RESCORE_NOTE,
            "answers_provenance": manifest.get("provenance")}
    new_manifest = _new_manifest(manifest, grading, tolerance, source_data, session, now,
                                 current, info)
    summary = _summary(source, results, state.past_wall, new_manifest, current, info)
    _write(output, source, records, out_records, session, new_manifest, summary, results,
           redact)
    notes = _notes(unreadable, ignored + reader.skipped, selection.results_readable)
    return RescoreOutcome(output, summary, rescored, kept, changed, input_changed,
                          unreadable, notes)


def _regraded(task: Any, base: dict[str, Any], old: TaskResult, graded: list[GradedAttempt],
              mine: list[dict[str, Any]], *, tolerance: float, grader: Grader, lang: str,
              modality: str, input_changed: list[str]) -> tuple[TaskResult, list[dict]]:
    """A scored task with its first answer graded again and its repairs as recorded: the new
    result and its rewritten attempt records (first, repairs, then the ungraded ones)."""
    first, repairs = graded[0], graded[1:]
    try:
        new = grade_answer(task.model, first.text or "", tolerance=tolerance, grader=grader,
                           lang=lang, sheet=getattr(task, "sheet", None))
    except GradingCrash as exc:
        raise RescoreError(f"task {_shown(task.id)}: {exc}") from None
    grades = [(new.grade.ratio, new.grade.stage, old.first_flags)]
    grades += [(a.ratio, a.stage, a.flags) for a in repairs]
    rewritten = [{**_annotated(first.record, True), **new.trace_fields()}]
    rewritten += [_annotated(a.record, False) for a in repairs]
    rewritten += [_annotated(a, False) for a in mine if a.get("outcome") != "graded"]
    fingerprint = _fingerprint(task, modality, first.record, old.fingerprint, input_changed)
    frames = [new.grade.wrong_frame, *(a.wrong_frame for a in repairs)]
    return scored_result(base, grades, tokens=old.tokens, fingerprint=fingerprint,
                         costs=old.costs, seen=old.seen, wrong_frames=frames), rewritten


def _recorded_tolerance(grading: dict[str, Any]) -> float:
    value = grading.get("tolerance", 0.02)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        raise RescoreError(f"run.json records the tolerance {value!r}, not a number in (0, 1); "
                           "pass --tolerance")
    return float(value)


def _graded(mine: list[dict[str, Any]]) -> list[GradedAttempt]:
    """The task's graded attempts, its first answer first; ValueError (one sentence) when
    any of them is not believable or the first answer is not stored."""
    graded = [graded_attempt(a) for a in mine if a.get("outcome") == "graded"]
    first = next((a for a in graded if a.number == 1), None)
    if first is None or first.text is None:
        raise ValueError("attempt 1 holds no stored answer to grade again")
    return [first, *(a for a in graded if a is not first)]


def _not_run(base: dict[str, Any], reason: str) -> TaskResult:
    return TaskResult(**base, status=UNAVAILABLE, ratio=0.0, stage=None,
                      first_attempt_ratio=None, first_attempt_stage=None, attempts=0,
                      reason=reason, stopped=True)


def _unreadable(base: dict[str, Any], why: str) -> TaskResult:
    """A task whose records cannot be believed: unavailable (it counts 0 with its full
    difficulty, like any selected task without a credit) and --resume asks it again."""
    return TaskResult(**base, status=UNAVAILABLE, ratio=0.0, stage=None,
                      first_attempt_ratio=None, first_attempt_stage=None, attempts=0,
                      reason=f"{UNREADABLE}: {why}")


def _notes(unreadable: list[str], ignored: int, results_readable: bool) -> list[str]:
    """What the rescore could not take from the source as written, one line each."""
    notes = []
    if unreadable:
        notes.append(f"{len(unreadable)} task(s) with trace records edited or unreadable are "
                     "counted unavailable (--resume on the new directory asks them again): "
                     + "; ".join(unreadable[:5]) + ("; …" if len(unreadable) > 5 else ""))
    if ignored:
        notes.append(f"{ignored} line(s) of the trace were ignored (torn, not JSON, or a "
                     "record no session writes)")
    if not results_readable:
        notes.append("the source results.json is missing or unreadable: tasks the run never "
                     "started (--max-cost) are not known and are left out")
    return notes


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
