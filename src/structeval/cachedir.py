"""Where StructuralEval keeps files it can always rebuild (replies, dataset images).

One root for every layer, so a user clears or relocates all of it with one variable:
``STRUCTEVAL_CACHE``, else ``$XDG_CACHE_HOME/structeval``, else ``~/.cache/structeval``.
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """The cache folder (not created here; callers create what they write)."""
    root = os.environ.get("STRUCTEVAL_CACHE") or os.environ.get("XDG_CACHE_HOME")
    return Path(root) / "structeval" if root else Path.home() / ".cache" / "structeval"
