"""One task: ask, grade, and on failure ask again with the diagnosis — the repair loop.

Only the last failed exchange is kept in context (system prompt, the drawing,
the previous answer, the feedback): the conversation never grows with the
number of attempts, and each repair is judged on the same footing. The first
attempt's credit is pass@1; the best credit over all attempts is the task's
score. Every attempt is written to the trace the moment it is graded.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ..model import Model, dumps_model
from .grading import Grader, GradingCrash, grade_answer
from .images import MAX_IMAGE_BYTES, EncodedImage, ImageError, encode_image
from .prompts import repair_text, task_text
from .results import SCORED, UNAVAILABLE, TaskResult, Tokens
from .settings import GradingSettings, TransportSettings
from .transport import ChatReply, ChatTransport, RequestRejected, ServiceUnavailable


class TaskLike(Protocol):
    """What the harness needs from :class:`structeval.dataset.Task`."""

    id: str
    category: str
    difficulty: int
    image_path: Any
    model: Model
    notes: str


class Interrupted(Exception):
    """The run was asked to stop; the task is left unfinished (resume will redo it)."""


@dataclass
class RunContext:
    """What every task of a session shares."""

    grading: GradingSettings
    transport_settings: TransportSettings
    transport: ChatTransport
    grader: Grader
    system_prompt: str
    write: Callable[[dict[str, Any]], None]  # appends one trace record
    session: int
    started: float  # time.monotonic() at session start
    stop: threading.Event
    max_image_bytes: int = MAX_IMAGE_BYTES

    def record(self, kind: str, run: int, fields: dict[str, Any]) -> None:
        elapsed = round(time.monotonic() - self.started, 3)
        self.write({"type": kind, "run": run, "session": self.session, "elapsed_s": elapsed,
                    **fields})


def task_factors(task: TaskLike) -> dict[str, str]:
    """The task's presentation factors (none for a task object that has no presentation)."""
    presentation = getattr(task, "presentation", None)
    to_json = getattr(presentation, "to_json", None)
    return dict(to_json()) if callable(to_json) else {}


def task_fingerprint(task: TaskLike, image: EncodedImage) -> str:
    """Identity of what the model is asked and graded on; a finished task is only reused
    by --resume while this is unchanged (new ground truth, image or notes → run again)."""
    digest = hashlib.sha256()
    for part in (dumps_model(task.model, indent=None), image.sha256, task.notes or ""):
        digest.update(part.encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()


def _conversation(ctx: RunContext, task: TaskLike, image_part: str,
                  previous: tuple[str, str] | None) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": ctx.system_prompt},
        {"role": "user", "content": [{"type": "text", "text": task_text(task.notes)},
                                     {"type": "image_url", "image_url": {"url": image_part}}]},
    ]
    if previous is not None:
        answer, feedback = previous
        messages += [{"role": "assistant", "content": answer},
                     {"role": "user", "content": feedback}]
    return messages


def _request_fields(ctx: RunContext, messages: list[dict[str, Any]]) -> dict[str, Any]:
    g, t = ctx.grading, ctx.transport_settings
    return {"model": g.model, "api_base": t.to_json()["api_base"], "prompt_type": g.prompt_type,
            "temperature": g.temperature, "max_tokens": g.max_tokens, "stream": t.stream,
            "timeout": t.timeout, "messages": messages}


def _response_fields(reply: ChatReply) -> dict[str, Any]:
    fields = {"text": reply.text, "finish_reason": reply.finish_reason,
              "latency_s": round(reply.latency_s, 3), "usage_reported": reply.usage_reported,
              "usage": reply.usage, "incidents": [i.to_json() for i in reply.incidents]}
    if reply.truncation is not None:
        fields["truncated"] = reply.truncation
    return fields


def _tokens(reply: ChatReply) -> Tokens:
    """The attempt's counts; an unknown usage counts as unknown, never as numbers."""
    if not reply.usage_known:
        return Tokens(unknown=1)
    return Tokens(reply.prompt_tokens, reply.completion_tokens, reply.total_tokens)


def run_task(ctx: RunContext, task: TaskLike, *, run: int = 0) -> TaskResult:
    """Attempts until perfect or out of repairs; unavailable if the service keeps failing."""
    base = {"id": task.id, "category": task.category, "difficulty": int(task.difficulty),
            "run": run, "structure": str(getattr(task, "structure", "") or task.id),
            "presentation": task_factors(task)}
    try:
        image = encode_image(task.image_path, ctx.max_image_bytes)
    except ImageError as exc:
        return _finish(ctx, TaskResult(**base, status=UNAVAILABLE, ratio=0.0, stage=None,
                                       first_attempt_ratio=None, first_attempt_stage=None,
                                       attempts=0, reason=str(exc)))
    fingerprint = task_fingerprint(task, image)
    placeholder = image.placeholder()
    trace_system = f"<system prompt sha256={_sha(ctx.system_prompt)}, text in run.json>"
    tokens = Tokens()
    budget = ctx.transport.policy.budget()  # backoff seconds this task may still wait
    grades: list[tuple[float, str]] = []
    previous: tuple[str, str] | None = None
    for attempt in range(1, ctx.grading.max_retries + 2):
        if ctx.stop.is_set():
            raise Interrupted(task.id)
        messages = _conversation(ctx, task, image.data_url, previous)
        traced = _conversation(ctx, task, placeholder, previous)
        traced[0]["content"] = trace_system
        head = {"task_id": task.id, "attempt": attempt,
                "request": _request_fields(ctx, traced)}
        try:
            reply = ctx.transport.complete(model=ctx.grading.model, messages=messages,
                                           temperature=ctx.grading.temperature,
                                           max_tokens=ctx.grading.max_tokens,
                                           budget=budget)
        except ServiceUnavailable as exc:
            # A repair the API refuses outright (not a passing outage) ends the loop: the
            # task keeps what its answers earned. Anything else must be retried later.
            refused = isinstance(exc, RequestRejected) and attempt > 1
            ctx.record("attempt", run, {**head, "outcome": "rejected" if refused else UNAVAILABLE,
                                        "error": str(exc),
                                        "incidents": [i.to_json() for i in exc.incidents]})
            if refused:
                break
            return _unavailable(ctx, base, fingerprint, attempt - 1, tokens, str(exc))
        used = _tokens(reply)
        tokens = tokens + used
        try:
            graded = grade_answer(task.model, reply.text, tolerance=ctx.grading.tolerance,
                                  grader=ctx.grader)
        except GradingCrash as exc:
            ctx.record("attempt", run, {**head, "outcome": "grading_error",
                                        "response": _response_fields(reply), "error": str(exc),
                                        "tokens": used.to_json()})
            return _unavailable(ctx, base, fingerprint, attempt - 1, tokens, str(exc))
        ctx.record("attempt", run, {**head, "outcome": "graded",
                                    "response": _response_fields(reply),
                                    **graded.trace_fields(), "tokens": used.to_json(),
                                    "latency_s": round(reply.latency_s, 3)})
        grades.append((graded.grade.ratio, graded.grade.stage))
        if graded.grade.ratio >= 1.0:
            break
        previous = (reply.text, repair_text(graded.grade.stage, graded.grade.message))
    best = best_attempt(grades)
    return _finish(ctx, TaskResult(**base, status=SCORED, ratio=grades[best][0],
                                   stage=grades[best][1], first_attempt_ratio=grades[0][0],
                                   first_attempt_stage=grades[0][1], attempts=len(grades),
                                   tokens=tokens, best_attempt=best + 1,
                                   fingerprint=fingerprint))


def best_attempt(grades: list[tuple[float, str]]) -> int:
    """Index of the attempt that sets the task's score: the highest credit, the earliest
    of equals (shared with the inspect_ai task so both pick the same attempt)."""
    return max(range(len(grades)), key=lambda i: (grades[i][0], -i))


def _unavailable(ctx: RunContext, base: dict[str, Any], fingerprint: str, attempts: int,
                 tokens: Tokens, reason: str) -> TaskResult:
    return _finish(ctx, TaskResult(**base, status=UNAVAILABLE, ratio=0.0, stage=None,
                                   first_attempt_ratio=None, first_attempt_stage=None,
                                   attempts=attempts, tokens=tokens, fingerprint=fingerprint,
                                   reason=reason))


def _finish(ctx: RunContext, result: TaskResult) -> TaskResult:
    record = result.trace_record()
    ctx.record("task", result.run, record)
    return result


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
