"""``run_eval.py`` as a real process against a fake server, for the CLI-level tests.

A separate process is what users run, and the only way to see what they see: the
exit code, stderr (a traceback there is a bug), files left behind after a kill or
a failed write, and how much memory the run needed (``os.wait4`` gives the child's
own peak resident size, not the test process's).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from . import fixture as fx
from .server import FakeOpenAI

ROOT = Path(__file__).resolve().parents[2]
RUN_EVAL = ROOT / "run_eval.py"


def _env(env_key: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    if env_key:
        env["OPENAI_API_KEY"] = env_key
    return env


def run_eval(*args: str, env_key: str | None = fx.SECRET_KEY, wait: bool = True,
             ) -> subprocess.CompletedProcess | subprocess.Popen:
    command = [sys.executable, str(RUN_EVAL), *args]
    if not wait:
        return subprocess.Popen(command, cwd=ROOT, env=_env(env_key), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
    return subprocess.run(command, cwd=ROOT, env=_env(env_key), capture_output=True, text=True,
                          timeout=120)


@dataclass(frozen=True)
class Finished:
    returncode: int
    stdout: str
    stderr: str
    max_rss_mb: float  # the child's peak resident memory


# Started by a small launcher, because Linux folds the memory a process had *before* exec
# into its peak: a child forked from a large pytest process would report pytest's size.
_LAUNCHER = """
import os, subprocess, sys
child = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(child.pid, 0)
with open(sys.argv[1], "w") as handle:
    handle.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_measured(*command: str, env_key: str | None = fx.SECRET_KEY,
                 preexec: Callable[[], None] | None = None, timeout: float = 300.0,
                 ) -> Finished:
    """Run ``python <command>`` to the end and report its own peak memory (``wait4``)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        rss = Path(tmp) / "rss"
        out, err = Path(tmp) / "out", Path(tmp) / "err"
        with open(out, "w") as stdout, open(err, "w") as stderr:
            proc = subprocess.Popen([sys.executable, "-c", _LAUNCHER, str(rss), sys.executable,
                                     *command], cwd=ROOT, env=_env(env_key), stdout=stdout,
                                    stderr=stderr, preexec_fn=preexec, start_new_session=True)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 9)  # the launcher and the measured process with it
                proc.wait()
                raise
        peak = int(rss.read_text()) / 1024.0 if rss.exists() else float("nan")
        return Finished(proc.returncode, out.read_text(), err.read_text(), peak)


def kill_9_when(proc: subprocess.Popen, ready: Callable[[], bool], release: threading.Event,
                timeout: float = 60.0) -> None:
    """SIGKILL a ``run_eval(..., wait=False)`` process as soon as ``ready()`` holds (polled),
    then let the requests the server holds go; fails if ``ready`` never comes."""
    try:
        deadline = time.monotonic() + timeout
        while not ready():
            assert time.monotonic() < deadline, "the run never reached the point to kill it"
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
        release.set()
    assert proc.returncode == -signal.SIGKILL


def common(server: FakeOpenAI, data_dir: Path, out: Path, *extra: str) -> list[str]:
    """Options of a quick run: one repair, near-zero backoff, a 20 s request timeout."""
    return ["--model", "fake-vlm", "--api-base", server.base_url, "--data-dir", str(data_dir),
            "--output", str(out), "--max-retries", "1", "--backoff-base", "0.001",
            "--backoff-max", "0.002", "--timeout", "20", *extra]
