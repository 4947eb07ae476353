"""Putting a text's pixels on the page: one piece, run by run, or by hand.

:mod:`.fonts` decides which font draws each character and how big the ink is;
this module draws it so that the ink lands exactly in the box the layout record
holds. Hand lettering (the sketch style) draws every character on its own, each
nudged, turned and shrunk a little by the figure's seeded generator, as a person
writing numbers beside a pencil drawing does; the nudges are a few hundredths of
the text size, well inside the clearance kept around every label, so the
recorded box stays true.
"""

from __future__ import annotations

import math
import random

from PIL import Image, ImageDraw

from ..scene.fonts import HAND_ROOM, HANDWRITTEN, SUPERSAMPLE, font_of, ink_box, pieces, single_run

RGB = tuple[int, int, int]

HAND_SHIFT = 0.03  # of the text size: how far a hand-written character may wander
HAND_TURN = 4.0  # degrees a hand-written character may lean either way
HAND_SHRINK = (0.92, 1.0)  # range of a hand-written character's size, of the text's


def draw_text(image: Image.Image, draw: ImageDraw.ImageDraw, x: float, y: float, text: str,
              size: float, name: str, fill: RGB, rng: random.Random | None = None,
              dx: float = 0.0) -> None:
    """Draw ``text`` with its ink's top-left corner at (x + dx, y) (supersampled pixels);
    ``size`` is in final pixels, as :func:`.fonts.ink_box` takes it."""
    px = round(size * SUPERSAMPLE)
    left, top, _, _ = ink_box(text, size, name)
    ox, oy = x - left + dx, y - top
    one = single_run(text, name)
    if one is not None:
        draw.text((ox, oy), text, font=font_of(one, px), fill=fill)
        return
    hand = name in HANDWRITTEN
    for key, piece, at in pieces(text, px, name):
        if hand and not piece.isspace():
            _character(image, ox + at, oy, piece, key, px, fill, rng or random.Random(0))
        elif not hand:
            draw.text((ox + at, oy), piece, font=font_of(key, px), fill=fill, anchor="ls")


def _character(image: Image.Image, x: float, y: float, ch: str, key: str, px: int, fill: RGB,
               rng: random.Random) -> None:
    shrink = 1.0 if ch in HAND_ROOM else rng.uniform(*HAND_SHRINK)
    turn = rng.uniform(-HAND_TURN, HAND_TURN)
    dx, dy = (rng.uniform(-HAND_SHIFT, HAND_SHIFT) * px for _ in range(2))
    f = font_of(key, max(1, round(px * shrink)))
    left, top, right, bottom = f.getbbox(ch, anchor="ls")
    if right <= left or bottom <= top:
        return
    pad = math.ceil(0.2 * px) + 2
    w, h = int(right - left) + 2 * pad, int(bottom - top) + 2 * pad
    mask = Image.new("L", (w, h), 0)
    ImageDraw.Draw(mask).text((pad - left, pad - top), ch, font=f, fill=255, anchor="ls")
    mask = mask.rotate(turn, resample=Image.Resampling.BICUBIC, center=(w / 2, h / 2))
    # shrink towards the middle of the character's full-size box, not its corner
    full = font_of(key, px).getbbox(ch, anchor="ls")
    cx = x + (full[0] + full[2]) / 2 + dx
    cy = y + (full[1] + full[3]) / 2 + dy
    at = (round(cx - w / 2), round(cy - h / 2))
    image.paste(fill, (at[0], at[1], at[0] + w, at[1] + h), mask)
