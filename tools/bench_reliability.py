#!/usr/bin/env python3
"""Reliability figures of ``run_eval.py`` against a hostile local server, side by side.

What it measures, each in the same run as its baseline (issue 13):

* peak memory (``wait4`` of the real process) of a run whose one answer is 500 MB,
  streamed and not, against the same run with a normal answer; and the trace size;
* the wall time of one request to a server trickling a byte every 0.5 s (headers,
  body, stream) with ``--timeout 2``, against the timeout itself — per-read
  timeouts alone would let it run until the server stops (30 s here).

    python tools/bench_reliability.py [--answer-mb 500] [--timeout 2]

Exit status 0 when memory stays within 3× the normal run and every trickled request
ends within 1.5× the timeout.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from structeval.harness.client.transport import ChatTransport, ServiceUnavailable  # noqa: E402
from structeval.harness.common.settings import RetryPolicy  # noqa: E402
from tests.fakeserver import fixture as fx  # noqa: E402
from tests.fakeserver.process import RUN_EVAL, common, run_measured  # noqa: E402
from tests.fakeserver.server import Answer, FakeOpenAI, Huge, Trickle  # noqa: E402


def _memory(work: Path, answer_mb: int) -> bool:
    data = work / "data"
    fx.build_dataset(data, ["beam_t02"])
    normal = None
    print(f"{'run (one task)':<34}{'peak RSS':>10}{'× normal':>10}{'trace':>12}{'time':>8}")
    ok = True
    for name, reply, extra in (
            ("normal answer", Answer(fx.tagged(fx.GT_MODELS["beam_t02"])), ()),
            (f"{answer_mb} MB answer", Huge(answer_mb * 1_000_000, prefix="<json>"), ()),
            (f"{answer_mb} MB answer, streamed", Huge(answer_mb * 1_000_000, prefix="<json>"),
             ("--stream",))):
        out = work / name.replace(" ", "_").replace(",", "")
        with FakeOpenAI(lambda call, r=reply: r) as server:
            started = time.monotonic()
            done = run_measured(str(RUN_EVAL), *common(server, data, out, "--max-retries", "0",
                                                       *extra))
            wall = time.monotonic() - started
        if done.returncode != 0:
            print(f"{name}: exit {done.returncode}\n{done.stderr[-1000:]}")
            return False
        normal = normal or done.max_rss_mb
        ratio = done.max_rss_mb / normal
        ok &= ratio <= 3.0
        size = (out / "trace.jsonl").stat().st_size
        print(f"{name:<34}{done.max_rss_mb:>8.0f}MB{ratio:>10.2f}{size / 1e6:>10.2f}MB"
              f"{wall:>7.1f}s")
    return ok


def _slow_loris(timeout: float) -> bool:
    print(f"\n{'trickled (1 byte / 0.5 s)':<34}{'request':>10}{'× timeout':>10}")
    ok = True
    for phase, stream in (("headers", False), ("body", False), ("body", True)):
        with FakeOpenAI(lambda call, p=phase: Trickle(phase=p, interval=0.5,
                                                      limit_s=30)) as server:
            transport = ChatTransport(api_key="k", api_base=server.base_url, timeout=timeout,
                                      stream=stream, policy=RetryPolicy(tries=1),
                                      sleep=lambda s: None, rng=random.Random(0))
            started = time.monotonic()
            try:
                transport.complete(model="m", messages=[{"role": "user", "content": "x"}],
                                   temperature=0, max_tokens=5)
                outcome = "answered?"
            except ServiceUnavailable as exc:
                outcome = exc.incidents[-1].kind
            elapsed = time.monotonic() - started
        ratio = elapsed / timeout
        ok &= outcome == "timeout" and ratio <= 1.5
        label = f"{phase}{', streamed' if stream else ''} ({outcome})"
        print(f"{label:<34}{elapsed:>9.2f}s{ratio:>10.2f}")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answer-mb", type=int, default=500)
    parser.add_argument("--timeout", type=float, default=2.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        memory_ok = _memory(Path(tmp), args.answer_mb)
    time_ok = _slow_loris(args.timeout)
    return 0 if memory_ok and time_ok else 1


if __name__ == "__main__":
    sys.exit(main())
