"""Fail fast on a dead endpoint, and the progress line of a run whose stdout is a pipe.

A dead endpoint used to cost every task its whole retry schedule (8 tasks: 129-137 s
with the default backoff); the rule of :mod:`structeval.harness.client.failfast` stops the
run with exit 4 and one sentence once the first three request outcomes are the same
connection failure or the same 4xx. It must not stop a healthy server that fails a
request or two, and it must decide before the retries of a task have run their
course (``--concurrency 1`` with the default backoff is tested for that).
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from pathlib import Path

import pytest

from structeval.harness.client.failfast import EndpointUnusable, FirstRequests
from structeval.harness.client.service_errors import Incident
from tests.fakeserver import fixture as fx
from tests.fakeserver.process import common, run_eval
from tests.fakeserver.server import Answer, Call, Fail, FakeOpenAI

CONNECTION = Incident("connection", None, "Connection error: [Errno 111] Connection refused")


def _rejected(status: int) -> Incident:
    return Incident("rejected", status, "no such route")


# ---------------------------------------------------------------------------- the rule


def test_three_connection_failures_in_a_row_stop_the_run():
    rule = FirstRequests("http://127.0.0.1:9/v1")
    rule.failed(CONNECTION)
    rule.failed(CONNECTION)
    with pytest.raises(EndpointUnusable) as info:
        rule.failed(CONNECTION)
    text = str(info.value)
    assert "first 3 requests to http://127.0.0.1:9/v1 all failed to connect" in text
    assert "Connection refused" in text and "--api-base" in text and "\n" not in text


def test_the_same_4xx_three_times_stops_the_run_and_names_the_status():
    rule = FirstRequests("http://h/v1")
    rule.failed(_rejected(405))
    rule.failed(_rejected(405))
    with pytest.raises(EndpointUnusable, match="HTTP 405"):
        rule.failed(_rejected(405))


def test_the_sentence_never_carries_a_servers_control_characters_or_a_doubled_period():
    rule = FirstRequests("http://h/v1", limit=1)
    with pytest.raises(EndpointUnusable) as info:
        rule.failed(Incident("rejected", 405, "nope\x1b[2J\nreally.\r"))
    text = str(info.value)
    assert "\x1b" not in text and "\n" not in text and "\r" not in text
    assert "(nope\\x1b[2J\\nreally)" in text  # escaped, on one line, no period doubled


@pytest.mark.parametrize("outcomes", [
    ["ok", CONNECTION, CONNECTION, CONNECTION],  # answered once: the endpoint is there
    [CONNECTION, "ok", CONNECTION, CONNECTION],  # a single transient failure
    [CONNECTION, CONNECTION, "ok", CONNECTION],
    [CONNECTION, _rejected(405), CONNECTION, CONNECTION],  # not all the same failure
    [_rejected(405), _rejected(413), _rejected(405), _rejected(405)],
    [Incident("server", 503, "loading"), CONNECTION, CONNECTION, CONNECTION],  # may pass
    [Incident("timeout", None, "slow"), CONNECTION, CONNECTION, CONNECTION],
    [Incident("rate_limit", 429, "slow down")] * 4,
])
def test_any_other_outcome_among_the_first_three_disarms_the_rule(outcomes):
    rule = FirstRequests("http://h/v1")
    for outcome in outcomes:
        if outcome == "ok":
            rule.succeeded()
        else:
            rule.failed(outcome)  # never raises


def test_the_rule_is_thread_safe_and_fires_once():
    rule = FirstRequests("http://h/v1")
    raised: list[BaseException] = []

    def fail() -> None:
        try:
            rule.failed(CONNECTION)
        except EndpointUnusable as exc:
            raised.append(exc)

    threads = [threading.Thread(target=fail) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(raised) == 1


# ---------------------------------------------------------------------------- real runs


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("failfast")
    fx.build_dataset(root, copies=2)  # 8 tasks
    return root


def _run(api_base: str, data_dir: Path, out: Path, *extra: str):
    """A run with the *default* retry schedule (6 tries, backoff from 2 s): the rule, not
    short backoffs, must make it fast."""
    started = time.monotonic()
    done = run_eval("--model", "fake-vlm", "--api-base", api_base, "--data-dir",
                    str(data_dir), "--split", "all", "--output", str(out), *extra)
    return done, time.monotonic() - started


def _one_sentence(stderr: str) -> str:
    assert "Traceback" not in stderr
    errors = [line for line in stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, stderr
    return errors[0]


def test_a_closed_port_exits_4_within_15_seconds_on_8_tasks(dataset, tmp_path):
    done, elapsed = _run(f"http://127.0.0.1:{_closed_port()}/v1", dataset, tmp_path / "run")
    assert done.returncode == 4, done.stderr
    assert elapsed < 15.0, f"took {elapsed:.1f} s"
    line = _one_sentence(done.stderr)
    assert "all failed to connect" in line and "Connection refused" in line
    assert "--resume" in line


def test_one_task_at_a_time_decides_after_three_tries_not_after_all_six(dataset, tmp_path):
    """With --concurrency 1 the three outcomes are the first task's first three tries: two
    backoffs (1 + 2 s at --backoff-base 1; 2 + 4 s by default), where its six tries would
    wait 1 + 2 + 4 + 8 + 16 = 31 s."""
    done, elapsed = _run(f"http://127.0.0.1:{_closed_port()}/v1", dataset, tmp_path / "run",
                         "--concurrency", "1", "--backoff-base", "1")
    assert done.returncode == 4, done.stderr
    assert elapsed < 15.0, f"took {elapsed:.1f} s"


def test_an_unresolvable_host_exits_4(dataset, tmp_path):
    done, elapsed = _run("http://nonexistent.invalid/v1", dataset, tmp_path / "run")
    assert done.returncode == 4, done.stderr
    assert elapsed < 15.0, f"took {elapsed:.1f} s"
    assert "all failed to connect" in _one_sentence(done.stderr)


@pytest.mark.parametrize("status", [401, 404, 405])
def test_the_same_4xx_to_every_request_exits_4(dataset, tmp_path, status):
    with FakeOpenAI(lambda call: Fail(status, "go away\x1b[2J.")) as server:
        done, elapsed = _run(server.base_url, dataset, tmp_path / "run")
        requests = len(server.calls)
    assert done.returncode == 4, done.stderr
    assert elapsed < 15.0
    line = _one_sentence(done.stderr)
    assert f"HTTP {status}" in line and ".." not in line
    assert "\x1b" not in done.stderr  # the server's escape sequence is shown, not obeyed
    assert requests <= 8  # stopped at once: not 8 tasks x 6 tries


class _DropFirst:
    """A TCP relay to ``target`` that closes its first ``drops`` connections before any
    byte of a reply: the client sees a connection failure, as from a server restarting."""

    def __init__(self, target: int, drops: int):
        self.target, self.drops = target, drops
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.drops > 0:
                self.drops -= 1
                client.recv(65536)
                client.close()
                continue
            upstream = socket.create_connection(("127.0.0.1", self.target))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=_pump, args=(a, b), daemon=True).start()

    def close(self) -> None:
        self.listener.close()


def _pump(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for sock in (source, sink):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


def _perfect(call: Call) -> Answer:
    return Answer(fx.tagged(fx.GT_MODELS["beam_t02"]))


def test_a_server_that_fails_twice_then_works_completes_normally(dataset, tmp_path):
    """Two dropped connections (fewer than the rule's three) at the start of a run, one
    task at a time so they are the same task's first two tries: the run completes."""
    with FakeOpenAI(_perfect) as server:
        port = int(server.base_url.rsplit(":", 1)[1].split("/")[0])
        relay = _DropFirst(port, drops=2)
        try:
            done = run_eval(*common(server, dataset, tmp_path / "run", "--split", "all",
                                    "--concurrency", "1", "--progress-interval", "0"),
                            "--api-base", f"http://127.0.0.1:{relay.port}/v1")
        finally:
            relay.close()
    assert relay.drops == 0  # both drops happened
    assert done.returncode in (0, 3), done.stderr  # graded (wrong answers are fine)
    assert "failed to connect" not in done.stderr
    assert "8 task(s), 8 scored, 0 unavailable" in done.stdout
    assert "progress: " not in done.stdout  # --progress-interval 0: no line


def test_a_progress_line_is_printed_when_stdout_is_a_pipe(dataset, tmp_path):
    def slow(call: Call) -> Answer:
        return Answer(fx.tagged(fx.GT_MODELS["beam_t02"]), delay=0.15)

    with FakeOpenAI(slow) as server:
        done = run_eval(*common(server, dataset, tmp_path / "run", "--split", "all",
                                "--concurrency", "1", "--progress-interval", "0.2",
                                "--max-retries", "0", "--price-in", "1", "--price-out", "2"))
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("progress: ")]
    assert lines, done.stdout
    assert all("/8 tasks done, running accuracy " in line and " unavailable, $" in line
               for line in lines)
    assert lines == sorted(lines, key=lambda line: int(line.split()[1].split("/")[0]))

