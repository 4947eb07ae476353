"""One sha256 per task over the bytes a run sends and grades against, whatever the source.

Why: ``--resume`` must refuse to mix two datasets, and a hash of the files of a
data folder says nothing about a Hugging Face export or an ``hf://`` dataset
(their tasks are rows, not files). The loaders already hold every byte of a task
while checking it, so each hashes what it read — the raw model, the ground-truth
meta, the drawing and the DXF file — with :func:`task_content_sha256`, and the
run's provenance combines the tasks it loaded with :func:`tasks_content_sha256`.

The same task gives the same hash from a data folder and from its export: an
export stores the raw model, the meta and the DXF file verbatim and the image's
bytes unchanged (:mod:`.hf_export`), and the parts are framed (name, length,
bytes), so no two different tasks can share a hash by moving bytes between parts.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .errors import DatasetError

#: The parts of a task, in the order they are hashed.
PARTS = ("id", "model", "ground_truth", "image", "dxf")


def task_content_sha256(task_id: str, *, model: bytes, ground_truth: bytes,
                        image: bytes | None, dxf: bytes | None) -> str:
    """sha256 over the task's id and bytes (a missing DXF file, or a sheet image not drawn
    yet, is hashed as absent, which no file's bytes can imitate)."""
    digest = hashlib.sha256()
    values = (task_id.encode("utf-8"), model, ground_truth, image, dxf)
    for name, value in zip(PARTS, values, strict=True):
        size = b"absent" if value is None else str(len(value)).encode()
        digest.update(name.encode() + b"\0" + size + b"\0")
        if value is not None:
            digest.update(value)
    return digest.hexdigest()


def read_part(path: Path, where: str) -> bytes:
    """A task file's bytes for hashing, or a DatasetError naming ``where``."""
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise DatasetError(f"{where}: cannot read {path} ({exc.strerror})") from None


def tasks_content_sha256(tasks: Iterable[Any]) -> str | None:
    """sha256 over the (id, content hash) of every task, sorted by id; None when a task was
    not made by a loader (it carries no ``content_sha256``: a test's or a caller's own
    object), since then nothing says which bytes it stands for."""
    pairs = []
    for task in tasks:
        content = getattr(task, "content_sha256", "")
        if not isinstance(content, str) or not content:
            return None
        pairs.append(f"{task.id}\0{content}\n")
    return hashlib.sha256("".join(sorted(pairs)).encode("utf-8")).hexdigest()
