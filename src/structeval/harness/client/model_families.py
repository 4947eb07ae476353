"""Which models are reasoning models, by name, so that requests fit them from the start.

OpenAI's reasoning families accept only their default temperature and refuse
``max_tokens`` (they take ``max_completion_tokens``, which also bounds the hidden
reasoning). Sending temperature 0 to them fails every request with HTTP 400, so
for these families the harness omits the temperature (unless ``--temperature`` is
given explicitly) and sends the limit as ``max_completion_tokens`` from the first
request on. Any other endpoint that refuses a parameter is handled by
:mod:`.negotiation` after its first 400; this list only saves that first request.

The families (case-insensitive, after any provider prefix such as ``openai/`` or
``azure/``): ``o1``, ``o3``, ``o4`` and their variants (``o1-mini``, ``o3-pro``,
``o4-mini-2025-04-16``, …), and ``gpt-5`` and its variants (``gpt-5-mini``,
``gpt-5.1``, …) except the ``gpt-5*-chat*`` models, which are not reasoning
models.
"""

from __future__ import annotations

import re

#: documented in the module docstring and the README
REASONING_FAMILIES = ("o1*", "o3*", "o4*", "gpt-5* (not gpt-5*-chat*)")

_O_SERIES = re.compile(r"o[134](?:$|[-_.:@])")


def base_name(model: str) -> str:
    """The model name without provider prefixes (``openai/gpt-5`` → ``gpt-5``), lower case."""
    return model.strip().rsplit("/", 1)[-1].lower()


def reasoning_family(model: str | None) -> str | None:
    """The reasoning family a model name belongs to (``o3``, ``gpt-5``), or None."""
    if not model:
        return None
    name = base_name(model)
    match = _O_SERIES.match(name)
    if match:
        return name[:2]
    if name.startswith("gpt-5") and "chat" not in name:
        return "gpt-5"
    return None
