"""Replies of earlier runs, so that a rerun of the same settings costs nothing.

A reply is stored under the sha256 of everything that decided it: the endpoint
(without credentials), the model, the messages exactly as sent (each image
replaced by the sha256 of its bytes), every generation parameter actually sent
(negotiated forms and ``--extra-body`` included; not ``stream``, which changes
how an answer arrives, not what it is), the run index (``--runs K`` draws K
independent samples) and the attempt number. A rerun with the same settings
therefore asks nothing and gets the same answers, hence the same results; a
changed prompt, image, parameter or run index is a different key.

What is stored is the validated reply only — the answer text, finish reason,
usage, the model and fingerprint the API returned, the truncation note and the
original latency — never request headers, never the API key: a reply that
contains the key (a hostile server echoing it) is not stored at all.

Files: ``<root>/v1/<2 hex>/<64 hex>.json``, each written to a temporary file in
the same folder and renamed over the target (``os.replace``), so
threads and processes sharing the cache, and a ``kill -9`` at any moment, leave
either the old file, the new one or none — never a torn one (a leftover
temporary file is ignored and swept after an hour). A file that does not parse
or validate is a miss. The cache is bounded: once its files exceed
``max_bytes`` (default 2 GiB, ``--cache-max-bytes``) the least recently used
entries (file modification time, refreshed on every hit) are deleted down to
90 % of the bound. A cache folder that cannot be written is reported once and
the run continues without storing.

The root defaults to ``<cache root>/responses``, the cache root being
``$STRUCTEVAL_CACHE/structeval``, else ``$XDG_CACHE_HOME/structeval``, else
``~/.cache/structeval`` — the root the solver's compiled-module cache
(:func:`structeval.cachedir.cache_root`) uses, in its own subfolder.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import re
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...cachedir import cache_root
from ..client.response import MAX_TOKENS, label

FORMAT = 1
DEFAULT_MAX_BYTES = 2 << 30
STALE_TEMP_S = 3600.0
_ENTRY = re.compile(r"[0-9a-f]{64}\.json")
_DATA_URL = re.compile(r"data:([^;,]+);base64,(.*)", re.S)
MAX_ENTRY_BYTES = 64 << 20  # a stored reply larger than this is not read


def default_root() -> Path:
    """Where the cache lives unless ``--cache-dir`` says otherwise."""
    return cache_root() / "responses"


def parse_size(text: str) -> int:
    """``2G``, ``500M``, ``64k`` or a plain number of bytes → bytes; ValueError otherwise."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kKmMgGtT]?)i?[bB]?\s*", str(text))
    if not match:
        raise ValueError(f"{text!r} is not a size (e.g. 2G, 500M or a number of bytes)")
    scale = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}[
        match.group(2).lower()]
    return int(float(match.group(1)) * scale)


def _image_digest(url: str) -> str:
    match = _DATA_URL.fullmatch(url)
    if not match:
        return url
    try:
        data = base64.b64decode(match.group(2), validate=False)
    except ValueError:
        data = match.group(2).encode("ascii", "replace")
    return f"image {match.group(1)} sha256={hashlib.sha256(data).hexdigest()}"


def keyed_messages(messages: list[dict[str, Any]]) -> list[Any]:
    """The messages with every image data URL replaced by its bytes' sha256."""
    out: list[Any] = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            parts = []
            for part in content:
                if isinstance(part, dict) and part.get("type") == "image_url":
                    image = dict(part.get("image_url") or {})
                    image["url"] = _image_digest(str(image.get("url", "")))
                    part = {**part, "image_url": image}
                parts.append(part)
            message = {**message, "content": parts}
        out.append(message)
    return out


def request_key(*, endpoint: str | None, model: str, messages: list[dict[str, Any]],
                parameters: Mapping[str, Any], run: int, attempt: int) -> str:
    """The cache key of one request (sha256 hex over canonical JSON)."""
    material = {"format": FORMAT, "endpoint": endpoint or "https://api.openai.com/v1",
                "model": model, "messages": keyed_messages(messages),
                "parameters": dict(parameters), "run": run, "attempt": attempt}
    canonical = json.dumps(material, sort_keys=True, separators=(",", ":"),
                           ensure_ascii=False, allow_nan=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class StoredReply:
    """A reply as the cache keeps it (the fields of :class:`~.transport.ChatReply` that
    describe the answer, not how it travelled)."""

    text: str
    finish_reason: str | None
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    usage: str  # reported | missing | invalid
    reasoning_tokens: int | None
    truncation: dict[str, Any] | None
    response_model: str | None
    system_fingerprint: str | None
    latency_s: float

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "finish_reason": self.finish_reason,
                "usage": {"state": self.usage, "prompt": self.prompt_tokens,
                          "completion": self.completion_tokens, "total": self.total_tokens,
                          "reasoning": self.reasoning_tokens},
                "truncation": self.truncation, "model": self.response_model,
                "system_fingerprint": self.system_fingerprint,
                "latency_s": round(self.latency_s, 3)}

    @classmethod
    def from_json(cls, data: Any) -> StoredReply | None:
        """A stored reply, or None when the file is not one we wrote (edited, other format)."""
        if not isinstance(data, dict):
            return None
        text, finish, usage = data.get("text"), data.get("finish_reason"), data.get("usage")
        if not isinstance(text, str) or not (finish is None or isinstance(finish, str)) \
                or not isinstance(usage, dict):
            return None
        counts = [usage.get(k) for k in ("prompt", "completion", "total")]
        if usage.get("state") not in ("reported", "missing", "invalid") or not all(
                isinstance(c, int) and not isinstance(c, bool) and 0 <= c < MAX_TOKENS
                for c in counts):
            return None
        reasoning = usage.get("reasoning")
        if reasoning is not None and (isinstance(reasoning, bool) or not isinstance(
                reasoning, int) or not 0 <= reasoning < MAX_TOKENS):
            return None
        truncation = data.get("truncation")
        latency = data.get("latency_s")
        if not (truncation is None or isinstance(truncation, dict)) or isinstance(
                latency, bool) or not isinstance(latency, (int, float)) or not 0 <= latency < 1e7:
            return None
        return cls(text, finish[:100] if finish else None, *counts, usage["state"], reasoning,
                   truncation, label(data.get("model")), label(data.get("system_fingerprint")),
                   float(latency))


class ResponseCache:
    """The on-disk reply cache (thread- and process-safe); see the module docstring."""

    def __init__(self, root: Path | None = None, *, max_bytes: int = DEFAULT_MAX_BYTES,
                 redact: Callable[[str], str] | None = None,
                 warn: Callable[[str], None] | None = None):
        self.root = Path(root) if root is not None else default_root()
        self.entries = self.root / f"v{FORMAT}"
        self.max_bytes = max_bytes
        self.redact = redact or (lambda text: text)
        self.warn = warn or (lambda text: None)
        self._lock = threading.Lock()
        self._size: int | None = None  # bytes of entries, counted at the first store
        self.hits = self.misses = self.stores = self.evicted = self.refused = 0
        self.writable = True

    def path(self, key: str) -> Path:
        return self.entries / key[:2] / f"{key}.json"

    # ------------------------------------------------------------------ read

    def _read(self, key: str) -> StoredReply | None:
        try:
            with open(self.path(key), "rb") as handle:
                raw = handle.read(MAX_ENTRY_BYTES + 1)
        except OSError:
            return None
        if not raw or len(raw) > MAX_ENTRY_BYTES:
            return None
        try:
            document = json.loads(raw)
        except (ValueError, RecursionError):
            return None
        if not isinstance(document, dict) or document.get("format") != FORMAT \
                or document.get("key") != key:
            return None
        return StoredReply.from_json(document.get("reply"))

    def get(self, key: str) -> StoredReply | None:
        """The stored reply of ``key`` (and its use time refreshed), or None."""
        reply = self._read(key)
        with self._lock:
            if reply is None:
                self.misses += 1
            else:
                self.hits += 1
        if reply is not None:
            with contextlib.suppress(OSError):
                os.utime(self.path(key))  # least recently *used*: a hit counts as a use
        return reply

    def peek(self, key: str) -> bool:
        """Whether a usable reply is stored for ``key`` (no counters, no use recorded)."""
        return self._read(key) is not None

    # ------------------------------------------------------------------ write

    def put(self, key: str, reply: StoredReply) -> bool:
        """Store a reply (atomically); False when it was not stored (it holds a secret, or
        the folder cannot be written)."""
        document = {"format": FORMAT, "key": key, "stored_at": int(time.time()),
                    "reply": reply.to_json()}
        text = json.dumps(document, ensure_ascii=False, allow_nan=False)
        if self.redact(text) != text:
            with self._lock:
                self.refused += 1
            return False
        data = (text + "\n").encode("utf-8")
        if not self.writable:
            return False
        try:
            _write_atomic(self.path(key), data)
        except OSError as exc:
            self._unwritable(exc)
            return False
        with self._lock:
            self.stores += 1
            if self._size is None:
                self._size = sum(size for _, size, _ in self._scan())
            else:
                self._size += len(data)
            over = self._size > self.max_bytes
        if over:
            self.evict()
        return True

    def _unwritable(self, exc: OSError) -> None:
        with self._lock:
            first, self.writable = self.writable, False
        if first:
            self.warn(f"note: the response cache {self.root} cannot be written "
                      f"({exc.strerror or exc}); continuing without storing replies")

    # ------------------------------------------------------------------ bound

    def _scan(self) -> Iterable[tuple[float, int, Path]]:
        """(last use, size, path) of every entry; sweeps temporary files older than an hour."""
        now = time.time()
        try:
            folders = list(os.scandir(self.entries))
        except OSError:
            return []
        found = []
        for folder in folders:
            if not folder.is_dir(follow_symlinks=False):
                continue
            try:
                items = list(os.scandir(folder.path))
            except OSError:
                continue
            for item in items:
                try:
                    info = item.stat(follow_symlinks=False)
                except OSError:
                    continue
                if _ENTRY.fullmatch(item.name):
                    found.append((info.st_mtime, info.st_size, Path(item.path)))
                elif item.name.startswith(".tmp-") and now - info.st_mtime > STALE_TEMP_S:
                    with contextlib.suppress(OSError):
                        os.unlink(item.path)
        return found

    def evict(self, target: float = 0.9) -> int:
        """Delete least recently used entries until the cache holds ≤ ``target`` × the bound;
        returns how many were deleted."""
        entries = sorted(self._scan())
        total = sum(size for _, size, _ in entries)
        goal = target * self.max_bytes
        removed = 0
        for _, size, path in entries:
            if total <= goal:
                break
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass  # another process evicted it first
            except OSError:
                continue
            total -= size
            removed += 1
        with self._lock:
            self._size = total
            self.evicted += removed
        return removed

    def size(self) -> int:
        """Bytes held by the entries now (a scan)."""
        return sum(size for _, size, _ in self._scan())

    # ------------------------------------------------------------------ negotiations

    def _negotiation_path(self, scope: str) -> Path:
        return self.root / f"v{FORMAT}-negotiated" / f"{scope}.json"

    def recall_negotiation(self, scope: str) -> list[Any]:
        """The parameter adaptations an earlier run learned for this scope (raw records)."""
        try:
            document = json.loads(self._negotiation_path(scope).read_bytes()[:1 << 20])
        except (OSError, ValueError, RecursionError):
            return []
        if not isinstance(document, dict) or document.get("scope") != scope:
            return []
        found = document.get("adaptations")
        return found if isinstance(found, list) else []

    def remember_negotiation(self, scope: str, adaptations: list[dict[str, Any]]) -> None:
        text = json.dumps({"format": FORMAT, "scope": scope, "adaptations": adaptations},
                          ensure_ascii=False)
        if self.redact(text) != text or not self.writable:
            return
        try:
            _write_atomic(self._negotiation_path(scope), (text + "\n").encode("utf-8"))
        except OSError as exc:
            self._unwritable(exc)

    def stats(self) -> dict[str, Any]:
        with self._lock:
            return {"dir": str(self.root), "hits": self.hits, "misses": self.misses,
                    "stored": self.stores, "evicted": self.evicted,
                    "not_stored_secret": self.refused, "writable": self.writable,
                    "max_bytes": self.max_bytes}


def negotiation_scope(*, endpoint: str | None, model: str, requested: Mapping[str, Any]) -> str:
    """Key of the adaptations learned for an endpoint, a model and the parameters asked."""
    canonical = json.dumps({"endpoint": endpoint or "https://api.openai.com/v1",
                            "model": model, "requested": dict(requested)},
                           sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _write_atomic(path: Path, data: bytes) -> None:
    """Temporary file in the same folder, renamed over ``path``: never torn for a reader or
    after a ``kill -9`` (the page cache outlives the process). Not fsync'ed — a power cut
    may lose the newest entries, which are then misses, and a run stays fast."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.parent / f".tmp-{os.getpid()}-{threading.get_ident()}-{uuid.uuid4().hex[:8]}"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    os.close(fd)
    try:
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
