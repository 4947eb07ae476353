"""Bridge to the kernel ``framecalc.wasm`` (package data): compile once, reuse instances,
one call per solve.

Why this shape: a wasmtime call costs ~36 µs and an instantiation ~64 µs, so
the module is compiled once per process (never loaded compiled from disk: see
:func:`_load_module`), each thread keeps its own instance (stores
are not thread-safe), data moves by one memmove each way, and every solve is a
single exported call. Fuel and a memory cap bound what hostile input can cost;
any trap becomes a :class:`SolverError` and the instance is discarded.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable
from functools import partial
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import wasmtime

from ..model.errors import StructEvalError
from .abi import ABI_VERSION, HDR_OUT

#: The kernel ships inside the package (``structeval/fe/framecalc.wasm``), so a wheel or
#: ``pip install .`` finds it wherever it is installed; ``bin/framecalc.wasm`` in a
#: checkout is a link to the same file.
WASM_PATH = Path(str(resources.files(__package__ or "structeval.fe") / "framecalc.wasm"))
DEFAULT_FUEL = 4_000_000_000  # wasm instructions; a 5000-member model needs far less
DEFAULT_MEMORY = 512 * 1024 * 1024  # bytes of linear memory per instance
PAGE = 65536


class SolverError(StructEvalError):
    """The kernel could not produce an answer (trap, limits, bad numeric input)."""


def _engine() -> wasmtime.Engine:
    config = wasmtime.Config()
    config.consume_fuel = True
    config.cranelift_opt_level = "speed"
    return wasmtime.Engine(config)


def _load_module(engine: wasmtime.Engine, wasm: bytes) -> wasmtime.Module:
    """The kernel compiled from its own bytes, in this process.

    Why not a compiled-module cache on disk: a serialized module is native code that
    wasmtime runs unchecked, so loading one from a folder is only as safe as that folder
    (a shared ``STRUCTEVAL_CACHE`` or CI cache would let anyone who can write it run code
    as the solver). Compiling costs 45–80 ms once per process, loading a cached one
    0.3 ms; that is too little to be worth trusting a file (measured figures in
    docs/cache-threat-model.md).
    """
    return wasmtime.Module(engine, wasm)


def _direct_call(store: wasmtime.Store, func: wasmtime.Func,
                 ) -> Callable[[int, int, int], int] | None:
    """fc_solve(i32, i32) -> i32 called straight through wasmtime's C API, with its fuel.

    Why: wasmtime-py's ``Func.__call__`` re-reads the function type and boxes every
    argument on each call, ~27 µs of the ~37 µs a small solve's call costs. The type
    is checked once here instead, and the fuel is set through the same C API (the
    wrapper's checks cost as much again as the call into C). This leans on wasmtime-py
    internals (``_ffi``), so anything unexpected returns None and the public call is
    used.
    """
    try:
        from wasmtime import _ffi as ffi

        kinds = func.type(store)
        if [str(t) for t in kinds.params] != ["i32", "i32"] or [
                str(t) for t in kinds.results] != ["i32"]:
            return None
        context = store._context()
        handle = ctypes.byref(func._func)
        slots = (ffi.wasmtime_val_raw * 2)()
        call_unchecked = _raw(ffi, "wasmtime_func_call_unchecked")
        set_fuel = _raw(ffi, "wasmtime_context_set_fuel")
        # one trap slot for every call: a trap raises, and Kernel then discards the
        # instance with it, so the slot is null whenever a call starts
        trap = ctypes.POINTER(ffi.wasm_trap_t)()
        trap_ref = ctypes.byref(trap)
    except (ImportError, AttributeError, TypeError, ValueError):
        return None

    def call(in_off: int, n_in: int, fuel: int) -> int:
        error = set_fuel(context, fuel)
        if error:
            raise wasmtime.WasmtimeError._from_ptr(error)
        slots[0].i32 = in_off
        slots[1].i32 = n_in
        error = call_unchecked(context, handle, slots, 2, trap_ref)
        if error:
            raise wasmtime.WasmtimeError._from_ptr(error)
        if trap:
            raise wasmtime.Trap._from_ptr(trap)
        return int(slots[0].i32)

    call.keepalive = (store, func)  # type: ignore[attr-defined]
    return call


def _raw(ffi: Any, name: str) -> Callable[..., Any]:
    """The ctypes function behind one of wasmtime-py's C API wrappers (each wrapper is a
    Python function that only forwards its arguments: a third of a call's cost)."""
    raw = getattr(ffi, "_" + name, None)
    return raw if isinstance(raw, ctypes._CFuncPtr) else getattr(ffi, name)


def _public_call(store: wasmtime.Store, func: wasmtime.Func) -> Callable[[int, int, int], int]:
    """The same call through wasmtime-py's public API (when its internals differ)."""

    def call(in_off: int, n_in: int, fuel: int) -> int:
        store.set_fuel(fuel)
        return func(store, in_off, n_in)  # type: ignore[return-value]

    return call


class _Instance:
    """One store + instance, owned by one thread."""

    def __init__(self, engine: wasmtime.Engine, module: wasmtime.Module, memory_limit: int):
        self.store = wasmtime.Store(engine)
        self.store.set_limits(memory_size=memory_limit)
        self.store.set_fuel(10_000_000)
        instance = wasmtime.Instance(self.store, module, [])
        exports = instance.exports(self.store)
        self.memory: wasmtime.Memory = exports["memory"]  # type: ignore[assignment]
        self.solve_fn: wasmtime.Func = exports["fc_solve"]  # type: ignore[assignment]
        version = exports["fc_abi_version"](self.store)  # type: ignore[operator]
        if version != ABI_VERSION:
            raise SolverError(f"framecalc.wasm speaks ABI {version}, this package "
                              f"expects {ABI_VERSION}; run tools/build_wasm.py")
        self.heap_base = int(exports["fc_heap_base"](self.store))  # type: ignore[operator]
        self.input_at = (self.heap_base + 7) & ~7
        self.size = -1
        self.base = 0
        self.call = (_direct_call(self.store, self.solve_fn)
                     or _public_call(self.store, self.solve_fn))
        self.memory_size = (_direct_size(self.store, self.memory)
                            or (lambda: self.memory.data_len(self.store)))
        self._view()

    def _view(self) -> tuple[int, int]:
        """(address, size) of linear memory; both change only when it grows."""
        size = self.memory_size()
        if size != self.size:
            self.size = size
            self.base = ctypes.addressof(self.memory.data_ptr(self.store).contents)
        return self.base, self.size

    def run(self, data: np.ndarray | bytes, fuel: int) -> bytes:
        """One solve: ``data`` (the packed input, as float64 values or their bytes) is
        copied in, the kernel called, and its output block copied out as bytes."""
        if isinstance(data, bytes):
            nbytes, source = len(data), data
        else:
            nbytes, source = data.nbytes, data.ctypes.data
        need = self.input_at + nbytes
        # memory only grows, by us below or by the kernel during a call (checked after
        # every call), so the view of the last call is still the memory's
        base, size = self.base, self.size
        if need > size:
            try:
                self.memory.grow(self.store, (need - size + PAGE - 1) // PAGE)
            except wasmtime.WasmtimeError as exc:
                raise SolverError(f"model too large for the solver's memory cap ({exc})") from None
            base, size = self._view()
        ctypes.memmove(base + self.input_at, source, nbytes)
        offset = self.call(self.input_at, nbytes // 8, fuel)
        if offset < 0:
            raise SolverError(f"solver rejected the call (status {-offset})")
        base, size = self._view()  # the kernel may have grown (and moved) the memory
        if offset + 8 * HDR_OUT > size:
            raise SolverError("solver returned a malformed output block")
        length = _double_at(base + offset + 8)
        if not HDR_OUT <= length <= (size - offset) // 8:  # NaN fails both
            raise SolverError("solver returned a malformed output block")
        return ctypes.string_at(base + offset, 8 * int(length))


def _double_at(address: int) -> float:
    return ctypes.c_double.from_address(address).value


def _direct_size(store: wasmtime.Store, memory: wasmtime.Memory) -> Callable[[], int] | None:
    """The byte size of linear memory through wasmtime's C API with its arguments bound
    once (``Memory.data_len`` rebuilds them on every call, a tenth of a small solve's
    wasm call). None when wasmtime-py's internals differ: the public call is used."""
    try:
        from wasmtime import _ffi as ffi

        size = partial(_raw(ffi, "wasmtime_memory_data_size"), store._context(),
                       ctypes.byref(memory._memory))
        if size() != memory.data_len(store):
            return None
    except (ImportError, AttributeError, TypeError, ValueError, ctypes.ArgumentError):
        return None
    size.keepalive = (store, memory)  # type: ignore[attr-defined]
    return size


class Kernel:
    """Process-wide access to the compiled kernel; thread-safe."""

    def __init__(self, wasm_path: Path = WASM_PATH, *, fuel: int = DEFAULT_FUEL,
                 memory_limit: int = DEFAULT_MEMORY):
        try:
            wasm = Path(wasm_path).read_bytes()
        except OSError as exc:
            raise SolverError(f"cannot read the solver module {wasm_path}: {exc}; "
                              "run tools/build_wasm.py") from None
        self.fuel = fuel
        self.memory_limit = memory_limit
        self.engine = _engine()
        self.module = _load_module(self.engine, wasm)
        self._local = threading.local()

    def _instance(self) -> _Instance:
        inst = getattr(self._local, "instance", None)
        if inst is None:
            inst = _Instance(self.engine, self.module, self.memory_limit)
            self._local.instance = inst
        return inst

    def run(self, data: np.ndarray | bytes) -> np.ndarray:
        """Raw call: packed input (float64 values, or their little-endian bytes) →
        output block. Never raises anything but SolverError."""
        # one copy into a buffer numpy owns (cheaper than np.empty + its ctypes address)
        return np.frombuffer(bytearray(self.run_bytes(data)))

    def run_bytes(self, data: np.ndarray | bytes) -> bytes:
        """:meth:`run`, the output block left as its bytes (read without numpy by
        ``structeval.solve``, for which numpy's per-call costs would dominate)."""
        if not isinstance(data, bytes):
            data = np.ascontiguousarray(data, dtype=np.float64)
        try:
            return self._instance().run(data, self.fuel)
        except SolverError:
            self._local.instance = None
            raise
        except wasmtime.Trap as exc:
            self._local.instance = None
            message = str(exc).splitlines()[0] if str(exc) else "trap"
            if "fuel" in str(exc).lower():
                message = "ran out of its instruction budget (model too large or too complex)"
            raise SolverError(f"solver stopped: {message}") from None
        except (wasmtime.WasmtimeError, OverflowError, ValueError) as exc:
            self._local.instance = None
            raise SolverError(f"solver failed: {str(exc).splitlines()[0]}") from None


_default: Kernel | None = None
_default_lock = threading.Lock()


def default_kernel() -> Kernel:
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = Kernel()
    return _default
