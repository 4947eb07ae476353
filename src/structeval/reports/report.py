"""Build the HTML report of a run: results + trace + dataset → one self-contained page.

The run directory does not record which dataset folder it was made from, so
the caller names it (default: the shipped data/); the page warns when a task
is missing there or its image differs from the one the model was shown.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ..model.errors import StructEvalError
from ..scoring import DEFAULT_TOLERANCE
from ..statistics.factors import factor_summary
from ..statistics.runs import per_task, run_statistics
from .confounding import confounded_deltas
from .evidence import read_evidence
from .figures import IMAGE_WIDTH, Picture, input_picture
from .page import PageContext, render_page
from .presentations import structure_views
from .runfiles import TRACE_FILE, ResultsError, RunResults, TaskRow, load_results
from .taskview import TaskView, build_task_view


def _recorded_data_dir(directory: Path) -> Path | str | None:
    """The --data-dir the run was made with (run.json, last session), if it still exists
    (a hub reference ``hf://…`` is returned as it is)."""
    try:
        sessions = json.loads((directory / "run.json").read_text(encoding="utf-8"))["sessions"]
        recorded = sessions[-1].get("data_dir")
    except (OSError, ValueError, KeyError, IndexError, TypeError, AttributeError):
        return None
    if isinstance(recorded, str) and recorded.startswith("hf://"):
        return recorded
    return Path(recorded) if isinstance(recorded, str) and Path(recorded).is_dir() else None


def _dataset(data_dir: Path | str | None) -> tuple[dict[str, Any], str | None]:
    from ..dataset import load_tasks

    try:
        return {t.id: t for t in load_tasks(data_dir)}, None
    except StructEvalError as exc:
        where = f"in {data_dir} " if data_dir is not None else ""
        return {}, (f"the dataset {where}could not be loaded, so input images and ground "
                    f"truths are missing: {str(exc)[:400]}")


def _rows_by_task(results: RunResults) -> dict[str, tuple[TaskRow, ...]]:
    grouped: dict[str, list[TaskRow]] = {}
    for r in results.rows:
        grouped.setdefault(r.id, []).append(r)
    return {k: tuple(sorted(v, key=lambda r: r.run)) for k, v in grouped.items()}


def input_pictures(pool: ThreadPoolExecutor, tasks: Sequence[Any | None],
                   width: int) -> list[Future[Picture]]:
    """The input picture of each task (None: not in the dataset), made in ``pool``:
    Pillow releases the GIL while it decodes, shrinks and encodes, so the pictures
    are made on the other cores while this thread reads the answers."""
    def one(task: Any | None) -> Picture:
        return input_picture(Path(task.image_path) if task is not None else None, width)

    return [pool.submit(one, task) for task in tasks]


def build_report(path: str | Path, *, data_dir: Path | None = None, run: int | None = None,
                 each: Callable[[TaskView], None] | None = None,
                 image_width: int = IMAGE_WIDTH) -> tuple[str, list[str]]:
    """(HTML text, warnings). ``run`` picks the run shown per task (default: the first);
    ``each`` is called after every task (progress display); pictures are stored at most
    ``image_width`` pixels wide."""
    results = load_results(path)
    shown = results.runs[0] if run is None else run
    if shown not in results.runs:
        raise ResultsError(f"{results.results_path} has no run {shown} (runs: "
                           f"{', '.join(map(str, results.runs))})")
    warnings: list[str] = []
    if not (results.directory / TRACE_FILE).is_file():
        warnings.append("no trace.jsonl beside results.json: attempts, reconstructions and "
                        "diagnoses cannot be shown")
    evidence, skipped = read_evidence(results.directory, shown)
    if skipped:
        warnings.append(f"{skipped} unreadable line(s) of trace.jsonl were skipped")
    tasks, problem = _dataset(data_dir or _recorded_data_dir(results.directory))
    if problem:
        warnings.append(problem)
    tolerance = results.info.tolerance or DEFAULT_TOLERANCE
    runs_of = _rows_by_task(results)
    views = []
    rows = results.rows_of_run(shown)
    with ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:
        images = input_pictures(pool, [tasks.get(row.id) for row in rows], image_width)
        for order, (row, image) in enumerate(zip(rows, images, strict=True)):
            view = build_task_view(order, row, runs_of[row.id], tasks.get(row.id),
                                   evidence.get(row.id), tolerance, image)
            views.append(view)
            if each is not None:
                each(view)
    factors = factor_summary(results.rows, results.info.modality)
    confounded = confounded_deltas(per_task(results.rows),
                                   factors.get("presentation_deltas") or {},
                                   results.info.modality)
    sizes = {i: (len(t.model.links), len(t.model.loads)) for i, t in tasks.items()}
    context = PageContext(results, shown, run_statistics(results.rows), views, warnings,
                          factors, structure_views(views), sizes, confounded)
    return render_page(context), warnings
