#!/usr/bin/env python3
"""Time and size of the HTML report of a large run: ``python tools/bench_report.py``.

A run over the shipped tasks (default: all 1,096) is scripted against the test
suite's local server (``tests/report_run.py``: exact, repaired, stuck, no-JSON
and refused answers in rotation), then ``tools/report.py RUN -o r.html`` is
timed (wall clock and CPU of the process) and the page's size printed. Side by
side in the same session, the report code of another checkout (``--old-root``,
default /work/main when it exists: the raster renderer's path) is timed on the
first ``--old-tasks`` tasks of the same run and scaled to the whole run, since
the whole run would take many minutes. Also timed: the multi-run page and the
CSV/LaTeX export. The load average is printed: on a shared machine the wall
time depends on what else runs.

    python tools/bench_report.py [--limit N] [--old-tasks 40] [--old-root DIR]

Exit 0 when the report is under both targets (20 s, 10 MB), 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from structeval.dataset import DATA_DIR, load_tasks  # noqa: E402
from tests.report_run import make_scripted_run  # noqa: E402

TARGET_S, TARGET_MB = 20.0, 10.0


def timed(command: list[str], root: Path = ROOT) -> tuple[float, float]:
    """(wall s, CPU s of the child) of a command that must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(root / "src")}
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=root)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:3])} failed ({done.returncode}):\n"
                         f"{done.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def subset(run: Path, out: Path, count: int) -> None:
    """The first ``count`` tasks of a run, with its trace (the old report reads it all)."""
    out.mkdir()
    data = json.loads((run / "results.json").read_text(encoding="utf-8"))
    data["tasks"] = data["tasks"][:count]
    (out / "results.json").write_text(json.dumps(data), encoding="utf-8")
    for name in ("run.json", "trace.jsonl"):
        shutil.copy(run / name, out / name)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--old-tasks", type=int, default=40)
    default_old = Path("/work/main")
    parser.add_argument("--old-root", type=Path,
                        default=default_old if (default_old / "tools" / "report.py").is_file()
                        else None)
    args = parser.parse_args()
    tasks = load_tasks(DATA_DIR)
    tasks = tasks[: args.limit] if args.limit else tasks
    with tempfile.TemporaryDirectory(prefix="bench-report-") as tmp:
        run, page = Path(tmp) / "run", Path(tmp) / "r.html"
        started = time.perf_counter()
        make_scripted_run(run, DATA_DIR, tasks)
        print(f"scripted run of {len(tasks)} tasks: {time.perf_counter() - started:.1f} s")
        print(f"load average before the report: {os.getloadavg()[0]:.1f} "
              f"({os.cpu_count()} cores)")
        wall, cpu = timed([sys.executable, str(ROOT / "tools" / "report.py"), str(run),
                           "-o", str(page), "--no-progress"])
        size = sum(p.stat().st_size for p in Path(tmp).iterdir() if p.suffix == ".html")
        print(f"report.py: {wall:.1f} s wall, {cpu:.1f} s CPU, {size / 1e6:.2f} MB "
              f"({1000 * wall / len(tasks):.1f} ms per task)")
        wall2, _ = timed([sys.executable, str(ROOT / "tools" / "report.py"), str(run), str(run),
                          "-o", str(Path(tmp) / "runs.html")])
        wall3, _ = timed([sys.executable, str(ROOT / "tools" / "export_tables.py"), str(run),
                          "--format", "latex", "-o", str(Path(tmp) / "tables")])
        print(f"report.py RUN RUN (multi-run page): {wall2:.1f} s; export_tables.py --format "
              f"latex: {wall3:.1f} s")
        if args.old_root is not None and args.old_tasks > 0:
            small = Path(tmp) / "small"
            subset(run, small, min(args.old_tasks, len(tasks)))
            n = min(args.old_tasks, len(tasks))
            old_wall, old_cpu = timed([sys.executable, str(args.old_root / "tools" / "report.py"),
                                       str(small), "-o", str(Path(tmp) / "old.html"),
                                       "--no-progress"], args.old_root)
            old_size = (Path(tmp) / "old.html").stat().st_size
            scale = len(tasks) / n
            print(f"old report ({args.old_root}) on {n} tasks: {old_wall:.1f} s wall, "
                  f"{old_cpu:.1f} s CPU, {old_size / 1e6:.2f} MB; scaled to {len(tasks)} "
                  f"tasks: ~{old_wall * scale:.0f} s wall, ~{old_cpu * scale:.0f} s CPU, "
                  f"~{old_size * scale / 1e6:.0f} MB")
    ok = wall < TARGET_S and size < TARGET_MB * 1e6
    print(f"targets ({TARGET_S:.0f} s, {TARGET_MB:.0f} MB): {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
