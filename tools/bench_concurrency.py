#!/usr/bin/env python3
"""Concurrency benchmark of ``run_eval.py`` against a local server that answers in 1 s.

What it shows (issue 5, item 8): 64 tasks with ``--concurrency 16`` finish in
well under 8 s, although one at a time they would need 64 s of server time; and
the results are identical and identically ordered whatever the concurrency.
Issue 11 adds the response cache: the same run again (same server, same cache)
sends no request and gives the same task rows, and its time is printed beside
the first run's.
The timed run answers every task correctly at once (one request per task, as
the target assumes). The comparison run scripts every outcome (perfect, each
stage's fault, no JSON, repairs) and runs the same tasks with --concurrency 16
and 1, with a short server delay so the serial run does not take minutes.

Both runs are real ``run_eval.py`` processes (start-up included in the time),
talking to the scripted OpenAI-compatible server of the test suite.

    python tools/bench_concurrency.py [--tasks 64] [--concurrency 16] [--delay 1.0]

Exit status 0 when the time target is met and the results are identical.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fakeserver import fixture as fx  # noqa: E402
from tests.fakeserver.server import Answer, FakeOpenAI, Script  # noqa: E402

TARGET_S = 8.0


def _mixed(task: fx.FixtureTask, k: int) -> tuple[str, str]:
    """(first answer, repair answer): every outcome, chosen by task index."""
    base = fx.base_id(task)
    gt = fx.GT_MODELS[base]
    last_point, first_load = gt["points"][-1]["id"], gt["loads"][0]["id"]
    return [
        (fx.tagged(fx.equivalent(base)), fx.tagged(gt)),
        (fx.NO_JSON, fx.fenced(gt)),
        (fx.tagged(fx.moved_point(base, last_point, 1.0)), fx.tagged(gt)),
        (fx.tagged(fx.invalid(base)), fx.boxed(gt)),
        (fx.tagged(fx.scaled_load(base, first_load, 1.5)),
         fx.fenced(fx.scaled_load(base, first_load, 1.5))),
        (fx.broken_json(gt), fx.tagged(gt)),
    ][k % 6]


def _first_time_right(task: fx.FixtureTask, k: int) -> tuple[str, str]:
    """Correct at once, in varied wrappings: exactly one request per task."""
    base = fx.base_id(task)
    gt = fx.GT_MODELS[base]
    wrap = (fx.tagged, fx.fenced, fx.boxed, fx.broken_json)[k % 4]
    answer = wrap(fx.equivalent(base) if k % 2 else gt)
    return answer, answer


def _script(tasks: list[fx.FixtureTask], delay: float, answers) -> Script:
    script = Script()
    for k, task in enumerate(tasks):
        first, repair = answers(task, k)
        sha = fx.image_sha(task)
        script.on(sha, 1, Answer(first, delay=delay))
        script.on(sha, 2, Answer(repair, delay=delay))
    return script


def _run(tasks: list[fx.FixtureTask], data: Path, out: Path, *, concurrency: int,
         delay: float, answers) -> tuple[float, dict, int]:
    with FakeOpenAI(_script(tasks, delay, answers)) as server:
        env = {**os.environ, "OPENAI_API_KEY": "sk-bench-not-a-real-key"}
        command = [sys.executable, str(ROOT / "run_eval.py"), "--model", "bench-vlm",
                   "--api-base", server.base_url, "--data-dir", str(data), "--output", str(out),
                   "--concurrency", str(concurrency), "--max-retries", "1",
                   # the default response cache, but in the benchmark's folder, not the user's
                   "--cache", "--cache-dir", str(out.parent / "response-cache")]
        started = time.perf_counter()
        proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
        elapsed = time.perf_counter() - started
        requests = len(server.calls)
    if proc.returncode != 0:
        raise SystemExit(f"run_eval.py failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    results = json.loads((out / "results.json").read_text())
    del results["summary"]["wall_s"]
    return elapsed, results, requests


def _cached_pair(tasks: list[fx.FixtureTask], data: Path, tmp: Path, *, concurrency: int,
                 delay: float) -> tuple[float, float, int, int, bool]:
    """(first run s, rerun s, requests of each, identical task rows) with one cache."""
    with FakeOpenAI(_script(tasks, delay, _first_time_right)) as server:
        env = {**os.environ, "OPENAI_API_KEY": "sk-bench-not-a-real-key"}
        times, counts = [], []
        for name in ("first", "again"):
            command = [sys.executable, str(ROOT / "run_eval.py"), "--model", "bench-vlm",
                       "--api-base", server.base_url, "--data-dir", str(data), "--output",
                       str(tmp / name), "--concurrency", str(concurrency), "--max-retries",
                       "1", "--cache", "--cache-dir", str(tmp / "pair-cache")]
            before = len(server.calls)
            started = time.perf_counter()
            proc = subprocess.run(command, env=env, capture_output=True, text=True,
                                  timeout=600)
            times.append(time.perf_counter() - started)
            counts.append(len(server.calls) - before)
            if proc.returncode != 0:
                raise SystemExit(f"run_eval.py failed ({proc.returncode}):\n"
                                 f"{proc.stderr[-2000:]}")
    rows = [json.loads((tmp / name / "results.json").read_text())["tasks"]
            for name in ("first", "again")]
    return times[0], times[1], counts[0], counts[1], rows[0] == rows[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=64)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--delay", type=float, default=1.0, help="server seconds per answer")
    parser.add_argument("--serial-delay", type=float, default=0.02,
                        help="server seconds per answer in the serial comparison run")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-concurrency-") as tmp:
        tmp_path = Path(tmp)
        per_model = -(-args.tasks // len(fx.GT_MODELS))
        tasks = fx.build_dataset(tmp_path / "data", copies=per_model)
        tasks = sorted(tasks, key=lambda t: t.id)[: args.tasks]
        keep = {t.id for t in tasks}
        for meta in (tmp_path / "data" / "ground_truth_meta").glob("*.json"):
            if meta.stem not in keep:
                for sub, name in (("ground_truth_meta", meta.name),
                                  ("raw_models", meta.name), ("images", meta.stem + ".png")):
                    (tmp_path / "data" / sub / name).unlink()
        data = tmp_path / "data"
        timed_s, _, timed_requests = _run(tasks, data, tmp_path / "timed",
                                          concurrency=args.concurrency, delay=args.delay,
                                          answers=_first_time_right)
        runs = {c: _run(tasks, data, tmp_path / f"mixed{c}", concurrency=c,
                        delay=args.serial_delay, answers=_mixed)
                for c in (args.concurrency, 1)}
        first_s, again_s, first_n, again_n, same_rows = _cached_pair(
            tasks, data, tmp_path, concurrency=args.concurrency, delay=args.delay)

    print(f"tasks: {len(tasks)}  requests: {timed_requests}  server delay: {args.delay:g} s")
    print(f"--concurrency {args.concurrency}: {timed_s:.2f} s wall, process start included "
          f"(one at a time: >= {timed_requests * args.delay:.0f} s of server time)")
    verdict = "PASS" if timed_s < TARGET_S else "FAIL"
    print(f"target < {TARGET_S:g} s: {verdict}")
    (par_s, par, par_requests), (ser_s, ser, _) = runs[args.concurrency], runs[1]
    identical = par == ser
    print(f"mixed outcomes ({par_requests} requests, server delay {args.serial_delay:g} s): "
          f"--concurrency {args.concurrency} {par_s:.2f} s, --concurrency 1 {ser_s:.2f} s")
    print(f"results.json identical and identically ordered (wall_s aside): "
          f"{'yes' if identical else 'NO'}; weighted accuracy "
          f"{par['summary']['weighted_accuracy']:.2f}%, after-repair stages "
          f"{par['summary']['stages']}")
    print(f"response cache: first run {first_s:.2f} s ({first_n} requests), the same run "
          f"again {again_s:.2f} s ({again_n} requests; {first_s / max(again_s, 1e-9):.1f}x "
          f"faster), task rows identical: {'yes' if same_rows else 'NO'}")
    cached_ok = again_n == 0 and same_rows
    return 0 if identical and timed_s < TARGET_S and cached_ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
