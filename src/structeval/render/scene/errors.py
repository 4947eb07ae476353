"""Typed failures of the renderer (a model that cannot be drawn legibly is not a crash)."""

from __future__ import annotations

from ...model.errors import StructEvalError


class RenderError(StructEvalError):
    """The model or the options cannot be drawn (too large, bad colour, no FreeType)."""
