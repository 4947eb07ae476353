"""How a request to the model's endpoint can fail, as the rest of the harness sees it.

Kept apart from :mod:`.transport` so that the pieces the transport uses (the
parameter negotiation, the response cache) can raise and record them without
importing the client.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...model.errors import StructEvalError


@dataclass(frozen=True)
class Incident:
    """One failed request that was (or could not be) retried."""

    # timeout | connection | rate_limit | server | truncated | malformed | rejected | adapted
    kind: str
    status: int | None
    message: str
    wait_s: float | None = None  # the delay before the next try; None if none followed
    advice: str | None = None  # what the user can do, when the failure itself says it

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "status": self.status, "message": self.message,
                "wait_s": None if self.wait_s is None else round(self.wait_s, 3)}


class ServiceUnavailable(StructEvalError):
    """The endpoint kept failing (or refused this request): the task cannot be graded now."""

    def __init__(self, incidents: list[Incident]):
        self.incidents = tuple(incidents)
        last = incidents[-1] if incidents else None
        super().__init__(f"service unavailable after {len(incidents)} failed request(s)"
                         + (f"; last: {last.kind} {last.message}" if last else ""))


class RequestRejected(ServiceUnavailable):
    """The API refused this particular request (e.g. HTTP 400): retrying cannot help."""


class ToolsRefused(RequestRejected):
    """The endpoint refused a request because it carried tools (``--image-mode zoom``): the
    server or model has no tool calling, so no zoom request can succeed. One sentence that
    names the modes that need none."""

    ADVICE = "run with --image-mode tiles or fit"
    SENTENCE = f"the server refused tool calling; {ADVICE}"

    def __init__(self, incidents: list[Incident]):
        super().__init__(incidents)
        last = incidents[-1] if incidents else None
        said = f" (HTTP {last.status}: {last.message.rstrip('.')})" if last else ""
        self.args = (self.SENTENCE.replace(";", said + ";", 1),)


class ServiceFatal(StructEvalError):
    """Credentials, permissions, the model name or a parameter are wrong: no task can
    succeed."""
