"""Chat completions over the real ``openai`` client, with our retry policy instead of its own.

The line drawn here is the harness's central promise: a fault of the
*infrastructure* (connection refused or dropped, timeout, 429, 5xx, a stream cut
before its finish reason, a malformed 200) is retried with backoff and is never
charged to the model; if it persists the task is *unavailable* and ``--resume``
runs it again. Whatever the model actually said — even nothing, or a refusal —
is returned and graded. Authentication and unknown-model errors stop the run,
since every further task would fail the same way.
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

import openai

from ..model.errors import StructEvalError
from .settings import RetryPolicy


@dataclass(frozen=True)
class Incident:
    """One failed request that was (or could not be) retried."""

    kind: str  # timeout | connection | rate_limit | server | truncated | malformed | rejected
    status: int | None
    message: str
    wait_s: float | None = None  # the delay before the next try; None if none followed

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "status": self.status, "message": self.message,
                "wait_s": None if self.wait_s is None else round(self.wait_s, 3)}


@dataclass(frozen=True)
class ChatReply:
    text: str
    finish_reason: str | None
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    usage_reported: bool
    latency_s: float  # of the successful request only
    incidents: tuple[Incident, ...] = ()


class ServiceUnavailable(StructEvalError):
    """The endpoint kept failing (or refused this request): the task cannot be graded now."""

    def __init__(self, incidents: list[Incident]):
        self.incidents = tuple(incidents)
        last = incidents[-1] if incidents else None
        super().__init__(f"service unavailable after {len(incidents)} failed request(s)"
                         + (f"; last: {last.kind} {last.message}" if last else ""))


class RequestRejected(ServiceUnavailable):
    """The API refused this particular request (e.g. HTTP 400): retrying cannot help."""


class ServiceFatal(StructEvalError):
    """Credentials, permissions or the model name are wrong: no task can succeed."""


_FATAL_STATUS = {401, 403, 404}
_RETRYABLE_STATUS = {408, 409, 425, 429}


class _Retryable(Exception):
    def __init__(self, incident: Incident, retry_after: float | None = None):
        super().__init__(incident.message)
        self.incident = incident
        self.retry_after = retry_after


def _transport_exceptions() -> tuple[type[BaseException], ...]:
    """Raw HTTP-library errors that some openai versions let escape from a stream."""
    found: list[type[BaseException]] = []
    for name in ("httpx2", "httpx"):
        try:
            module = __import__(name)
        except ImportError:
            continue
        found.append(module.HTTPError)
        found.append(module.StreamError)
    return tuple(found)


_RAW_TRANSPORT = _transport_exceptions()


def parse_retry_after(headers: Any, now: float | None = None) -> float | None:
    """Seconds from ``retry-after-ms`` / ``Retry-After`` (seconds or an HTTP date)."""
    if headers is None:
        return None
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            return max(float(raw_ms) / 1000.0, 0.0)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(float(raw), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(when.timestamp() - (time.time() if now is None else now), 0.0)


def _short(text: object, limit: int = 300) -> str:
    s = str(text)
    return s if len(s) <= limit else s[: limit - 3] + "..."


def token_limit_parameter(api_base: str | None) -> str:
    """OpenAI's own API wants ``max_completion_tokens`` (its reasoning models reject
    ``max_tokens``); OpenAI-compatible servers widely understand only ``max_tokens``."""
    if not api_base:
        return "max_completion_tokens"
    host = (urlsplit(api_base).hostname or "").lower()
    return "max_completion_tokens" if host == "api.openai.com" else "max_tokens"


class ChatTransport:
    """One shared client (thread-safe) plus the retry loop around each request."""

    def __init__(self, *, api_key: str, api_base: str | None, timeout: float, stream: bool,
                 policy: RetryPolicy, sleep: Callable[[float], None] = time.sleep,
                 rng: random.Random | None = None):
        self.client = openai.OpenAI(api_key=api_key, base_url=api_base or None,
                                    max_retries=0, timeout=timeout)
        self.timeout = timeout
        self.stream = stream
        self.token_parameter = token_limit_parameter(api_base)
        self.policy = policy
        self.sleep = sleep
        self.rng = rng or random.Random()

    def complete(self, *, model: str, messages: list[dict[str, Any]], temperature: float,
                 max_tokens: int) -> ChatReply:
        """The model's reply, or ServiceUnavailable / ServiceFatal."""
        incidents: list[Incident] = []
        for attempt in range(1, self.policy.tries + 1):
            try:
                reply = self._request(model, messages, temperature, max_tokens)
            except _Retryable as fault:
                if attempt == self.policy.tries:
                    incidents.append(fault.incident)
                    break
                wait = self.policy.delay(attempt, fault.retry_after, self.rng)
                incidents.append(Incident(fault.incident.kind, fault.incident.status,
                                          fault.incident.message, wait))
                self.sleep(wait)
                continue
            except RequestRejected as rejected:
                raise RequestRejected(incidents + list(rejected.incidents)) from None
            return replace(reply, incidents=tuple(incidents))
        raise ServiceUnavailable(incidents)

    def _request(self, model: str, messages: list[dict[str, Any]], temperature: float,
                 max_tokens: int) -> ChatReply:
        kwargs: dict[str, Any] = {"model": model, "messages": messages,
                                  "temperature": temperature, self.token_parameter: max_tokens}
        if self.stream:
            kwargs.update(stream=True, stream_options={"include_usage": True})
        started = time.monotonic()
        try:
            if self.stream:
                return self._read_stream(self.client.chat.completions.create(**kwargs), started)
            return self._read_completion(self.client.chat.completions.create(**kwargs), started)
        except openai.APITimeoutError as exc:
            raise _Retryable(Incident("timeout", None, _short(exc))) from None
        except openai.APIConnectionError as exc:
            raise _Retryable(Incident("connection", None, _short(exc))) from None
        except openai.APIStatusError as exc:
            raise self._status_fault(exc) from None
        except openai.APIResponseValidationError as exc:
            raise _Retryable(Incident("malformed", exc.status_code, _short(exc))) from None
        except openai.APIError as exc:  # e.g. an error event inside a stream
            raise _Retryable(Incident("server", None, _short(exc))) from None
        except _RAW_TRANSPORT as exc:
            raise _Retryable(Incident("connection", None, _short(exc))) from None
        except ValueError as exc:  # garbled SSE payload
            raise _Retryable(Incident("malformed", None, _short(exc))) from None

    def _status_fault(self, exc: openai.APIStatusError) -> Exception:
        status = exc.status_code
        message = _short(exc.message)
        if status in _FATAL_STATUS:
            return ServiceFatal(f"the API refused the request (HTTP {status}): {message}. "
                                "Check --api-key, --api-base and --model.")
        if status >= 500 or status in _RETRYABLE_STATUS:
            kind = "rate_limit" if status == 429 else "server"
            retry_after = parse_retry_after(getattr(exc.response, "headers", None))
            return _Retryable(Incident(kind, status, message), retry_after)
        return RequestRejected([Incident("rejected", status, message)])

    def _read_completion(self, response: Any, started: float) -> ChatReply:
        choices = getattr(response, "choices", None)
        if not choices:
            raise _Retryable(Incident("malformed", 200, "response has no choices"))
        message = choices[0].message
        text = message.content if message is not None else None
        if text is None and message is not None:
            text = getattr(message, "refusal", None)
        return self._reply(text or "", choices[0].finish_reason, response.usage, started)

    def _read_stream(self, stream: Any, started: float) -> ChatReply:
        parts: list[str] = []
        finish: str | None = None
        usage = None
        deadline = started + self.timeout
        try:
            for chunk in stream:
                if time.monotonic() > deadline:
                    raise _Retryable(Incident("timeout", None,
                                              f"stream exceeded {self.timeout:g} s"))
                if getattr(chunk, "usage", None) is not None:
                    usage = chunk.usage
                for choice in chunk.choices or ():
                    delta = choice.delta
                    if delta is not None and delta.content:
                        parts.append(delta.content)
                    if choice.finish_reason:
                        finish = choice.finish_reason
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()
        if finish is None:
            raise _Retryable(Incident("truncated", 200,
                                      f"stream ended without a finish reason after "
                                      f"{sum(map(len, parts))} characters"))
        return self._reply("".join(parts), finish, usage, started)

    @staticmethod
    def _reply(text: str, finish: str | None, usage: Any, started: float) -> ChatReply:
        def count(name: str) -> int:
            value = getattr(usage, name, None) if usage is not None else None
            return int(value) if isinstance(value, int) and value >= 0 else 0

        prompt, completion = count("prompt_tokens"), count("completion_tokens")
        total = count("total_tokens") or prompt + completion
        return ChatReply(text, finish, prompt, completion, total, usage is not None,
                         time.monotonic() - started)
