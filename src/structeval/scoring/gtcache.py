"""What the scorer derives from a ground truth alone, kept across the answers graded against it.

A run grades many answers (attempts, repeated runs, every candidate of a test)
against the same ground truth; its stage solutions and load resultants never
change, so they are computed once. Entries are keyed by object identity and hold
the ground truth itself, so an id cannot be reused while its entry lives.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from ..model.types import Model

T = TypeVar("T")


class GroundTruthCache:
    def __init__(self, size: int = 32):
        self.size = size
        self.entries: dict[int, tuple[Model, dict[str, Any]]] = {}
        self.lock = threading.Lock()

    def get(self, gt: Model, key: str, compute: Callable[[], T]) -> T:
        with self.lock:
            entry = self.entries.get(id(gt))
            if entry is not None and entry[0] is gt and key in entry[1]:
                return entry[1][key]  # type: ignore[no-any-return]
        value = compute()
        with self.lock:
            entry = self.entries.get(id(gt))
            if entry is None or entry[0] is not gt:
                if len(self.entries) >= self.size:
                    self.entries.pop(next(iter(self.entries)))
                entry = (gt, {})
                self.entries[id(gt)] = entry
            entry[1][key] = value
        return value


GT_CACHE = GroundTruthCache()
