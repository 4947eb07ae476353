#!/usr/bin/env python3
"""How long rescoring a whole run takes, beside the run itself: ``python tools/bench_rescore.py``.

A run of the shipped tasks (default: all of them) is made against the local scripted
server of the test suite — every other task answered exactly, the others with one load
10 % too large, each repaired in one round — then ``tools/rescore.py`` re-grades it at
the run's tolerance (the task rows must come out byte for byte the same) and at 5 %
(only verdicts may change). Printed: the run's time (server answering at once, so this
is the harness's own cost), each rescore's time and per task, and the checks.

    python tools/bench_rescore.py [--limit N] [--data-dir DIR]

Exit 0 when both checks hold.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from structeval.dataset import DATA_DIR, load_tasks  # noqa: E402
from structeval.model import dumps_model  # noqa: E402
from tests.fakeserver.server import Answer, Call, FakeOpenAI, Reply  # noqa: E402


def _answers(tasks: list) -> dict[str, tuple[str, str]]:
    """image sha256 → (first answer, repair answer)."""
    import hashlib

    out = {}
    for k, task in enumerate(tasks):
        exact = json.loads(dumps_model(task.model))
        first = copy.deepcopy(exact)
        loads = [ld for ld in first["loads"] if "value" in ld or "wStart" in ld]
        if k % 2 and loads:
            for key in ("value", "wStart", "wEnd"):
                if key in loads[0]:
                    loads[0][key] = float(loads[0][key]) * 1.1
        sha = hashlib.sha256(Path(task.image_path).read_bytes()).hexdigest()
        out[sha] = (f"<json>{json.dumps(first)}</json>", f"<json>{json.dumps(exact)}</json>")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--data-dir", type=Path, default=DATA_DIR)
    args = parser.parse_args()
    tasks = load_tasks(args.data_dir)[: args.limit] if args.limit else load_tasks(args.data_dir)
    answers = _answers(tasks)

    def reply(call: Call) -> Reply:
        first, repair = answers[call.image_sha or ""]
        return Answer(first if call.attempt == 1 else repair)

    with tempfile.TemporaryDirectory(prefix="bench-rescore-") as tmp:
        out = Path(tmp) / "run"
        with FakeOpenAI(reply) as server:
            command = [sys.executable, str(ROOT / "run_eval.py"), "--model", "bench-vlm",
                       "--api-base", server.base_url, "--data-dir", str(args.data_dir),
                       "--output", str(out), "--max-retries", "1", "--concurrency", "8",
                       "--no-cache"] + (["--limit", str(args.limit), "--limit-order", "id"]
                                        if args.limit else [])
            env = {**os.environ, "OPENAI_API_KEY": "sk-bch-4Wq8Zr1Ty6Np"}
            started = time.perf_counter()
            done = subprocess.run(command, env=env, capture_output=True, text=True)
            run_s = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"run_eval.py failed ({done.returncode}):\n{done.stderr[-2000:]}")
        timings, rows = {}, {}
        for name, extra in (("same", []), ("loose", ["--tolerance", "0.05"])):
            started = time.perf_counter()
            done = subprocess.run([sys.executable, str(ROOT / "tools" / "rescore.py"), str(out),
                                   "--output", str(Path(tmp) / name), "--no-progress", *extra],
                                  capture_output=True, text=True)
            timings[name] = time.perf_counter() - started
            if done.returncode != 0:
                raise SystemExit(f"rescore failed:\n{done.stderr[-2000:]}")
            rows[name] = [json.dumps(t) for t in json.loads(
                (Path(tmp) / name / "results.json").read_text())["tasks"]]
        source = [json.dumps(t) for t in json.loads((out / "results.json").read_text())["tasks"]]

        def texts(directory: Path) -> list[str]:
            records = [json.loads(line) for line in
                       (directory / "trace.jsonl").read_text().splitlines() if line]
            last = max(r["session"] for r in records)
            return sorted(r["response"]["text"] for r in records if r["type"] == "attempt"
                          and r["session"] == last and r.get("outcome") == "graded")

        same_answers = texts(out) == texts(Path(tmp) / "loose")
    n = len(tasks)
    print(f"tasks: {n}; run_eval.py (server answering at once, 1 repair round): {run_s:.1f} s")
    for name, label in (("same", "at the run's tolerance"), ("loose", "at --tolerance 0.05")):
        print(f"rescore {label}: {timings[name]:.1f} s ({1000 * timings[name] / n:.1f} ms per "
              f"task, {run_s / timings[name]:.1f}x faster than the run), no request sent")
    identical = rows["same"] == source
    changed = sum(a != b for a, b in zip(rows["loose"], source, strict=True))
    print(f"same tolerance: task rows byte for byte identical: {'yes' if identical else 'NO'}")
    print(f"--tolerance 0.05: {changed} task row(s) changed, answers identical: "
          f"{'yes' if same_answers else 'NO'}")
    return 0 if identical and same_answers else 1


if __name__ == "__main__":
    raise SystemExit(main())
