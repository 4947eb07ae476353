"""Chat completions over the real ``openai`` client, with our retry policy instead of its own.

The line drawn here is the harness's central promise: a fault of the
*infrastructure* (connection refused or dropped, timeout, 429, 5xx, a stream cut
before its finish reason, a malformed 200) is retried with backoff and is never
charged to the model; if it persists the task is *unavailable* and ``--resume``
runs it again. Whatever the model actually said — even nothing, or a refusal —
is returned and graded. Authentication and unknown-model errors stop the run,
since every further task would fail the same way; so do the first requests of a
session when they all fail to connect or all get the same 4xx (:mod:`.failfast`),
before any task has spent its retries.
"""

from __future__ import annotations

import email.utils
import functools
import math
import random
import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ...model.errors import clause
from ...safe_text import one_line, valid_unicode
from ..common.settings import RetryPolicy, WaitBudget
from ..common.trace import Redactor, redact_then_cut
from .failfast import FirstRequests
from .http_client import deadline_client, http_library, request_deadline, time_left
from .negotiation import (
    NegotiationStopped,
    Negotiator,
    ParameterRejected,
    Plan,
    Rejection,
    RequestOptions,
)
from .response import (
    MAX_ANSWER_CHARS,
    MalformedReply,
    ParsedReply,
    StreamAssembler,
    Usage,
    body_cap,
    decode_body,
    parse_completion,
    read_body,
    sse_events,
)
from .service_errors import (
    Incident,
    RequestRejected,
    ServiceFatal,
    ServiceUnavailable,
    ToolsRefused,
)
from .tool_calls import ToolCall

if TYPE_CHECKING:
    import openai


@dataclass(frozen=True)
class ChatReply:
    text: str
    finish_reason: str | None
    prompt_tokens: int  # 0 when the usage is unknown (see ``usage``)
    completion_tokens: int
    total_tokens: int
    usage_reported: bool  # the server reported believable counts
    latency_s: float  # of the successful request only
    incidents: tuple[Incident, ...] = ()
    usage: str = "reported"  # reported | missing | invalid
    truncation: dict[str, Any] | None = None  # the answer was longer than the cap
    reasoning_tokens: int | None = None  # part of completion_tokens; None: not reported
    response_model: str | None = None  # the model the API says answered
    system_fingerprint: str | None = None
    sent: dict[str, Any] = field(default_factory=dict)  # generation parameters as sent
    image_detail: str | None = None  # the image ``detail`` sent, if any
    from_cache: bool = False  # served by the response cache: nothing was sent
    tool_calls: tuple[ToolCall, ...] = ()  # functions the model called (--image-mode zoom)
    tool_problem: str | None = None  # why its tool calls cannot be read, if they cannot

    @property
    def usage_known(self) -> bool:
        return self.usage == "reported"


class _Rejected(Exception):
    """A 400/422 (or another status that no retry can help), with what it said."""

    def __init__(self, rejection: Rejection):
        super().__init__(rejection.message)
        self.rejection = rejection


_FATAL_STATUS = {401, 403, 404}
#: what a 400 refusing the ``tools`` of a request says (vLLM, Ollama, llama.cpp, OpenAI)
_TOOLS_REFUSAL = re.compile(r"\btool|function[ _-]?call", re.I)
_RETRYABLE_STATUS = {408, 409, 425, 429}

#: A Retry-After longer than this is not believed (the policy's own delay is used).
MAX_BELIEVABLE_RETRY_AFTER = 3600.0


class _Retryable(Exception):
    def __init__(self, incident: Incident, retry_after: float | None = None):
        super().__init__(incident.message)
        self.incident = incident
        self.retry_after = retry_after


@functools.cache
def _transport_exceptions() -> tuple[tuple[type[BaseException], ...],
                                     tuple[type[BaseException], ...]]:
    """(timeouts, other errors) of the raw HTTP libraries, which escape from a body we read.

    Looked up on the first request, not at import: grading, rescoring and reports import
    this module's types without loading an HTTP client."""
    timeouts: list[type[BaseException]] = []
    errors: list[type[BaseException]] = []
    for name in ("httpx2", "httpx"):
        try:
            module = __import__(name)
        except ImportError:
            continue
        timeouts.append(module.TimeoutException)
        errors += [module.HTTPError, module.StreamError]
    return tuple(timeouts), tuple(errors)



def _seconds(raw: Any, divisor: float) -> float | None:
    try:
        value = float(str(raw).strip()) / divisor
    except (TypeError, ValueError):
        return None
    if not math.isfinite(value) or value < 0 or value > MAX_BELIEVABLE_RETRY_AFTER:
        return None
    return value


def parse_retry_after(headers: Any, now: float | None = None) -> float | None:
    """Seconds from ``retry-after-ms`` / ``Retry-After`` (seconds or an HTTP date), or None
    when absent or not believable (NaN, infinite, negative, beyond an hour, garbage):
    the caller then uses its own backoff delay."""
    if headers is None:
        return None
    try:
        raw_ms, raw = headers.get("retry-after-ms"), headers.get("retry-after")
    except Exception:  # a headers object that cannot even be read
        return None
    if raw_ms:
        value = _seconds(raw_ms, 1000.0)
        if value is not None:
            return value
    if not raw:
        return None
    value = _seconds(raw, 1.0)
    if value is not None or _looks_numeric(raw):
        return value
    try:
        when = email.utils.parsedate_to_datetime(str(raw))
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when is None:
        return None
    try:
        delta = when.timestamp() - (time.time() if now is None else now)
    except (OverflowError, OSError, ValueError):
        return None
    return _seconds(max(delta, 0.0), 1.0)


def _looks_numeric(raw: Any) -> bool:
    try:
        float(str(raw).strip())
    except ValueError:
        return False
    return True


def token_limit_parameter(api_base: str | None) -> str:
    """OpenAI's own API wants ``max_completion_tokens`` (its reasoning models reject
    ``max_tokens``); OpenAI-compatible servers widely understand only ``max_tokens``."""
    if not api_base:
        return "max_completion_tokens"
    host = (urlsplit(api_base).hostname or "").lower()
    return "max_completion_tokens" if host == "api.openai.com" else "max_tokens"


class ChatTransport:
    """One shared client (thread-safe) plus the retry loop around each request.

    Request building (:meth:`request_arguments`, through the run's parameter
    :class:`~.negotiation.Negotiator`) and response parsing
    (:mod:`structeval.harness.client.response`) are separate: whatever a server sends goes
    through the one validated shape there, streamed or not.
    """

    def __init__(self, *, api_key: str, api_base: str | None, timeout: float, stream: bool,
                 policy: RetryPolicy, sleep: Callable[[float], None] = time.sleep,
                 rng: random.Random | None = None, redact: Redactor | None = None,
                 max_answer_chars: int = MAX_ANSWER_CHARS, model: str | None = None,
                 options: RequestOptions | None = None, negotiator: Negotiator | None = None,
                 first_requests: FirstRequests | None = None):
        import openai  # the API client, loaded where a request is sent and nowhere else

        http_client, self.deadline_enforced = deadline_client(timeout)
        self.client = openai.OpenAI(api_key=api_key, base_url=api_base or None,
                                    max_retries=0, timeout=timeout, http_client=http_client)
        self.timeout = timeout
        self.stream = stream
        self.token_parameter = token_limit_parameter(api_base)
        self.negotiator = negotiator or Negotiator(
            api_base_token_parameter=self.token_parameter, model=model, options=options,
            stream=stream)
        self.policy = policy
        self.sleep = sleep
        self.rng = rng or random.Random()
        self.redact = redact or Redactor([api_key])
        self.max_answer_chars = max_answer_chars
        self._http = http_library()
        self.first_requests = first_requests  # the fail-fast rule (:mod:`.failfast`), if any

    def complete(self, *, model: str, messages: list[dict[str, Any]], temperature: float,
                 max_tokens: int, budget: WaitBudget | None = None,
                 tools: list[dict[str, Any]] | None = None) -> ChatReply:
        """The model's reply, or ServiceUnavailable / ServiceFatal. ``budget`` bounds the
        backoff waits of the whole task this call belongs to. A 400 naming a parameter is
        handled by the negotiator (adapt once, retry; not counted as a try). ``tools``
        (function definitions) are sent as they are; a 400/422 about them is
        :class:`ToolsRefused` — never adapted away, since zoom without tools is not zoom."""
        incidents: list[Incident] = []
        tries = 0
        while tries < self.policy.tries:
            plan, probe = self.negotiator.acquire()
            tries += 1
            try:
                reply = self._request(model, messages, temperature, max_tokens, plan, probe,
                                      tools)
            except _Retryable as fault:
                if probe:
                    self.negotiator.release()
                self._watch(fault.incident)
                if tries == self.policy.tries:
                    incidents.append(fault.incident)
                    break
                wait = self.policy.delay(tries, fault.retry_after, self.rng)
                if budget is not None and not budget.allow(wait):
                    incidents.append(replace(fault.incident, message=(
                        f"{fault.incident.message}; not retried: waiting {wait:.3g} s more would "
                        f"exceed the task's wait budget of {budget.limit:g} s (--wait-budget)")))
                    break
                if budget is not None:
                    budget.spend(wait)
                incidents.append(replace(fault.incident, wait_s=wait))
                self.sleep(wait)
                continue
            except _Rejected as refused:
                rejection = refused.rejection
                incident = Incident("rejected", rejection.status, rejection.message)
                if tools and rejection.status in (400, 422) and \
                        _TOOLS_REFUSAL.search(rejection.haystack()) and \
                        not rejection.names(plan.sent_names(self.stream)):
                    incident = replace(incident, advice=f"the server refused tool calling: "
                                                        f"{ToolsRefused.ADVICE}")
                    if probe:
                        self.negotiator.release()
                    self._watch(incident)
                    raise ToolsRefused([*incidents, incident]) from None
                try:
                    retry = rejection.status in (400, 422) and \
                        self.negotiator.adapt(plan, rejection)
                except ParameterRejected as exc:
                    self.negotiator.failed(exc)
                    raise
                if probe:
                    self.negotiator.release()
                if retry:
                    incidents.append(replace(incident, kind="adapted"))
                    tries -= 1  # the endpoint answered; only our parameters were wrong
                    self._watch(None)
                    continue
                self._watch(incident)
                raise RequestRejected([*incidents, incident]) from None
            except ServiceFatal as exc:
                self.negotiator.failed(exc)
                raise
            except BaseException:
                if probe:
                    self.negotiator.release()
                raise
            return replace(reply, incidents=tuple(incidents))
        raise ServiceUnavailable(incidents)

    def _watch(self, incident: Incident | None) -> None:
        """Tell the fail-fast rule how a request ended (None: it was answered); when the
        rule decides that nothing can succeed, every other request is stopped too."""
        if self.first_requests is None:
            return
        if incident is None:
            self.first_requests.succeeded()
            return
        try:
            self.first_requests.failed(incident)
        except ServiceFatal as exc:
            self.negotiator.failed(exc)
            raise

    def request_arguments(self, model: str, messages: list[dict[str, Any]],
                          temperature: float, max_tokens: int,
                          plan: Plan | None = None,
                          tools: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """The chat-completions parameters of one request: model and messages, every
        generation parameter the plan sends (as the body's top-level fields), streaming,
        and the tools when there are any."""
        plan = plan or self.negotiator.plan()
        kwargs: dict[str, Any] = {"model": model, "messages": plan.with_detail(messages),
                                  "extra_body": plan.arguments(temperature, max_tokens)}
        if tools:
            kwargs["tools"] = tools
        if self.stream:
            kwargs["stream"] = True
            if plan.stream_options():
                kwargs["stream_options"] = {"include_usage": True}
        return kwargs

    def _short(self, text: object) -> str:
        """An error's text as the trace and console may hold it: valid Unicode (the openai
        client decoded the error body itself) on one line, redacted in full, then cut."""
        return redact_then_cut(one_line(valid_unicode(str(text))), self.redact)

    def _request(self, model: str, messages: list[dict[str, Any]], temperature: float,
                 max_tokens: int, plan: Plan, probe: bool,
                 tools: list[dict[str, Any]] | None = None) -> ChatReply:
        import openai  # already loaded by __init__: its error types, looked up here

        raw_timeout, raw_transport = _transport_exceptions()
        kwargs = self.request_arguments(model, messages, temperature, max_tokens, plan, tools)
        started = time.monotonic()
        try:
            with request_deadline(self.timeout), \
                    self.client.chat.completions.with_streaming_response.create(**kwargs) as raw:
                if probe:
                    self.negotiator.accepted()  # the status was < 400: the plan works
                self._watch(None)  # the endpoint answered (a body cut later is no dead end)
                chunks = self._chunks(raw.http_response)
                parsed = self._read_stream(chunks) if self.stream else self._read_body(chunks)
        except openai.APITimeoutError as exc:
            raise _Retryable(Incident("timeout", None, self._short(exc))) from None
        except openai.APIConnectionError as exc:
            raise _Retryable(Incident("connection", None, self._connection_text(exc))) from None
        except openai.APIStatusError as exc:
            raise self._status_fault(exc) from None
        except openai.APIError as exc:
            raise _Retryable(Incident("server", None, self._short(exc))) from None
        except MalformedReply as exc:
            raise _Retryable(Incident(exc.kind, 200, self._short(exc))) from None
        except raw_timeout as exc:
            raise _Retryable(Incident("timeout", None, self._timeout_text(exc))) from None
        except raw_transport as exc:
            raise _Retryable(Incident("connection", None, self._short(exc) or
                                      type(exc).__name__)) from None
        except ValueError as exc:  # anything else undecodable in a reply
            raise _Retryable(Incident("malformed", None, self._short(exc))) from None
        usage = parsed.usage
        return ChatReply(parsed.text, parsed.finish_reason, usage.prompt, usage.completion,
                         usage.total, usage.known, time.monotonic() - started,
                         usage=usage.state, truncation=parsed.truncation,
                         reasoning_tokens=usage.reasoning, response_model=parsed.model,
                         system_fingerprint=parsed.system_fingerprint,
                         sent=kwargs["extra_body"], image_detail=plan.image_detail,
                         tool_calls=parsed.tool_calls, tool_problem=parsed.tool_problem)

    def _connection_text(self, exc: BaseException) -> str:
        """The client's "Connection error." with its cause (refused, name not known, reset):
        the cause is what tells a user which setting to check."""
        cause = exc.__cause__
        said = clause(exc) or "connection error"
        return self._short(f"{said}: {clause(cause)}" if cause is not None and str(cause)
                           else said)

    def _timeout_text(self, exc: BaseException) -> str:
        return self._short(f"no complete reply within --timeout {self.timeout:g} s ({exc})")

    def _chunks(self, http_response: Any) -> Iterator[bytes]:
        """The body as it arrives; the deadline is also checked between chunks (a server
        sending data non-stop never makes a single read wait)."""
        for chunk in http_response.iter_bytes():
            left = time_left()
            if left is not None and left <= 0:
                raise self._http.ReadTimeout("the request's wall-clock deadline (--timeout) "
                                             "has passed")
            yield chunk

    def _read_body(self, chunks: Iterable[bytes]) -> ParsedReply:
        body, cut = read_body(chunks, body_cap(self.max_answer_chars))
        return parse_completion(decode_body(body, cut), max_chars=self.max_answer_chars,
                                cut=cut)

    def _read_stream(self, chunks: Iterable[bytes]) -> ParsedReply:
        assembler = StreamAssembler(self.max_answer_chars)
        try:
            for event in sse_events(chunks, body_cap(self.max_answer_chars)):
                if event.done:
                    break
                assembler.feed(event.data)
                if event.cut or assembler.full:  # the cap: stop reading, keep what we have
                    assembler.answer.dropped_unknown = True
                    break
        except (*_transport_exceptions()[0], *_transport_exceptions()[1]):
            if assembler.finish is None:
                raise
            # the answer is complete; only the trailing usage chunk or [DONE] is missing
        if assembler.finish is None and not assembler.answer.truncated:
            raise _Retryable(Incident("truncated", 200,
                                      f"stream ended without a finish reason after "
                                      f"{assembler.answer.kept} characters"))
        return assembler.result()

    def _status_fault(self, exc: openai.APIStatusError) -> Exception:
        status = exc.status_code
        message = self._short(exc.message)
        if status in _FATAL_STATUS:
            return ServiceFatal(f"the API refused the request (HTTP {status}: "
                                f"{clause(message) or 'no detail'}); check --api-key, "
                                "--api-base and --model")
        if status >= 500 or status in _RETRYABLE_STATUS:
            kind = "rate_limit" if status == 429 else "server"
            retry_after = parse_retry_after(getattr(exc.response, "headers", None))
            return _Retryable(Incident(kind, status, message), retry_after)
        body = valid_unicode(exc.body)
        parameter = body.get("param") if isinstance(body, dict) else None
        said = body.get("message") if isinstance(body, dict) else None
        text = self._short(said) if isinstance(said, str) and said else message
        return _Rejected(Rejection(status, text, parameter if isinstance(parameter, str)
                                   else None, body))


__all__ = ["ChatReply", "ChatTransport", "Incident", "NegotiationStopped", "RequestRejected",
           "ServiceFatal", "ServiceUnavailable", "ToolsRefused", "Usage", "parse_retry_after",
           "token_limit_parameter"]
