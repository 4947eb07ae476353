"""The committed kernel is exactly what solver/framecalc.c builds to, and imports nothing."""

from __future__ import annotations

import subprocess
import sys

from .conftest import ROOT


def test_wasm_rebuild_is_byte_identical() -> None:
    result = subprocess.run([sys.executable, "tools/build_wasm.py", "--check"], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr


def test_code_is_ruff_clean() -> None:
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "."], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
