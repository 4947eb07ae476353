"""The sketch style's look: graphite strokes of uneven pressure on textured paper.

A pencil line is not one width and one grey: the hand presses harder and
lighter along it, and a quick straight stroke runs a little past where it was
meant to stop, so two lines meeting at a corner cross. Here every straight
stroke is drawn as short pieces whose width and darkness follow a smooth
pressure curve drawn from the figure's seed, and straight strokes and polygon
edges overshoot their ends by at most :data:`OVERSHOOT` px (design pixels, less
than the clearance kept around every label, so the layout record stays true).
The finished picture is laid on paper with a grain and a faint unevenness and
stored as JPEG, as a photo or scan of a pencil drawing would be.

Everything random comes from generators seeded by the figure's seed, so the same
figure always gives the same bytes.
"""

from __future__ import annotations

import io
import itertools
import math
import random
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw

from ..scene.fonts import SUPERSAMPLE
from ..scene.shapes import XY

RGB = tuple[int, int, int]

OVERSHOOT = 1.5  # design px a straight stroke may run past its end
PIECE = 4.0  # design px: pressure changes this finely along a stroke
JPEG_QUALITY = 75


def _mix(paper: RGB, ink: RGB, t: float) -> RGB:
    return (round(paper[0] + (ink[0] - paper[0]) * t), round(paper[1] + (ink[1] - paper[1]) * t),
            round(paper[2] + (ink[2] - paper[2]) * t))


@dataclass
class Pencil:
    """Draws graphite strokes on a supersampled canvas (coordinates in final pixels)."""

    draw: ImageDraw.ImageDraw
    paper: RGB
    rng: random.Random
    zoom: float = 1.0

    def _pressure(self) -> tuple[float, float, float, float]:
        z = self.zoom
        return (self.rng.uniform(60, 140) * z, self.rng.uniform(0, 2 * math.pi),
                self.rng.uniform(14, 30) * z, self.rng.uniform(0, 2 * math.pi))

    def line(self, pts: list[XY], width: float, ink: RGB, *, overshoot: bool = True) -> None:
        """A polyline in graphite; straight (two-point) strokes overshoot their ends."""
        if len(pts) < 2:
            return
        if overshoot and len(pts) == 2:
            pts = self._overshot(pts[0], pts[1])
        long1, ph1, long2, ph2 = self._pressure()
        total = sum(math.dist(a, b) for a, b in itertools.pairwise(pts))
        ss, step = SUPERSAMPLE, PIECE * self.zoom
        s = 0.0
        for a, b in itertools.pairwise(pts):
            length = math.dist(a, b)
            n = max(1, math.ceil(length / step))
            for i in range(n):
                t0, t1 = i / n, (i + 1) / n
                p0 = (a[0] + (b[0] - a[0]) * t0, a[1] + (b[1] - a[1]) * t0)
                p1 = (a[0] + (b[0] - a[0]) * t1, a[1] + (b[1] - a[1]) * t1)
                here = s + length * (t0 + t1) / 2
                press = 0.55 + 0.3 * math.sin(2 * math.pi * here / long1 + ph1) \
                    + 0.15 * math.sin(2 * math.pi * here / long2 + ph2)
                ends = min(here, total - here) / (6.0 * self.zoom)
                press *= 0.65 + 0.35 * min(1.0, ends)  # lighter where the lead lands and lifts
                w = max(1, round(width * (0.75 + 0.45 * press) * ss))
                colour = _mix(self.paper, ink, 0.5 + 0.5 * min(1.0, press))
                self.draw.line([(p0[0] * ss, p0[1] * ss), (p1[0] * ss, p1[1] * ss)],
                               fill=colour, width=w)
                if w >= 4:  # round the joint between pieces
                    r = w / 2
                    self.draw.ellipse((p1[0] * ss - r, p1[1] * ss - r, p1[0] * ss + r,
                                       p1[1] * ss + r), fill=colour)
            s += length

    def _overshot(self, a: XY, b: XY) -> list[XY]:
        length = math.dist(a, b)
        if length <= 0:
            return [a, b]
        d = ((b[0] - a[0]) / length, (b[1] - a[1]) / length)
        ea, eb = (self.rng.uniform(0.3, 1.0) * OVERSHOOT * self.zoom for _ in range(2))
        return [(a[0] - d[0] * ea, a[1] - d[1] * ea), (b[0] + d[0] * eb, b[1] + d[1] * eb)]

    def outline(self, corners: list[XY], width: float, ink: RGB) -> None:
        """A polygon's edges, each its own stroke, crossing a little at the corners."""
        for a, b in itertools.pairwise([*corners, corners[0]]):
            self.line([a, b], width, ink)

    def circle(self, centre: XY, r: float, width: float, ink: RGB) -> None:
        """A hand-drawn circle: one stroke that closes with a small overlap."""
        n = max(16, round(2 * math.pi * r / (2.0 * self.zoom)))
        start = self.rng.uniform(0, 2 * math.pi)
        sweep = 2 * math.pi * (1 + self.rng.uniform(0.03, 0.08))
        pts = [(centre[0] + r * math.cos(start + sweep * i / n),
                centre[1] + r * math.sin(start + sweep * i / n)) for i in range(n + 1)]
        self.line(pts, width, ink, overshoot=False)


def on_paper(image: Image.Image, seed: int, zoom: float = 1.0) -> tuple[Image.Image, bytes]:
    """The drawing on paper: a fine grain and a faint cloudiness multiply everything (the
    graphite too, as paper tooth breaks up a pencil line). Returns the picture and its
    JPEG bytes (the file is exactly these bytes)."""
    rng = np.random.default_rng([seed, 0x9E4C])
    w, h = image.size
    cell = max(1, round(2 * zoom))  # grain of the paper, not of the pixels

    def noise(cw: int, ch: int, sigma: float, resample: Image.Resampling) -> np.ndarray:
        small = rng.normal(0.0, sigma, size=(ch, cw)).astype(np.float32)
        grown = Image.fromarray(small, "F").resize((w, h), resample)
        return np.asarray(grown, dtype=np.float32)

    grain = noise(max(1, w // cell), max(1, h // cell), 3.0, Image.Resampling.BILINEAR)
    cloud = noise(max(2, w // 90), max(2, h // 90), 5.0, Image.Resampling.BICUBIC)
    arr = np.asarray(image, dtype=np.float32)
    arr = arr * (1.0 + (grain + cloud)[..., None] / 255.0)
    page = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), "RGB")
    buf = io.BytesIO()
    page.save(buf, format="JPEG", quality=JPEG_QUALITY, optimize=False)
    data = buf.getvalue()
    with Image.open(io.BytesIO(data)) as jpeg:
        return jpeg.convert("RGB"), data
