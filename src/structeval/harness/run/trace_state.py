"""What a run's trace says was done, read the same way by ``--resume`` and tools/rescore.py.

A trace is evidence a user can open in an editor, so every record is believed
only after the checks a session of ours would pass: a task record through
:meth:`TaskResult.from_trace_record`, a graded attempt through
:func:`~.results.recorded_grade`. Both readers share this one home so that a
hand-edited record means the same thing to both: ``--resume`` runs its task
again, the rescore counts the task as unreadable (unavailable, with the reason)
— neither crashes, neither drops the task silently.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .results import TaskResult, recorded_frame, recorded_grade

Key = tuple[int, str]  # (run index, task id)

#: How long a reason quoting a hand-edited value may be (it is shown on a terminal).
MAX_REASON_CHARS = 160


@dataclass
class TraceState:
    """The believable outcome of a trace, read once from its records."""

    finished: dict[Key, TaskResult] = field(default_factory=dict)  # last believable result
    sessions: dict[Key, int] = field(default_factory=dict)  # the session that wrote it
    next_session: int = 0
    past_wall: float = 0.0  # wall seconds of the past sessions
    rejected: int = 0  # task records not believable (every one, attributable or not)
    unreadable: dict[Key, str] = field(default_factory=dict)  # no believable record: why


def _session_of(rec: dict[str, Any]) -> int | None:
    session = rec.get("session")
    if isinstance(session, int) and not isinstance(session, bool) and 0 <= session < 10**6:
        return session
    return None


def _key_of(rec: dict[str, Any]) -> Key | None:
    """(run, task id) of a record whose fields are fit to name a task, else None."""
    run, task_id = rec.get("run", 0), rec.get("task_id")
    if isinstance(run, bool) or not isinstance(run, int) or not 0 <= run < 10**6:
        return None
    return (run, task_id) if isinstance(task_id, str) and task_id else None


def short_reason(exc: BaseException) -> str:
    """An exception's text fit for one line of a note (values from a file are quoted by
    repr, so control characters arrive escaped; the length is capped)."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= MAX_REASON_CHARS else text[: MAX_REASON_CHARS - 3] + "..."


def previous_state(records: Iterable[dict[str, Any]]) -> TraceState:
    """The trace's state; ``records`` is consumed once, as it is read (the trace is never
    held in memory). A task record that fails the checks is counted in ``rejected``;
    when it names its task and no believable record of that task exists, the task is
    listed in ``unreadable`` with the reason."""
    state = TraceState()
    walls: dict[int, float] = {}
    for rec in records:
        session = _session_of(rec)
        if session is not None:
            elapsed = rec.get("wall_s", rec.get("elapsed_s", 0.0))
            if isinstance(elapsed, (int, float)) and 0 <= elapsed < 1e9:
                walls[session] = max(walls.get(session, 0.0), float(elapsed))
        if rec["type"] != "task":
            continue
        try:
            result = TaskResult.from_trace_record(rec)
        except (KeyError, TypeError, ValueError) as exc:
            state.rejected += 1
            key = _key_of(rec)
            if key is not None:
                state.unreadable[key] = f"task record: {short_reason(exc)}"
            continue
        key = (result.run, result.id)
        state.finished[key] = result
        state.sessions[key] = session or 0
    for key in state.finished:
        state.unreadable.pop(key, None)
    state.next_session = max(walls, default=-1) + 1
    state.past_wall = sum(walls.values())
    return state


@dataclass(frozen=True)
class GradedAttempt:
    """A graded attempt of the trace, as far as a rescore needs it."""

    number: int  # 1 is the first answer, 2, 3, … the repairs
    ratio: float
    stage: str
    flags: tuple[str, ...]
    text: str | None  # the stored answer (None: not stored)
    record: dict[str, Any]  # the record as read
    wrong_frame: str | None = None  # the sheet's other frame it modelled, as recorded


def graded_attempt(rec: dict[str, Any]) -> GradedAttempt:
    """A graded attempt record checked field by field; ValueError (one sentence) for a
    record no session of ours could have written: a verdict that is not an object, a
    ratio outside [0, 1] or not a number, an unknown stage, a response that is not an
    object, answer flags that are not a list of known flags."""
    number = rec.get("attempt")
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number < 10**6:
        raise ValueError(f"attempt number {number!r}")
    response = rec.get("response", {})
    if not isinstance(response, dict):
        raise ValueError(f"attempt {number}: response {response!r} is not an object")
    text = response.get("text")
    if text is not None and not isinstance(text, str):
        raise ValueError(f"attempt {number}: answer text {text!r} is not a string")
    try:
        ratio, stage, flags = recorded_grade(rec.get("verdict"), response.get("flags"))
        frame = recorded_frame(rec["verdict"].get("wrong_frame"))
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"attempt {number}: {short_reason(exc)}") from None
    return GradedAttempt(number, ratio, stage, flags, text, rec, frame)
