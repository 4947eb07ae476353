"""One session per run directory at a time: an advisory lock held for the whole session.

Two sessions on one ``--output`` (say, ``--resume`` typed twice in two terminals)
would each run every pending task — the user pays twice and the trace mixes
both. ``run.lock`` in the directory carries an exclusive ``flock`` for as long as
the session lives; the kernel drops it when the process ends, however it ends
(``kill -9`` included), so a lock that is held always belongs to a live
process and a stale file is simply taken over. The file records who holds it
(pid, host, start time) so that the refusal can say so. It is never deleted:
unlinking a lock file lets two processes lock two different inodes.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import socket
from pathlib import Path
from typing import Any

from ...model.errors import StructEvalError
from ...safe_files import FileAccessError, open_rw

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no advisory locks
    fcntl = None  # type: ignore[assignment]

LOCK_FILE = "run.lock"


class RunLocked(StructEvalError):
    """Another live session holds the run directory."""


def _holder(fd: int) -> dict[str, Any]:
    try:
        raw = os.pread(fd, 4096, 0)
        data = json.loads(raw.decode("utf-8", errors="replace") or "{}")
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _describe(holder: dict[str, Any]) -> str:
    pid, host, since = holder.get("pid"), holder.get("host"), holder.get("started_at")
    if not isinstance(pid, int):
        return "another process"
    text = f"process {pid}"
    if isinstance(host, str) and host:
        text += f" on {host}"
    if isinstance(since, str) and since:
        text += f" (since {since})"
    return text


class RunLock:
    """``with RunLock(directory):`` — refuses with RunLocked while another session holds it."""

    def __init__(self, directory: Path):
        self.path = Path(directory) / LOCK_FILE
        self._fd: int | None = None

    def acquire(self) -> None:
        fd = open_rw(self.path)
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _describe(_holder(fd))
                os.close(fd)
                raise RunLocked(f"{self.path.parent} is in use by {holder}, which is still "
                                "running a session on it; wait for it to finish (or stop it), "
                                "then --resume") from None
            except OSError as exc:  # e.g. a file system without locks
                os.close(fd)
                raise FileAccessError(f"cannot lock {self.path}: {exc.strerror or exc}") from None
        info = {"pid": os.getpid(), "host": socket.gethostname(),
                "started_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, (json.dumps(info) + "\n").encode("utf-8"), 0)
        except OSError:
            pass  # the lock itself holds; only the holder's description is missing
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the flock
            self._fd = None

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
