"""Find the FrameCalc JSON in a model's free-form answer.

Models wrap their answer in many ways: the ``<json>`` tags the prompt asks for,
Markdown fences, special "box" tokens (GLM-style ``<|begin_of_box|>``), or bare
JSON amid prose; reasoning models also write drafts inside ``<think>`` blocks.
Reasoning blocks — ``<think>…</think>``, an unclosed ``<think>`` running to the
end, and a preamble closed by a lone ``</think>`` — are removed first: what a
model thinks is not its answer, so JSON found *only* there is no answer (the
extraction says so: reason ``think_only``). In what is left we look in order of
intent, prefer the *last* block of a kind (a final answer follows its drafts),
and only then fall back to the outermost braces. A candidate is decoded
strictly first and with ``json_repair`` second, so a trailing comma or a cut-off
closing brace costs nothing but is recorded (a candidate too long for json_repair's
quadratic worst case is completed as a cut JSON text instead: :data:`MAX_REPAIR_CHARS`).
Never raises on any input.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import json_repair

from ..common.json_prefix import PrefixError, loads_prefix

MAX_CANDIDATE_CHARS = 2_000_000  # far beyond any structure; bounds the decoding work
#: json_repair costs time quadratic in a text cut inside a string (measured: 1.5 s at
#: 250,000 characters, 19 s at 1,000,000, 73 s at 2,000,000), so it only sees candidates up
#: to 100,000 characters — five times the largest benchmark structure (≈ 20,000 characters
#: indented). A longer candidate that is not strict JSON is read as a JSON text cut short
#: (:func:`.json_prefix.loads_prefix`, one linear pass), which is what such an answer is.
MAX_REPAIR_CHARS = 100_000

_THINK = re.compile(r"<think>.*?(?:</think>|\Z)", re.S | re.I)
_TAGGED = re.compile(r"<json>(.*?)(?:</json>|\Z)", re.S | re.I)
_BOXED = re.compile(r"<\|begin_of_box\|>(.*?)(?:<\|end_of_box\|>|\Z)", re.S)
_FENCED = re.compile(r"```[ \t]*(?:json5?|javascript|js)?[ \t]*\n?(.*?)(?:```|\Z)", re.S | re.I)


#: Why no answer was found (``Extraction.reason``), with the problem the trace records;
#: the feedback sentences of every language are in the prompt texts (``no_json.<reason>``).
PROBLEMS = {
    "empty": "the answer is empty",
    "none": "no JSON object found in the answer",
    "not_object": "JSON was found but it is not an object with points, links, supports and "
                  "loads",
    "think_only": "JSON only inside <think>: a reasoning block is not an answer, and the "
                  "answer outside it holds no JSON object",
}


@dataclass(frozen=True)
class Extraction:
    document: dict[str, Any] | None  # the decoded JSON object, None when there is none
    method: str | None  # json_tag | box | fence | braces
    text: str | None  # the candidate text that decoded
    repaired: bool  # json_repair was needed
    problem: str | None = None  # why nothing was found (PROBLEMS[reason])
    reason: str | None = None  # empty | none | not_object | think_only

    def to_json(self) -> dict[str, Any]:
        return {"method": self.method, "repaired": self.repaired, "json": self.text,
                "problem": self.problem, "reason": self.reason}


def visible_answer(text: str) -> str:
    """The answer without reasoning blocks (closed or unclosed); a lone ``</think>`` ends an
    untagged preamble."""
    without = _THINK.sub("", text)
    if "</think>" in without.lower():
        without = re.split(r"</think>", without, flags=re.I)[-1]
    return without


def _unfence(block: str) -> str:
    fenced = [m.group(1) for m in _FENCED.finditer(block)]
    return fenced[-1] if fenced else block


def _outermost_braces(text: str) -> str | None:
    start = text.find("{")
    if start < 0:
        return None
    end = text.rfind("}")
    return text[start:end + 1] if end > start else text[start:]


def candidates(text: str) -> list[tuple[str, str]]:
    """(method, text) pairs in the order they are tried (reasoning blocks already removed)."""
    found: list[tuple[str, str]] = []
    for method, pattern in (("json_tag", _TAGGED), ("box", _BOXED), ("fence", _FENCED)):
        blocks = [m.group(1) for m in pattern.finditer(text)]
        for block in reversed(blocks):
            body = _unfence(block) if method != "fence" else block
            explicit = method != "fence" and body.strip()
            if explicit or "{" in body:
                found.append((method, body))
    braces = _outermost_braces(text)
    if braces is not None:
        found.append(("braces", braces))
    return list(dict.fromkeys(found))


def _decode(candidate: str) -> tuple[Any, bool]:
    """(object, repaired) or (None, False)."""
    candidate = candidate.strip()
    try:
        return json.loads(candidate), False
    except (ValueError, RecursionError):
        pass
    if len(candidate) > MAX_REPAIR_CHARS:
        try:
            return loads_prefix(candidate), True
        except (PrefixError, RecursionError):
            return None, False
    try:
        return json_repair.loads(candidate), True
    except Exception:  # a third-party repairer must not crash a run
        return None, False


def _search(text: str) -> tuple[Extraction | None, bool]:
    """(the first candidate that decodes to an object, whether other JSON was seen)."""
    saw_other = False
    for method, candidate in candidates(text):
        if len(candidate) > MAX_CANDIDATE_CHARS:
            continue
        document, repaired = _decode(candidate)
        if isinstance(document, dict) and document:
            return Extraction(document, method, candidate.strip(), repaired), saw_other
        saw_other = saw_other or document not in (None, "", [], {})
    return None, saw_other


def _nothing(reason: str) -> Extraction:
    return Extraction(None, None, None, False, PROBLEMS[reason], reason)


def extract_json(text: str | None) -> Extraction:
    if not text or not text.strip():
        return _nothing("empty")
    visible = visible_answer(text)
    found, saw_other = _search(visible)
    if found is not None:
        return found
    if visible != text and _search(text)[0] is not None:
        return _nothing("think_only")
    return _nothing("not_object" if saw_other else "none")
