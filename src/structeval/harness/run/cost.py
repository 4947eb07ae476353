"""What a run costs: prices, dollars per attempt, task and run, the ``--max-cost`` stop,
and the token estimate ``--dry-run`` prints before anything is sent.

Prices are USD per million tokens, input (prompt) and output (completion; the
reasoning tokens of reasoning models are part of it and billed as output), from
``--price-in/--price-out`` or a JSON file (``--prices FILE``) mapping model names
to ``{"in": 2.5, "out": 10}``. An attempt whose usage is unknown has no cost
(counted apart); only against ``--max-cost`` is its cost estimated (:class:`CostMeter`),
so that a server reporting no usage cannot run past the limit. A reply served by the
response cache costs nothing *now*: the task's cost (what its answers cost when they
were made) is the same as in the run that paid for it, so results stay identical, while
``paid`` counts only the
requests this session actually sent — that is what ``--max-cost`` limits.

Token estimate (``--dry-run``): text is ~4 characters per token for ASCII and
one token per other character (CJK text is about one token per character), plus
4 tokens per message; an image follows OpenAI's published rule — ``detail=low``
85 tokens, otherwise the image is scaled to fit 2048×2048, then its short side
to 768 px, and costs 85 + 170 per 512-px tile. The completion is estimated as the
size of the FrameCalc JSON of the task's structure (its compact text / 4) plus 50
tokens of prose; reasoning models write many more, so the upper bound (every
request using all of ``--max-tokens``) is printed too.
"""

from __future__ import annotations

import base64
import io
import json
import math
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

from ...model.errors import StructEvalError
from ...safe_files import FileAccessError, read_capped
from ..client.model_families import base_name

MAX_PRICES_FILE = 1 << 20
_PRICE_KEYS = (("in", "out"), ("input", "output"), ("prompt", "completion"))


class PriceError(StructEvalError):
    """A prices file or price flag that cannot be used (exit 2, one sentence)."""


@dataclass(frozen=True)
class Prices:
    """USD per million tokens."""

    input_per_million: float
    output_per_million: float
    source: str

    def cost(self, prompt: int, completion: int) -> float:
        return (prompt * self.input_per_million + completion * self.output_per_million) / 1e6

    def to_json(self) -> dict[str, Any]:
        return {"input_per_million": self.input_per_million,
                "output_per_million": self.output_per_million, "source": self.source}


def _price(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(
            value) or value < 0 or value > 1e6:
        raise PriceError(f"{where} must be a price in USD per million tokens (0 … 1e6), "
                         f"got {value!r}")
    return float(value)


def _entry(entry: Any, where: str) -> tuple[float, float]:
    if isinstance(entry, Mapping):
        for key_in, key_out in _PRICE_KEYS:
            if key_in in entry and key_out in entry:
                return (_price(entry[key_in], f"{where}.{key_in}"),
                        _price(entry[key_out], f"{where}.{key_out}"))
    if isinstance(entry, list) and len(entry) == 2:
        return _price(entry[0], f"{where}[0]"), _price(entry[1], f"{where}[1]")
    raise PriceError(f"{where} must be {{\"in\": USD, \"out\": USD}} per million tokens")


def load_prices(path: Path, model: str) -> Prices:
    """The prices of ``model`` in a prices file: the model's own name, then without case,
    then without a provider prefix, then a ``"*"`` entry."""
    try:
        raw = read_capped(Path(path), MAX_PRICES_FILE, "prices file")
    except FileAccessError as exc:
        raise PriceError(str(exc)) from None
    try:
        table = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise PriceError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(table, dict) or not table:
        raise PriceError(f"{path}: must be an object of model name → "
                         "{\"in\": USD, \"out\": USD} per million tokens")
    lowered = {str(k).lower(): k for k in table}
    for name in (model, model.lower(), base_name(model), "*"):
        key = name if name in table else lowered.get(name)
        if key is not None:
            prompt, completion = _entry(table[key], f"{path}: {key!r}")
            return Prices(prompt, completion, f"{Path(path).name}: {key}")
    listed = ", ".join(sorted(map(str, table))[:10])
    raise PriceError(f"{path} has no price for model {model!r} (it lists {listed}); add it "
                     "or a \"*\" entry")


def prices_from_options(price_in: float | None, price_out: float | None,
                        prices_file: Path | None, model: str) -> Prices | None:
    """The run's prices from the flags (None: no prices given)."""
    if prices_file is not None and (price_in is not None or price_out is not None):
        raise PriceError("give either --prices FILE or --price-in/--price-out, not both")
    if prices_file is not None:
        return load_prices(prices_file, model)
    if (price_in is None) != (price_out is None):
        raise PriceError("--price-in and --price-out go together (USD per million input and "
                         "output tokens)")
    if price_in is None or price_out is None:
        return None
    return Prices(_price(price_in, "--price-in"), _price(price_out, "--price-out"),
                  "--price-in/--price-out")


class CostMeter:
    """Dollars paid in this session (thread-safe), against ``--max-cost``.

    ``paid`` sums what the server's usage counts cost. A reply without usage (a server
    that reports none, or absurd counts) would otherwise cost nothing here, and
    ``--max-cost`` could never stop such a run: its cost is *estimated* instead
    (:func:`estimated_cost`, the ``--dry-run`` rules applied to what was sent and
    received), kept apart in ``estimated`` and counted against the limit too.
    """

    def __init__(self, limit: float | None = None):
        self.limit = limit
        self._paid = 0.0
        self._estimated = 0.0
        self._lock = threading.Lock()

    def add(self, usd: float | None, *, estimated: bool = False) -> None:
        if usd:
            with self._lock:
                if estimated:
                    self._estimated += usd
                else:
                    self._paid += usd

    @property
    def paid(self) -> float:
        with self._lock:
            return self._paid

    @property
    def estimated(self) -> float:
        with self._lock:
            return self._estimated

    def exhausted(self) -> bool:
        if self.limit is None:
            return False
        with self._lock:
            return self._paid + self._estimated >= self.limit


# --------------------------------------------------------------------------- estimates


def text_tokens(text: str) -> int:
    """Estimated tokens of a text: ASCII at 4 characters per token, others one each."""
    ascii_chars = sum(1 for ch in text if ord(ch) < 128)
    return math.ceil(ascii_chars / 4) + (len(text) - ascii_chars)


def image_tokens(width: int, height: int, detail: str | None) -> int:
    """OpenAI's image token rule (see the module docstring)."""
    if detail == "low" or width <= 0 or height <= 0:
        return 85
    scale = min(1.0, 2048 / max(width, height))
    w, h = width * scale, height * scale
    scale = min(1.0, 768 / min(w, h))
    w, h = w * scale, h * scale
    return 85 + 170 * math.ceil(w / 512) * math.ceil(h / 512)


def message_tokens(messages: list[dict[str, Any]], image_sizes: Mapping[int, tuple[int, int]],
                   detail: str | None) -> tuple[int, int]:
    """(text tokens, image tokens) of a conversation; ``image_sizes`` maps the position of
    an image part (0, 1, …) to its sent size."""
    text = image = 0
    seen = 0
    for message in messages:
        text += 4
        content = message.get("content")
        if isinstance(content, str):
            text += text_tokens(content)
            continue
        for part in content or []:
            if part.get("type") == "image_url":
                w, h = image_sizes.get(seen, (0, 0))
                image += image_tokens(w, h, detail)
                seen += 1
            else:
                text += text_tokens(str(part.get("text", "")))
    return text, image


def answer_tokens(model_json: str) -> int:
    """Estimated completion tokens of an answer: the structure's JSON and some prose."""
    return text_tokens(model_json) + 50


#: A picture whose size cannot be read is counted at the size with the most tiles
#: after OpenAI's scaling (768 × 2048: 2 × 4 tiles), so an estimate never undercounts it.
LARGEST_IMAGE = (768, 2048)


def _sent_size(url: str) -> tuple[int, int] | None:
    """(width, height) of a ``data:`` image as sent, None when it cannot be read."""
    head, _, data = url.partition(",")
    if not head.startswith("data:") or not head.endswith(";base64"):
        return None
    try:
        with Image.open(io.BytesIO(base64.b64decode(data, validate=False))) as image:
            return image.size
    except (ValueError, OSError, Image.DecompressionBombError):
        return None


def estimated_cost(prices: Prices, messages: list[dict[str, Any]], answer: str,
                   detail: str | None) -> float:
    """What one request probably cost when the server reported no usage: the prompt by
    :func:`message_tokens` (each image at its sent size, or at the largest count when its
    size cannot be read) and the completion by :func:`text_tokens` of the answer."""
    sizes: dict[int, tuple[int, int]] = {}
    unknown = 0
    seen = 0
    for message in messages:
        content = message.get("content")
        for part in content if isinstance(content, list) else []:
            if isinstance(part, dict) and part.get("type") == "image_url":
                size = _sent_size(str((part.get("image_url") or {}).get("url", "")))
                if size is None:
                    unknown += 1
                else:
                    sizes[seen] = size
                seen += 1
    text, image = message_tokens(messages, sizes, detail)
    image += unknown * (image_tokens(*LARGEST_IMAGE, detail) - image_tokens(0, 0, detail))
    return prices.cost(text + image, text_tokens(answer))
