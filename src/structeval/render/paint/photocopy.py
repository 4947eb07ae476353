"""An exam page as it reaches a student: photocopied, grey, a little askew.

The page is turned into grey toner on white (a copier has no colour), given a
few toner specks, and then degraded as a scanned page is (:func:`.degrade.degrade`:
the seeded tilt, which the layout record follows, sensor noise, blur, uneven
shading and JPEG), so the same seed always gives the same bytes.
"""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from .degrade import degrade

SPECKS = 8  # toner specks per million pixels


def photocopy(image: Image.Image, seed: int, zoom: float = 1.0) -> tuple[Image.Image, bytes]:
    """The copied page and its JPEG bytes."""
    rng = np.random.default_rng([seed, 0xC0B1])
    grey = image.convert("L").point(lambda v: 0 if v < 60 else min(255, round(v * 1.08)))
    draw = ImageDraw.Draw(grey)
    w, h = grey.size
    for _ in range(round(SPECKS * w * h / 1e6)):
        x, y = float(rng.uniform(0, w)), float(rng.uniform(0, h))
        r = float(rng.uniform(0.3, 0.9)) * zoom
        draw.ellipse((x - r, y - r, x + r, y + r), fill=int(rng.integers(70, 150)))
    return degrade(grey.convert("RGB"), seed, (255, 255, 255), zoom)
