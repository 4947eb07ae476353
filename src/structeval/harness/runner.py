"""A session of a run: decide what is left to do, do it concurrently, write the results.

A run lives in one directory: ``run.json`` (grading settings, prompt, sessions),
``trace.jsonl`` (every attempt and every finished task, appended as it happens)
and ``results.json`` (written once every selected task is finished). A session
trusts only the trace: tasks with a ``scored`` record whose fingerprint still
matches are kept, everything else (missing, unavailable, interrupted) is run
again. Results are assembled in dataset order, so concurrency and interruptions
change neither the scores nor their order.

A session holds ``run.lock`` for its whole life (one session per directory), writes
nothing through a symbolic link, and turns every failed write (disk full, read-only
folder) into one sentence: the trace keeps what was written, so ``--resume`` continues
once the cause is fixed.
"""

from __future__ import annotations

import datetime as _dt
import json
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from ..model.errors import StructEvalError
from ..safe_files import FileAccessError, explain_os_error, refuse_symlink, write_atomic
from ..statistics.factors import recorded_modality
from ..statistics.runs import run_statistics
from .grading import Grader, scorer_grade
from .images import MAX_IMAGE_BYTES, ImageError, encode_image
from .prompts import system_prompt
from .repair_loop import RunContext, TaskLike, run_task, task_fingerprint
from .response import MAX_ANSWER_CHARS
from .results import SCORED, TaskResult, running_accuracy, summarize
from .runlock import RunLock
from .settings import GradingSettings, RetryPolicy, TransportSettings
from .trace import Redactor, TraceReader, TraceWriter, jsonable
from .transport import ChatTransport

RUN_FORMAT = 1


class RunDirError(StructEvalError):
    """The output directory cannot be used as asked (occupied, or a different run)."""


@dataclass(frozen=True)
class SessionOutcome:
    results: list[TaskResult]
    summary: dict[str, Any]
    reused: int  # tasks taken over from earlier sessions
    ran: int  # tasks run in this session
    session: int


def _write_json_atomic(path: Path, data: Any, redact: Redactor) -> None:
    pretty = json.dumps(jsonable(data, redact), indent=2, ensure_ascii=False,
                        allow_nan=False) + "\n"
    write_atomic(path, pretty.encode("utf-8"))


def _previous_state(records: Iterable[dict[str, Any]],
                    ) -> tuple[dict[tuple[int, str], TaskResult], int, float, int]:
    """(last task result per (run, id), next session number, wall seconds of past sessions,
    task records that were not believable and are ignored). ``records`` is consumed once,
    as it is read: the trace is never held in memory."""
    finished: dict[tuple[int, str], TaskResult] = {}
    sessions: dict[int, float] = {}
    rejected = 0
    for rec in records:
        session = rec.get("session")
        if isinstance(session, int) and not isinstance(session, bool) and 0 <= session < 10**6:
            elapsed = rec.get("wall_s", rec.get("elapsed_s", 0.0))
            if isinstance(elapsed, (int, float)) and 0 <= elapsed < 1e9:
                sessions[session] = max(sessions.get(session, 0.0), float(elapsed))
        if rec["type"] == "task":
            try:
                result = TaskResult.from_trace_record(rec)
            except (KeyError, TypeError, ValueError):
                rejected += 1
                continue
            finished[(result.run, result.id)] = result
    next_session = max(sessions, default=-1) + 1
    return finished, next_session, sum(sessions.values()), rejected


class Session:
    """One invocation of run_eval on a run directory."""

    def __init__(self, output: Path, *, grading: GradingSettings,
                 transport_settings: TransportSettings, policy: RetryPolicy, api_key: str,
                 resume: bool, grader: Grader = scorer_grade,
                 sleep: Callable[[float], None] = time.sleep, runs: int = 1,
                 data_dir: Path | str | None = None, max_answer_chars: int = MAX_ANSWER_CHARS,
                 max_image_bytes: int = MAX_IMAGE_BYTES):
        self.output = Path(output)
        self.data_dir = data_dir  # recorded so that reports find the same dataset
        self.runs = runs  # independent answers per task (--runs K); run indices 0..K-1
        self.grading = grading
        self.transport_settings = transport_settings
        self.policy = policy
        self.redact = Redactor([api_key])
        self.grader = grader
        self.resume = resume
        self.prompt = system_prompt(grading.prompt_type)
        self.max_image_bytes = max_image_bytes
        self.transport = ChatTransport(api_key=api_key, api_base=transport_settings.api_base,
                                       timeout=transport_settings.timeout,
                                       stream=transport_settings.stream, policy=policy,
                                       sleep=sleep, redact=self.redact,
                                       max_answer_chars=max_answer_chars)
        self.stop = threading.Event()
        self.executing = False  # tasks have been handed to worker threads

    @property
    def trace_path(self) -> Path:
        return self.output / "trace.jsonl"

    @property
    def run_path(self) -> Path:
        return self.output / "run.json"

    @property
    def results_path(self) -> Path:
        return self.output / "results.json"

    def _prepare_dir(self) -> dict[str, Any] | None:
        """The stored run.json when resuming, after checking it is the same run (and that
        none of the run's files is a symbolic link: refused before any request is paid)."""
        for path in (self.run_path, self.trace_path, self.results_path):
            refuse_symlink(path, "run file")
        has_run = self.run_path.exists() or self.trace_path.exists()
        if has_run and not self.resume:
            raise RunDirError(f"{self.output} already holds a run; continue it with --resume "
                              "or choose another --output")
        if not has_run:
            return None
        try:
            stored = json.loads(self.run_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise RunDirError(f"{self.run_path} is missing or unreadable ({exc}); "
                              "cannot tell which run this directory holds") from None
        if not isinstance(stored, dict):
            raise RunDirError(f"{self.run_path} is not a run description (not an object)")
        grading = stored.get("grading")
        mismatch = self.grading.differences(grading if isinstance(grading, dict) else {})
        if stored.get("system_prompt") != self.prompt:
            mismatch.append("system prompt text differs (the prompts changed since)")
        if mismatch:
            raise RunDirError("--resume needs the same grading settings as the stored run:\n  "
                              + "\n  ".join(mismatch))
        return stored

    def _make_dir(self) -> None:
        try:
            self.output.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise FileAccessError(explain_os_error(exc, self.output, "create the run folder")
                                  ) from None

    def _manifest(self, stored: dict[str, Any] | None, session: int,
                  tasks: Sequence[TaskLike]) -> dict[str, Any]:
        sessions = [entry for entry in (stored or {}).get("sessions", [])
                    if isinstance(entry, dict)] if isinstance((stored or {}).get("sessions"),
                                                               list) else []
        sessions.append({"session": session,
                         "started_at": _dt.datetime.now(_dt.timezone.utc).isoformat(
                             timespec="seconds"),
                         "transport": self.transport_settings.to_json(),
                         "retry_policy": asdict(self.policy), "selected_tasks": len(tasks),
                         "runs": self.runs,
                         "data_dir": _recorded(self.data_dir)})
        return {"format": RUN_FORMAT, "grading": self.grading.to_json(), "sessions": sessions,
                "system_prompt": self.prompt}

    def run(self, tasks: Sequence[TaskLike], *, progress: bool | None = None,
            echo: Callable[[str], None] = print) -> SessionOutcome:
        """Run what is left of the run in ``output``; raises RunDirError / RunLocked /
        FileAccessError (all StructEvalError) with one sentence when it cannot."""
        self._make_dir()
        with RunLock(self.output):
            return self._run_locked(tasks, progress, echo)

    def _run_locked(self, tasks: Sequence[TaskLike], progress: bool | None,
                    echo: Callable[[str], None]) -> SessionOutcome:
        stored = self._prepare_dir()
        reader = TraceReader(self.trace_path)
        previous, session, past_wall, rejected = _previous_state(reader)
        if reader.skipped or rejected:
            echo(f"note: skipped {reader.skipped + rejected} unreadable line(s) of "
                 f"{self.trace_path} (a session was killed mid-write, or the file was edited); "
                 "their tasks are run again")
        manifest = self._manifest(stored, session, tasks)
        _write_json_atomic(self.run_path, manifest, self.redact)

        kept: dict[tuple[int, str], TaskResult] = {}
        pending: list[tuple[int, TaskLike]] = []
        for run in range(self.runs):
            for task in tasks:
                old = previous.get((run, task.id))
                if old is not None and old.status == SCORED and \
                        _same_task(task, old, self.max_image_bytes):
                    kept[(run, task.id)] = old
                else:
                    pending.append((run, task))

        started = time.monotonic()
        with TraceWriter(self.trace_path, self.redact) as writer:
            ctx = RunContext(self.grading, self.transport_settings, self.transport, self.grader,
                             self.prompt, writer.write, session, started, self.stop,
                             self.max_image_bytes)
            ctx.record("session", 0, {"resumed": bool(previous), "reused": len(kept),
                                      "pending": len(pending)})
            fresh = self._execute(ctx, tasks, pending, kept, progress)
            wall = time.monotonic() - started
            ctx.record("session_end", 0, {"wall_s": round(wall, 3)})
        ordered = [fresh.get((run, t.id)) or kept[(run, t.id)]
                   for run in range(self.runs) for t in tasks]
        summary = summarize(ordered, wall_s=past_wall + wall,
                            modality=recorded_modality(manifest))
        summary["statistics"] = run_statistics(ordered)
        document = {"summary": summary, "tasks": [r.results_entry() for r in ordered]}
        _write_json_atomic(self.results_path, document, self.redact)
        return SessionOutcome(ordered, summary, len(kept), len(pending), session)

    def _execute(self, ctx: RunContext, tasks: Sequence[TaskLike],
                 pending: list[tuple[int, TaskLike]], kept: dict[tuple[int, str], TaskResult],
                 progress: bool | None) -> dict[tuple[int, str], TaskResult]:
        fresh: dict[tuple[int, str], TaskResult] = {}
        self.executing = True
        bar = tqdm(total=len(tasks) * self.runs, initial=len(kept), unit="task",
                   dynamic_ncols=True,
                   disable=None if progress is None else not progress)
        if kept:
            bar.set_postfix_str(f"acc {running_accuracy(kept.values()):.1f}%")
        workers = max(1, min(self.transport_settings.concurrency, len(pending) or 1))
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="task")
        futures: dict[Future[TaskResult], TaskLike] = {
            pool.submit(run_task, ctx, task, run=run): task for run, task in pending}
        try:
            waiting = set(futures)
            while waiting:
                done, waiting = wait(waiting, return_when=FIRST_COMPLETED)
                for future in done:
                    result = future.result()
                    fresh[(result.run, result.id)] = result
                    bar.update(1)
                    finished = list(kept.values()) + list(fresh.values())
                    bar.set_postfix_str(f"acc {running_accuracy(finished):.1f}%")
        except BaseException:
            self.stop.set()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        finally:
            bar.close()
        pool.shutdown(wait=True)
        return fresh


def _same_task(task: TaskLike, old: TaskResult, max_image_bytes: int) -> bool:
    try:
        return task_fingerprint(task, encode_image(task.image_path, max_image_bytes)) \
            == old.fingerprint
    except ImageError:
        return False


def _recorded(data_dir: Path | str | None) -> str | None:
    """--data-dir as run.json keeps it: a folder made absolute, a hub reference as given."""
    if not data_dir:
        return None
    text = str(data_dir)
    return text if text.startswith("hf://") else str(Path(text).resolve())
