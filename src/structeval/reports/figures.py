"""The pictures of one task, as small JPEG data URIs for a self-contained page.

A report page holds five pictures per task for hundreds of tasks, so every
picture is downscaled and JPEG-encoded (line drawings on white compress well
at moderate quality). The ground truth and the reconstruction are drawn at the
same scale and shrunk by the same factor, so equal lengths look equal side by
side. A figure that cannot be made (a model the renderer refuses, a mechanism
without a moment diagram) becomes a note, never an exception.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from PIL import Image

from ..fe import analyze
from ..model.errors import StructEvalError
from ..model.types import Model
from ..render import RenderResult, render_model, render_moment_diagram

IMAGE_WIDTH = 420  # px, the widest a picture is stored by default
JPEG_QUALITY = 65  # dimension labels stay legible; ~8 kB per figure
MOMENT_ROUNDOFF = 1e-9  # max |M| below this × (largest reaction × size) is zero
MAX_CANVAS = 4000  # px: a candidate drawn at the truth's scale beyond this gets its own scale
T = TypeVar("T")


@dataclass(frozen=True)
class Picture:
    """A data URI with its size, or the reason there is none."""

    uri: str | None
    width: int = 0
    height: int = 0
    note: str | None = None


def guarded(what: str, make: Callable[[], T]) -> tuple[T | None, str | None]:
    """``make()``, or (None, why) when it fails.

    Any exception is caught on purpose: the inputs are a model's answers, and one
    answer the renderer or solver chokes on must cost that one picture, not the page.
    """
    try:
        return make(), None
    except StructEvalError as exc:
        return None, f"{what}: {exc}"
    except Exception as exc:  # deliberately broad: see the docstring
        return None, f"{what} failed ({type(exc).__name__}: {exc})"


def jpeg_uri(image: Image.Image, factor: float | None = None,
             width: int = IMAGE_WIDTH) -> Picture:
    """Downscale (by ``factor``, or to ``width``) and encode; identical input, identical bytes."""
    rgb = image.convert("RGB")
    if factor is None:
        factor = min(1.0, width / max(1, rgb.width))
    if factor < 1.0:
        size = (max(1, round(rgb.width * factor)), max(1, round(rgb.height * factor)))
        rgb = rgb.resize(size, Image.Resampling.LANCZOS)
    buf = io.BytesIO()
    rgb.save(buf, format="JPEG", quality=JPEG_QUALITY, optimize=False, progressive=False)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return Picture(f"data:image/jpeg;base64,{data}", rgb.width, rgb.height)


def input_picture(path: Path | None, width: int = IMAGE_WIDTH) -> Picture:
    if path is None:
        return Picture(None, note="the task's image was not found in the dataset")

    def load() -> Image.Image:
        with Image.open(path) as img:
            img.load()
            return img.copy()

    image, note = guarded(f"cannot read {Path(path).name}", load)
    return jpeg_uri(image, width=width) if image is not None else Picture(None, note=note)


def _extent(model: Model) -> float:
    xs = [p.x for p in model.points]
    ys = [p.y for p in model.points]
    return max(max(xs) - min(xs), max(ys) - min(ys), 0.0)


@dataclass(frozen=True)
class PairPictures:
    """Structure and moment diagram of the truth and of the reconstruction."""

    gt: Picture
    cand: Picture
    gt_moment: Picture
    cand_moment: Picture


def _pair(left: Image.Image | None, right: Image.Image | None, left_note: str | None,
          right_note: str | None, width: int) -> tuple[Picture, Picture]:
    widths = [im.width for im in (left, right) if im is not None]
    factor = min(1.0, width / max(widths)) if widths else 1.0
    return ((jpeg_uri(left, factor) if left is not None else Picture(None, note=left_note)),
            (jpeg_uri(right, factor) if right is not None else Picture(None, note=right_note)))


class NoBending(StructEvalError):
    """Every member is moment-free (a pin-jointed truss): there is no diagram to draw."""


def _moment(model: Model, scale: float | None) -> Image.Image:
    """The diagram, unless |M| is round-off: the renderer scales the largest ordinate to
    full height, which would turn 1e-17 kN·m of noise into a confident-looking diagram."""
    solution = analyze(model)[0]
    forces = [abs(r.value) for r in solution.reactions]
    reference = max(forces, default=0.0) * max(_extent(model), 1.0)
    if solution.max_abs_moment <= MOMENT_ROUNDOFF * max(reference, 1.0):
        raise NoBending(f"no bending moment anywhere (max |M| = {solution.max_abs_moment:.1e} "
                        "kN·m, round-off)")
    return render_moment_diagram(model, solution, scale=scale)


def pair_pictures(gt: Model | None, cand: Model | None, gt_marks: Mapping[str, str],
                  cand_marks: Mapping[str, str], cand_missing: str,
                  width: int = IMAGE_WIDTH) -> PairPictures:
    """Both structures with their highlights and both moment diagrams, same scale."""
    gt_fig: RenderResult | None = None
    gt_note = "the ground truth is not available (task not found in the dataset)"
    if gt is not None:
        gt_fig, gt_note = guarded("the ground truth cannot be drawn",
                                  lambda: render_model(gt, highlight=dict(gt_marks),
                                                       min_long_side=None))
    scale = gt_fig.scale if gt_fig is not None else None
    cand_fig: RenderResult | None = None
    cand_note: str | None = cand_missing
    cand_scale = scale
    if cand is not None:
        if scale is not None and _extent(cand) * scale > MAX_CANVAS:
            cand_scale = None  # e.g. millimetres for metres: draw it at its own scale
        cand_fig, cand_note = guarded("your model cannot be drawn", lambda: render_model(
            cand, highlight=dict(cand_marks), scale=cand_scale, min_long_side=None))
    gt_pic, cand_pic = _pair(gt_fig.image if gt_fig else None,
                             cand_fig.image if cand_fig else None, gt_note, cand_note, width)
    gt_m: Image.Image | None = None
    cand_m: Image.Image | None = None
    gt_m_note, cand_m_note = gt_note, cand_note
    if gt is not None:
        gt_m, gt_m_note = guarded("ground truth",
                                  lambda: _moment(gt, scale))
    if cand is not None and cand_fig is not None:
        cand_m, cand_m_note = guarded("reconstruction",
                                      lambda: _moment(cand, cand_scale))
    gt_mp, cand_mp = _pair(gt_m, cand_m, gt_m_note, cand_m_note, width)
    return PairPictures(gt_pic, cand_pic, gt_mp, cand_mp)
