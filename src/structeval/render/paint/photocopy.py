"""An exam page as it reaches a student: photocopied, grey, a little askew.

The page is turned into grey toner on white (a copier has no colour), given a
few toner specks (never on or beside a text: a speck after "15" reads as "1.5"), and
then degraded as a scanned page is (:func:`.degrade.degrade`:
the seeded tilt, which the layout record follows, sensor noise, blur, uneven
shading and JPEG), so the same seed always gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PIL import Image, ImageDraw

from ..scene.shapes import Rect
from .degrade import degrade

SPECKS = 8  # toner specks per million pixels
SPECK_CLEAR = 6.0  # px (at zoom 1) a speck keeps from every text box


def photocopy(image: Image.Image, seed: int, zoom: float = 1.0,
              texts: Sequence[Rect] = ()) -> tuple[Image.Image, bytes]:
    """The copied page and its JPEG bytes; no speck within SPECK_CLEAR of a box of
    ``texts`` (canvas pixels, before the tilt), so a speck never adds a point, a stroke or a
    mark to a text a reader must read exactly."""
    rng = np.random.default_rng([seed, 0xC0B1])
    grey = image.convert("L").point(lambda v: 0 if v < 60 else min(255, round(v * 1.08)))
    draw = ImageDraw.Draw(grey)
    w, h = grey.size
    for _ in range(round(SPECKS * w * h / 1e6)):
        x, y = float(rng.uniform(0, w)), float(rng.uniform(0, h))
        r = float(rng.uniform(0.3, 0.9)) * zoom
        shade = int(rng.integers(70, 150))
        if _near(x, y, texts, SPECK_CLEAR * zoom):
            continue
        draw.ellipse((x - r, y - r, x + r, y + r), fill=shade)
    return degrade(grey.convert("RGB"), seed, (255, 255, 255), zoom)


def _near(x: float, y: float, boxes: Sequence[Rect], margin: float) -> bool:
    return any(x0 - margin <= x <= x1 + margin and y0 - margin <= y <= y1 + margin
               for x0, y0, x1, y1 in boxes)
