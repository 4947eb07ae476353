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
import re
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from ...safe_files import FileAccessError, explain_os_error, open_append
from ...safe_text import valid_unicode

REDACTED = "[REDACTED]"

#: Any run of this many characters of a secret, anywhere in a text, is masked: a server
#: quoting the key's first 20 or 60 characters ("Incorrect API key provided: 'sk-…'"),
#: a model answer repeating a part of it.
MIN_RUN = 8
#: A shorter run is masked too where it ends or starts the text: some other component
#: may have cut the text (and the secret with it) before we saw it.
MIN_FRAGMENT = 4

# Credentials in header or parameter form, whatever the key: "Bearer <token>",
# "api-key: <value>", "x-api-key=<value>", "Authorization: <scheme> <value>"
# (case-insensitive; JSON quoting allowed). Group 2 is the credential.
_BEARER = re.compile(r"(?i)(\bbearer\s+)([^\s\"'<>,;]{8,})")
_HEADER = re.compile(r"(?i)(\b(?:x-)?api[-_]?key\b[\"']?\s*[:=]\s*[\"']?"
                     r"|\bauthorization\b[\"']?\s*[:=]\s*[\"']?(?:[a-z]+\s+)?)([^\s\"'<>,;&]+)")


class Redactor:
    """Masks secrets in any text that leaves the process: every run of :data:`MIN_RUN` or
    more characters of the API key anywhere in the text (the whole key included), a
    shorter run of it at either edge of the text (the text was cut elsewhere), bearer
    tokens and ``api-key`` / ``x-api-key`` / ``Authorization`` values — and every run of
    :data:`MIN_RUN` characters of such a token elsewhere in the same text.

    Always redact a whole text *before* cutting it: a key straddling the cut would
    otherwise survive in part (:func:`redact_then_cut`).
    """

    def __init__(self, secrets: Iterable[str | None] = ()):
        self.secrets = sorted({s for s in secrets if s and len(s) >= MIN_FRAGMENT},
                              key=len, reverse=True)
        self._runs = [_runs_of(s) for s in self.secrets]

    def __call__(self, text: str) -> str:
        for secret, runs in zip(self.secrets, self._runs, strict=True):
            text = _mask_runs(text, secret, runs)
        tokens: list[str] = []
        if "earer" in text or "EARER" in text:
            text = _BEARER.sub(lambda m: _credential(m, tokens), text)
        lowered = text.lower()
        if "key" in lowered or "authorization" in lowered:
            text = _HEADER.sub(lambda m: _credential(m, tokens), text)
        for token in tokens:
            if len(token) >= MIN_RUN:
                text = _mask_runs(text, token, _runs_of(token))
        return text


def _credential(match: re.Match[str], found: list[str]) -> str:
    """The header's name kept and its value masked; the value noted for a second pass."""
    if match.group(2) != REDACTED:
        found.append(match.group(2))
    return match.group(1) + REDACTED


def _runs_of(secret: str) -> frozenset[str]:
    """Every MIN_RUN-character piece of the secret (the secret itself when shorter): a
    text holds a run of ≥ MIN_RUN characters of it exactly where such pieces occur."""
    if len(secret) <= MIN_RUN:
        return frozenset({secret})
    return frozenset(secret[i:i + MIN_RUN] for i in range(len(secret) - MIN_RUN + 1))


def _mask_runs(text: str, secret: str, runs: frozenset[str]) -> str:
    """Replace each stretch of the text covered by pieces of ``secret`` — and a shorter
    start of it ending the text or end of it starting the text — by one REDACTED."""
    spans = []
    for piece in runs:
        at = text.find(piece)
        while at >= 0:
            spans.append((at, at + len(piece)))
            at = text.find(piece, at + 1)
    for n in range(min(MIN_RUN - 1, len(secret) - 1, len(text)), MIN_FRAGMENT - 1, -1):
        if text.endswith(secret[:n]):  # the text was cut inside the secret
            spans.append((len(text) - n, len(text)))
            break
    for n in range(min(MIN_RUN - 1, len(secret) - 1, len(text)), MIN_FRAGMENT - 1, -1):
        if text.startswith(secret[-n:]):  # the text starts after a cut inside it
            spans.append((0, n))
            break
    if not spans:
        return text
    spans.sort()
    pieces, kept_to = [], 0
    start, end = spans[0]
    for s, e in spans[1:]:
        if s <= end:
            end = max(end, e)
            continue
        pieces += [text[kept_to:start], REDACTED]
        kept_to, start, end = end, s, e
    pieces += [text[kept_to:start], REDACTED, text[end:]]
    return "".join(pieces)


def redact_then_cut(text: object, redact: Redactor, limit: int = 300) -> str:
    """The text redacted in full, then cut to ``limit`` characters (with "...")."""
    s = redact(str(text))
    return s if len(s) <= limit else s[: limit - 3] + "..."


def jsonable(value: Any, redact: Redactor) -> Any:
    """Plain JSON data: redacted strings, finite floats (others become None), numpy to Python."""
    if isinstance(value, str):
        return redact(valid_unicode(value))
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


def dumps_line(record: dict[str, Any], redact: Redactor) -> str:
    return json.dumps(jsonable(record, redact), ensure_ascii=False, allow_nan=False)


class TraceWriter:
    """Thread-safe appender; one instance per run directory and process.

    The file is opened without following a symbolic link, and every record is written
    with unbuffered ``os.write`` calls and fsync'ed, so a failed write (disk full, file
    size limit) leaves nothing pending in a buffer: it raises
    :class:`~structeval.safe_files.FileAccessError` with one sentence, and the next
    session starts on a fresh line after whatever part reached the disk.
    """

    def __init__(self, path: Path, redact: Redactor):
        self.path = Path(path)
        self.redact = redact
        self._lock = threading.Lock()
        self._fd: int | None = open_append(self.path)
        try:
            size = os.fstat(self._fd).st_size
            if size > 0 and os.pread(self._fd, 1, size - 1) != b"\n":
                self._write_all(b"\n")  # a previous process died mid-line
        except BaseException:
            self.close()
            raise

    def _write_all(self, data: bytes) -> None:
        assert self._fd is not None
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view):]
            os.fsync(self._fd)
        except OSError as exc:
            raise FileAccessError(explain_os_error(exc, self.path, "write to") + "; the run "
                                  "can be continued with --resume once that is fixed") from None

    def write(self, record: dict[str, Any]) -> None:
        """Append one record; after close (an aborted session) records are dropped, which
        only means --resume runs that task again."""
        data = (dumps_line(record, self.redact) + "\n").encode("utf-8")
        with self._lock:
            if self._fd is None:
                return
            self._write_all(data)

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def __enter__(self) -> TraceWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


#: Longest trace line read back (an attempt record holds at most a few capped answers);
#: a longer line is skipped as unreadable without ever being held whole.
MAX_LINE_BYTES = 64 << 20


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


class TraceReader:
    """The records of a trace, one line at a time (memory: one line, never the file).

    Lines that are torn, not JSON, carry NaN/Infinity, are longer than ``max_line``
    bytes or are not records (an object with a string ``type``) are counted in
    ``skipped`` once iteration is over. A missing file is an empty trace.
    """

    def __init__(self, path: Path, max_line: int = MAX_LINE_BYTES):
        self.path = Path(path)
        self.max_line = max_line
        self.skipped = 0

    def __iter__(self) -> Iterator[dict[str, Any]]:
        self.skipped = 0
        try:
            handle = open(self.path, "rb")  # noqa: SIM115 - closed in the finally below
        except FileNotFoundError:
            return
        except OSError as exc:
            raise FileAccessError(explain_os_error(exc, self.path, "read")) from None
        try:
            yield from self._records(handle)
        finally:
            handle.close()

    def _records(self, handle: BinaryIO) -> Iterator[dict[str, Any]]:
        while True:
            line = handle.readline(self.max_line + 1)
            if not line:
                return
            if len(line) > self.max_line and not line.endswith(b"\n"):
                self.skipped += 1
                while line and not line.endswith(b"\n"):  # drop the rest of the long line
                    line = handle.readline(1 << 20)
                continue
            if not line.strip():
                continue
            try:
                record = json.loads(line, parse_constant=_no_constants)
            except (ValueError, RecursionError):
                self.skipped += 1
                continue
            if isinstance(record, dict) and isinstance(record.get("type"), str):
                yield record
            else:
                self.skipped += 1


def read_trace(path: Path) -> tuple[list[dict[str, Any]], int]:
    """(records, number of unreadable lines skipped), all at once; for small traces and
    tests — long-lived readers iterate a :class:`TraceReader` instead."""
    reader = TraceReader(path)
    records = list(reader)
    return records, reader.skipped
