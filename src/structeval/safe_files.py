"""Files read and written as hostile territory: no symlink followed on write, no unbounded read.

The harness (run directories), the dataset tools (ground-truth metas) and the
shell tools (``python -m structeval solve``) all write or read files a user, a
previous crash or another program may have tampered with. One home for the
rules keeps them identical everywhere:

* a write never goes *through* a symbolic link (``O_NOFOLLOW``, or a check of
  the target before an atomic replace), so a planted link cannot make us
  append to or overwrite a file elsewhere;
* a read takes at most ``cap + 1`` bytes, so ``/dev/zero`` or a 50 GB file ends
  in a sentence, not in MemoryError;
* an ``OSError`` becomes one sentence that says what happened in the user's
  words (disk full, read-only, no permission) — :func:`explain_os_error`.
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

from .model.errors import StructEvalError

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)

_REASONS = {
    errno.ENOSPC: "the disk is full",
    errno.EFBIG: "the file size limit was reached (disk quota or ulimit -f)",
    errno.EDQUOT: "the disk quota is used up",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "the operation is not permitted",
    errno.ELOOP: "it is a symbolic link, and links are never followed when writing",
    errno.ENOENT: "it does not exist",
    errno.ENOTDIR: "a part of the path is not a folder",
    errno.EISDIR: "it is a folder",
    errno.EIO: "the device reported an input/output error",
}


class FileAccessError(StructEvalError):
    """A file could not be read or written; the message is one sentence for users."""


class UnsafeFileError(FileAccessError):
    """A path is a symbolic link (or leads outside the folder it must stay in)."""


class FileTooLarge(FileAccessError):
    """A file is larger than the cap for its kind."""


def explain_os_error(exc: OSError, path: Path | str, action: str) -> str:
    """``cannot <action> <path>: <reason>`` for an OSError, without a traceback's jargon."""
    reason = _REASONS.get(exc.errno or -1) or (exc.strerror or type(exc).__name__).lower()
    return f"cannot {action} {path}: {reason}"


def is_symlink(path: Path) -> bool:
    try:
        return Path(path).is_symlink()
    except OSError:
        return False


def refuse_symlink(path: Path, what: str = "file") -> None:
    """UnsafeFileError when ``path`` itself is a symbolic link (a dangling one included)."""
    if is_symlink(path):
        raise UnsafeFileError(f"{path} is a symbolic link; refusing to write the {what} "
                              "through it (remove the link or choose another location)")


def open_append(path: Path) -> int:
    """A read-write descriptor that appends to ``path`` (created 0o644 if missing), never
    through a symbolic link (readable, so the last byte can be checked with pread)."""
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | _NOFOLLOW | _CLOEXEC
    try:
        return os.open(path, flags, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP or is_symlink(path):
            raise UnsafeFileError(f"{path} is a symbolic link; refusing to append through it "
                                  "(remove the link or choose another location)") from None
        raise FileAccessError(explain_os_error(exc, path, "open for writing")) from None


def open_rw(path: Path) -> int:
    """A read-write descriptor on ``path`` (created if missing), never through a link."""
    flags = os.O_RDWR | os.O_CREAT | _NOFOLLOW | _CLOEXEC
    try:
        return os.open(path, flags, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP or is_symlink(path):
            raise UnsafeFileError(f"{path} is a symbolic link; refusing to open it") from None
        raise FileAccessError(explain_os_error(exc, path, "open for writing")) from None


def write_atomic(path: Path, data: bytes, mode: int | None = None) -> None:
    """Replace ``path`` by ``data`` in one step (temporary file in the same folder, fsync,
    rename), so a crash leaves the old or the new content, never half of it. The rename
    replaces a directory entry and cannot follow a link, but a link at ``path`` is refused
    first: the user should learn that something planted it. ``mode`` sets the permission
    bits (the temporary file starts as 0o600)."""
    path = Path(path)
    refuse_symlink(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise FileAccessError(explain_os_error(exc, path, "write")) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            if mode is not None:
                os.fchmod(handle.fileno(), mode)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise FileAccessError(explain_os_error(exc, path, "write")) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_capped(path: Path | str, cap: int, what: str = "file") -> bytes:
    """At most ``cap`` bytes of ``path`` ('-' for stdin); FileTooLarge past it. Reads
    ``cap + 1`` bytes at most, so endless devices and huge files cost nothing."""
    import sys

    try:
        if str(path) == "-":
            data = sys.stdin.buffer.read(cap + 1)
        else:
            with open(path, "rb") as handle:
                data = handle.read(cap + 1)
    except OSError as exc:
        raise FileAccessError(explain_os_error(exc, path, "read")) from None
    if len(data) > cap:
        raise FileTooLarge(f"{path} is larger than the {format_bytes(cap)} cap for a {what}")
    return data


def decode_text(data: bytes, path: Path | str, what: str = "file") -> str:
    """UTF-8 text (a BOM is accepted), or one sentence saying the file is not text."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FileAccessError(f"{path} is not UTF-8 text (byte {exc.start} cannot be decoded); "
                              f"a {what} must be a UTF-8 JSON file") from None


def inside_folder(base: Path, path: Path) -> bool:
    """True when ``path`` resolves (following links) to a place under ``base``."""
    try:
        Path(path).resolve().relative_to(Path(base).resolve())
    except (ValueError, OSError, RuntimeError):
        return False
    return True


def format_bytes(n: int) -> str:
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= size:
            value = n / size
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{n} bytes"
