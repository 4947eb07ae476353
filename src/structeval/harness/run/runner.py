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

``run.json`` also records the provenance of the run (:mod:`.provenance`; ``--resume``
refuses a changed scorer, solver or dataset unless ``--force-resume``) and the
parameter adaptations the endpoint forced (:mod:`.negotiation`; rewritten as soon as
one happens, and applied from the start by a resumed session). With a response cache
(:mod:`.response_cache`) a rerun of the same settings sends nothing. ``--max-cost``
stops *starting* tasks once this session has paid that much; tasks already in flight
finish, the others are reported unavailable ("not run") and ``--resume`` runs them.
"""

from __future__ import annotations

import datetime as _dt
import json
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from ...model.errors import StructEvalError
from ...safe_files import FileAccessError, explain_os_error, refuse_symlink, write_atomic
from ...statistics.factors import recorded_modality
from ...statistics.runs import run_statistics
from ..answers.grading import Grader, language_grader
from ..client.failfast import FirstRequests
from ..client.negotiation import (
    FIRST_REJECTIONS,
    PROBE_GRACE_S,
    Adaptation,
    Negotiator,
    RequestOptions,
)
from ..client.response import MAX_ANSWER_CHARS
from ..client.transport import ChatTransport
from ..common.settings import GradingSettings, RetryPolicy, TransportSettings, public_url
from ..common.trace import Redactor, TraceReader, TraceWriter, jsonable
from ..inputs.images import MAX_IMAGE_BYTES
from ..inputs.prompts import system_prompt
from ..inputs.task_input import MAX_DXF_BYTES, DxfError, ImageError, has_input, prepare_input
from . import provenance
from .batch import BatchJobs, BatchSettings
from .cost import CostMeter, Prices
from .progress import ProgressLines
from .repair_loop import RunContext, TaskLike, run_task, task_fingerprint
from .response_cache import ResponseCache, negotiation_scope
from .results import SCORED, TaskResult, running_accuracy, summarize
from .runlock import RunLock
from .trace_state import previous_state

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
    skipped: tuple[str, ...] = ()  # tasks that cannot be shown in the run's modality
    stopped: int = 0  # (run, task) pairs not started because --max-cost was reached


def write_json_atomic(path: Path, data: Any, redact: Redactor) -> None:
    pretty = json.dumps(jsonable(data, redact), indent=2, ensure_ascii=False,
                        allow_nan=False) + "\n"
    write_atomic(path, pretty.encode("utf-8"))


class Session:
    """One invocation of run_eval on a run directory."""

    def __init__(self, output: Path, *, grading: GradingSettings,
                 transport_settings: TransportSettings, policy: RetryPolicy, api_key: str,
                 resume: bool, grader: Grader | None = None,
                 sleep: Callable[[float], None] = time.sleep, runs: int = 1,
                 data_dir: Path | str | None = None,
                 max_answer_chars: int = MAX_ANSWER_CHARS,
                 max_image_bytes: int = MAX_IMAGE_BYTES, cache: ResponseCache | None = None,
                 prices: Prices | None = None, max_cost: float | None = None,
                 force_resume: bool = False, temperature_explicit: bool = False,
                 max_dxf_bytes: int = MAX_DXF_BYTES, probe_grace: float = PROBE_GRACE_S,
                 batch: BatchSettings | None = None,
                 progress_lines: ProgressLines | None = None,
                 selection: dict[str, Any] | None = None):
        if batch is not None and grading.image_mode == "zoom":
            raise ValueError("a zoom run cannot go through the Batch API (an attempt is a "
                             "conversation of several requests)")
        self.output = Path(output)
        self.data_dir = data_dir  # recorded so that reports find the same dataset
        self.runs = runs  # independent answers per task (--runs K); run indices 0..K-1
        self.grading = grading
        self.transport_settings = transport_settings
        self.policy = policy
        self.redact = Redactor([api_key])
        self.grader = grader or language_grader(grading.lang)
        self.resume = resume
        self.force_resume = force_resume
        self.prompt = system_prompt(grading.prompt_type, grading.lang)
        self.max_image_bytes = max_image_bytes
        self.max_dxf_bytes = max_dxf_bytes
        self.probe_grace = probe_grace  # how long others wait for the first request's outcome
        self.cache = cache
        self.prices = prices
        self.batch = batch  # --batch: first attempts through the Batch API
        self._batch_summary: dict[str, Any] | None = None  # what this session's jobs gave
        self.sleep = sleep
        self.meter = CostMeter(max_cost)
        self.stop = threading.Event()
        self.options = RequestOptions(grading.reasoning_effort, dict(grading.extra_body),
                                      grading.image_detail, temperature_explicit)
        self.transport = ChatTransport(api_key=api_key, api_base=transport_settings.api_base,
                                       timeout=transport_settings.timeout,
                                       stream=transport_settings.stream, policy=policy,
                                       sleep=sleep, redact=self.redact,
                                       max_answer_chars=max_answer_chars, model=grading.model,
                                       options=self.options, first_requests=FirstRequests(
                                           public_url(transport_settings.api_base)))
        self.progress_lines = progress_lines  # the periodic line when stdout is no terminal
        self.selection = dict(selection or {})  # how the tasks were chosen (--split, --limit…)
        self.executing = False  # tasks have been handed to worker threads
        self.provenance: dict[str, Any] = {}  # this session's (collected when it runs)
        self._forced: list[str] = []  # what --force-resume overrode
        self._manifest_now: dict[str, Any] = {}
        self._manifest_lock = threading.Lock()

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
        """The stored run.json when resuming, after checking it is the same run — same
        grading settings, same scorer, solver and dataset (unless ``force_resume``) — and
        that none of the run's files is a symbolic link: refused before any request is
        paid."""
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
        conflicts = provenance.resume_conflicts(stored.get("provenance"), self.provenance)
        if conflicts and not self.force_resume:
            raise RunDirError("--resume refuses to mix results of different code or data:\n  "
                              + "\n  ".join(conflicts) + "\nstart a new run (another "
                              "--output), rescore this one (tools/rescore.py), or pass "
                              "--force-resume to continue anyway")
        self._forced = conflicts
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
        entry = {"session": session,
                 "started_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                 "transport": self.transport_settings.to_json(),
                 "retry_policy": asdict(self.policy), "selected_tasks": len(tasks),
                 "runs": self.runs,
                 "data_dir": _recorded(self.data_dir),
                 "selection": self.selection,
                 "provenance": self.provenance,
                 "cache": str(self.cache.root) if self.cache is not None else None,
                 "prices": self.prices.to_json() if self.prices else None,
                 "max_cost": self.meter.limit,
                 "batch": self.batch.to_json() if self.batch is not None else None}
        if self._forced:
            entry["forced_resume"] = list(self._forced)
        sessions.append(entry)
        first = (stored or {}).get("provenance")
        return {"format": RUN_FORMAT, "grading": self.grading.to_json(), "sessions": sessions,
                "system_prompt": self.prompt,
                "provenance": first if isinstance(first, dict) else self.provenance,
                "negotiated": self.transport.negotiator.negotiated(),
                "negotiation": [a.to_json() for a in self.transport.negotiator.adaptations]}

    def _negotiation_scope(self) -> str:
        g = self.grading
        return negotiation_scope(endpoint=public_url(self.transport_settings.api_base),
                                 model=g.model, requested={
                                     "temperature": g.temperature, "max_tokens": g.max_tokens,
                                     "explicit_temperature": self.options.temperature_explicit,
                                     "reasoning_effort": g.reasoning_effort,
                                     "extra_body": dict(g.extra_body),
                                     "image_detail": g.image_detail,
                                     "stream": self.transport_settings.stream})

    def _negotiator(self, stored: dict[str, Any] | None) -> Negotiator:
        """The run's parameter plan: the stored run's adaptations (resume), else those the
        response cache remembers for these settings."""
        records = (stored or {}).get("negotiation")
        if not isinstance(records, list) and self.cache is not None:
            records = self.cache.recall_negotiation(self._negotiation_scope())
        learned = [a for a in map(Adaptation.from_json, records or []) if a is not None]
        return Negotiator(api_base_token_parameter=self.transport.token_parameter,
                          model=self.grading.model, options=self.options, stored=learned,
                          on_change=self._negotiated, stop=self.stop,
                          stream=self.transport_settings.stream,
                          early_rejection_limit=FIRST_REJECTIONS,
                          probe_grace=self.probe_grace)

    def negotiator_for_estimate(self) -> Negotiator:
        """The plan a session would start with (for ``--dry-run``: nothing is written)."""
        stored = None
        if self.resume:
            try:
                stored = json.loads(self.run_path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                stored = None
        return self._negotiator(stored if isinstance(stored, dict) else None)

    def _negotiated(self, adaptations: list[Adaptation]) -> None:
        """An adaptation happened: run.json says so at once, the cache remembers it."""
        with self._manifest_lock:
            self._manifest_now["negotiated"] = {a.parameter: a.summary() for a in adaptations}
            self._manifest_now["negotiation"] = [a.to_json() for a in adaptations]
            write_json_atomic(self.run_path, self._manifest_now, self.redact)
        if self.cache is not None:
            self.cache.remember_negotiation(self._negotiation_scope(),
                                            [a.to_json() for a in adaptations])

    def showable(self, tasks: Sequence[TaskLike]) -> tuple[list[TaskLike], list[str]]:
        """(tasks that can be shown in the run's modality, ids of those skipped)."""
        shown = [t for t in tasks if has_input(t, self.grading.modality)]
        return shown, [t.id for t in tasks if not has_input(t, self.grading.modality)]

    def run(self, tasks: Sequence[TaskLike], *, progress: bool | None = None,
            echo: Callable[[str], None] = print) -> SessionOutcome:
        """Run what is left of the run in ``output``; raises RunDirError / RunLocked /
        FileAccessError (all StructEvalError) with one sentence when it cannot."""
        tasks, skipped = self.showable(tasks)
        if not tasks:
            raise RunDirError(f"none of the {len(skipped)} selected task(s) has a DXF file, so "
                              "--modality dxf has nothing to send (the dataset does not ship "
                              "DXF files for them)")
        self._make_dir()
        with RunLock(self.output):
            return self._run_locked(tasks, skipped, progress, echo)

    def _run_locked(self, tasks: Sequence[TaskLike], skipped: list[str], progress: bool | None,
                    echo: Callable[[str], None]) -> SessionOutcome:
        self.provenance = provenance.collect(data_root(tasks, self.data_dir), tasks)
        self._forced = []
        stored = self._prepare_dir()
        self.transport.negotiator = self._negotiator(stored)
        if self._forced:
            echo("note: --force-resume: continuing although " + "; ".join(self._forced))
        reader = TraceReader(self.trace_path)
        state = previous_state(reader)
        previous, session, past_wall, rejected = (state.finished, state.next_session,
                                                  state.past_wall, state.rejected)
        if reader.skipped or rejected:
            echo(f"note: skipped {reader.skipped + rejected} unreadable line(s) of "
                 f"{self.trace_path} (a session was killed mid-write, or the file was edited); "
                 "their tasks are run again")
        manifest = self._manifest(stored, session, tasks)
        with self._manifest_lock:
            self._manifest_now = manifest
            write_json_atomic(self.run_path, manifest, self.redact)

        kept: dict[tuple[int, str], TaskResult] = {}
        pending: list[tuple[int, TaskLike]] = []
        for run in range(self.runs):
            for task in tasks:
                old = previous.get((run, task.id))
                if old is not None and old.status == SCORED and self._same_task(task, old):
                    kept[(run, task.id)] = old
                else:
                    pending.append((run, task))

        started = time.monotonic()
        with TraceWriter(self.trace_path, self.redact) as writer:
            ctx = RunContext(self.grading, self.transport_settings, self.transport, self.grader,
                             self.prompt, writer.write, session, started, self.stop,
                             self.max_image_bytes, self.cache, self.prices, self.meter,
                             self.max_dxf_bytes)
            ctx.record("session", 0, {"resumed": bool(previous), "reused": len(kept),
                                      "pending": len(pending)})
            if self.batch is not None and pending:
                jobs = BatchJobs(ctx, self.output, self.redact, settings=self.batch,
                                 sleep=self.sleep, echo=echo)
                ctx.batch = jobs.prefetch(pending)
                self._batch_summary = jobs.summary()
                ctx.record("batch", 0, self._batch_summary)
            fresh = self._execute(ctx, tasks, pending, kept, progress)
            wall = time.monotonic() - started
            ctx.record("session_end", 0, {"wall_s": round(wall, 3)})
        ordered = [fresh.get((run, t.id)) or kept[(run, t.id)]
                   for run in range(self.runs) for t in tasks]
        summary = summarize(ordered, wall_s=past_wall + wall,
                            modality=recorded_modality(manifest))
        summary.update(self._run_summary(ordered, skipped))
        summary["cost"].update(self._cost_summary())
        summary["statistics"] = run_statistics(ordered)
        document = {"summary": summary, "tasks": [r.results_entry() for r in ordered]}
        write_json_atomic(self.results_path, document, self.redact)
        stopped = sum(r.stopped for r in ordered)
        return SessionOutcome(ordered, summary, len(kept), len(pending) - stopped, session,
                              tuple(skipped), stopped)

    def _run_summary(self, ordered: list[TaskResult], skipped: list[str]) -> dict[str, Any]:
        """What results.json says about the run as a whole, beside the metrics."""
        return {"modality": self.grading.modality, "image_mode": self.grading.image_mode,
                "max_zooms": self.grading.max_zooms, "lang": self.grading.lang,
                "selection": self.selection,
                "skipped": {"no_dxf": len(skipped), "tasks": skipped[:50]},
                "stopped_by_max_cost": sum(r.stopped for r in ordered),
                "negotiated": self.transport.negotiator.negotiated(),
                "cache": self.cache.stats() if self.cache is not None else None,
                "batch": self._batch_summary,
                "provenance": self.provenance}

    def _cost_summary(self) -> dict[str, Any]:
        return {"prices": self.prices.to_json() if self.prices else None,
                "paid_this_session_usd": round(self.meter.paid, 8) if self.prices else None,
                "estimated_this_session_usd": (round(self.meter.estimated, 8)
                                               if self.prices else None),
                "max_cost": self.meter.limit}

    def _same_task(self, task: TaskLike, old: TaskResult) -> bool:
        try:
            shown = prepare_input(task, self.grading.modality,
                                  max_image_bytes=self.max_image_bytes,
                                  max_dxf_bytes=self.max_dxf_bytes)
        except (ImageError, DxfError):
            return False
        return task_fingerprint(task, shown) == old.fingerprint

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
        lines = self.progress_lines
        if lines is not None:
            lines.start(len(tasks) * self.runs, kept.values(), self.meter,
                        priced=self.prices is not None)
        try:
            waiting = set(futures)
            while waiting:
                done, waiting = wait(waiting, return_when=FIRST_COMPLETED,
                                     timeout=lines.until_due() if lines else None)
                for future in done:
                    result = future.result()
                    fresh[(result.run, result.id)] = result
                    bar.update(1)
                    finished = list(kept.values()) + list(fresh.values())
                    bar.set_postfix_str(f"acc {running_accuracy(finished):.1f}%")
                if lines is not None:
                    lines.tick(fresh.values())
        except BaseException:
            self.stop.set()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        finally:
            bar.close()
        pool.shutdown(wait=True)
        return fresh



def _recorded(data_dir: Path | str | None) -> str | None:
    """--data-dir as run.json keeps it: a folder made absolute, a hub reference as given."""
    if not data_dir:
        return None
    text = str(data_dir)
    return text if text.startswith("hf://") else str(Path(text).resolve())


def default_data_dir() -> Path:
    from ...dataset import DATA_DIR

    return Path(DATA_DIR)


def data_root(tasks: Sequence[TaskLike], data_dir: Path | str | None) -> Path:
    """The local folder the tasks' files are in (``images/`` is beside ``raw_models/`` and
    ``ground_truth_meta/``), whatever ``--data-dir`` named: a folder, or a dataset fetched
    into a local cache; else ``data_dir`` itself, else the shipped data."""
    for task in tasks:
        image = getattr(task, "image_path", None)
        if image:
            return Path(image).resolve().parent.parent
    if data_dir and not str(data_dir).startswith("hf://"):
        return Path(data_dir)
    return default_data_dir()
