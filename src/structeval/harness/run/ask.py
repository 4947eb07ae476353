"""One request of an attempt: the response cache first, then the endpoint, and its cost.

The cache key is computed over what *would* be sent now (the run's current
parameter plan); a miss goes to the endpoint, and the reply is stored under the
key of what *was* sent (a 400 may have adapted the plan on the way), so the next
run with the same settings finds it at once. A cached reply is marked
``from_cache`` and costs nothing now; its answer is cut to the current
``--max-answer-chars`` as a fresh one would be.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..client.negotiation import with_detail
from ..client.response import AnswerText
from ..client.transport import ChatReply, ChatTransport
from ..common.settings import WaitBudget, public_url
from .batch_store import BATCH_PRICE_FACTOR, BatchAnswers
from .cost import CostMeter, Prices, estimated_cost
from .response_cache import CacheRequest, ResponseCache, StoredReply, cache_request


@dataclass(frozen=True)
class Asked:
    reply: ChatReply
    cache: str  # hit | miss | off | batch (answered by this run's Batch API job)
    cost_usd: float | None  # at the run's prices; None: no prices or usage unknown
    checksum: str | None = None  # of the cache entry served (a hit), for the trace


def _stored(reply: ChatReply) -> StoredReply:
    return StoredReply(reply.text, reply.finish_reason, reply.prompt_tokens,
                       reply.completion_tokens, reply.total_tokens, reply.usage,
                       reply.reasoning_tokens, reply.truncation, reply.response_model,
                       reply.system_fingerprint, reply.latency_s, reply.tool_calls)


def _from_stored(stored: StoredReply, sent: dict[str, Any], detail: str | None,
                 max_chars: int, *, from_cache: bool = True) -> ChatReply:
    text, truncation = stored.text, stored.truncation
    if len(text) > max_chars:
        answer = AnswerText(max_chars)
        answer.add(text)
        text, truncation = answer.text(), answer.note()
    return ChatReply(text, stored.finish_reason, stored.prompt_tokens, stored.completion_tokens,
                     stored.total_tokens, stored.usage == "reported", stored.latency_s,
                     usage=stored.usage, truncation=truncation,
                     reasoning_tokens=stored.reasoning_tokens,
                     response_model=stored.response_model,
                     system_fingerprint=stored.system_fingerprint, sent=sent,
                     image_detail=detail, from_cache=from_cache, tool_calls=stored.tool_calls)


def planned_request(transport: ChatTransport, *, endpoint: str | None, model: str,
                    messages: list[dict[str, Any]], temperature: float, max_tokens: int,
                    run: int, attempt: int, tools: list[dict[str, Any]] | None = None,
                    ) -> tuple[CacheRequest, dict[str, Any], str | None]:
    """(the cache's view of the request, parameters, image detail) of the request the run's
    current plan would send now: what the response cache and a Batch API job's answers are
    looked up by (a job's lines are keyed by ``request.key``)."""
    plan = transport.negotiator.plan()
    sent = plan.arguments(temperature, max_tokens)
    request = cache_request(endpoint=endpoint, model=model,
                            messages=plan.with_detail(messages), parameters=sent, run=run,
                            attempt=attempt, tools=tools)
    return request, sent, plan.image_detail


def ask(transport: ChatTransport, *, model: str, api_base: str | None,
        messages: list[dict[str, Any]], temperature: float, max_tokens: int,
        budget: WaitBudget | None, run: int, attempt: int, cache: ResponseCache | None,
        prices: Prices | None, meter: CostMeter | None,
        batch: BatchAnswers | None = None, tools: list[dict[str, Any]] | None = None) -> Asked:
    """The reply to one attempt's request (ServiceUnavailable / ServiceFatal as the
    transport raises them). With ``batch``, a first attempt answered by the run's Batch API
    job takes that answer (charged at the batch price, stored in the cache like a fresh
    one); otherwise the cache is asked first, then the endpoint. ``tools`` go with the
    request and into its cache key (each request of a zoom exchange is its own entry,
    keyed by the whole conversation so far)."""
    endpoint = public_url(api_base)
    if cache is not None or batch is not None:
        request, sent, detail = planned_request(transport, endpoint=endpoint, model=model,
                                                messages=messages, temperature=temperature,
                                                max_tokens=max_tokens, run=run,
                                                attempt=attempt, tools=tools)
        stored = batch.take(request.key) if batch is not None else None
        if stored is not None:
            reply = _from_stored(stored, sent, detail, transport.max_answer_chars,
                                 from_cache=False)
            cost = _cost(reply, prices, BATCH_PRICE_FACTOR)
            if meter is not None:
                meter.add(cost)
            if cache is not None:
                cache.put(request, stored)
            return Asked(reply, "batch", cost)
        hit = cache.get(request) if cache is not None else None
        if hit is not None:
            reply = _from_stored(hit.reply, sent, detail, transport.max_answer_chars)
            return Asked(reply, "hit", _cost(reply, prices), hit.checksum)
    reply = transport.complete(model=model, messages=messages, temperature=temperature,
                               max_tokens=max_tokens, budget=budget, tools=tools)
    cost = _cost(reply, prices)
    if meter is not None:
        meter.add(cost)
        if cost is None and prices is not None:  # no usage: --max-cost counts an estimate
            meter.add(estimated_cost(prices, with_detail(messages, reply.image_detail),
                                     reply.text, reply.image_detail), estimated=True)
    if cache is None:
        return Asked(reply, "off", cost)
    request = cache_request(endpoint=endpoint, model=model,
                            messages=with_detail(messages, reply.image_detail),
                            parameters=reply.sent, run=run, attempt=attempt, tools=tools)
    if reply.tool_problem is None and (reply.truncation is None
                                       or not reply.truncation.get("more_unread")):
        cache.put(request, _stored(replace(reply, incidents=())))
    return Asked(reply, "miss", cost)


def _cost(reply: ChatReply, prices: Prices | None, factor: float = 1.0) -> float | None:
    if prices is None or not reply.usage_known:
        return None
    return prices.cost(reply.prompt_tokens, reply.completion_tokens) * factor
