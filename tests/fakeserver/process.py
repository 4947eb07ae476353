"""``run_eval.py`` as a real process against a fake server, for the CLI-level tests.

A separate process is what users run, and the only way to see what they see: the
exit code, stderr (a traceback there is a bug), files left behind after a kill or
a failed write, and how much memory the run needed (``os.wait4`` gives the child's
own peak resident size, not the test process's).
"""

from __future__ import annotations

import os
import subprocess
import sys
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


def run_measured(*command: str, env_key: str | None = fx.SECRET_KEY,
                 preexec: Callable[[], None] | None = None, timeout: float = 300.0,
                 ) -> Finished:
    """Run ``python <command>`` to the end and report its own peak memory (``wait4``)."""
    import tempfile
    import threading

    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen([sys.executable, *command], cwd=ROOT, env=_env(env_key),
                                stdout=out, stderr=err, text=True, preexec_fn=preexec)
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Finished(proc.returncode, out.read(), err.read(), usage.ru_maxrss / 1024.0)


def common(server: FakeOpenAI, data_dir: Path, out: Path, *extra: str) -> list[str]:
    """Options of a quick run: one repair, near-zero backoff, a 20 s request timeout."""
    return ["--model", "fake-vlm", "--api-base", server.base_url, "--data-dir", str(data_dir),
            "--output", str(out), "--max-retries", "1", "--backoff-base", "0.001",
            "--backoff-max", "0.002", "--timeout", "20", *extra]
