"""The "scanned" look: a page photocopied slightly askew, soft, noisy and JPEG-compressed.

Every effect is drawn from a generator seeded by the caller, so a given seed
always gives the same bytes; the rotation is applied to the layout record too.
"""

from __future__ import annotations

import io
import math

import numpy as np
from PIL import Image, ImageFilter

from ..scene.shapes import Similarity
from ..scene.styles import RGB

MAX_TILT_DEG = 1.2


def tilt_margin(width: float, height: float) -> float:
    """Extra margin so that a tilt of at most MAX_TILT_DEG keeps every corner on the page."""
    return math.sin(math.radians(MAX_TILT_DEG)) * math.hypot(width, height) / 2 + 2.0


def tilt_deg(seed: int) -> float:
    """How far the scanned page is turned (counter-clockwise on screen, degrees): a function
    of the seed alone, so the layout-only path knows it without drawing a pixel."""
    rng = np.random.default_rng([seed, 0x7117])
    return float(rng.uniform(0.3, MAX_TILT_DEG) * rng.choice([-1.0, 1.0]))


def tilt_map(width: int, height: int, seed: int) -> Similarity:
    """The tilt as a map of canvas pixels: about the page centre, as ``Image.rotate`` turns."""
    return Similarity.turn((width / 2, height / 2), tilt_deg(seed))


def degrade(image: Image.Image, seed: int, paper: RGB, zoom: float = 1.0,
            ) -> tuple[Image.Image, bytes]:
    """Tilt (by :func:`tilt_deg`), add sensor noise, blur (as much at every delivered
    size: the radius grows with ``zoom``), shade and JPEG-compress the page. Returns the
    page and its JPEG bytes (the file is exactly these bytes: no second compression).

    The noise goes in before the blur, as in a real scanner, which also keeps the JPEG
    of a 1,600 px page at tens of kilobytes (white noise would cost several times that).
    """
    rng = np.random.default_rng([seed, 0x5CA7])
    w, h = image.size
    rotated = image.rotate(tilt_deg(seed), resample=Image.Resampling.BICUBIC,
                           center=(w / 2, h / 2), fillcolor=paper)
    arr = np.asarray(rotated, dtype=np.float32)
    arr = arr + rng.normal(0.0, 6.0, size=(h, w, 1)).astype(np.float32)
    noisy = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), "RGB")
    blurred = noisy.filter(ImageFilter.GaussianBlur(float(rng.uniform(0.5, 0.9)) * zoom))
    arr = np.asarray(blurred, dtype=np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    gx, gy = rng.uniform(-0.05, 0.05, size=2)
    shade = 1.0 - np.abs(gx) * 0.5 + gx * (xx / max(w, 1) - 0.5) + gy * (yy / max(h, 1) - 0.5)
    page = Image.fromarray(np.clip(arr * shade[..., None], 0, 255).astype(np.uint8), "RGB")
    buf = io.BytesIO()
    page.save(buf, format="JPEG", quality=int(rng.integers(35, 56)), optimize=False)
    data = buf.getvalue()
    with Image.open(io.BytesIO(data)) as jpeg:
        return jpeg.convert("RGB"), data
