"""The "scanned" look: a page photocopied slightly askew, soft, noisy and JPEG-compressed.

Every effect is drawn from a generator seeded by the caller, so a given seed
always gives the same bytes; the rotation is applied to the layout record too.
"""

from __future__ import annotations

import io
import math

import numpy as np
from PIL import Image, ImageFilter

from .layout import LayoutItem
from .shapes import XY
from .styles import RGB

MAX_TILT_DEG = 1.2


def tilt_margin(width: float, height: float) -> float:
    """Extra margin so that a tilt of at most MAX_TILT_DEG keeps every corner on the page."""
    return math.sin(math.radians(MAX_TILT_DEG)) * math.hypot(width, height) / 2 + 2.0


def degrade(image: Image.Image, items: list[LayoutItem], seed: int, paper: RGB,
            ) -> tuple[Image.Image, list[LayoutItem]]:
    rng = np.random.default_rng([seed, 0x5CA7])
    angle = float(rng.uniform(0.3, MAX_TILT_DEG) * rng.choice([-1.0, 1.0]))
    w, h = image.size
    cx, cy = w / 2, h / 2
    rotated = image.rotate(angle, resample=Image.Resampling.BICUBIC, center=(cx, cy),
                           fillcolor=paper)
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))

    def turn(p: XY) -> XY:  # counter-clockwise on screen, as Image.rotate turns the page
        x, y = p[0] - cx, p[1] - cy
        return (cx + x * c + y * s, cy - x * s + y * c)

    blurred = rotated.filter(ImageFilter.GaussianBlur(float(rng.uniform(0.45, 0.85))))
    arr = np.asarray(blurred, dtype=np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    gx, gy = rng.uniform(-0.05, 0.05, size=2)
    shade = 1.0 - np.abs(gx) * 0.5 + gx * (xx / max(w, 1) - 0.5) + gy * (yy / max(h, 1) - 0.5)
    arr = arr * shade[..., None] + rng.normal(0.0, 5.0, size=arr.shape)
    noisy = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), "RGB")
    buf = io.BytesIO()
    noisy.save(buf, format="JPEG", quality=int(rng.integers(30, 56)))
    buf.seek(0)
    with Image.open(buf) as jpeg:
        out = jpeg.convert("RGB")
    return out, [it.mapped(turn) for it in items]
