"""One task: ask, grade, and on failure ask again with the diagnosis — the repair loop.

Only the last failed exchange is kept in context (system prompt, the drawing,
the previous answer, the feedback): the conversation never grows with the
number of attempts, and each repair is judged on the same footing (except with
``--image-mode zoom``, where an attempt is itself a conversation of tool calls and crops,
:mod:`.zoom_exchange`, and a repair continues it, so the crops stay in view). The first
attempt's credit is pass@1; the best credit over all attempts is the task's
score. Every attempt is written to the trace the moment it is graded, with what
was actually sent (the negotiated parameters), whether the reply came from the
response cache, what the API said about itself (model, fingerprint), the
tokens (reasoning included) and the cost.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ...model import Model, dumps_model
from ..answers.extract import visible_answer
from ..answers.grading import Grader, GradingCrash, grade_answer
from ..client.negotiation import NegotiationStopped
from ..client.transport import ChatReply, ChatTransport, RequestRejected, ServiceUnavailable
from ..common.settings import GradingSettings, TransportSettings
from ..inputs.images import MAX_IMAGE_BYTES
from ..inputs.prompts import repair_text, task_text
from ..inputs.task_input import (
    MAX_DXF_BYTES,
    DxfError,
    ImageError,
    TaskInput,
    prepare_input,
    task_statement,
)
from .ask import Asked, ask
from .batch_store import BatchAnswers
from .cost import CostMeter, Prices
from .response_cache import ResponseCache
from .results import SCORED, UNAVAILABLE, Costs, Seen, TaskResult, Tokens
from .zoom_exchange import Exchange, run_exchange, sanitised_call


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
    cache: ResponseCache | None = None
    prices: Prices | None = None
    meter: CostMeter = field(default_factory=CostMeter)
    max_dxf_bytes: int = MAX_DXF_BYTES
    batch: BatchAnswers | None = None  # first attempts answered by a Batch API job

    def record(self, kind: str, run: int, fields: dict[str, Any]) -> None:
        elapsed = round(time.monotonic() - self.started, 3)
        self.write({"type": kind, "run": run, "session": self.session, "elapsed_s": elapsed,
                    **fields})

    def prepare(self, task: TaskLike) -> TaskInput:
        return prepare_input(task, self.grading.modality, max_image_bytes=self.max_image_bytes,
                             max_image_side=self.grading.max_image_side,
                             max_dxf_bytes=self.max_dxf_bytes,
                             image_mode=self.grading.image_mode, lang=self.grading.lang,
                             max_zooms=self.grading.max_zooms)


def task_factors(task: TaskLike) -> dict[str, str]:
    """The task's presentation factors (none for a task object that has no presentation)."""
    presentation = getattr(task, "presentation", None)
    to_json = getattr(presentation, "to_json", None)
    return dict(to_json()) if callable(to_json) else {}


def task_fingerprint(task: TaskLike, shown: Any) -> str:
    """Identity of what the model is asked and graded on; a finished task is only reused
    by --resume while this is unchanged (new ground truth, image, DXF or notes → run
    again). ``shown`` is the encoded input (its ``identity``: the original image file's
    sha256, or the DXF text's); a sheet task's statements count too."""
    identity = getattr(shown, "identity", None) or shown.sha256
    digest = hashlib.sha256()
    # a drawing sheet's statement is part of the question (which frame, which load case)
    asked = [task_statement(task, lang) or "" for lang in ("en", "zh")] \
        if getattr(task, "sheet", None) is not None else []
    for part in (dumps_model(task.model, indent=None), identity, task.notes or "", *asked):
        digest.update(part.encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()


def conversation(system: str, task: TaskLike, shown: TaskInput, grading: GradingSettings,
                 previous: tuple[str, str] | None = None, *,
                 traced: bool = False) -> list[dict[str, Any]]:
    """The messages of an attempt: system prompt, the task (text and drawing), and for a
    repair the previous answer and its feedback."""
    text = task_text(task.notes, grading.lang, grading.modality,
                     task_statement(task, grading.lang))
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system},
        {"role": "user", "content": shown.parts(text, traced=traced)},
    ]
    if previous is not None:
        answer, feedback = previous
        messages += [{"role": "assistant", "content": answer},
                     {"role": "user", "content": feedback}]
    return messages


def _request_fields(ctx: RunContext, messages: list[dict[str, Any]], sent: dict[str, Any],
                    image_detail: str | None) -> dict[str, Any]:
    g, t = ctx.grading, ctx.transport_settings
    return {"model": g.model, "api_base": t.to_json()["api_base"], "prompt_type": g.prompt_type,
            "temperature": g.temperature, "max_tokens": g.max_tokens, "stream": t.stream,
            "timeout": t.timeout, "lang": g.lang, "modality": g.modality, "sent": sent,
            "image_detail": image_detail, "messages": messages}


def answer_flags(reply: ChatReply) -> tuple[str, ...]:
    """``length``: cut off by the token limit; ``empty``: no answer outside reasoning."""
    flags = []
    if reply.finish_reason == "length":
        flags.append("length")
    if not visible_answer(reply.text or "").strip():
        flags.append("empty")
    return tuple(flags)


def _response_fields(asked: Asked) -> dict[str, Any]:
    reply = asked.reply
    fields = {"text": reply.text, "finish_reason": reply.finish_reason,
              "latency_s": round(reply.latency_s, 3), "usage_reported": reply.usage_reported,
              "usage": reply.usage, "incidents": [i.to_json() for i in reply.incidents],
              "reasoning_tokens": reply.reasoning_tokens, "model": reply.response_model,
              "system_fingerprint": reply.system_fingerprint, "cache": asked.cache,
              "flags": list(answer_flags(reply))}
    if asked.checksum is not None:
        fields["cache_checksum"] = asked.checksum  # which entry answered (a hit)
    if reply.truncation is not None:
        fields["truncated"] = reply.truncation
    return fields


def _tokens(reply: ChatReply) -> Tokens:
    """The attempt's counts; an unknown usage counts as unknown, never as numbers."""
    if not reply.usage_known:
        return Tokens(unknown=1)
    return Tokens(reply.prompt_tokens, reply.completion_tokens, reply.total_tokens,
                  reasoning=reply.reasoning_tokens or 0)


def _costs(ctx: RunContext, asked: Asked) -> Costs:
    if ctx.prices is None:
        return Costs()
    if asked.cost_usd is None:
        return Costs(0.0, 0.0, 1)
    paid = 0.0 if asked.reply.from_cache else asked.cost_usd
    return Costs(asked.cost_usd, paid, 0)


def _seen(asked: Asked) -> Seen:
    reply = asked.reply
    return Seen(tuple(filter(None, [reply.response_model])),
                tuple(filter(None, [reply.system_fingerprint])),
                0 if reply.from_cache else 1 + len(reply.incidents), int(reply.from_cache))


def _merge(a: Seen, b: Seen) -> Seen:
    return Seen(tuple(sorted(set(a.models) | set(b.models))),
                tuple(sorted(set(a.fingerprints) | set(b.fingerprints))),
                a.requests + b.requests, a.cached + b.cached)


#: How the reason of a task ``--max-cost`` kept from starting begins (a rescore tells them
#: by it in results.json, since they have no trace record).
NOT_RUN = "not run: --max-cost"


def stopped_result(ctx: RunContext, task: TaskLike, run: int) -> TaskResult:
    """A task not started because ``--max-cost`` was reached (not traced: resume runs it)."""
    return TaskResult(**task_base(task, run), status=UNAVAILABLE, ratio=0.0, stage=None,
                      first_attempt_ratio=None, first_attempt_stage=None, attempts=0,
                      reason=f"{NOT_RUN} ${ctx.meter.limit:g} was reached", stopped=True)


def task_base(task: TaskLike, run: int) -> dict[str, Any]:
    """The fields of a result that come from the task itself (dataset, not answers)."""
    return {"id": task.id, "category": task.category, "difficulty": int(task.difficulty),
            "run": run, "structure": str(getattr(task, "structure", "") or task.id),
            "presentation": task_factors(task)}


def run_task(ctx: RunContext, task: TaskLike, *, run: int = 0) -> TaskResult:
    """Attempts until perfect or out of repairs; unavailable if the service keeps failing."""
    if ctx.meter.exhausted():
        return stopped_result(ctx, task, run)
    base = task_base(task, run)
    try:
        shown = ctx.prepare(task)
    except (ImageError, DxfError) as exc:
        return _finish(ctx, TaskResult(**base, status=UNAVAILABLE, ratio=0.0, stage=None,
                                       first_attempt_ratio=None, first_attempt_stage=None,
                                       attempts=0, reason=str(exc)))
    fingerprint = task_fingerprint(task, shown)
    trace_system = f"<system prompt sha256={_sha(ctx.system_prompt)}, text in run.json>"
    tokens, costs, seen = Tokens(), Costs(), Seen()
    budget = ctx.transport.policy.budget()  # backoff seconds this task may still wait
    grades: list[tuple[float, str, tuple[str, ...]]] = []
    frames: list[str | None] = []  # the wrong frame each graded attempt modelled, if any
    previous: tuple[str, str] | None = None
    talk: tuple[list[dict[str, Any]], list[dict[str, Any]]] | None = None  # zoom, so far
    g = ctx.grading
    for attempt in range(1, g.max_retries + 2):
        if ctx.stop.is_set():
            raise Interrupted(task.id)
        if talk is not None and previous is not None:  # a zoom repair continues the talk
            messages, traced = talk
            for kept in (messages, traced):
                kept += [{"role": "assistant", "content": previous[0]},
                         {"role": "user", "content": previous[1]}]
        else:
            messages = conversation(ctx.system_prompt, task, shown, g, previous)
            traced = conversation(ctx.system_prompt, task, shown, g, previous, traced=True)
            traced[0]["content"] = trace_system
        head = {"task_id": task.id, "attempt": attempt, **shown.trace_fields()}
        zoom: dict[str, Any] = {}
        try:
            if shown.zoom is None:
                asked = ask(ctx.transport, model=g.model,
                            api_base=ctx.transport_settings.api_base, messages=messages,
                            temperature=g.temperature, max_tokens=g.max_tokens, budget=budget,
                            run=run, attempt=attempt, cache=ctx.cache, prices=ctx.prices,
                            meter=ctx.meter, batch=ctx.batch if attempt == 1 else None)
            else:
                talk = (messages, traced)
                exchange = _zoom_exchange(ctx, task, shown, messages, traced, budget, run,
                                          attempt)
                for turn in exchange.turns:
                    tokens = tokens + _tokens(turn.asked.reply)
                    costs = costs + _costs(ctx, turn.asked)
                    seen = _merge(seen, _seen(turn.asked))
                zoom = _zoom_fields(ctx, exchange, shown.zoom.max_zooms)
                if exchange.error is not None:
                    raise exchange.error
                if exchange.end == "malformed":
                    raise _MalformedCalls(exchange)
                asked = exchange.turns[-1].asked
        except NegotiationStopped:
            raise Interrupted(task.id) from None
        except (ServiceUnavailable, _MalformedCalls) as exc:
            # A repair the API refuses outright (not a passing outage) ends the loop: the
            # task keeps what its answers earned. Anything else must be retried later.
            refused = isinstance(exc, (RequestRejected, _MalformedCalls)) and attempt > 1
            plan = ctx.transport.negotiator.plan()
            sent = plan.arguments(g.temperature, g.max_tokens)
            incidents = exc.incidents if isinstance(exc, ServiceUnavailable) else ()
            ctx.record("attempt", run, {**head, "request": _request_fields(ctx, traced, sent,
                                                                           plan.image_detail),
                                        "outcome": "rejected" if refused else UNAVAILABLE,
                                        "error": str(exc), **zoom,
                                        "incidents": [i.to_json() for i in incidents]})
            seen = _merge(seen, Seen(requests=len(incidents)))
            if refused:
                break
            return _unavailable(ctx, base, fingerprint, attempt - 1, tokens, str(exc), costs,
                                seen)
        reply = asked.reply
        if shown.zoom is None:
            used, spent = _tokens(reply), _costs(ctx, asked)
            tokens, costs, seen = tokens + used, costs + spent, _merge(seen, _seen(asked))
        else:
            used = sum((_tokens(t.asked.reply) for t in exchange.turns), Tokens())
            spent = sum((_costs(ctx, t.asked) for t in exchange.turns), Costs())
        request = _request_fields(ctx, traced, reply.sent, reply.image_detail)
        try:
            graded = grade_answer(task.model, reply.text, tolerance=g.tolerance,
                                  grader=ctx.grader, lang=g.lang,
                                  sheet=getattr(task, "sheet", None))
        except GradingCrash as exc:
            ctx.record("attempt", run, {**head, "request": request, "outcome": "grading_error",
                                        "response": _response_fields(asked), "error": str(exc),
                                        "tokens": used.to_json(), **zoom})
            return _unavailable(ctx, base, fingerprint, attempt - 1, tokens, str(exc), costs,
                                seen)
        ctx.record("attempt", run, {**head, "request": request, "outcome": "graded",
                                    "response": _response_fields(asked),
                                    **graded.trace_fields(), "tokens": used.to_json(),
                                    "cost_usd": spent.usd if ctx.prices else None,
                                    "latency_s": round(reply.latency_s, 3), **zoom})
        grades.append((graded.grade.ratio, graded.grade.stage, answer_flags(reply)))
        frames.append(graded.grade.wrong_frame)
        if graded.grade.ratio >= 1.0:
            break
        previous = (reply.text, repair_text(graded.grade.stage, graded.grade.message, g.lang))
    return _finish(ctx, scored_result(base, grades, tokens=tokens, fingerprint=fingerprint,
                                      costs=costs, seen=seen, wrong_frames=frames))


class _MalformedCalls(Exception):
    """A zoom reply whose tool calls cannot be read, so cannot be answered: the attempt
    ends like a refused request (one sentence; a first attempt leaves the task
    unavailable, for --resume)."""

    def __init__(self, exchange: Exchange):
        asked = exchange.final
        problem = asked.reply.tool_problem if asked is not None else None
        super().__init__(f"the server returned tool calls in a shape that cannot be answered "
                         f"({problem}); run with --image-mode tiles or fit")


def _zoom_exchange(ctx: RunContext, task: TaskLike, shown: TaskInput,
                   messages: list[dict[str, Any]], traced: list[dict[str, Any]],
                   budget: Any, run: int, attempt: int) -> Exchange:
    """One zoom attempt: every request through the cache and the cost meter, with the
    tool; never through a Batch API job (the exchange is multi-turn)."""
    g = ctx.grading
    assert shown.zoom is not None
    tools = shown.zoom.tools()
    first = [True]

    def send(conversation_now: list[dict[str, Any]]) -> Asked:
        if not first[0] and ctx.stop.is_set():
            raise Interrupted(task.id)
        first[0] = False
        return ask(ctx.transport, model=g.model, api_base=ctx.transport_settings.api_base,
                   messages=conversation_now, temperature=g.temperature,
                   max_tokens=g.max_tokens, budget=budget, run=run, attempt=attempt,
                   cache=ctx.cache, prices=ctx.prices, meter=ctx.meter, tools=tools)

    return run_exchange(shown.zoom, messages, traced, send, ctx.transport.redact)


#: what the trace says of an attempt the model ended by calling past the limit
LIMIT_NOTE = ("the model called zoom again after the limit of {limit} calls was reached; "
              "its last reply was graded as the answer")


def _zoom_fields(ctx: RunContext, exchange: Exchange, limit: int) -> dict[str, Any]:
    """The attempt record's ``zoom`` field: how the exchange ended and every request of
    it — cache, tokens, cost, and each call with its (sanitised) arguments, the box asked
    and cropped, the crop's sha256, bytes and pixels."""
    requests = []
    for index, turn in enumerate(exchange.turns, 1):
        asked, reply = turn.asked, turn.asked.reply
        spent = _costs(ctx, asked)
        entry: dict[str, Any] = {
            "request": index, "cache": asked.cache, "finish_reason": reply.finish_reason,
            "tokens": _tokens(reply).to_json(), "cost_usd": spent.usd if ctx.prices else None,
            "latency_s": round(reply.latency_s, 3),
            "calls": [{**sanitised_call(call, ctx.transport.redact), **answer.trace_fields()}
                      for call, answer in turn.calls]}
        if asked.checksum is not None:
            entry["cache_checksum"] = asked.checksum
        requests.append(entry)
    fields: dict[str, Any] = {"end": exchange.end, "calls": exchange.calls,
                              "requests": requests}
    if exchange.end == "limit":
        fields["note"] = LIMIT_NOTE.format(limit=limit)
    return {"zoom": fields}


def scored_result(base: dict[str, Any], grades: list[tuple[float, str, tuple[str, ...]]], *,
                  tokens: Tokens, fingerprint: str, costs: Costs, seen: Seen,
                  wrong_frames: list[str | None] | None = None) -> TaskResult:
    """A scored task from its attempts' (ratio, stage, answer flags), first attempt first: the
    best credit (the first attempt reaching it) is the task's, and so is the wrong frame
    that attempt modelled (``wrong_frames``, one per attempt, on a drawing sheet)."""
    best = best_attempt([(ratio, stage) for ratio, stage, _ in grades])
    frames = wrong_frames or []
    return TaskResult(**base, status=SCORED, ratio=grades[best][0], stage=grades[best][1],
                      first_attempt_ratio=grades[0][0], first_attempt_stage=grades[0][1],
                      attempts=len(grades), tokens=tokens, best_attempt=best + 1,
                      fingerprint=fingerprint, first_flags=grades[0][2],
                      best_flags=grades[best][2], costs=costs, seen=seen,
                      wrong_frame=frames[best] if best < len(frames) else None)


def best_attempt(grades: list[tuple[float, str]]) -> int:
    """Index of the attempt that sets the task's score: the highest credit, the earliest
    of equals (shared with the inspect_ai task so both pick the same attempt)."""
    return max(range(len(grades)), key=lambda i: (grades[i][0], -i))


def _unavailable(ctx: RunContext, base: dict[str, Any], fingerprint: str, attempts: int,
                 tokens: Tokens, reason: str, costs: Costs, seen: Seen) -> TaskResult:
    return _finish(ctx, TaskResult(**base, status=UNAVAILABLE, ratio=0.0, stage=None,
                                   first_attempt_ratio=None, first_attempt_stage=None,
                                   attempts=attempts, tokens=tokens, fingerprint=fingerprint,
                                   reason=reason, costs=costs, seen=seen))


def _finish(ctx: RunContext, result: TaskResult) -> TaskResult:
    record = result.trace_record()
    ctx.record("task", result.run, record)
    return result


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
