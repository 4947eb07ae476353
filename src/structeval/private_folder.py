"""Folders only this user can write, read and written without following a link.

Why: a cache serves what its files say, so its files are only as trustworthy as
the folders that hold them. The rule is the one ssh applies to ``~/.ssh``: every
folder from the cache root down to a file is owned by the effective user and
writable by no group and no other user; below the root no folder is a symbolic
link, and a file is used only if it is a regular file (a FIFO, device or link is
refused without blocking: ``O_NOFOLLOW | O_NONBLOCK`` and ``fstat``). Folders
are walked by descriptor (``dir_fd``), so nothing swapped in between a check
and a use is followed either.

POSIX only: where the platform has no ``geteuid`` or ``dir_fd`` support the
check says so and the caller does without its cache.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import threading
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path

_DIR_FLAGS = (os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
              | getattr(os, "O_CLOEXEC", 0))
_FILE_FLAGS = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
               | getattr(os, "O_CLOEXEC", 0))
SUPPORTED = (hasattr(os, "geteuid") and hasattr(os, "O_NOFOLLOW")
             and {os.open, os.mkdir, os.rename, os.unlink} <= os.supports_dir_fd)


class UntrustedFolder(OSError):
    """A folder of the walk is a link, not this user's, or writable by others (one sentence)."""


def owner_problem(info: os.stat_result, path: Path | str) -> str | None:
    """Why a folder with this ``stat`` cannot be trusted, or None (the ssh rule)."""
    if info.st_uid != os.geteuid():
        return f"{path} belongs to another user (uid {info.st_uid})"
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"{path} is writable by its group or by others (chmod go-w {path})"
    return None


def untrusted_reason(folder: Path, top: Path) -> str | None:
    """One sentence on why ``folder`` (at or below ``top``) must not hold a cache, or None.

    ``top`` and every existing folder between it and ``folder`` are checked; the top may be
    reached through a link (a relocated cache), the folders below it may not. Folders that
    do not exist yet are fine: :func:`open_folder` creates them private.
    """
    if not SUPPORTED:
        return "this platform cannot check who may write the folder"
    folder, top = Path(os.path.abspath(folder)), Path(os.path.abspath(top))
    chain = [folder, *folder.parents]
    if top not in chain:
        chain = [folder]
        top = folder
    for path in chain[:chain.index(top) + 1]:
        try:
            info = os.stat(path) if path == top else os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            continue  # not made yet (or cannot be: writing it says so, once)
        except OSError as exc:
            return f"{path} cannot be examined ({exc.strerror or exc})"
        if stat.S_ISLNK(info.st_mode):
            return f"{path} is a symbolic link"
        if not stat.S_ISDIR(info.st_mode):
            return f"{path} is not a folder"
        problem = owner_problem(info, path)
        if problem:
            return problem
    return None


def open_folder(root: Path, parts: Sequence[str], *, create: bool) -> int:
    """A descriptor of ``root/parts…`` (the caller closes it), each part opened without
    following a link, checked with the ssh rule and, with ``create``, made (mode 0700)
    when missing. Raises FileNotFoundError, :class:`UntrustedFolder` or another OSError."""
    if not SUPPORTED:
        raise UntrustedFolder("this platform cannot check who may write the folder")
    if create:
        make_private(root)
    fd = os.open(root, _DIR_FLAGS & ~getattr(os, "O_NOFOLLOW", 0))
    here = root
    try:
        for part in parts:
            here = here / part
            try:
                child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o700, dir_fd=fd)
                child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
                raise UntrustedFolder(exc.errno, f"{here} is a symbolic link or not a "
                                      "folder") from None
            os.close(fd)
            fd = child
            problem = owner_problem(os.fstat(fd), here)
            if problem:
                raise UntrustedFolder(problem)
    except BaseException:
        os.close(fd)
        raise
    return fd


def make_private(folder: Path) -> None:
    """Create ``folder`` and its missing parents with mode 0700 each (``mkdir -p`` gives
    the parents the umask's mode, which may be group-writable: ``umask 002``)."""
    missing = []
    for path in [folder, *folder.parents]:
        if path.exists():
            break
        missing.append(path)
    for path in reversed(missing):
        with contextlib.suppress(FileExistsError):
            os.mkdir(path, 0o700)


class NotRegular(OSError):
    """An entry is a FIFO, a device, a folder or a link: it is never read."""


def read_regular(dir_fd: int, name: str, cap: int, *, touch: bool = False) -> bytes:
    """At most ``cap + 1`` bytes of the regular file ``name`` in ``dir_fd``; a FIFO, device or
    link raises :class:`NotRegular` at once (never blocks). ``touch`` refreshes its
    modification time (a use, for least-recently-used eviction)."""
    try:
        fd = os.open(name, _FILE_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):
            raise NotRegular(exc.errno, "it is a symbolic link") from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegular(0, "it is not a regular file (a FIFO, device or folder)")
        chunks, left = [], cap + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        if touch:
            with contextlib.suppress(OSError):
                os.utime(fd)
        return b"".join(chunks)
    finally:
        os.close(fd)


def write_replacing(dir_fd: int, name: str, data: bytes) -> None:
    """``data`` as ``name`` in ``dir_fd``: a temporary file (``O_EXCL | O_NOFOLLOW``, 0600)
    renamed over it, so a reader or a ``kill -9`` sees the old file, the new one or none.
    Not fsync'ed: a power cut may lose the newest files, which a cache can afford."""
    temp = f".tmp-{os.getpid()}-{threading.get_ident()}-{uuid.uuid4().hex[:8]}"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                 | getattr(os, "O_CLOEXEC", 0), 0o600, dir_fd=dir_fd)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=dir_fd)
        raise


@contextlib.contextmanager
def folder(root: Path, parts: Sequence[str], *, create: bool) -> Iterator[int]:
    """:func:`open_folder` as a context manager (the descriptor is closed on exit)."""
    fd = open_folder(root, parts, create=create)
    try:
        yield fd
    finally:
        os.close(fd)
