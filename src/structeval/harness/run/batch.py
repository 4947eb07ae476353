"""``--batch``: a session's first attempts through the OpenAI Batch API, at half the price.

Why only the first attempts: a repair needs the diagnosis of the answer before
it, so it cannot be known when the batch is built; repairs are sent live, as
without ``--batch``. The first attempt of every pending (run, task) is written
as one JSONL line (the request the live path would send now: same messages,
same negotiated parameters, no streaming), the file is uploaded
(``POST /files``, purpose ``batch``), a job is created (``POST /batches``,
endpoint ``/v1/chat/completions``, window 24 h) and polled
(``GET /batches/{id}``) until it ends; its output file is downloaded into the
run folder and its answers wait in a :class:`~.batch_store.BatchAnswers` for
their tasks, which then run as usual (grading, repairs, trace, results).

Resumable: ``batches.json`` in the run folder records every job the moment it is
created (id, and which request each line is), and each output file is kept
(``batch-<n>.jsonl``). A session stopped while a job runs (Ctrl-C, a crash, a
closed laptop) is continued by ``--resume --batch``: the job is polled again,
not submitted again, and a downloaded output is never downloaded twice. Only
requests that no recorded job holds are submitted anew.

What can go wrong, and what happens: an endpoint without the Batch API (404),
refused credentials (401/403) — the run stops (exit 4) with one sentence; a
connection fault or 5xx — retried with the run's backoff policy, then exit 4;
a job that ends ``failed``, ``expired`` or ``cancelled``, a line whose request
failed, a line that is not a believable answer — a note, and those first
attempts are sent live. Ids the server hands back are checked before they are
used in a URL path; ``batches.json`` edited by hand is read entry by entry
(a bad entry is dropped with a note, its requests are submitted again).

Limits: at most :data:`MAX_FILE_BYTES` per input file and :data:`MAX_REQUESTS`
lines per job (below OpenAI's 200 MB / 50,000); a larger session is split into
several jobs. ``--max-cost`` cannot be combined with ``--batch`` (a submitted job
is billed whole, whatever the limit).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...model.errors import StructEvalError
from ...safe_files import (
    FileAccessError,
    explain_os_error,
    read_capped,
    refuse_symlink,
    write_atomic,
)
from ..client.http_client import request_deadline
from ..client.negotiation import with_detail
from ..client.response import body_cap
from ..client.service_errors import ServiceFatal
from ..common.settings import public_url
from ..common.trace import Redactor, jsonable, redact_then_cut
from ..inputs.task_input import DxfError, ImageError
from .ask import planned_request
from .batch_store import BatchAnswers, LineCounts
from .repair_loop import RunContext, TaskLike, conversation

STATE_FILE = "batches.json"
STATE_FORMAT = 1
BATCH_URL = "/v1/chat/completions"
COMPLETION_WINDOW = "24h"
MAX_FILE_BYTES = 190_000_000
MAX_REQUESTS = 50_000
FINAL_STATES = frozenset({"completed", "failed", "expired", "cancelled"})
DEFAULT_POLL_S = 30.0
DEFAULT_WAIT_S = 25 * 3600.0  # the 24 h window and an hour of slack
MAX_STATE_BYTES = 256 << 20
_ID = re.compile(r"[A-Za-z0-9_.:-]{1,200}")


class BatchError(StructEvalError):
    """The batch phase cannot go on as asked (exit 2, one sentence, resumable)."""


@dataclass(frozen=True)
class BatchSettings:
    """How a session uses the Batch API (``--batch``, ``--batch-poll``)."""

    poll_s: float = DEFAULT_POLL_S
    wait_s: float = DEFAULT_WAIT_S

    def to_json(self) -> dict[str, Any]:
        return {"poll_s": self.poll_s, "wait_s": self.wait_s}


@dataclass(frozen=True)
class Line:
    """One first attempt as a line of the job's input file."""

    custom_id: str
    key: str
    data: bytes


@dataclass
class Job:
    """A job as ``batches.json`` records it."""

    id: str
    requests: dict[str, str]  # custom_id → request key
    status: str = "submitted"
    output: str | None = None  # file name in the run folder, once downloaded
    counts: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "requests": self.requests, "status": self.status,
                "output": self.output, "counts": self.counts}

    @classmethod
    def from_json(cls, data: Any) -> Job | None:
        if not isinstance(data, dict):
            return None
        job_id, requests = data.get("id"), data.get("requests")
        status, output = data.get("status"), data.get("output")
        if not isinstance(job_id, str) or not _ID.fullmatch(job_id) \
                or not isinstance(requests, dict) or not isinstance(status, str):
            return None
        if not all(isinstance(k, str) and isinstance(v, str) and re.fullmatch(r"[0-9a-f]{64}", v)
                   for k, v in requests.items()):
            return None
        if output is not None and (not isinstance(output, str) or (output and
                                   not re.fullmatch(r"batch-[0-9]{1,6}\.jsonl", output))):
            return None
        counts = data.get("counts")
        clean = {k: v for k, v in counts.items() if isinstance(k, str) and isinstance(v, int)
                 and not isinstance(v, bool)} if isinstance(counts, dict) else {}
        return cls(job_id, dict(requests), status[:40], output, clean)


def first_attempt_lines(ctx: RunContext, pending: Sequence[tuple[int, TaskLike]]) -> list[Line]:
    """The first-attempt request of every pending (run, task) whose input can be shown and
    whose answer the response cache does not hold already (a task whose image or DXF cannot
    be sent is left to the live path, which says why).

    Each input is encoded here and again when its task runs: keeping every encoded image
    through a job that may take up to a day would hold ~100 MB for a few ms per task."""
    g = ctx.grading
    endpoint = public_url(ctx.transport_settings.api_base)
    lines: list[Line] = []
    seen: set[str] = set()
    for run, task in pending:
        try:
            shown = ctx.prepare(task)
        except (ImageError, DxfError):
            continue
        messages = conversation(ctx.system_prompt, task, shown, g)
        request, sent, detail = planned_request(ctx.transport, endpoint=endpoint, model=g.model,
                                                messages=messages, temperature=g.temperature,
                                                max_tokens=g.max_tokens, run=run, attempt=1)
        key = request.key
        if key in seen or (ctx.cache is not None and ctx.cache.peek(request)):
            continue  # asked twice, or answered already: the cache serves it for free
        seen.add(key)
        body = {"model": g.model, "messages": with_detail(messages, detail), **sent}
        custom_id = f"se-{key[:48]}"
        line = {"custom_id": custom_id, "method": "POST", "url": BATCH_URL, "body": body}
        data = json.dumps(line, ensure_ascii=False, allow_nan=False).encode("utf-8") + b"\n"
        lines.append(Line(custom_id, key, data))
    return lines


def chunks(lines: Sequence[Line], max_bytes: int = MAX_FILE_BYTES,
           max_count: int = MAX_REQUESTS) -> Iterator[list[Line]]:
    """Lines grouped into input files within the provider's size and count limits."""
    group: list[Line] = []
    size = 0
    for line in lines:
        if group and (size + len(line.data) > max_bytes or len(group) >= max_count):
            yield group
            group, size = [], 0
        group.append(line)
        size += len(line.data)
    if group:
        yield group


class BatchJobs:
    """Submits, polls and downloads the jobs of one run folder (see the module docstring)."""

    def __init__(self, ctx: RunContext, output: Path, redact: Redactor, *,
                 settings: BatchSettings, sleep: Callable[[float], None] = time.sleep,
                 echo: Callable[[str], None] = print,
                 clock: Callable[[], float] = time.monotonic):
        self.ctx = ctx
        self.output = Path(output)
        self.redact = redact
        self.settings = settings
        self.sleep = sleep
        self.echo = echo
        self.clock = clock
        self.transport = ctx.transport
        self.client = ctx.transport.client
        self.counts = LineCounts()
        self.submitted = 0

    @property
    def state_path(self) -> Path:
        return self.output / STATE_FILE

    # ----------------------------------------------------------------- the phase

    def prefetch(self, pending: Sequence[tuple[int, TaskLike]]) -> BatchAnswers:
        """Answers for the first attempts of ``pending``: from recorded jobs where they
        hold them, else from new jobs submitted now; waits until every job involved ends."""
        jobs = self._load()
        lines = first_attempt_lines(self.ctx, pending)
        wanted = {line.key for line in lines}
        recorded = {key for job in jobs for key in job.requests.values()}
        fresh = [line for line in lines if line.key not in recorded]
        for group in chunks(fresh):
            jobs.append(self._submit(group))
            self.submitted += len(group)
            self._save(jobs)
        answers = BatchAnswers(self.transport.max_answer_chars)
        for index, job in enumerate(jobs):
            if not wanted & set(job.requests.values()):
                continue
            if job.output is None:
                self._finish(job, index, jobs)
            if job.output is not None:
                counts = answers.add_lines(self._output_lines(job), job.requests)
                for name, value in counts.to_json().items():
                    setattr(self.counts, name, getattr(self.counts, name) + value)
        live = len(wanted) - len(answers)
        if wanted:
            self.echo(f"batch: {len(answers)} of {len(wanted)} first attempt(s) answered by "
                      f"the Batch API" + (f"; {live} will be sent live" if live else ""))
        return answers

    def summary(self) -> dict[str, Any]:
        return {"submitted": self.submitted, **self.counts.to_json()}

    # ----------------------------------------------------------------- steps

    def _submit(self, group: list[Line]) -> Job:
        data = b"".join(line.data for line in group)
        uploaded = self._call("upload the batch input file", lambda: self.client.files.create(
            file=("structeval-batch.jsonl", data, "application/jsonl"), purpose="batch"))
        file_id = self._id(uploaded, "the uploaded input file")
        created = self._call("create the batch job", lambda: self.client.batches.create(
            input_file_id=file_id, endpoint=BATCH_URL, completion_window=COMPLETION_WINDOW,
            metadata={"tool": "structeval"}))
        job = Job(self._id(created, "the created batch job"),
                  {line.custom_id: line.key for line in group})
        self.echo(f"batch: submitted job {job.id} with {len(group)} first attempt(s)")
        return job

    def _finish(self, job: Job, index: int, jobs: list[Job]) -> None:
        """Poll ``job`` until it ends, then keep its output file in the run folder."""
        started = self.clock()
        said = ""
        while True:
            batch = self._call(f"ask for the state of batch job {job.id}",
                               lambda: self.client.batches.retrieve(job.id))
            status = _text(getattr(batch, "status", None)) or "unknown"
            progress = _progress(getattr(batch, "request_counts", None))
            if f"{status} {progress}" != said:
                said = f"{status} {progress}"
                self.echo(f"batch: job {job.id} is {status}{progress}")
            if status in FINAL_STATES:
                break
            if self.clock() - started > self.settings.wait_s:
                raise BatchError(f"batch job {job.id} has not ended after "
                                 f"{self.settings.wait_s:g} s (it is '{status}'); continue "
                                 "later with --resume --batch")
            self.sleep(self.settings.poll_s)
        job.status = status
        output_id = getattr(batch, "output_file_id", None)
        if output_id is None:
            job.output = ""  # ended without answers: every first attempt goes live
            self.echo(f"note: batch job {job.id} ended '{status}' without an output file; its "
                      "first attempts are sent live")
        else:
            name = f"batch-{index}.jsonl"
            self._download(self._checked_id(output_id, "the job's output file"), name,
                           len(job.requests))
            job.output = name
        self._save(jobs)

    def _output_cap(self, requests: int) -> int:
        """The most bytes a job's output file of ``requests`` lines may hold: each line one
        reply body within the answer cap, plus its envelope."""
        return requests * (body_cap(self.transport.max_answer_chars) + 4096) + (1 << 20)

    def _download(self, file_id: str, name: str, requests: int) -> None:
        cap = self._output_cap(requests)

        def fetch() -> bytes:
            with self.client.files.with_streaming_response.content(file_id) as raw:
                buffer = bytearray()
                for chunk in raw.iter_bytes():
                    buffer += chunk
                    if len(buffer) > cap:
                        raise BatchError(f"the output file {file_id} is larger than "
                                         f"{cap:,} bytes for {requests} request(s); not read")
                return bytes(buffer)

        data = self._call(f"download the output file {file_id}", fetch)
        path = self.output / name
        try:
            write_atomic(path, data)
        except OSError as exc:
            raise FileAccessError(explain_os_error(exc, path, "write")) from None

    def _output_lines(self, job: Job) -> list[bytes]:
        if not job.output:
            return []
        path = self.output / job.output
        refuse_symlink(path, "batch output file")
        cap = self._output_cap(len(job.requests))
        try:
            return read_capped(path, cap, "batch output file").splitlines()
        except FileAccessError as exc:
            self.echo(f"note: {exc}; the first attempts of job {job.id} are sent live")
            return []

    # ----------------------------------------------------------------- the API

    def _call(self, what: str, request: Callable[[], Any]) -> Any:
        """One Batch API request with the run's retry policy: transient faults are retried,
        refusals stop the run with one sentence."""
        import openai  # the API client, loaded where a request is sent (the transport made it)

        policy = self.transport.policy
        for tries in range(1, policy.tries + 1):
            try:
                with request_deadline(self.transport.timeout):
                    return request()
            except openai.APIStatusError as exc:
                status = exc.status_code
                said = redact_then_cut(exc.message, self.redact)
                if status == 404:
                    raise ServiceFatal(f"could not {what}: the endpoint has no Batch API "
                                       f"(HTTP 404: {said}); run without --batch") from None
                if status in (401, 403):
                    raise ServiceFatal(f"could not {what}: the API refused the request (HTTP "
                                       f"{status}): {said}; check --api-key and --api-base"
                                       ) from None
                if status < 500 and status not in (408, 409, 429):
                    raise ServiceFatal(f"could not {what}: HTTP {status}: {said}") from None
                fault = f"HTTP {status}: {said}"
            except (openai.APIConnectionError, openai.APIError, ValueError) as exc:
                fault = redact_then_cut(exc, self.redact) or type(exc).__name__
            if tries < policy.tries:
                self.sleep(policy.delay(tries, None, self.transport.rng))
        raise ServiceFatal(f"could not {what} after {policy.tries} tries ({fault}); continue "
                           "later with --resume --batch")

    def _id(self, obj: Any, what: str) -> str:
        return self._checked_id(getattr(obj, "id", None), what)

    @staticmethod
    def _checked_id(value: Any, what: str) -> str:
        if not isinstance(value, str) or not _ID.fullmatch(value):
            raise ServiceFatal(f"the server's answer names {what} with an id that is not "
                               "one (letters, digits, '_.:-', at most 200): the endpoint does "
                               "not speak the Batch API; run without --batch")
        return value

    # ----------------------------------------------------------------- state file

    def _load(self) -> list[Job]:
        path = self.state_path
        refuse_symlink(path, "batch state file")
        if not path.exists():
            return []
        try:
            document = json.loads(read_capped(path, MAX_STATE_BYTES, "batch state file"))
        except (FileAccessError, ValueError, RecursionError) as exc:
            raise BatchError(f"{path} cannot be read ({exc}); move it away to submit the "
                             "first attempts again") from None
        entries = document.get("jobs") if isinstance(document, dict) else None
        if not isinstance(entries, list):
            raise BatchError(f"{path} is not a batch state file (no list of jobs); move it "
                             "away to submit the first attempts again")
        jobs = [job for job in map(Job.from_json, entries) if job is not None]
        if len(jobs) < len(entries):
            self.echo(f"note: {len(entries) - len(jobs)} unreadable job record(s) in {path} "
                      "were ignored; their first attempts are submitted again")
        return jobs

    def _save(self, jobs: list[Job]) -> None:
        document = {"format": STATE_FORMAT, "jobs": [job.to_json() for job in jobs]}
        text = json.dumps(jsonable(document, self.redact), indent=2, ensure_ascii=False)
        try:
            write_atomic(self.state_path, (text + "\n").encode("utf-8"))
        except OSError as exc:
            raise FileAccessError(explain_os_error(exc, self.state_path, "write")) from None


def _text(value: Any) -> str | None:
    return value[:40] if isinstance(value, str) and value.isprintable() else None


def _progress(counts: Any) -> str:
    done, total = getattr(counts, "completed", None), getattr(counts, "total", None)
    if isinstance(done, int) and isinstance(total, int) and 0 <= done <= total:
        return f" ({done}/{total} done)"
    return ""
