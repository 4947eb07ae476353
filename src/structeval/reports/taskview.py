"""Everything the report shows about one task, gathered from results, trace and dataset.

The reconstruction is re-read from the best attempt's raw answer with the
harness's own extractor and the model layer's parser, so the page shows
exactly the structure that was graded (repairs of broken JSON included).
"""

from __future__ import annotations

import hashlib
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..harness.answers.extract import extract_json
from ..model import Model, ModelError, parse_model
from .differences import Differences, find_differences
from .evidence import TaskEvidence
from .figures import Picture, guarded
from .runfiles import TaskRow
from .sketch import PairSketches, pair_sketches


@dataclass(frozen=True)
class TaskView:
    order: int  # position in the results (dataset order)
    row: TaskRow  # the run shown
    runs: tuple[TaskRow, ...]  # every run of the task, in run order
    image_job: Future[Picture]  # made in a thread pool (report.input_pictures)
    sketches: PairSketches
    differences: Differences | None
    evidence: TaskEvidence | None
    notes: tuple[str, ...]  # why something is missing or suspicious

    @property
    def image(self) -> Picture:
        return self.image_job.result()

    @property
    def stage_key(self) -> str:
        return self.row.stage if self.row.status == "scored" and self.row.stage else "unavailable"


def _candidate(evidence: TaskEvidence | None) -> tuple[Model | None, str]:
    """The graded structure of the best attempt, or why there is none."""
    if evidence is None:
        return None, "no attempt of this task is in the trace"
    best = evidence.best()
    if best is None:
        return None, "the task has no graded attempt (the service kept failing)"
    extraction = extract_json(best.response or best.extracted)
    if extraction.document is None:
        return None, f"no FrameCalc JSON in the answer ({extraction.problem})"
    try:
        return parse_model(extraction.document), ""
    except ModelError as exc:
        return None, f"the answer is not a valid FrameCalc model ({len(exc.issues)} issue(s); " \
                     "see the attempts below)"


def _image_check(task: Any, evidence: TaskEvidence | None) -> list[str]:
    if task is None or evidence is None or evidence.image_sha is None:
        return []
    try:
        sha = hashlib.sha256(Path(task.image_path).read_bytes()).hexdigest()
    except OSError:
        return []
    if sha != evidence.image_sha:
        return ["the dataset's image differs from the one the model was shown: the dataset "
                "changed since this run (pass the --data-dir the run used)"]
    return []


def build_task_view(order: int, row: TaskRow, runs: tuple[TaskRow, ...], task: Any,
                    evidence: TaskEvidence | None, tolerance: float,
                    image: Future[Picture]) -> TaskView:
    """``task`` is the dataset's Task (or None when the dataset lacks it); ``image`` its
    input picture (made beforehand, several at a time: see ``report.input_pictures``)."""
    notes = [] if task is not None else [
        "this task is not in the dataset given to the report: no input image or ground truth"]
    notes += _image_check(task, evidence)
    gt: Model | None = task.model if task is not None else None
    cand, why_not = _candidate(evidence)
    differences: Differences | None = None
    if gt is not None and cand is not None:
        differences, note = guarded("the differences could not be located",
                                    lambda: find_differences(gt, cand, tolerance))
        notes += [note] if note else []
    marks_gt = differences.gt_marks if differences else {}
    marks_cand = differences.cand_marks if differences else {}
    sketches = pair_sketches(gt, cand, marks_gt, marks_cand, why_not)
    return TaskView(order, row, runs, image, sketches, differences, evidence, tuple(notes))
