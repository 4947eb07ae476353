#!/usr/bin/env python3
"""Build solver/framecalc.c into src/structeval/fe/framecalc.wasm with the pinned ziglang from PyPI.

Why zig: it is a pip-installable clang with a wasm32 linker, so every machine
builds the same bytes without a toolchain download. ``--check`` rebuilds into a
temporary file and fails if it differs from the committed binary (CI uses it).
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "solver" / "framecalc.c"
TARGET = ROOT / "src" / "structeval" / "fe" / "framecalc.wasm"  # package data; bin/ links to it
ZIG_VERSION = "0.17.0"

FLAGS = [
    "--target=wasm32-freestanding",
    "-std=c11",
    "-O2",
    "-nostdlib",
    "-ffreestanding",
    "-fno-builtin",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-Wl,--no-entry",
    "-g0",
    "-Wl,--strip-all",
    "-Wl,-z,stack-size=262144",
]


def build(out: Path) -> None:
    try:
        import ziglang  # noqa: F401
    except ImportError:
        sys.exit(f"ziglang is not installed: pip install ziglang=={ZIG_VERSION}")
    version = subprocess.run([sys.executable, "-m", "ziglang", "version"], capture_output=True,
                             text=True, check=True).stdout.strip()
    if version != ZIG_VERSION:
        sys.exit(f"ziglang {version} found, {ZIG_VERSION} required for a byte-identical build")
    cmd = [sys.executable, "-m", "ziglang", "cc", *FLAGS, str(SOURCE.relative_to(ROOT)),
           "-o", str(out)]
    result = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"build failed:\n{result.stdout}{result.stderr}")


def check_no_imports(path: Path) -> None:
    import wasmtime

    module = wasmtime.Module(wasmtime.Engine(), path.read_bytes())
    if module.imports:
        names = [f"{i.module}.{i.name}" for i in module.imports]
        sys.exit(f"{path} imports {names}; the kernel must be self-contained")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="rebuild into a temp file and compare with the committed binary")
    args = parser.parse_args()
    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            fresh = Path(tmp) / "framecalc.wasm"
            build(fresh)
            check_no_imports(fresh)
            new = fresh.read_bytes()
        old = TARGET.read_bytes() if TARGET.exists() else b""
        if new != old:
            print(f"{TARGET.relative_to(ROOT)} is stale: rebuilt sha256 "
                  f"{hashlib.sha256(new).hexdigest()}"
                  f" != committed {hashlib.sha256(old).hexdigest()}; run tools/build_wasm.py")
            return 1
        print(f"src/structeval/fe/framecalc.wasm reproduces byte for byte ({len(new)} bytes, "
              f"sha256 {hashlib.sha256(new).hexdigest()[:16]})")
        return 0
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    build(TARGET)
    check_no_imports(TARGET)
    data = TARGET.read_bytes()
    print(f"built {TARGET.relative_to(ROOT)}: {len(data)} bytes, "
          f"sha256 {hashlib.sha256(data).hexdigest()[:16]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
