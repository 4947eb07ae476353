"""Stop a run at once when the endpoint is plainly not there, instead of retrying every task.

Without this rule a dead endpoint costs every task its whole retry schedule
(``--transport-retries`` requests with exponential backoff): 8 tasks took 129 s,
the 450-task benchmark about two hours, and every task ended unavailable anyway.

The rule: the first :data:`FIRST_REQUESTS` requests of a session whose outcome is
known — in the order the outcomes arrive, whichever tasks they belong to,
retries included — are watched. If all of them failed to connect (connection
refused, DNS failure, connection reset before a reply) or all were answered with
the same 4xx status, no request can succeed: the session stops with
:class:`EndpointUnusable` (a :class:`~.service_errors.ServiceFatal`, so exit 4 and
one sentence). Any other outcome among them — a reply, a 5xx, a 429, a timeout,
a different failure — disarms the rule for the rest of the session, so a
healthy server with one transient failure is never stopped. Counting requests
rather than tasks keeps the decision fast at every ``--concurrency``: with 4
tasks in flight the three failures arrive together; with one they are the
first task's first three tries (a few seconds of backoff).

401, 403 and 404 already stop the run on the first one (:mod:`.transport`), and
400/422 naming no parameter after :data:`~.negotiation.FIRST_REJECTIONS`
(:mod:`.negotiation`); this rule adds the connection failures and every other
4xx (405, 410, 413, …).
"""

from __future__ import annotations

import threading

from ...model.errors import clause
from .service_errors import Incident, ServiceFatal

#: outcomes watched before the rule is decided one way or the other
FIRST_REQUESTS = 3

CONNECTION = "connection"


class EndpointUnusable(ServiceFatal):
    """The first requests of the run all failed the same way: nothing can be graded."""


def signature(incident: Incident) -> tuple[str, int | None] | None:
    """What the rule compares: a connection failure, or a 4xx status no retry can help;
    None for anything that may pass (a timeout, 408, 429, 5xx, a malformed or cut reply)."""
    if incident.kind == CONNECTION:
        return (CONNECTION, None)
    status = incident.status
    if incident.kind == "rejected" and status is not None and 400 <= status < 500:
        return ("status", status)
    return None


class FirstRequests:
    """The watcher of a session's first request outcomes (thread-safe)."""

    def __init__(self, endpoint: str | None, limit: int = FIRST_REQUESTS):
        self.endpoint = endpoint or "the OpenAI API"
        self.limit = limit
        self._lock = threading.Lock()
        self._seen: list[tuple[str, int | None]] = []
        self._last = ""
        self._advice: str | None = None
        self._armed = limit > 0

    def succeeded(self) -> None:
        """A request was answered: the endpoint works; the rule is off."""
        with self._lock:
            self._armed = False

    def failed(self, incident: Incident) -> None:
        """A request failed; raises :class:`EndpointUnusable` when it completes the
        pattern of the rule."""
        with self._lock:
            if not self._armed:
                return
            sig = signature(incident)
            if sig is None or (self._seen and sig != self._seen[0]):
                self._armed = False
                return
            self._seen.append(sig)
            self._last = incident.message
            self._advice = incident.advice
            if len(self._seen) < self.limit:
                return
            self._armed = False
        raise EndpointUnusable(self._sentence(sig))

    def _sentence(self, sig: tuple[str, int | None]) -> str:
        said = clause(self._last) or "no detail"
        if sig[0] == CONNECTION:
            return (f"the first {self.limit} requests to {self.endpoint} all failed to connect "
                    f"({said}), so nothing was graded; check that the server is running and "
                    "that --api-base names its scheme, host, port and path (e.g. "
                    "http://localhost:8000/v1)")
        advice = self._advice or ("check --api-base (the path usually ends in /v1), --model "
                                  "and --api-key")
        return (f"the first {self.limit} requests to {self.endpoint} were all refused with "
                f"HTTP {sig[1]} ({said}), so nothing was graded; {advice}")


__all__ = ["FIRST_REQUESTS", "EndpointUnusable", "FirstRequests", "signature"]
