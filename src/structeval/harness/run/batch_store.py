"""First-attempt answers that came back from a Batch API job, waiting for their tasks.

Why a store of its own rather than the response cache: a batch answer was
*paid* (at the batch price) by this run, so it must be charged when its task uses
it, traced as ``cache: "batch"`` and counted as a request; a cache hit is free
and may come from another run. The store is filled from the job's output file
(:mod:`.batch`), keyed by the same request key the cache uses
(:func:`.response_cache.request_key`), and each answer is handed out once: the
task whose first attempt it answers takes it; everything else (repairs, tasks
whose batch line failed) is sent live.

Every output line is untrusted text from a server (or from a file in the run
folder that somebody may have edited): it is parsed through the same validated
reply shape as a live response (:func:`.response.parse_completion`), and a line
that is not a believable answer is counted and left out, so its task is asked
live instead — never a crash.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ..client.response import MAX_ANSWER_CHARS, MalformedReply, parse_completion
from .response_cache import StoredReply

#: The Batch API bills input and output tokens at half the live price (OpenAI's published
#: discount); the cost of a batch answer is the run's prices times this factor.
BATCH_PRICE_FACTOR = 0.5

#: The most bytes of one output line that are read (a line holds one whole completion).
MAX_LINE_BYTES = 16 << 20


@dataclass
class LineCounts:
    """What reading an output file found, for the run's notes and results."""

    answered: int = 0  # believable answers stored
    failed: int = 0  # lines whose request failed at the provider (status ≠ 200 or error)
    unreadable: int = 0  # lines that are not JSON, or not an answer we can use
    unknown: int = 0  # lines whose custom_id is not one this run sent

    def to_json(self) -> dict[str, int]:
        return {"answered": self.answered, "failed": self.failed,
                "unreadable": self.unreadable, "unknown": self.unknown}


@dataclass
class BatchAnswers:
    """Request key → answer, thread-safe; each answer is taken at most once."""

    max_chars: int = MAX_ANSWER_CHARS
    _answers: dict[str, StoredReply] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    taken: int = 0

    def __len__(self) -> int:
        with self._lock:
            return len(self._answers)

    def add_lines(self, lines: Iterable[bytes], keys: Mapping[str, str]) -> LineCounts:
        """Read output lines (``{"custom_id", "response": {"status_code", "body"}}``), keeping
        the answers of the ``custom_id`` → request key map ``keys``."""
        counts = LineCounts()
        for raw in lines:
            if not raw.strip():
                continue
            outcome = self._add_line(raw, keys)
            setattr(counts, outcome, getattr(counts, outcome) + 1)
        return counts

    def _add_line(self, raw: bytes, keys: Mapping[str, str]) -> str:
        if len(raw) > MAX_LINE_BYTES:
            return "unreadable"
        try:
            line = json.loads(raw.decode("utf-8", errors="replace"))
        except (ValueError, RecursionError):
            return "unreadable"
        if not isinstance(line, dict):
            return "unreadable"
        custom_id = line.get("custom_id")
        key = keys.get(custom_id) if isinstance(custom_id, str) else None
        if key is None:
            return "unknown"
        response = line.get("response")
        if line.get("error") or not isinstance(response, dict) \
                or response.get("status_code") != 200:
            return "failed"
        try:
            parsed = parse_completion(response.get("body"), max_chars=self.max_chars)
        except MalformedReply:
            return "unreadable"
        usage = parsed.usage
        stored = StoredReply(parsed.text, parsed.finish_reason, usage.prompt, usage.completion,
                             usage.total, usage.state, usage.reasoning, parsed.truncation,
                             parsed.model, parsed.system_fingerprint, 0.0)
        with self._lock:
            self._answers[key] = stored
        return "answered"

    def take(self, key: str) -> StoredReply | None:
        """The answer for ``key``, removed from the store (None: ask live)."""
        with self._lock:
            stored = self._answers.pop(key, None)
            if stored is not None:
                self.taken += 1
        return stored
