"""``--dry-run``: what a run would send, how many tokens and dollars that is — sending nothing.

Every selected task is prepared exactly as the run would prepare it (image
downscaled, DXF read, the first attempt's messages built), so a task that cannot
be sent is counted here too. Requests answered by the response cache are counted
and cost nothing. The estimates are those of :mod:`.cost` (documented there):
first attempts are estimated from their messages; a repair round costs the first
prompt plus the previous answer and about 150 tokens of feedback, so the upper
bound assumes every task needs every repair round.

``--image-mode zoom`` is estimated at its upper bound (:func:`zoom_bound`): every
attempt uses all ``--max-zooms`` calls, one per request, each crop at the largest
a crop can cost (:data:`CROP_SIDE` square), every request re-sending the whole
conversation (the overview, the earlier crops, the tool definition), then one
request past the limit and the final one; a repair continues the conversation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...model import dumps_model
from ...model.errors import StructEvalError
from ..client.negotiation import Negotiator
from ..common.settings import GradingSettings, public_url
from ..inputs.task_input import MAX_DXF_BYTES, has_input, prepare_input
from ..inputs.tiles import TILE_SIDE
from .batch_store import BATCH_PRICE_FACTOR
from .cost import Prices, answer_tokens, image_tokens, message_tokens, text_tokens
from .repair_loop import TaskLike, conversation
from .response_cache import ResponseCache, cache_request

FEEDBACK_TOKENS = 150  # a repair round's feedback, about
CROP_SIDE = TILE_SIDE  # a zoom crop is shrunk to this side: its cost at most
CALL_TOKENS = 40  # one zoom call in the reply (id, name, four numbers), about
CALL_TEXT_TOKENS = 80  # its tool message and the crop's label, about


@dataclass(frozen=True)
class Estimate:
    tasks: int
    runs: int
    skipped: int  # no DXF (a DXF run)
    unsendable: list[tuple[str, str]]  # (task, why)
    first_requests: int
    cached: int  # first attempts the cache would answer
    max_requests: int  # with every repair round
    prompt_tokens: int  # first attempts, not cached
    image_tokens: int  # of prompt_tokens
    completion_tokens: int  # first attempts, not cached
    max_prompt_tokens: int  # every repair round as well
    repaired_completion_tokens: int  # every repair round as well
    max_completion_tokens: int  # every request using all of max_tokens
    max_zooms: int | None = None  # zoom: every figure is an upper bound (zoom_bound)

    def cost(self, prices: Prices) -> tuple[float, float, float]:
        """(first attempts, with every repair round, every request at max_tokens)."""
        first = prices.cost(self.prompt_tokens, self.completion_tokens)
        repaired = prices.cost(self.max_prompt_tokens, self.repaired_completion_tokens)
        ceiling = prices.cost(self.max_prompt_tokens, self.max_completion_tokens)
        return first, repaired, ceiling

    def to_json(self, prices: Prices | None) -> dict[str, Any]:
        out: dict[str, Any] = {k: v for k, v in self.__dict__.items() if k != "unsendable"}
        out["unsendable"] = [{"task": t, "reason": r} for t, r in self.unsendable]
        if prices is not None:
            first, repaired, ceiling = self.cost(prices)
            out["cost_usd"] = {"first_attempts": round(first, 6),
                               "with_repairs": round(repaired, 6),
                               "ceiling": round(ceiling, 6), "prices": prices.to_json()}
        return out


def estimate(tasks: Sequence[TaskLike], *, grading: GradingSettings, system_prompt: str,
             negotiator: Negotiator, api_base: str | None, runs: int,
             cache: ResponseCache | None, max_image_bytes: int,
             max_dxf_bytes: int = MAX_DXF_BYTES) -> Estimate:
    plan = negotiator.plan()
    sent = plan.arguments(grading.temperature, grading.max_tokens)
    shown_tasks = [t for t in tasks if has_input(t, grading.modality)]
    unsendable: list[tuple[str, str]] = []
    first = cached = prompt = image = completion = max_prompt = 0
    per_task = 1 + grading.max_retries
    for task in shown_tasks:
        try:
            shown = prepare_input(task, grading.modality, max_image_bytes=max_image_bytes,
                                  max_image_side=grading.max_image_side,
                                  max_dxf_bytes=max_dxf_bytes,
                                  image_mode=grading.image_mode, lang=grading.lang,
                                  max_zooms=grading.max_zooms)
        except StructEvalError as exc:
            unsendable.append((task.id, str(exc)))
            continue
        messages = conversation(system_prompt, task, shown, grading)
        text, pictures = message_tokens(messages, shown.image_sizes(), plan.image_detail)
        answer = answer_tokens(dumps_model(task.model, indent=None))
        tools = shown.zoom.tools() if shown.zoom is not None else None
        for run in range(runs):
            first += 1
            if cache is not None and cache.peek(cache_request(
                    endpoint=public_url(api_base), model=grading.model,
                    messages=plan.with_detail(messages), parameters=sent, run=run, attempt=1,
                    tools=tools)):
                cached += 1
                continue
            if shown.zoom is None:
                prompt += text + pictures
                image += pictures
                completion += answer
                repair = text + pictures + answer + FEEDBACK_TOKENS
                max_prompt += text + pictures + grading.max_retries * repair
                continue
            bound = zoom_bound(text + text_tokens(str(tools)), pictures,
                               image_tokens(CROP_SIDE, CROP_SIDE, plan.image_detail),
                               answer, shown.zoom.max_zooms, grading.max_retries)
            prompt += bound.first_prompt
            image += bound.first_images
            completion += bound.completion
            max_prompt += bound.max_prompt
    sent_first = first - cached  # first attempts that would be sent
    zooms = grading.max_zooms if grading.image_mode == "zoom" else None
    per_attempt = 1 if zooms is None else zooms + 2  # requests of one attempt, at most
    return Estimate(len(tasks), runs, len(tasks) - len(shown_tasks), unsendable, first, cached,
                    (first * per_task - cached) * per_attempt, prompt, image, completion,
                    max_prompt, completion * per_task,
                    sent_first * per_task * per_attempt * grading.max_tokens, zooms)


@dataclass(frozen=True)
class ZoomBound:
    """Upper bounds of one zoom task: its first attempt's prompt (and image) tokens and
    completion, and the prompt tokens with every repair round."""

    first_prompt: int
    first_images: int
    completion: int
    max_prompt: int


def zoom_bound(text: int, overview: int, crop: int, answer: int, zooms: int,
               repairs: int) -> ZoomBound:
    """Tokens of a zoom task when every attempt makes ``zooms`` calls one request at a
    time: the k-th request of an attempt re-sends the conversation so far (the first
    request's ``text`` and ``overview``, k crops with their messages, earlier attempts
    whole), then one request answered with the limit and the final one."""
    context_text, context_images = text, overview
    first_prompt = first_images = total = 0
    step = CALL_TOKENS + CALL_TEXT_TOKENS
    for attempt in range(repairs + 1):
        if attempt:
            context_text += answer + FEEDBACK_TOKENS
        for k in range(zooms + 2):
            crops = min(k, zooms)
            total += context_text + context_images + crops * (crop + step)
            if attempt == 0:
                first_prompt += context_text + context_images + crops * (crop + step)
                first_images += context_images + crops * crop
        context_text += zooms * step
        context_images += zooms * crop
    return ZoomBound(first_prompt, first_images, answer + (zooms + 1) * CALL_TOKENS, total)


def format_estimate(e: Estimate, prices: Prices | None, *, batch: bool = False) -> str:
    """The estimate as the lines ``--dry-run`` prints; with ``batch`` (``--batch``), the
    first attempts' cost at the Batch API's price as well."""
    lines = ["Dry run: nothing was sent.",
             f"Tasks: {e.tasks} selected × {e.runs} run(s)"
             + (f"; {e.skipped} skipped (no DXF file)" if e.skipped else "")
             + (f"; {len(e.unsendable)} cannot be sent" if e.unsendable else ""),
             f"Requests: {e.first_requests} first attempt(s), {e.cached} of them answered by "
             f"the response cache; at most {e.max_requests} with every repair round",
             f"Estimated tokens to send: prompt {e.prompt_tokens:,} (images {e.image_tokens:,}), "
             f"completion ≈ {e.completion_tokens:,} for the first attempts (answers the size of "
             f"the structure's JSON; reasoning models write more); with every repair round at "
             f"most {e.max_prompt_tokens:,} prompt tokens, and {e.max_completion_tokens:,} "
             "completion tokens if every request used all of --max-tokens"]
    if e.max_zooms is not None:
        lines.append(f"Zoom: every figure is an upper bound: each attempt counted with all "
                     f"{e.max_zooms} zoom calls (--max-zooms), one per request, each crop at the "
                     f"most a crop can cost, every request re-sending the overview and the "
                     f"earlier crops, and {e.max_zooms + 2} requests per attempt")
    if prices is not None:
        first, repaired, ceiling = e.cost(prices)
        lines.append(f"Estimated cost at ${prices.input_per_million:g} in / "
                     f"${prices.output_per_million:g} out per million tokens: "
                     f"${first:.4f} for the first attempts, ${repaired:.4f} with every repair "
                     f"round, at most ${ceiling:.4f} if every answer used all of --max-tokens")
        if batch:
            lines.append(f"With --batch the first attempts cost ${first * BATCH_PRICE_FACTOR:.4f} "
                         f"(the Batch API's {BATCH_PRICE_FACTOR:.0%} of the live price); "
                         "repairs are sent live at the full price")
    else:
        lines.append("No prices given: pass --price-in/--price-out or --prices FILE for a "
                     "cost estimate")
    for task_id, reason in e.unsendable[:10]:
        lines.append(f"  cannot be sent: {task_id}: {reason}")
    return "\n".join(lines)
