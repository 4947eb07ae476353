"""The picture of a problem, drawn by :mod:`structeval.render` (kept behind one function).

Images are derived data: the raw file records the style and seed, so
``python tools/synthesize.py --render-missing`` can redraw any image the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..model.types import Model
from ..presentation import Presentation


def renderer_status() -> str:
    """"available", or why the renderer cannot be used."""
    try:
        from ..render import render_model  # noqa: F401
    except Exception as exc:  # the renderer is a separate module; absence is reported
        return f"unavailable: {type(exc).__name__}: {exc}"
    return "available"


def render_image(model: Model, style: str, seed: int, path: Path,
                 presentation: Presentation | None = None) -> None:
    """Draw ``model`` into ``path`` in ``presentation`` (deterministic bytes for the same
    inputs)."""
    from ..render import render_model

    path.parent.mkdir(parents=True, exist_ok=True)
    render_model(model, style=style, seed=seed, presentation=presentation).save(path)


def block_presentation(block: dict[str, Any]) -> Presentation:
    """The presentation a raw file's ``problem`` block records (defaults for v1 files)."""
    return Presentation.from_json(block.get("presentation"), style=block["image"]["style"])
