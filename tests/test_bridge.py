"""The bridge to bin/framecalc.wasm, and the CLI/API on top of it.

Limits turn into SolverError (never a crash or a hang), compiled code is never
loaded from disk (a planted module is not run), instances are reused per
thread, threads agree bit for bit, and the same input always gives the same
bytes. The CLI prints the documented JSON and exits 2 with the reason on stderr.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import wasmtime
from click.testing import CliRunner

from structeval import solve
from structeval.cli import main
from structeval.fe import Kernel, SolverError, analyze, compile_model
from structeval.fe.abi import pack
from structeval.model import parse_model

from .conftest import ROOT
from .random_structures import random_models
from .structure_builders import continuous_beam

MODELS = [doc for _, doc in random_models(99, 12)]


def _bits(out: np.ndarray) -> bytes:
    return np.ascontiguousarray(out, dtype=np.float64).tobytes()


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("STRUCTEVAL_CACHE", str(tmp_path))
    return tmp_path / "structeval"


# ------------------------------------------------------------------------- limits


def test_fuel_exhaustion_is_a_solver_error(cache_dir: Path) -> None:
    kernel = Kernel(fuel=20_000)
    model = parse_model(continuous_beam(50))
    with pytest.raises(SolverError, match="instruction budget"):
        analyze(model, kernel=kernel)
    # the trapped instance was dropped; a kernel with enough fuel answers normally
    assert analyze(model, kernel=Kernel())[0].reactions


def test_memory_cap_is_a_solver_error(cache_dir: Path) -> None:
    kernel = Kernel(memory_limit=1 << 20)  # 1 MiB: the module's own pages fit, the data not
    with pytest.raises(SolverError, match="memory"):
        analyze(parse_model(continuous_beam(3000)), kernel=kernel)
    # small models still fit
    assert analyze(parse_model(continuous_beam(3)), kernel=kernel)[0].reactions


def test_memory_cap_below_the_module_itself(cache_dir: Path) -> None:
    kernel = Kernel(memory_limit=4096)
    with pytest.raises(SolverError):
        analyze(parse_model(continuous_beam(3)), kernel=kernel)


def test_garbage_buffers_never_crash_the_kernel(cache_dir: Path) -> None:
    """Raw calls with nonsense input: a typed error or a well-formed bad-input block."""
    kernel = Kernel()
    rng = np.random.default_rng(5)
    good = pack(compile_model(parse_model(MODELS[0])))
    samples = [np.array([]), np.array([1.0]), np.full(10, np.nan), rng.normal(size=200),
               np.r_[1.0, 1e9, 1e9, 0, 1, 0, 0, 0, 8, 0], good[:-3], np.r_[good, 1.0]]
    for _ in range(50):
        bad = good.copy()
        bad[rng.integers(len(bad), size=3)] = rng.choice([np.nan, np.inf, -1.0, 1e300, 3.5])
        samples.append(bad)
    for data in samples:
        try:
            out = kernel.run(data)
        except SolverError:
            continue
        assert int(out[0]) in (0, 1, 2, 3, 4) and int(out[1]) == len(out)
    assert kernel.run(good)[0] == 0  # and the kernel still works


def test_missing_module_is_a_solver_error(tmp_path: Path) -> None:
    with pytest.raises(SolverError, match=r"tools/build_wasm\.py"):
        Kernel(tmp_path / "nope.wasm")


# ---------------------------------------------------------------- no compiled-module cache


class _Counter:
    """Counts real compilations and cache loads of wasmtime modules."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch):
        self.compiled = 0
        self.loaded = 0
        real_init = wasmtime.Module.__init__
        real_deserialize = wasmtime.Module.deserialize.__func__  # type: ignore[attr-defined]

        def init(module: Any, *args: Any, **kwargs: Any) -> None:
            self.compiled += 1
            real_init(module, *args, **kwargs)

        def deserialize(cls: Any, *args: Any, **kwargs: Any) -> Any:
            self.loaded += 1
            return real_deserialize(cls, *args, **kwargs)

        monkeypatch.setattr(wasmtime.Module, "__init__", init)
        monkeypatch.setattr(wasmtime.Module, "deserialize", classmethod(deserialize))


PLANTED = """(module
  (memory (export "memory") 1)
  (func (export "fc_abi_version") (result i32) i32.const 999)
  (func (export "fc_heap_base") (result i32) i32.const 1024)
  (func (export "fc_solve") (param i32 i32) (result i32) i32.const -7))"""


def _plant(folder: Path) -> None:
    """What an attacker who can write the cache folder leaves there: a compiled module
    (native code to wasmtime) under the name the kernel's bytes hash to, with a matching
    sha256 sidecar."""
    import hashlib
    import platform
    from importlib import metadata

    from structeval.fe.wasm import WASM_PATH

    key = hashlib.sha256(WASM_PATH.read_bytes() + f"|{metadata.version('wasmtime')}|"
                         f"{platform.machine()}|fuel".encode()).hexdigest()[:32]
    config = wasmtime.Config()  # the kernel's engine settings, so the module would load
    config.consume_fuel = True
    config.cranelift_opt_level = "speed"
    data = wasmtime.Module(wasmtime.Engine(config), PLANTED).serialize()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{key}.cwasm").write_bytes(data)
    (folder / f"{key}.sha256").write_text(hashlib.sha256(data).hexdigest())


def test_a_planted_compiled_module_is_never_loaded(cache_dir: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Compiled code is never read from disk: the kernel compiles its own .wasm in every
    process (≈ 45–80 ms, docs/cache-threat-model.md), so a module planted in the cache
    folder is not executed — the real solver answers and nothing is deserialized."""
    _plant(cache_dir)
    count = _Counter(monkeypatch)
    kernel = Kernel()
    data = pack(compile_model(parse_model(MODELS[1])))
    assert kernel.run(data)[0] == 0  # the planted module's solve would refuse (-7)
    assert (count.compiled, count.loaded) == (1, 0)
    assert len(list(cache_dir.iterdir())) == 2  # and nothing is written there either


def test_a_planted_compiled_module_is_not_loaded_by_the_cli(cache_dir: Path) -> None:
    """The same through ``python -m structeval solve`` in a fresh process."""
    _plant(cache_dir)
    proc = subprocess.run([sys.executable, "-m", "structeval", "solve", "-"],
                          input=json.dumps(MODELS[1]), capture_output=True, text=True,
                          env={**os.environ, "STRUCTEVAL_CACHE": str(cache_dir.parent)},
                          timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "ABI 999" not in proc.stderr and "reactions" in proc.stdout



def test_unwritable_cache_only_costs_time(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("STRUCTEVAL_CACHE", str(blocker))
    data = pack(compile_model(parse_model(MODELS[3])))
    assert Kernel().run(data)[0] == 0


# ------------------------------------------------------- instances, threads, determinism


def test_instance_is_reused_and_replaced_after_a_trap(cache_dir: Path) -> None:
    kernel = Kernel(fuel=200_000)
    small = pack(compile_model(parse_model(continuous_beam(2))))
    kernel.run(small)
    first = kernel._local.instance
    kernel.run(small)
    assert kernel._local.instance is first
    with pytest.raises(SolverError):
        kernel.run(pack(compile_model(parse_model(continuous_beam(400)))))
    kernel.run(small)
    assert kernel._local.instance is not first


def test_same_input_same_bytes_whatever_ran_before(cache_dir: Path) -> None:
    kernel = Kernel()
    packed = [pack(compile_model(parse_model(doc))) for doc in MODELS]
    first = [_bits(kernel.run(p)) for p in packed]
    again = [_bits(kernel.run(p)) for p in reversed(packed)][::-1]
    assert first == again
    assert json.dumps(solve(MODELS[4])) == json.dumps(solve(MODELS[4]))


def test_threads_give_identical_results(cache_dir: Path) -> None:
    kernel = Kernel()
    packed = [pack(compile_model(parse_model(doc))) for doc in MODELS]
    expected = [_bits(kernel.run(p)) for p in packed]

    def work(offset: int) -> list[bytes]:
        order = [(i + offset) % len(packed) for i in range(len(packed) * 5)]
        got = {i: _bits(kernel.run(packed[i])) for i in order}
        return [got[i] for i in range(len(packed))]

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(work, range(8)))
    assert all(r == expected for r in results)


# --------------------------------------------------------------------------- CLI


def _write(tmp_path: Path, doc: Any, name: str = "model.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
    return path


def test_cli_module_entry_prints_the_documented_json(tmp_path: Path) -> None:
    doc = MODELS[5]
    run = subprocess.run([sys.executable, "-m", "structeval", "solve",
                          str(_write(tmp_path, doc))], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert {"reactions", "links", "max_abs_moment", "displacements"} <= set(out)
    model = parse_model(doc)
    assert [set(r) for r in out["reactions"]] == [{"atId", "type", "value"}] * len(
        out["reactions"])
    assert [(r["atId"], r["type"]) for r in out["reactions"]] == [
        (r.at_id, r.type) for r in analyze(model)[0].reactions]
    assert [entry["linkId"] for entry in out["links"]] == [lk.id for lk in model.links]
    for entry in out["links"]:
        assert entry["samples"] and all(set(s) == {"s", "n", "v", "m"} for s in entry["samples"])
    assert isinstance(out["max_abs_moment"], float)
    assert [d["pointId"] for d in out["displacements"]] == [p.id for p in model.points]
    assert out == json.loads(json.dumps(solve(doc)))  # the CLI prints what the API returns


@pytest.mark.parametrize(("doc", "words"), [
    ({"points": [{"id": "P1", "x": 0, "y": 0}], "links": [{"id": "L1", "a": "P1",
                                                          "b": "P2"}]},
     "links[0].b: refers to unknown point"),
    ("{not json", "not valid JSON"),
    ({"points": [{"id": "A", "x": 0, "y": 0}, {"id": "B", "x": 6, "y": 0}],
      "links": [{"id": "L1", "a": "A", "b": "B"}],
      "supports": [{"id": "S1", "at": {"type": "point", "id": "A"}, "kind": "roller"},
                   {"id": "S2", "at": {"type": "point", "id": "B"}, "kind": "roller"}]},
     "mechanism"),
])
def test_cli_exits_2_with_the_reason_on_stderr(tmp_path: Path, doc: Any, words: str) -> None:
    result = CliRunner().invoke(main, ["solve", str(_write(tmp_path, doc))])
    assert result.exit_code == 2
    assert words in result.stderr
    assert result.stdout == ""


def test_cli_reads_stdin(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["solve", "-"], input=json.dumps(MODELS[6]))
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == json.loads(json.dumps(solve(MODELS[6])))


def test_cli_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["solve", str(tmp_path / "missing.json")])
    assert result.exit_code == 2
    assert "cannot read" in result.stderr
