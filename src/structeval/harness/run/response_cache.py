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

Files: ``<root>/v2/<2 hex>/<64 hex>.json``, each written to a temporary file in
the same folder and renamed over the target (``os.replace``), so
threads and processes sharing the cache, and a ``kill -9`` at any moment, leave
either the old file, the new one or none — never a torn one (a leftover
temporary file is ignored and swept after an hour). The cache is bounded: once
its files exceed ``max_bytes`` (default 2 GiB, ``--cache-max-bytes``) the least
recently used entries (file modification time, refreshed on every hit) are
deleted down to 90 % of the bound. A cache folder that cannot be written is
reported once and the run continues without storing.

Threat model (docs/cache-threat-model.md): an entry is served only from a folder
this user owns and nobody else can write (:mod:`structeval.private_folder`, the
rule ssh applies to its keys; otherwise one warning and no cache), only if it is
a regular file (a FIFO, device or link is a miss, never a hang), and only if it
carries the request it answers (the canonical request, re-checked against the
one being made) and a checksum of its content that matches. Anything else is a
miss with a note; a served hit is marked in the trace with its checksum. The
checksum catches edits and copies, not a forger who can write the folder — that
is what the ownership rule is for.

The root defaults to ``<cache root>/responses``, the cache root being
``$STRUCTEVAL_CACHE/structeval``, else ``$XDG_CACHE_HOME/structeval``, else
``~/.cache/structeval`` (:func:`structeval.cachedir.cache_root`, which dataset
images loaded from an export share, in their own subfolder).
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
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ... import private_folder
from ...cachedir import cache_root
from ..client.response import MAX_TOKENS, label
from ..client.tool_calls import MAX_TOOL_CALLS, ToolCall

FORMAT = 2  # 2: entries carry their request and a checksum (format 1 files are not read)
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


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


@dataclass(frozen=True)
class CacheRequest:
    """One request as the cache knows it: its key (the sha256 of ``canonical``, also the
    entry's file name) and the canonical JSON of what decided the answer, which the entry
    carries and a read compares with the request being made."""

    key: str
    canonical: str


def cache_request(*, endpoint: str | None, model: str, messages: list[dict[str, Any]],
                  parameters: Mapping[str, Any], run: int, attempt: int,
                  tools: list[dict[str, Any]] | None = None) -> CacheRequest:
    """The cache's view of one request (its key over canonical JSON). ``tools`` (a zoom
    request's function definitions) are part of it when given; a request without tools
    keys exactly as before they existed."""
    material = {"format": FORMAT, "endpoint": endpoint or "https://api.openai.com/v1",
                "model": model, "messages": keyed_messages(messages),
                "parameters": dict(parameters), "run": run, "attempt": attempt}
    if tools:
        material["tools"] = tools
    canonical = _canonical(material)
    return CacheRequest(hashlib.sha256(canonical.encode("utf-8")).hexdigest(), canonical)


def request_key(**request: Any) -> str:
    """The cache key of one request (sha256 hex over canonical JSON; see :func:`cache_request`)."""
    return cache_request(**request).key


def entry_checksum(document: Mapping[str, Any]) -> str:
    """sha256 of an entry's canonical JSON without its ``checksum`` field."""
    body = {k: v for k, v in document.items() if k != "checksum"}
    return hashlib.sha256(_canonical(body).encode("utf-8")).hexdigest()


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
    tool_calls: tuple[ToolCall, ...] = ()  # a zoom reply's calls (stored only when any)

    def to_json(self) -> dict[str, Any]:
        out = {"text": self.text, "finish_reason": self.finish_reason,
               "usage": {"state": self.usage, "prompt": self.prompt_tokens,
                         "completion": self.completion_tokens, "total": self.total_tokens,
                         "reasoning": self.reasoning_tokens},
               "truncation": self.truncation, "model": self.response_model,
               "system_fingerprint": self.system_fingerprint,
               "latency_s": round(self.latency_s, 3)}
        if self.tool_calls:
            out["tool_calls"] = [call.to_json() for call in self.tool_calls]
        return out

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
        raw_calls = data.get("tool_calls", [])
        if not isinstance(raw_calls, list) or len(raw_calls) > MAX_TOOL_CALLS:
            return None
        calls = tuple(ToolCall.from_json(call) for call in raw_calls)
        if None in calls:
            return None
        return cls(text, finish[:100] if finish else None, *counts, usage["state"], reasoning,
                   truncation, label(data.get("model")), label(data.get("system_fingerprint")),
                   float(latency), calls)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Hit:
    """A served entry: the reply and the entry's checksum (the trace names it)."""

    reply: StoredReply
    checksum: str


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
        self.rejected = 0
        self._noted: set[str] = set()
        self.writable = True
        #: why the folder is not trusted (then nothing is read or written), or None
        self.untrusted = private_folder.untrusted_reason(
            self.root, self.root if root is not None else cache_root())
        if self.untrusted:
            self.warn(f"warning: the response cache {self.root} is not used, because "
                      f"{self.untrusted}: a cache folder must be yours and writable by no one "
                      "else; this run goes on without a cache")

    def path(self, key: str) -> Path:
        return self.entries / key[:2] / f"{key}.json"

    def _parts(self, key: str) -> tuple[str, str]:
        return f"v{FORMAT}", key[:2]

    # ------------------------------------------------------------------ read

    def _note(self, path: Path, reason: str) -> None:
        """One note per rejected entry (a miss: the request is sent)."""
        with self._lock:
            self.rejected += 1
            first = str(path) not in self._noted
            self._noted.add(str(path))
        if first:
            self.warn(f"note: the cached reply {path} is not used ({reason}); the request "
                      "is sent")

    def _read(self, request: CacheRequest, *, touch: bool) -> Hit | None:
        if self.untrusted:
            return None
        key, path = request.key, self.path(request.key)
        try:
            with private_folder.folder(self.root, self._parts(key), create=False) as fd:
                raw = private_folder.read_regular(fd, path.name, MAX_ENTRY_BYTES, touch=touch)
        except FileNotFoundError:
            return None
        except (private_folder.UntrustedFolder, private_folder.NotRegular) as exc:
            self._note(path, exc.strerror or str(exc))
            return None
        except OSError:
            return None
        if not raw or len(raw) > MAX_ENTRY_BYTES:
            self._note(path, "it is empty or too large")
            return None
        try:
            document = json.loads(raw, parse_constant=_no_constant)
        except (ValueError, RecursionError):
            self._note(path, "it is not a complete JSON entry")
            return None
        try:
            reason, reply = _check_entry(document, request)
        except (ValueError, RecursionError):  # nested too deep to re-encode
            reason, reply = "it is not an entry of this cache's format", None
        if reply is None:
            self._note(path, reason)
            return None
        return Hit(reply, document["checksum"])

    def get(self, request: CacheRequest) -> Hit | None:
        """The stored reply of ``request`` (and its use time refreshed), or None."""
        hit = self._read(request, touch=True)
        with self._lock:
            if hit is None:
                self.misses += 1
            else:
                self.hits += 1
        return hit

    def peek(self, request: CacheRequest) -> bool:
        """Whether a usable reply is stored for ``request`` (no counters, no use recorded)."""
        return self._read(request, touch=False) is not None

    # ------------------------------------------------------------------ write

    def put(self, request: CacheRequest, reply: StoredReply) -> bool:
        """Store a reply (atomically); False when it was not stored (it holds a secret, or
        the folder cannot be written or is not trusted)."""
        key = request.key
        document: dict[str, Any] = {"format": FORMAT, "key": key,
                                    "request": json.loads(request.canonical),
                                    "stored_at": int(time.time()), "reply": reply.to_json()}
        document["checksum"] = entry_checksum(document)
        text = json.dumps(document, ensure_ascii=False, allow_nan=False)
        if self.redact(text) != text:
            with self._lock:
                self.refused += 1
            return False
        data = (text + "\n").encode("utf-8")
        if not self.writable or self.untrusted:
            return False
        try:
            with private_folder.folder(self.root, self._parts(key), create=True) as fd:
                private_folder.write_replacing(fd, self.path(key).name, data)
        except OSError as exc:
            self._unwritable(exc)
            return False
        with self._lock:
            self.stores += 1
            if self._size is None:
                self._size = self.size()
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

    def _scan(self) -> Iterable[tuple[float, int, str, str]]:
        """(last use, size, subfolder, name) of every entry, read through private folders
        (a linked or foreign subfolder is skipped); sweeps temporary files older than an
        hour."""
        if self.untrusted:
            return []
        now = time.time()
        top = f"v{FORMAT}"
        try:
            with private_folder.folder(self.root, [top], create=False) as fd:
                subs = [e.name for e in os.scandir(fd) if e.is_dir(follow_symlinks=False)]
        except OSError:
            return []
        found = []
        for sub in subs:
            try:
                with private_folder.folder(self.root, [top, sub], create=False) as fd:
                    for item in os.scandir(fd):
                        try:
                            info = item.stat(follow_symlinks=False)
                        except OSError:
                            continue
                        if _ENTRY.fullmatch(item.name):
                            found.append((info.st_mtime, info.st_size, sub, item.name))
                        elif item.name.startswith(".tmp-") and now - info.st_mtime > STALE_TEMP_S:
                            with contextlib.suppress(OSError):
                                os.unlink(item.name, dir_fd=fd)
            except OSError:
                continue
        return found

    def evict(self, target: float = 0.9) -> int:
        """Delete least recently used entries until the cache holds ≤ ``target`` × the bound;
        returns how many were deleted."""
        entries = sorted(self._scan())
        total = sum(entry[1] for entry in entries)
        goal = target * self.max_bytes
        removed = 0
        for _, size, sub, name in entries:
            if total <= goal:
                break
            try:
                with private_folder.folder(self.root, [f"v{FORMAT}", sub], create=False) as fd:
                    os.unlink(name, dir_fd=fd)
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
        return sum(entry[1] for entry in self._scan())

    # ------------------------------------------------------------------ negotiations

    def _negotiation_path(self, scope: str) -> Path:
        return self.root / f"v{FORMAT}-negotiated" / f"{scope}.json"

    def recall_negotiation(self, scope: str) -> list[Any]:
        """The parameter adaptations an earlier run learned for this scope (raw records)."""
        if self.untrusted:
            return []
        path = self._negotiation_path(scope)
        try:
            with private_folder.folder(self.root, [path.parent.name], create=False) as fd:
                document = json.loads(private_folder.read_regular(fd, path.name, 1 << 20))
        except (OSError, ValueError, RecursionError):
            return []
        if not isinstance(document, dict) or document.get("scope") != scope:
            return []
        found = document.get("adaptations")
        return found if isinstance(found, list) else []

    def remember_negotiation(self, scope: str, adaptations: list[dict[str, Any]]) -> None:
        text = json.dumps({"format": FORMAT, "scope": scope, "adaptations": adaptations},
                          ensure_ascii=False)
        if self.redact(text) != text or not self.writable or self.untrusted:
            return
        path = self._negotiation_path(scope)
        try:
            with private_folder.folder(self.root, [path.parent.name], create=True) as fd:
                private_folder.write_replacing(fd, path.name, (text + "\n").encode("utf-8"))
        except OSError as exc:
            self._unwritable(exc)

    def stats(self) -> dict[str, Any]:
        with self._lock:
            return {"dir": str(self.root), "hits": self.hits, "misses": self.misses,
                    "stored": self.stores, "evicted": self.evicted,
                    "not_stored_secret": self.refused, "writable": self.writable,
                    "rejected_entries": self.rejected, "max_bytes": self.max_bytes}


def negotiation_scope(*, endpoint: str | None, model: str, requested: Mapping[str, Any]) -> str:
    """Key of the adaptations learned for an endpoint, a model and the parameters asked."""
    canonical = json.dumps({"endpoint": endpoint or "https://api.openai.com/v1",
                            "model": model, "requested": dict(requested)},
                           sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _check_entry(document: Any, request: CacheRequest) -> tuple[str, StoredReply | None]:
    """(why not, None) or ("", the reply) for a parsed entry read for ``request``."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        return "it is not an entry of this cache's format", None
    if document.get("checksum") != entry_checksum(document):
        return "its checksum does not match its content", None
    stored = document.get("request")
    if document.get("key") != request.key or _canonical(stored) != request.canonical:
        return "it was stored for another request", None
    reply = StoredReply.from_json(document.get("reply"))
    return ("its reply is not one this cache writes", None) if reply is None else ("", reply)
