"""The delivery profile: the size at which a model receives a drawing.

Every frontier API shrinks a large image before the model sees it (Anthropic to
1568 px on the long side, OpenAI to fit 2048 × 2048 and then 768 px on the short
side). A glyph that is legible in the stored PNG can be a few pixels in the picture
the model actually reads, so the legibility rules are judged in those pixels: the
layout record scaled as the API scales the image (:func:`at_profile`). 1568 px is
the smallest limit among the targeted APIs and the profile every shipped task must
keep; 1024 px (a common input size of open models) is a second profile the tools
report on.
"""

from __future__ import annotations

from ..scene.shapes import Similarity
from .record import Record

#: The long side, in pixels, of the image a model receives (Anthropic's limit, the
#: smallest of the frontier APIs targeted): the profile every shipped task keeps.
DELIVERY_LONG_SIDE = 1568
#: A second profile the tools report on (a common input size of open models).
SMALL_LONG_SIDE = 1024
PROFILES = (DELIVERY_LONG_SIDE, SMALL_LONG_SIDE)


def profile_scale(size: tuple[int, int], profile: int | None) -> float:
    """The factor an API shrinks an image of ``size`` by to fit ``profile`` on its long
    side (1 when it already fits, or for no profile: APIs do not enlarge)."""
    if profile is None:
        return 1.0
    return min(1.0, profile / max(size))


def at_profile(rec: Record, profile: int | None) -> Record:
    """The record as the model receives it: every point, box and length scaled by
    :func:`profile_scale` (the record itself when the image already fits)."""
    k = profile_scale((rec.width, rec.height), profile)
    if k >= 1.0:
        return rec

    shrink = Similarity.shift_zoom(0.0, 0.0, k)
    return Record([it.mapped(shrink) for it in rec.items], max(1, round(rec.width * k)),
                  max(1, round(rec.height * k)), rec.on_page)
