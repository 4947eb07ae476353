"""The attempts behind each task result, read back from ``trace.jsonl``.

The rule is RUN_FORMAT.md's: a task's latest ``task`` record counts, and its
attempts are the ``attempt`` records with the same run, task id and session.
A trace can be hand-edited or cut short, so every field is read defensively:
a wrong type becomes an empty value, never an exception.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..harness.common.trace import TraceReader
from .runfiles import TRACE_FILE

#: Characters of a raw answer kept per attempt (the page shows 20,000; the trace has all).
KEPT_RESPONSE_CHARS = 20_000

_IMAGE_SHA = re.compile(r"^<image [^ ]+ \d+ bytes sha256=([0-9a-f]{64})>$")


@dataclass(frozen=True)
class AttemptView:
    attempt: int
    outcome: str  # graded | unavailable | rejected | grading_error
    stage: str | None
    ratio: float | None
    diagnosis: str  # the verdict message (or the error when not graded)
    feedback: str | None  # the repair message actually sent after this attempt
    response: str  # the raw answer
    extracted: str | None  # the JSON text the harness extracted
    extraction_method: str | None
    extraction_problem: str | None
    issues: tuple[str, ...]  # validation issues, "path: message"
    tokens: int | None
    latency_s: float | None
    response_chars: int = 0  # length of the raw answer in the trace (``response`` may be cut)


@dataclass(frozen=True)
class TaskEvidence:
    task_id: str
    attempts: tuple[AttemptView, ...]
    best_attempt: int | None
    image_sha: str | None  # sha256 of the image the model was shown

    def best(self) -> AttemptView | None:
        for a in self.attempts:
            if a.attempt == self.best_attempt:
                return a
        return None


def _d(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _s(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _f(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else None


def _i(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _messages(rec: dict[str, Any]) -> list[Any]:
    messages = _d(rec.get("request")).get("messages")
    return messages if isinstance(messages, list) else []


def _image_sha(rec: dict[str, Any]) -> str | None:
    for message in _messages(rec):
        content = _d(message).get("content")
        for part in content if isinstance(content, list) else []:
            url = _s(_d(_d(part).get("image_url")).get("url"))
            match = _IMAGE_SHA.match(url or "")
            if match:
                return match.group(1)
    return None


def _sent_feedback(rec: dict[str, Any] | None) -> str | None:
    """The repair prompt a request carried: its last user message after an assistant turn."""
    if rec is None:
        return None
    messages = [_d(m) for m in _messages(rec)]
    if len(messages) >= 2 and messages[-2].get("role") == "assistant" \
            and messages[-1].get("role") == "user":
        return _s(messages[-1].get("content"))
    return None


def _view(rec: dict[str, Any], following: dict[str, Any] | None) -> AttemptView:
    verdict, extraction = _d(rec.get("verdict")), _d(rec.get("extraction"))
    validation, response = _d(rec.get("validation")), _d(rec.get("response"))
    issues = validation.get("issues")
    issue_text = tuple(f"{_d(i).get('path', '?')}: {_d(i).get('message', '')}"
                       for i in (issues if isinstance(issues, list) else []))
    diagnosis = _s(verdict.get("message")) or _s(rec.get("error")) or ""
    text = _s(response.get("text")) or ""
    return AttemptView(
        attempt=_i(rec.get("attempt")) or 0, outcome=_s(rec.get("outcome")) or "?",
        stage=_s(verdict.get("stage")), ratio=_f(verdict.get("ratio")), diagnosis=diagnosis,
        feedback=_sent_feedback(following), response=text[:KEPT_RESPONSE_CHARS],
        extracted=_s(extraction.get("json")), extraction_method=_s(extraction.get("method")),
        extraction_problem=_s(extraction.get("problem")), issues=issue_text,
        tokens=_i(_d(rec.get("tokens")).get("total")), latency_s=_f(rec.get("latency_s")),
        response_chars=len(text))


def read_evidence(directory: Path, run: int = 0) -> tuple[dict[str, TaskEvidence], int]:
    """(task id → evidence of ``run``, unreadable trace lines skipped).

    Two passes over the trace, one line at a time: the first finds each task's latest
    ``task`` record, the second keeps only the attempts behind those — so memory holds
    the evidence shown, never the whole trace (which may hold many superseded sessions).
    """
    reader = TraceReader(Path(directory) / TRACE_FILE)
    latest: dict[str, dict[str, Any]] = {}
    for rec in reader:
        if rec["type"] == "task" and rec.get("run", 0) == run \
                and isinstance(rec.get("task_id"), str):
            latest[rec["task_id"]] = {"session": rec.get("session"),
                                      "best_attempt": rec.get("best_attempt")}
    wanted = {(task_id, task["session"]) for task_id, task in latest.items()}
    attempts: dict[tuple[str, Any], list[dict[str, Any]]] = {}
    for rec in reader:
        key = (rec.get("task_id"), rec.get("session"))
        if rec["type"] == "attempt" and rec.get("run", 0) == run and key in wanted:
            attempts.setdefault(key, []).append(rec)  # type: ignore[arg-type]
    out = {}
    for task_id, task in latest.items():
        recs = sorted(attempts.get((task_id, task["session"]), []),
                      key=lambda r: _i(r.get("attempt")) or 0)
        views = tuple(_view(r, recs[k + 1] if k + 1 < len(recs) else None)
                      for k, r in enumerate(recs))
        sha = next((s for s in map(_image_sha, recs) if s), None)
        out[task_id] = TaskEvidence(task_id, views, _i(task["best_attempt"]), sha)
    return out, reader.skipped
