"""What a run is: the settings that decide its scores, and the transport retry policy.

They are split because they play different roles in ``--resume``: results from an
earlier session may only be reused when every *grading* setting is identical,
while transport knobs (concurrency, timeout, backoff, streaming) may change
between sessions without changing what a finished task means. The API key is
deliberately not a field of either: nothing that gets serialized can hold it.

Grading settings are what the user *asked* for. What the endpoint accepted — a
temperature left out for a reasoning model, the limit sent as
``max_completion_tokens`` — is a transport adaptation recorded apart
(``run.json`` → ``negotiated``, :mod:`.negotiation`), so a negotiated omission
never makes a resumed session look like another run. Fields added after a run
was written compare as their default (a run.json from before ``--lang`` is an
English run).
"""

from __future__ import annotations

import math
import random
from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import Any
from urllib.parse import urlsplit, urlunsplit

PROMPT_TYPES = ("standard", "reasoning", "strict")


@dataclass(frozen=True)
class GradingSettings:
    """Everything that can change a task's score; stored in ``run.json``."""

    model: str
    prompt_type: str = "standard"
    temperature: float = 0.0
    max_tokens: int = 8192
    max_retries: int = 3  # repair rounds after the first attempt
    tolerance: float = 0.02
    lang: str = "en"  # prompt, feedback and diagnosis language (--lang)
    modality: str = "image"  # what the model is shown: image | dxf (--modality)
    reasoning_effort: str | None = None  # sent only when given
    extra_body: dict[str, Any] = field(default_factory=dict)  # merged into every request
    image_detail: str | None = None  # OpenAI image ``detail``, sent only when given
    max_image_side: int | None = None  # downscale images whose longer side is larger
    image_mode: str = "fit"  # fit | tiles | zoom (--image-mode): one picture, overview and
    # tiles, or overview and a zoom tool
    max_zooms: int | None = None  # zoom calls per attempt (--max-zooms); None unless zoom

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def differences(self, stored: dict[str, Any]) -> list[str]:
        """Human-readable mismatches against the settings an earlier session stored (a field
        the stored run does not have counts as its default)."""
        out = []
        for f in fields(self):
            default = f.default_factory() if f.default_factory is not MISSING else f.default
            mine, theirs = getattr(self, f.name), stored.get(f.name, default)
            if mine != theirs:
                out.append(f"{f.name}: this run {mine!r}, stored run {theirs!r}")
        return out


@dataclass(frozen=True)
class TransportSettings:
    """How requests are made; may differ between sessions of one run."""

    api_base: str | None = None
    timeout: float = 600.0  # wall-clock seconds for one whole request (stream included)
    stream: bool = False
    concurrency: int = 4

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["api_base"] = public_url(self.api_base)
        return out


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with jitter for infrastructure failures.

    ``tries`` counts requests, so ``tries=6`` means one request and five retries.
    A server's Retry-After replaces the computed delay when it is believable, capped
    by ``max_retry_after`` (``--backoff-max``) so a hostile value cannot stall a run;
    ``wait_budget`` bounds the sum of all waits of one task (``--wait-budget``).
    """

    tries: int = 6
    base_delay: float = 2.0
    max_delay: float = 60.0
    jitter: float = 0.25  # ± fraction of the computed delay
    max_retry_after: float = 60.0
    wait_budget: float = 600.0  # seconds of backoff per task, all its requests together

    def delay(self, failures: int, retry_after: float | None, rng: random.Random) -> float:
        """Seconds to wait after the ``failures``-th failed request (1-based)."""
        if retry_after is not None and math.isfinite(retry_after):
            return min(max(retry_after, 0.0), self.max_retry_after)
        raw = min(self.base_delay * 2 ** (failures - 1), self.max_delay)
        return max(0.0, raw * (1.0 + self.jitter * (2.0 * rng.random() - 1.0)))

    def budget(self) -> WaitBudget:
        """A fresh wait budget for one task."""
        return WaitBudget(self.wait_budget)


class WaitBudget:
    """Backoff seconds one task may still spend (shared by all its requests and threads
    never share one: each task gets its own)."""

    def __init__(self, limit: float):
        self.limit = limit
        self.spent = 0.0

    def allow(self, wait: float) -> bool:
        return self.spent + wait <= self.limit + 1e-9

    def spend(self, wait: float) -> None:
        self.spent += wait


def public_url(url: str | None) -> str | None:
    """The endpoint without user-info or query string, which may carry credentials."""
    if not url:
        return url
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if parts.port:
            host = f"{host}:{parts.port}"
        return urlunsplit((parts.scheme, host, parts.path, "", ""))
    except ValueError:
        return "<unparsable url>"
