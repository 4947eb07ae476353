"""The HTTP client under the ``openai`` client: a wall-clock deadline and capped error bodies.

HTTP libraries time each *phase* (connect, one read, one write), so a server
that trickles one byte every half second keeps a request alive for ever
without tripping any of them. ``--timeout`` must bound the whole request —
connect, headers, body, stream — by the wall clock. :func:`request_deadline`
sets a deadline for the requests made in this thread (a context variable);
the network backend we put under the connection pool hands every socket
operation only the time that is left, so the operation that crosses the
deadline fails with the library's own timeout error, which the ``openai``
client reports as ``APITimeoutError`` (or which our body reader sees as a
read timeout).

The ``openai`` client reads an error response's body whole before raising;
:data:`ERROR_BODY_CAP` bounds that read, so a hostile 500 with a 500 MB body
costs 64 KB.

Both ``httpx``/``httpcore`` and their ``httpx2``/``httpcore2`` successors are
supported: the library is the one ``openai.DefaultHttpxClient`` is built on.
"""

from __future__ import annotations

import contextlib
import importlib
import math
import time
from collections.abc import Iterator
from contextvars import ContextVar
from types import ModuleType
from typing import Any

ERROR_BODY_CAP = 64 << 10

_deadline: ContextVar[float | None] = ContextVar("structeval_request_deadline", default=None)


@contextlib.contextmanager
def request_deadline(seconds: float) -> Iterator[float]:
    """Requests of this thread inside the block end by ``seconds`` from now (monotonic)."""
    end = time.monotonic() + seconds
    token = _deadline.set(end)
    try:
        yield end
    finally:
        _deadline.reset(token)


def time_left() -> float | None:
    """Seconds left before the current deadline (None outside :func:`request_deadline`)."""
    end = _deadline.get()
    return None if end is None else end - time.monotonic()


def _clamp(timeout: float | None, error: type[Exception]) -> float | None:
    left = time_left()
    if left is None:
        return timeout
    if left <= 0:
        raise error("the request's wall-clock deadline (--timeout) has passed")
    return left if timeout is None or not math.isfinite(timeout) else min(timeout, left)


class _DeadlineStream:
    """A network stream whose every operation gets at most the time left."""

    def __init__(self, inner: Any, core: ModuleType):
        self._inner = inner
        self._core = core

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _clamp(timeout, self._core.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _clamp(timeout, self._core.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                  timeout: float | None = None) -> _DeadlineStream:
        stream = self._inner.start_tls(ssl_context, server_hostname,
                                       _clamp(timeout, self._core.ConnectTimeout))
        return _DeadlineStream(stream, self._core)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _DeadlineBackend:
    """The connection pool's network backend, with :class:`_DeadlineStream` streams."""

    def __init__(self, inner: Any, core: ModuleType):
        self._inner = inner
        self._core = core

    def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                    local_address: str | None = None, socket_options: Any = None) -> Any:
        stream = self._inner.connect_tcp(host, port, _clamp(timeout, self._core.ConnectTimeout),
                                         local_address=local_address,
                                         socket_options=socket_options)
        return _DeadlineStream(stream, self._core)

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Any = None) -> Any:
        stream = self._inner.connect_unix_socket(
            path, _clamp(timeout, self._core.ConnectTimeout), socket_options=socket_options)
        return _DeadlineStream(stream, self._core)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def http_library() -> ModuleType:
    """``httpx`` or ``httpx2``: whichever the installed ``openai`` client is built on."""
    import openai  # the API client: loaded only when a request is about to be sent

    for cls in openai.DefaultHttpxClient.__mro__:
        if cls.__name__ == "Client" and cls.__module__.split(".")[0].startswith("httpx"):
            return importlib.import_module(cls.__module__.split(".")[0])
    return importlib.import_module("httpx")  # pragma: no cover - openai always uses one


def _capped_transport(lib: ModuleType, inner: Any) -> Any:
    """A transport that cuts error bodies to ERROR_BODY_CAP bytes (openai reads them whole)."""

    class CappedStream(lib.SyncByteStream):  # type: ignore[misc, name-defined]
        def __init__(self, stream: Any):
            self._stream = stream

        def __iter__(self) -> Iterator[bytes]:
            left = ERROR_BODY_CAP
            for chunk in self._stream:
                yield chunk[:left]
                left -= len(chunk)
                if left <= 0:
                    return

        def close(self) -> None:
            self._stream.close()

    class CappedTransport(lib.BaseTransport):  # type: ignore[misc, name-defined]
        def handle_request(self, request: Any) -> Any:
            response = inner.handle_request(request)
            if response.status_code < 400:
                return response
            return lib.Response(status_code=response.status_code, headers=response.headers,
                                stream=CappedStream(response.stream),
                                extensions=response.extensions)

        def close(self) -> None:
            inner.close()

    return CappedTransport()


def deadline_client(timeout: float) -> tuple[Any, bool]:
    """(an ``http_client`` for ``openai.OpenAI``, whether the deadline reaches the sockets).

    The second value is False only if the HTTP library no longer has the connection-pool
    backend we wrap; the body reader's own deadline checks still apply then.
    """
    lib = http_library()
    transport = lib.HTTPTransport(limits=lib.Limits(max_connections=1000,
                                                    max_keepalive_connections=100))
    pool = getattr(transport, "_pool", None)
    backend = getattr(pool, "_network_backend", None)
    hooked = backend is not None
    if hooked:
        core = importlib.import_module(type(pool).__module__.split(".")[0])
        pool._network_backend = _DeadlineBackend(backend, core)  # type: ignore[union-attr]
    import openai

    client = openai.DefaultHttpxClient(transport=_capped_transport(lib, transport),
                                       timeout=timeout)
    return client, hooked
