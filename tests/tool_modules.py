"""The command-line tools in ``tools/`` as modules, so tests can call their ``main``."""

from __future__ import annotations

import importlib.util
from types import ModuleType

from .conftest import ROOT


def load_tool(name: str) -> ModuleType:
    """``tools/<name>.py`` imported under a private name (it is a script, not a package)."""
    spec = importlib.util.spec_from_file_location(f"{name}_tool", ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
