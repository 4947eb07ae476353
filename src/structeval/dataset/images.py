"""The pictures of a problem, drawn by :mod:`structeval.render` (kept behind these functions).

Images and DXF drawings are derived data: the raw file records the style, seed and
presentation (and, in ``problem.dxf``, whether a DXF is wanted), so
``python tools/synthesize.py --render-missing`` can redraw any of them the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..model.types import Model
from ..presentation import Presentation
from .rawfile import presentation_of


def renderer_status() -> str:
    """"available", or why the renderer cannot be used."""
    try:
        from ..render import render_model  # noqa: F401
    except Exception as exc:  # the renderer is a separate module; absence is reported
        return f"unavailable: {type(exc).__name__}: {exc}"
    return "available"


def dxf_status() -> str:
    """"available", or why DXF drawings cannot be written (ezdxf missing)."""
    try:
        import ezdxf  # noqa: F401
    except ImportError as exc:
        return f"unavailable ({exc}): pip install 'structeval[dxf]' or pip install ezdxf"
    return "available"


def render_image(model: Model, style: str, seed: int, path: Path, *,
                 presentation: Presentation | None = None, category: str | None = None) -> None:
    """Draw ``model`` into ``path`` (deterministic bytes for the same inputs): the task's
    figure in its ``presentation`` (language, style, symbols; notes under the figure), or
    a bare figure in ``style`` when none is given."""
    from ..render import render_model

    path.parent.mkdir(parents=True, exist_ok=True)
    if presentation is None:
        render_model(model, style=style, seed=seed).save(path)
    else:
        render_model(model, seed=seed, presentation=presentation.with_(style=style),
                     category=category).save(path)


SHEET_STYLE = "sheet"  # a drawing sheet: drawn from problem.sheet.drawing, never a DXF


def render_sheet_image(block: dict[str, Any], image: Path) -> None:
    """Draw a sheet task's image from its ``problem.sheet.drawing`` block (the target
    model is not drawn: the sheet shows the whole building)."""
    from ..render import render_sheet

    image.parent.mkdir(parents=True, exist_ok=True)
    render_sheet(block["sheet"]["drawing"], block["image"]["seed"]).save(image)


def layout_drawing(model: Model, block: dict[str, Any],
                   presentation: Presentation | None = None) -> Any:
    """The layout record of a task's image exactly as it is drawn (no pixels): a sheet's
    from its drawing block, any other task's from its model in ``presentation`` (default:
    its own)."""
    from ..render import layout_model, layout_sheet

    image = block["image"]
    if image["style"] == SHEET_STYLE:
        return layout_sheet(block["sheet"]["drawing"], image["seed"])
    shown = presentation or presentation_of(block)
    return layout_model(model, seed=image["seed"], presentation=shown,
                        category=block["category"])


def render_drawings(model: Model, block: dict[str, Any], image: Path | None,
                    dxf: Path | None) -> None:
    """Draw a problem's image and/or DXF (either may be None: not wanted) from its
    ``problem`` block, as the task is shown; with both, the figure is laid out once."""
    from ..render.cad.dxf import render_dxf, render_with_dxf

    style, seed = block["image"]["style"], block["image"]["seed"]
    if style == SHEET_STYLE:
        if image is not None:
            render_sheet_image(block, image)
        return
    shown = presentation_of(block).with_(style=style)
    category = block.get("category")
    if dxf is None:
        if image is not None:
            render_image(model, style, seed, image, presentation=shown, category=category)
        return
    dxf.parent.mkdir(parents=True, exist_ok=True)
    if image is None:
        render_dxf(model, presentation=shown, seed=seed, category=category).save(dxf)
        return
    picture, drawing = render_with_dxf(model, seed=seed, presentation=shown, category=category)
    image.parent.mkdir(parents=True, exist_ok=True)
    picture.save(image)
    drawing.save(dxf)
