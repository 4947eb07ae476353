"""``trace.jsonl``: the append-only evidence log, and the only state ``--resume`` trusts.

Each record is one JSON line, written, flushed and fsync'ed as soon as it is
complete, so a ``kill -9`` loses at most the line being written; a torn last
line is skipped on reading and the next writer starts on a fresh line. Every
string passes through the redactor on the way out, so a secret cannot reach the
file even if a hostile server echoes it back. Record types (all carry ``type``,
``run``, ``session``) are documented in ``RUN_FORMAT.md`` beside this module.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

REDACTED = "[REDACTED]"


class Redactor:
    """Replaces secrets (the API key) in any text that leaves the process."""

    def __init__(self, secrets: Iterable[str | None] = ()):
        self.secrets = sorted({s for s in secrets if s and len(s) >= 4}, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return text


def jsonable(value: Any, redact: Redactor) -> Any:
    """Plain JSON data: redacted strings, finite floats (others become None), numpy to Python."""
    if isinstance(value, str):
        return redact(_valid_unicode(value))
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {redact(str(k)): jsonable(v, redact) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v, redact) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return jsonable(dataclasses.asdict(value), redact)
    item = getattr(value, "item", None)  # numpy scalar
    if callable(item) and getattr(value, "shape", None) == ():
        return jsonable(item(), redact)
    tolist = getattr(value, "tolist", None)  # numpy array
    if callable(tolist):
        return jsonable(tolist(), redact)
    return redact(str(value))


def _valid_unicode(text: str) -> str:
    """Lone surrogates (a JSON "\\ud800" from a server decodes to one) cannot be written
    as UTF-8; they become U+FFFD instead of crashing the writer."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("\ufffd" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in text)
    return text


def dumps_line(record: dict[str, Any], redact: Redactor) -> str:
    return json.dumps(jsonable(record, redact), ensure_ascii=False, allow_nan=False)


class TraceWriter:
    """Thread-safe appender; one instance per run directory and process."""

    def __init__(self, path: Path, redact: Redactor):
        self.path = Path(path)
        self.redact = redact
        self._lock = threading.Lock()
        self._file = open(self.path, "ab")  # noqa: SIM115 - lives as long as the writer
        if self._file.tell() > 0 and not _ends_with_newline(self.path):
            self._file.write(b"\n")  # a previous process died mid-line

    def write(self, record: dict[str, Any]) -> None:
        """Append one record; after close (an aborted session) records are dropped, which
        only means --resume runs that task again."""
        data = (dumps_line(record, self.redact) + "\n").encode("utf-8")
        with self._lock:
            if self._file.closed:
                return
            self._file.write(data)
            self._file.flush()
            os.fsync(self._file.fileno())

    def close(self) -> None:
        with self._lock:
            self._file.close()

    def __enter__(self) -> TraceWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _ends_with_newline(path: Path) -> bool:
    with open(path, "rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"


def read_trace(path: Path) -> tuple[list[dict[str, Any]], int]:
    """(records, number of unreadable lines skipped); a missing file is an empty trace."""
    records: list[dict[str, Any]] = []
    skipped = 0
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        return records, 0
    for line in raw.split(b"\n"):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            skipped += 1
            continue
        if isinstance(record, dict) and isinstance(record.get("type"), str):
            records.append(record)
        else:
            skipped += 1
    return records, skipped
