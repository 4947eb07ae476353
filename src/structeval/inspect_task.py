"""StructuralEval as an inspect_ai task: ``inspect eval src/structeval/inspect_task.py``.

Why: many researchers run every benchmark through inspect_ai, so they get every
provider inspect supports (OpenAI, Anthropic, Google, vLLM, Hugging Face, any
OpenAI-compatible server) and its logs and viewer. The task is the same
benchmark as ``run_eval.py``, not a re-implementation of its rules: the same
system prompt (:func:`structeval.harness.inputs.prompts.system_prompt`), task text,
image encoding, answer extraction and grading
(:func:`structeval.harness.answers.grading.grade_answer`), repair feedback
(:func:`~structeval.harness.inputs.prompts.repair_text`), and the same rule that only
the last failed exchange stays in context. So a model's per-task credit is the
one ``run_eval.py`` gives for the same answers.

Samples are the dataset's tasks (sample id = task id; category, difficulty,
split, structure and the presentation factors as metadata). The score value is
the task's credit 0-1, the best over attempts; its metadata holds the stage,
pass@1 (the first attempt's credit) and every attempt's stage. Metrics, as
fractions 0-1: weighted accuracy (Σ credit × difficulty / Σ difficulty) and
pass@1 weighted accuracy, overall and grouped by category and difficulty.

Metrics also come grouped by every presentation factor (``style=scanned``,
``dimensioning=exam`` …), as ``results.json`` groups them.

Task parameters mirror the CLI (``-T max_retries=0``, ``-T prompt_type=strict``,
``-T split=hard``, ``-T category=beam,frame``, ``-T difficulty=4,5``,
``-T presentation=language=en``, ``-T lang=en``, ``-T data_dir=DIR|hf://…``,
``-T limit=20``, ``-T filter=beam-*``, ``-T tolerance=0.02``, ``-T modality=dxf``,
``-T max_image_side=1568``, ``-T image_detail=high``, ``-T image_mode=tiles``,
``-T image_mode=zoom -T max_zooms=8``); the tasks
are selected by the CLI's own selection (:func:`structeval.harness.tasks.select_tasks`),
so ``limit`` takes the same tasks. A parameter that cannot be used is one sentence (inspect
prints it without a traceback), never a crash. Installed with
``pip install 'structeval[inspect]'``, the task is also ``structeval/structeval``.

This module imports inspect_ai at the top, so nothing else in the package imports it;
its imports are absolute so that inspect can load it by file path.

``image_mode=zoom`` uses inspect's own tool support: the sample carries the overview
and the zoom paragraph, the solver offers a ``zoom`` tool (the CLI's definition,
answers and crops: :class:`structeval.harness.inputs.zoom.ZoomSheet`) whose result is
the tool text and the crop image (inspect moves the image into a user message for
providers whose tool messages take text only, as the CLI does), and generates one
step at a time: after ``max_zooms`` calls the tool answers with the limit message,
and a call after that ends the attempt, its reply graded as the answer. A repair
continues the conversation, with the count of calls starting again.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    ContentImage,
    ContentText,
    GenerateConfig,
)
from inspect_ai.scorer import (
    SampleScore,
    Score,
    Target,
    grouped,
    metric,
    scorer,
)
from inspect_ai.solver import Generate, TaskState, solver
from inspect_ai.tool import Tool, ToolDef, ToolResult

from structeval.dataset import Task as DatasetTask
from structeval.dataset.benchmark import BENCHMARK
from structeval.dataset.errors import UnknownSplit
from structeval.harness.answers.grading import grade_answer, language_grader
from structeval.harness.client.negotiation import IMAGE_DETAILS
from structeval.harness.common.settings import PROMPT_TYPES
from structeval.harness.inputs.images import MAX_IMAGE_BYTES
from structeval.harness.inputs.prompts import (
    LANGUAGES,
    MODALITIES,
    repair_text,
    system_prompt,
    task_text,
)
from structeval.harness.inputs.task_input import (
    IMAGE_MODES,
    has_input,
    prepare_input,
    task_statement,
)
from structeval.harness.inputs.tasks import select_tasks
from structeval.harness.inputs.zoom import (
    DEFAULT_MAX_ZOOMS,
    MAX_ZOOMS_LIMIT,
    ZOOM,
    ZoomSheet,
    zoom_sheet,
)
from structeval.harness.run.repair_loop import best_attempt
from structeval.model import Model, dumps_model
from structeval.model.errors import StructEvalError
from structeval.presentation import FACTORS

_LOG = logging.getLogger(__name__)

try:  # inspect prints this kind of error as its message alone, without a traceback
    from inspect_ai._util.error import PrerequisiteError as _ShownError
except ImportError:  # pragma: no cover - an inspect without it: a plain error
    _ShownError = Exception

STORE_KEY = "structeval_attempts"  # per-sample store: one entry per graded attempt

#: Ground-truth models of the tasks built in this process, under a key naming the set.
#: Solver and scorer take the key, not the models: inspect records their arguments in
#: its log, which should hold neither a few hundred models nor objects it cannot write.
_GROUND_TRUTH: dict[str, dict[str, Model]] = {}
#: The drawing sheets among them (their other frames, for the wrong-frame diagnosis).
_SHEETS: dict[str, dict[str, Any]] = {}


def register_ground_truth(items: Sequence[DatasetTask]) -> str:
    """Keep the tasks' models for the solver and scorer; returns their key."""
    digest = hashlib.sha256()
    for item in items:
        digest.update(f"{item.id}\0{dumps_model(item.model, indent=None)}\0".encode())
    key = digest.hexdigest()[:16]
    _GROUND_TRUTH[key] = {item.id: item.model for item in items}
    _SHEETS[key] = {item.id: item.sheet for item in items if getattr(item, "sheet", None)}
    return key


def _truth(key: str, sample_id: Any) -> Model:
    return _GROUND_TRUTH[key][str(sample_id)]


#: Image files of the tasks of a zoom task, under the ground truth's key: the solver
#: decodes a sample's image when the sample runs (holding every decoded sheet would cost
#: gigabytes).
_ZOOM_IMAGES: dict[str, dict[str, Any]] = {}


class _ZoomCounter:
    """The calls of one attempt: every call counts, refused ones too (as in run_eval)."""

    def __init__(self) -> None:
        self.used = 0


def zoom_tool(sheet: ZoomSheet, counter: _ZoomCounter) -> Tool:
    """The zoom tool of one sample: run_eval's definition (name, description, the four
    numbers in the native pixel frame) and answers; a crop is returned as its tool text
    and the image."""
    definition = sheet.tools()[0]["function"]

    async def execute(x: float, y: float, width: float, height: float) -> ToolResult:
        counter.used += 1
        if counter.used > sheet.max_zooms:
            return sheet.limit_text()
        answer = sheet.answer(ZOOM, json.dumps({"x": x, "y": y, "width": width,
                                                "height": height}), counter.used)
        if answer.image is None:
            return answer.text
        return [ContentText(text=f"{answer.text} {answer.label}"),
                ContentImage(image=answer.image.data_url)]

    descriptions = {name: spec["description"]
                    for name, spec in definition["parameters"]["properties"].items()}
    return ToolDef(execute, name=ZOOM, description=definition["description"],
                   parameters=descriptions).as_tool()


async def _zoom_attempt(state: TaskState, generate: Generate, sheet: ZoomSheet) -> TaskState:
    """One attempt: generate step by step, each step's calls run by inspect, until a reply
    without calls — or a call made after the limit message (the reply is the answer)."""
    counter = _ZoomCounter()
    state.tools = [zoom_tool(sheet, counter)]
    while True:
        warned = counter.used > sheet.max_zooms  # a call now ends the attempt unanswered
        state = await generate(state, tool_calls="none" if warned else "single")
        if not state.output.message.tool_calls or warned:
            return state


class TaskParameterError(ValueError, _ShownError):
    """A ``-T`` parameter inspect passed cannot be used; the message says which and why.

    Also inspect's own "prerequisite" error, which its command line prints as the message
    alone: a wrong parameter is a sentence for the user, not a traceback."""

    def __init__(self, message: str):
        ValueError.__init__(self, message)
        self.message = message


# ---------------------------------------------------------------- parameters

def _names(value: Any, label: str) -> list[str] | None:
    """``-T category=beam,frame`` (text), ``-T category=[beam, frame]`` (a list) or None."""
    if value is None or value == "":
        return None
    items = value.split(",") if isinstance(value, str) else (
        list(value) if isinstance(value, list | tuple) else [value])
    names = [str(v).strip() for v in items if str(v).strip()]
    if not names:
        raise TaskParameterError(f"{label} is empty")
    return names


def _levels(value: Any) -> list[int] | None:
    names = _names(value, "difficulty")
    if names is None:
        return None
    try:
        levels = [int(v) for v in names]
    except ValueError:
        raise TaskParameterError(f"difficulty must be integers 1-5, got {value!r}") from None
    if any(not 1 <= v <= 5 for v in levels):
        raise TaskParameterError(f"difficulty must be integers 1-5, got {value!r}")
    return levels


def _selectors(value: Any) -> list[str]:
    """``language=zh;dimensioning=exam`` (one text) or a list of ``KEY=VALUE``."""
    if value is None or value == "":
        return []
    if isinstance(value, str):
        return [part for part in value.split(";") if part.strip()]
    if isinstance(value, dict):
        return [f"{k}={','.join(v) if isinstance(v, list) else v}" for k, v in value.items()]
    return [str(v) for v in value]


def select_dataset_tasks(*, split: str | None, category: Any, difficulty: Any,
                         presentation: Any, data_dir: str | None, limit: int | None,
                         id_filter: str | None) -> list[DatasetTask]:
    """The tasks run_eval.py would select with the same options, in the same order (the
    CLI's own selection function, so ``limit`` takes the same tasks)."""
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                              or limit < 1):
        raise TaskParameterError(f"limit must be a positive integer, got {limit!r}")
    try:
        tasks = select_tasks(data_dir or None, split=split,
                             categories=_names(category, "category") or (),
                             difficulties=_levels(difficulty) or (), id_filter=id_filter,
                             limit=limit, presentation=_selectors(presentation))
    except UnknownSplit as exc:
        raise TaskParameterError(f"split: {exc}") from None
    except ValueError as exc:  # an unknown presentation factor or value
        raise TaskParameterError(f"presentation: {exc}") from None
    if not tasks:
        raise TaskParameterError("no task matches the selection")
    return tasks


def left_out_unavailable(items: list[DatasetTask]) -> list[DatasetTask]:
    """The tasks that can be shown. A task the loader found unshowable (a sheet image
    missing or not the recorded one) is left out with one warning naming it and the
    loader's reason, so one missing image does not refuse the whole task set; when no
    task is left, the refusal says why."""
    bad = [item for item in items if isinstance(getattr(item, "unavailable", None), str)
           and item.unavailable]
    if not bad:
        return items
    if len(bad) == len(items):
        raise TaskParameterError(f"none of the {len(items)} selected task(s) can be shown: "
                                 f"{bad[0].unavailable}")
    named = "; ".join(f"{item.id}: {item.unavailable}" for item in bad[:3])
    more = f" (and {len(bad) - 3} more)" if len(bad) > 3 else ""
    _LOG.warning("%d of %d selected task(s) left out, their images cannot be shown: %s%s",
                 len(bad), len(items), named, more)
    left = {id(item) for item in bad}
    return [item for item in items if id(item) not in left]


def to_sample(item: DatasetTask, lang: str = "en", *, modality: str = "image",
              max_image_side: int | None = None, image_detail: str | None = None,
              image_mode: str = "fit", max_zooms: int | None = None) -> Sample:
    """One task as an inspect sample: the text (in ``lang``) and the drawing — the image
    (downscaled past ``max_image_side``, with OpenAI's ``detail`` when given) or the DXF
    text; with ``image_mode="tiles"`` the overview and labelled tiles — exactly as run_eval
    sends them (the system prompt is added by the solver, as
    run_eval adds it per request)."""
    shown = prepare_input(item, modality, max_image_side=max_image_side,
                          image_mode=image_mode, lang=lang, max_zooms=max_zooms)
    content: list[ContentText | ContentImage] = []
    for part in shown.parts(task_text(item.notes, lang, modality,
                                      task_statement(item, lang))):
        if part["type"] == "text":
            content.append(ContentText(text=part["text"]))
        else:
            content.append(ContentImage(image=part["image_url"]["url"],
                                        detail=image_detail or "auto"))
    metadata = {"category": item.category, "difficulty": int(item.difficulty),
                "split": item.split, "structure": item.structure or item.id,
                **item.factors()}
    return Sample(id=item.id, input=[ChatMessageUser(content=content)], target="",
                  metadata=metadata)


# ---------------------------------------------------------------- solver and scorer

def _sheet(key: str, sample_id: Any) -> Any:
    return _SHEETS.get(key, {}).get(str(sample_id))


def _attempt_record(graded: Any, attempt: int) -> dict[str, Any]:
    return {"attempt": attempt, "ratio": graded.grade.ratio, "stage": graded.grade.stage,
            "message": graded.grade.message,
            **({"wrong_frame": graded.grade.wrong_frame} if graded.grade.wrong_frame else {})}


@solver
def repair_loop(truth: str, *, prompt_type: str = "standard",
                max_retries: int = 3, tolerance: float = 0.02, lang: str = "en",
                max_zooms: int | None = None, max_image_side: int | None = None) -> Any:
    """Ask, grade, and after a failed answer ask again with the diagnosis, up to
    ``max_retries`` repairs; only the last failed exchange is kept in context (with
    ``max_zooms``, zoom mode: the conversation goes on). Prompts, feedback and diagnosis
    are in ``lang``."""
    system = ChatMessageSystem(content=system_prompt(prompt_type, lang))
    grader = language_grader(lang)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = _truth(truth, state.sample_id)
        question = next(m for m in state.messages if isinstance(m, ChatMessageUser))
        attempts: list[dict[str, Any]] = []
        previous: tuple[str, str] | None = None
        sheet = None
        if max_zooms is not None:
            sheet = zoom_sheet(_ZOOM_IMAGES[truth][str(state.sample_id)], MAX_IMAGE_BYTES,
                               max_image_side, lang, max_zooms)
        for attempt in range(1, max_retries + 2):
            if sheet is not None:
                state.messages = [system, question] if previous is None else [
                    *state.messages, ChatMessageUser(content=previous[1])]
                state = await _zoom_attempt(state, generate, sheet)
            else:
                messages: list[ChatMessage] = [system, question]
                if previous is not None:
                    messages += [ChatMessageAssistant(content=previous[0]),
                                 ChatMessageUser(content=previous[1])]
                state.messages = messages
                state = await generate(state)
            text = state.output.completion
            graded = grade_answer(model, text, tolerance=tolerance, grader=grader, lang=lang,
                                  sheet=_sheet(truth, state.sample_id))
            attempts.append({**_attempt_record(graded, attempt), "answer": text})
            state.store.set(STORE_KEY, attempts)
            if graded.grade.ratio >= 1.0:
                break
            previous = (text, repair_text(graded.grade.stage, graded.grade.message, lang))
        return state

    return solve


@metric
def weighted_accuracy() -> Callable[[list[SampleScore]], float]:
    """Σ credit × difficulty / Σ difficulty (run_eval's primary metric, as a fraction)."""
    def compute(scores: list[SampleScore]) -> float:
        return _weighted(scores, lambda s: s.score.as_float())
    return compute


@metric
def pass_at_1() -> Callable[[list[SampleScore]], float]:
    """The same weighting over the first attempt's credit (no repair)."""
    def compute(scores: list[SampleScore]) -> float:
        return _weighted(scores, lambda s: float((s.score.metadata or {}).get(
            "first_attempt_ratio", 0.0)))
    return compute


def _weighted(scores: Iterable[SampleScore], credit: Callable[[SampleScore], float]) -> float:
    total = weight = 0.0
    for item in scores:
        level = float((item.sample_metadata or {}).get("difficulty", 1))
        total += credit(item) * level
        weight += level
    return total / weight if weight else 0.0


def _metrics() -> list[Any]:
    out: list[Any] = [weighted_accuracy(), pass_at_1()]
    for group in ("category", "difficulty", *FACTORS):
        out.append(grouped(weighted_accuracy(), group, all=False,
                           name_template=f"{group}={{group_name}}"))
        out.append(grouped(pass_at_1(), group, all=False,
                           name_template=f"pass@1 {group}={{group_name}}"))
    return out


@scorer(metrics=_metrics())
def staged_credit(truth: str, *, tolerance: float = 0.02, lang: str = "en") -> Any:
    """The task's credit: best over the repair loop's attempts (or, after another solver,
    the final answer graded once), with stage, pass@1 and explanation."""

    async def score(state: TaskState, target: Target) -> Score:
        attempts = state.store.get(STORE_KEY) or []
        if not attempts:
            text = state.output.completion
            graded = grade_answer(_truth(truth, state.sample_id), text, tolerance=tolerance,
                                  grader=language_grader(lang), lang=lang,
                                  sheet=_sheet(truth, state.sample_id))
            attempts = [{**_attempt_record(graded, 1), "answer": text}]
        best = best_attempt([(a["ratio"], a["stage"]) for a in attempts])
        chosen = attempts[best]
        return Score(value=chosen["ratio"], answer=chosen["answer"],
                     explanation=chosen["message"] or chosen["stage"],
                     metadata={"stage": chosen["stage"], "best_attempt": best + 1,
                               "attempts": len(attempts),
                               "first_attempt_ratio": attempts[0]["ratio"],
                               "first_attempt_stage": attempts[0]["stage"],
                               "stages": [a["stage"] for a in attempts],
                               **({"wrong_frame": chosen["wrong_frame"]}
                                  if chosen.get("wrong_frame") else {})})

    return score


# ---------------------------------------------------------------- the task

@task
def structeval(max_retries: int = 3, prompt_type: str = "standard", split: str | None = None,
               category: Any = None, difficulty: Any = None, presentation: Any = None,
               lang: str = "en", data_dir: str | None = None, limit: int | None = None,
               filter: str | None = None, tolerance: float = 0.02, modality: str = "image",
               max_image_side: int | None = None, image_detail: str | None = None,
               image_mode: str = "fit", max_zooms: int | None = None) -> Task:
    """StructuralEval: drawings of beams, frames and trusses → FrameCalc JSON, graded by an
    FE solver with staged partial credit. Parameters mirror ``run_eval.py``'s options."""
    if modality not in MODALITIES:
        raise TaskParameterError(f"modality must be one of {', '.join(MODALITIES)}, "
                                 f"got {modality!r}")
    if image_mode not in IMAGE_MODES or (image_mode != "fit" and modality != "image"):
        raise TaskParameterError(f"image_mode must be one of {', '.join(IMAGE_MODES)} "
                                 f"(other than fit only with modality=image), got {image_mode!r}")
    if max_zooms is not None and (image_mode != "zoom" or isinstance(max_zooms, bool)
                                  or not isinstance(max_zooms, int)
                                  or not 1 <= max_zooms <= MAX_ZOOMS_LIMIT):
        raise TaskParameterError(f"max_zooms must be an integer 1-{MAX_ZOOMS_LIMIT} and goes "
                                 f"with image_mode=zoom, got {max_zooms!r}")
    if image_mode == "zoom":
        max_zooms = max_zooms or DEFAULT_MAX_ZOOMS
    if image_detail is not None and image_detail not in IMAGE_DETAILS:
        raise TaskParameterError(f"image_detail must be one of {', '.join(IMAGE_DETAILS)}, "
                                 f"got {image_detail!r}")
    if max_image_side is not None and (isinstance(max_image_side, bool) or not isinstance(
            max_image_side, int) or max_image_side < 16):
        raise TaskParameterError(f"max_image_side must be an integer of at least 16 (pixels), "
                                 f"got {max_image_side!r}")
    if prompt_type not in PROMPT_TYPES:
        raise TaskParameterError(f"prompt_type must be one of {', '.join(PROMPT_TYPES)}, "
                                 f"got {prompt_type!r}")
    if lang not in LANGUAGES:
        raise TaskParameterError(f"lang must be one of {', '.join(LANGUAGES)} (the languages "
                                 f"the prompts are written in), got {lang!r}")
    if isinstance(max_retries, bool) or not isinstance(max_retries, int) or not (
            0 <= max_retries <= 20):
        raise TaskParameterError(f"max_retries must be an integer 0-20, got {max_retries!r}")
    if isinstance(tolerance, bool) or not isinstance(tolerance, int | float) or not (
            0 < tolerance < 1):
        raise TaskParameterError(f"tolerance must be a number in (0, 1), got {tolerance!r}")
    try:
        chosen = select_dataset_tasks(split=split or BENCHMARK, category=category,
                                      difficulty=difficulty,
                                      presentation=presentation, data_dir=data_dir,
                                      limit=limit, id_filter=filter)
        shown = [item for item in chosen if has_input(item, modality)]
        if not shown:
            raise TaskParameterError(f"none of the {len(chosen)} selected task(s) has a DXF "
                                     "file, so modality=dxf has nothing to send")
        shown = left_out_unavailable(shown)
        samples = [to_sample(item, lang, modality=modality, max_image_side=max_image_side,
                             image_detail=image_detail, image_mode=image_mode,
                             max_zooms=max_zooms)
                   for item in shown]
        chosen = shown
    except StructEvalError as exc:
        raise TaskParameterError(str(exc)) from None
    truth = register_ground_truth(chosen)
    if max_zooms is not None:
        _ZOOM_IMAGES[truth] = {item.id: item.image_path for item in chosen}
    return Task(dataset=MemoryDataset(samples, name="structeval"),
                solver=repair_loop(truth, prompt_type=prompt_type, max_retries=max_retries,
                                   tolerance=float(tolerance), lang=lang,
                                   max_zooms=max_zooms, max_image_side=max_image_side),
                scorer=staged_credit(truth, tolerance=float(tolerance), lang=lang),
                config=GenerateConfig(temperature=0.0, max_tokens=8192),
                metadata={"benchmark": "StructuralEval", "prompt_type": prompt_type,
                          "max_retries": max_retries, "lang": lang, "modality": modality,
                          "max_image_side": max_image_side, "image_detail": image_detail,
                          "image_mode": image_mode, "max_zooms": max_zooms})


__all__: Sequence[str] = ["pass_at_1", "repair_loop", "staged_credit", "structeval",
                          "weighted_accuracy"]
