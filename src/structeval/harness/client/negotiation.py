"""Which generation parameters an endpoint accepts, learned once per run and shared by all tasks.

Endpoints disagree about parameters: OpenAI's reasoning models refuse any
temperature but their default and want ``max_completion_tokens`` instead of
``max_tokens``, many OpenAI-compatible servers know only ``max_tokens``, some
refuse ``reasoning_effort``, ``stream_options``, the image ``detail`` or a
provider-specific body field. Sending what they refuse fails every request with
HTTP 400, which would make every task unavailable.

A :class:`Negotiator` holds the parameter *plan* of a run: which parameters are
sent and in which form. Reasoning model families (:mod:`.model_families`) start
with the temperature omitted and the limit sent as ``max_completion_tokens``.
When a 400 (or 422) names a parameter that was sent, the plan is adapted once
for the whole run — the other form of the token limit, or the parameter dropped
— the adaptation is recorded (``run.json`` → ``negotiated``) and the request is
retried. What cannot be fixed that way stops the run (:class:`ParameterRejected`,
exit 4) with a sentence naming the flag to change:

* a *value* the endpoint calls wrong ("max_tokens is too large", "temperature
  must be ≤ 1" for an explicit ``--temperature``) — we cannot pick another value
  for the user;
* a token limit refused in both forms;
* (in a session, which sets ``early_rejection_limit`` to :data:`FIRST_REJECTIONS`)
  the first requests of a run all refused with 400/422 before any was accepted,
  naming no parameter: nothing will be accepted.

An adaptation is a *transport* matter, not a grading setting: ``run.json``'s
``grading`` keeps what the user asked (e.g. ``temperature: 0.0``), and
``negotiated`` says what the endpoint accepted. ``--resume`` starts from the
stored adaptations, and so does a new run whose response cache remembers them
(:mod:`.response_cache`), so neither pays the 400 again.

Thread safety: the first request of a run *probes* the endpoint while the others
wait — until it is accepted or refused, or for at most :data:`PROBE_GRACE_S` —
so concurrent tasks do not each pay the same 400: an endpoint checks parameters
before it generates anything, so a refusal comes back within that time, while an
accepted request may take a minute to answer (waiting for it would cost every run
one request's latency). A refusal slower than that is paid by the requests already
sent, once each, and still adapted once. An adaptation made by one thread is seen
by every later request.
"""

from __future__ import annotations

import copy
import json
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .model_families import reasoning_family
from .service_errors import ServiceFatal

TOKEN_PARAMETERS = ("max_tokens", "max_completion_tokens")
REASONING_EFFORTS = ("low", "medium", "high")
IMAGE_DETAILS = ("low", "high", "auto")
#: body fields only the harness itself sets; ``--extra-body`` may not set them
RESERVED_FIELDS = frozenset({"model", "messages", "stream", "stream_options", "temperature",
                             "max_tokens", "max_completion_tokens", "reasoning_effort", "n"})
#: a session's limit of 400s naming no parameter before any request is accepted
FIRST_REJECTIONS = 3
#: how long the other requests wait for the first one's outcome (a 400 is quick)
PROBE_GRACE_S = 0.5

_FLAGS = {"temperature": "--temperature", "max_tokens": "--max-tokens",
          "max_completion_tokens": "--max-tokens", "reasoning_effort": "--reasoning-effort",
          "detail": "--image-detail", "stream_options": "--no-stream"}
_VALUE_COMPLAINT = re.compile(
    r"too (?:large|big|high|long|small|low)|at most|at least|maximum|minimum|exceed|"
    r"out of range|must be (?:less|smaller|greater|larger|at|between|in|<|>)|"
    r"(?:greater|less) than|<=|>=", re.I)


def flag_of(parameter: str) -> str:
    """The option that sets a parameter (``--extra-body`` for a provider field)."""
    return _FLAGS.get(parameter, f"--extra-body (field {parameter!r})")


class ParameterRejected(ServiceFatal):
    """The endpoint refuses a parameter in a way the harness cannot fix: the user must change
    a flag (the message names it). Exit 4, like wrong credentials."""


class NegotiationStopped(Exception):
    """The run is stopping while this thread waited for the first request's outcome."""


@dataclass(frozen=True)
class RequestOptions:
    """What the user asked beyond the temperature and token limit (the flags)."""

    reasoning_effort: str | None = None  # --reasoning-effort, sent only when given
    extra_body: Mapping[str, Any] = field(default_factory=dict)  # --extra-body
    image_detail: str | None = None  # --image-detail, sent only when given
    temperature_explicit: bool = False  # --temperature was given on the command line


@dataclass(frozen=True)
class Adaptation:
    """One change of the plan: a parameter omitted, or sent under another name."""

    parameter: str
    action: str  # omit | switch
    to: str | None = None
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"parameter": self.parameter, "action": self.action, "to": self.to,
                "note": self.note}

    @classmethod
    def from_json(cls, data: Any) -> Adaptation | None:
        """A stored adaptation, or None for anything that is not one (run.json is editable)."""
        if not isinstance(data, Mapping):
            return None
        parameter, action, to = data.get("parameter"), data.get("action"), data.get("to")
        if not isinstance(parameter, str) or not parameter or len(parameter) > 200:
            return None
        if action == "omit" and to is None:
            return cls(parameter, "omit", None, str(data.get("note") or "")[:500])
        if action == "switch" and parameter in TOKEN_PARAMETERS and to in TOKEN_PARAMETERS \
                and to != parameter:
            return cls(parameter, "switch", to, str(data.get("note") or "")[:500])
        return None

    def summary(self) -> str:
        """``run.json`` → ``negotiated``: parameter → what happened to it."""
        what = "omitted" if self.action == "omit" else f"sent as {self.to}"
        return f"{what} ({self.note})" if self.note else what


@dataclass(frozen=True)
class Plan:
    """What one request sends besides the model, the messages and the stream flag."""

    omitted: frozenset[str]
    token_parameter: str
    options: RequestOptions
    version: int

    def arguments(self, temperature: float, max_tokens: int) -> dict[str, Any]:
        """The generation parameters as sent (the extra body merged), in a fixed order."""
        out: dict[str, Any] = {}
        if "temperature" not in self.omitted:
            out["temperature"] = temperature
        if self.token_parameter not in self.omitted:
            out[self.token_parameter] = max_tokens
        if self.options.reasoning_effort and "reasoning_effort" not in self.omitted:
            out["reasoning_effort"] = self.options.reasoning_effort
        for key, value in self.options.extra_body.items():
            if key not in self.omitted:
                out[key] = copy.deepcopy(value)
        return out

    @property
    def image_detail(self) -> str | None:
        return None if "detail" in self.omitted else self.options.image_detail

    def stream_options(self) -> bool:
        return "stream_options" not in self.omitted

    def sent_names(self, stream: bool) -> list[str]:
        """Every parameter this plan sends that a 400 could name, in the order they are tried
        when a message names several."""
        names = list(self.arguments(0.0, 1))
        if self.image_detail:
            names.append("detail")
        if stream and self.stream_options():
            names.append("stream_options")
        return names

    def with_detail(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The messages with this plan's image ``detail`` (unchanged without one)."""
        return with_detail(messages, self.image_detail)


def with_detail(messages: list[dict[str, Any]], detail: str | None) -> list[dict[str, Any]]:
    """The messages with ``detail`` on every image part (unchanged when ``detail`` is None)."""
    if not detail:
        return messages
    out = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            content = [{**part, "image_url": {**part["image_url"], "detail": detail}}
                       if isinstance(part, dict) and part.get("type") == "image_url"
                       else part for part in content]
            message = {**message, "content": content}
        out.append(message)
    return out


@dataclass(frozen=True)
class Rejection:
    """What a 400/422 said: the status, its message and the named parameter, if any."""

    status: int
    message: str
    parameter: str | None = None
    body: Any = None

    def haystack(self) -> str:
        try:
            body = json.dumps(self.body, ensure_ascii=False)[:20000]
        except (TypeError, ValueError):
            body = str(self.body)[:20000]
        return f"{self.message}\n{body}"

    def names(self, candidates: Iterable[str]) -> list[str]:
        """The candidates this rejection names: its ``param`` field first, then by word."""
        candidates = list(candidates)
        if self.parameter in candidates:
            return [self.parameter]
        text = self.haystack()
        return [name for name in candidates
                if re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text)]


class Negotiator:
    """The run's parameter plan, its adaptations, and the gate for the first request."""

    def __init__(self, *, api_base_token_parameter: str, model: str | None = None,
                 options: RequestOptions | None = None, stored: Iterable[Adaptation] = (),
                 on_change: Callable[[list[Adaptation]], None] | None = None,
                 stop: threading.Event | None = None, stream: bool = False,
                 early_rejection_limit: int | None = None,
                 probe_grace: float = PROBE_GRACE_S):
        self.options = options or RequestOptions()
        self.early_rejection_limit = early_rejection_limit
        self.probe_grace = probe_grace
        self._probe_started = 0.0
        self.stream = stream
        self._omitted: set[str] = set()
        self._token = api_base_token_parameter
        self._version = 0
        self.adaptations: list[Adaptation] = []
        self._on_change = on_change
        self._stop = stop
        self._cond = threading.Condition()
        self._confirmed = False
        self._probing = False
        self._failure: BaseException | None = None
        self._early_rejections = 0
        family = reasoning_family(model)
        if family:
            why = f"{model} is a reasoning model ({family} family)"
            if not self.options.temperature_explicit:
                self._apply(Adaptation("temperature", "omit", None,
                                       f"{why}: it accepts only its default temperature"))
            if self._token != "max_completion_tokens":
                self._apply(Adaptation(self._token, "switch", "max_completion_tokens",
                                       f"{why}: it refuses max_tokens"))
        for adaptation in stored:
            self._apply(adaptation)

    # ------------------------------------------------------------------ plan

    def plan(self) -> Plan:
        with self._cond:
            return self._plan()

    def _plan(self) -> Plan:
        return Plan(frozenset(self._omitted), self._token, self.options, self._version)

    def _apply(self, adaptation: Adaptation) -> bool:
        """Change the plan; False when it is already so (a stored adaptation seen twice)."""
        if adaptation.action == "omit":
            if adaptation.parameter in self._omitted:
                return False
            self._omitted.add(adaptation.parameter)
        else:
            if self._token != adaptation.parameter:
                return False
            self._token = adaptation.to or self._token
        self._version += 1
        self.adaptations.append(adaptation)
        return True

    def negotiated(self) -> dict[str, str]:
        """``run.json`` → ``negotiated``: parameter → what was done to it."""
        with self._cond:
            return {a.parameter: a.summary() for a in self.adaptations}

    # ------------------------------------------------------------------ the first-request gate

    def acquire(self) -> tuple[Plan, bool]:
        """(the plan to send with, whether this request probes the endpoint). Until one
        request was accepted, a caller waits while another probes (for at most
        ``probe_grace`` seconds); a prober must call :meth:`accepted`, :meth:`release` or
        :meth:`failed` afterwards."""
        with self._cond:
            while True:
                if self._failure is not None:
                    raise self._failure
                if self._confirmed:
                    return self._plan(), False
                if not self._probing:
                    self._probing = True
                    self._probe_started = time.monotonic()
                    return self._plan(), True
                if self._stop is not None and self._stop.is_set():
                    raise NegotiationStopped()
                left = self._probe_started + self.probe_grace - time.monotonic()
                if left <= 0:
                    return self._plan(), False  # no quick refusal: the plan is likely fine
                self._cond.wait(min(left, 0.25))

    def accepted(self) -> None:
        """A request was accepted (status < 400): the plan works, let everyone through."""
        with self._cond:
            self._confirmed = True
            self._probing = False
            self._cond.notify_all()

    def release(self) -> None:
        """A probe ended without telling whether the plan works (a timeout, a 5xx)."""
        with self._cond:
            self._probing = False
            self._cond.notify_all()

    def failed(self, error: BaseException) -> None:
        """Nothing can succeed any more: every waiting and later request raises ``error``."""
        with self._cond:
            self._failure = error
            self._probing = False
            self._cond.notify_all()

    # ------------------------------------------------------------------ 400s

    def adapt(self, plan: Plan, rejection: Rejection) -> bool:
        """After a 400/422 to a request sent with ``plan``: True when the request should be
        retried with the (now adapted) plan; False when the rejection names no parameter
        sent (the request itself is refused: an image too large, say). Raises
        :class:`ParameterRejected` when the plan cannot be fixed."""
        named = rejection.names(plan.sent_names(self.stream))
        with self._cond:
            if not named:
                limit = self.early_rejection_limit
                if not self._confirmed and limit is not None:
                    self._early_rejections += 1
                    if self._early_rejections >= limit:
                        raise ParameterRejected(
                            f"the endpoint refused the first {limit} requests of the run "
                            f"(HTTP {rejection.status}: {rejection.message}) and accepted none, "
                            "naming no parameter that could be left out; check --model, "
                            "--api-base, --extra-body and --image-detail")
                return False
            name = named[0]
            current = self._plan()
            if plan.version != current.version and name not in current.sent_names(self.stream):
                return True  # another request already adapted the plan: just retry
            adaptation = self._fix(name, rejection)
            self._apply(adaptation)
            adaptations = list(self.adaptations)
        if self._on_change is not None:
            self._on_change(adaptations)
        return True

    def _fix(self, name: str, rejection: Rejection) -> Adaptation:
        said = f"HTTP {rejection.status}: {rejection.message}"
        flag = flag_of(name)
        value_problem = bool(_VALUE_COMPLAINT.search(rejection.message)) \
            and "default" not in rejection.message.lower()
        if name in TOKEN_PARAMETERS:
            if value_problem:
                raise ParameterRejected(f"the endpoint refuses the token limit ({said}); change "
                                        f"{flag}")
            other = TOKEN_PARAMETERS[1 - TOKEN_PARAMETERS.index(name)]
            if any(a.parameter in TOKEN_PARAMETERS and a.action == "switch"
                   for a in self.adaptations):
                raise ParameterRejected(f"the endpoint refuses the token limit both as "
                                        f"max_tokens and as max_completion_tokens ({said}); "
                                        f"change {flag} or --api-base")
            return Adaptation(name, "switch", other, said)
        if value_problem and (name != "temperature" or self.options.temperature_explicit):
            raise ParameterRejected(f"the endpoint refuses the value of {name} ({said}); "
                                    f"change {flag}")
        return Adaptation(name, "omit", None, said)


__all__ = ["FIRST_REJECTIONS", "IMAGE_DETAILS", "REASONING_EFFORTS", "RESERVED_FIELDS",
           "TOKEN_PARAMETERS", "Adaptation", "NegotiationStopped", "Negotiator",
           "ParameterRejected", "Plan", "Rejection", "RequestOptions", "flag_of", "with_detail"]
