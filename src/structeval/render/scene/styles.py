"""Drawing styles and colour schemes.

A benchmark that only ever shows one clean look measures how well a model reads
that look; the styles vary line quality, ink and degradation while keeping
every drawn thing in the same place, so the layout record stays valid.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from PIL import ImageColor

from .errors import RenderError

RGB = tuple[int, int, int]

#: colour roles used by the drawing code
ROLES = ("paper", "ink", "load", "dim", "text", "hatch", "diagram", "diagram_fill", "faint")

_NORMAL: dict[str, RGB] = {
    "paper": (255, 255, 255), "ink": (0, 0, 0), "load": (0, 0, 0), "dim": (40, 40, 40),
    "text": (0, 0, 0), "hatch": (0, 0, 0), "diagram": (20, 20, 20),
    "diagram_fill": (214, 226, 240), "faint": (120, 120, 120),
}
_TEXTBOOK: dict[str, RGB] = {
    "paper": (250, 247, 238), "ink": (28, 28, 36), "load": (28, 28, 36), "dim": (50, 50, 58),
    "text": (24, 24, 32), "hatch": (40, 40, 48), "diagram": (28, 28, 36),
    "diagram_fill": (222, 218, 205), "faint": (125, 122, 115),
}
_GHOST: dict[str, RGB] = {
    "paper": (255, 255, 255), "ink": (150, 170, 200), "load": (150, 170, 200),
    "dim": (175, 188, 208), "text": (130, 150, 185), "hatch": (175, 188, 208),
    "diagram": (150, 170, 200), "diagram_fill": (232, 238, 246), "faint": (190, 200, 215),
}
_GRAPHITE: dict[str, RGB] = {  # pencil on off-white paper: greys, never black
    "paper": (246, 243, 234), "ink": (58, 58, 64), "load": (62, 62, 68), "dim": (84, 84, 90),
    "text": (50, 50, 58), "hatch": (78, 78, 86), "diagram": (58, 58, 64),
    "diagram_fill": (226, 223, 214), "faint": (140, 138, 132),
}
SCHEMES = ("normal", "ghost")


@dataclass(frozen=True)
class Style:
    """How lines and paper look; geometry is identical across styles."""

    name: str
    palette: Mapping[str, RGB]
    jitter: float = 0.0  # px amplitude of the hand-drawn wobble
    scanned: bool = False
    member_width: float = 3.2
    line_width: float = 1.6
    thin_width: float = 1.0
    sizes: Mapping[str, float] = field(default_factory=lambda: dict(DESIGN_SIZES))
    lettering: str = "print"  # the fonts of its texts (fonts.LETTERINGS)
    pencil: bool = False  # graphite strokes of uneven pressure on textured paper (pencil.py)
    page: bool = False  # the figure set on a photocopied exam page (exam_page.py)
    #: the text sizes a task's figure tries in turn, as multiples of ``sizes``: the first
    #: whose layout keeps every legibility rule at the delivery profile is drawn
    text_scales: tuple[float, ...] = (1.0,)
    text_scale: float = 1.0  # the multiple ``sizes`` (and an exam page's texts) are drawn at

    def lettered(self, scale: float) -> Style:
        """This style with every text ``scale`` times its design size."""
        return replace(self, sizes={k: v * scale / self.text_scale for k, v in self.sizes.items()},
                       text_scale=scale)


#: px: the text sizes of a figure (a joint letter, a load value, a dimension, a diagram
#: value), read exactly by OCR at the delivery profile in the clean styles
DESIGN_SIZES: dict[str, float] = {"letter": 18.0, "load": 15.0, "dim": 14.0, "diagram": 14.0}
#: A photocopy blurs a 10 px capital until a decimal point or a thin 1 is gone (a "1.5 m"
#: read as "15m", "EI" as "El", measured by the visibility proof), so the blurred styles
#: letter their figures larger, stepping down to the design size only when a figure has
#: no room for larger texts at the delivery profile.
BLURRED_TEXT_SCALES = (1.3, 1.15, 1.0)


STYLES: dict[str, Style] = {
    "cad": Style("cad", _NORMAL),
    "textbook": Style("textbook", _TEXTBOOK, jitter=0.9, member_width=3.0),
    "scanned": Style("scanned", _TEXTBOOK, jitter=0.5, scanned=True, member_width=3.4,
                     text_scales=BLURRED_TEXT_SCALES),
    # the hand wobble stays under the 3 px kept free around labels, as in textbook
    "sketch": Style("sketch", _GRAPHITE, jitter=1.1, member_width=3.0, lettering="hand",
                    pencil=True),
    "exam-page": Style("exam-page", _NORMAL, member_width=3.0, page=True,
                       text_scales=BLURRED_TEXT_SCALES),
    # a drawing sheet of several views (render/compose/sheet.py): clean CAD line work
    "sheet": Style("sheet", _NORMAL),
}


def get_style(name: str, scheme: str = "normal") -> Style:
    if name not in STYLES:
        raise RenderError(f"unknown style {name!r}; choose one of {', '.join(STYLES)}")
    if scheme not in SCHEMES:
        raise RenderError(f"unknown colour scheme {scheme!r}; choose one of {', '.join(SCHEMES)}")
    style = STYLES[name]
    if scheme == "ghost":
        palette = dict(_GHOST)
        palette["paper"] = style.palette["paper"]
        return replace(style, palette=palette)
    return style


def parse_colour(value: object, what: str) -> RGB:
    """A highlight colour from the caller: any Pillow colour name/hex or an RGB triple."""
    if isinstance(value, tuple | list) and len(value) == 3 and all(
            isinstance(c, int) and 0 <= c <= 255 for c in value):
        return (int(value[0]), int(value[1]), int(value[2]))
    if isinstance(value, str):
        try:
            rgb = ImageColor.getrgb(value)
        except ValueError:
            pass
        else:
            return (rgb[0], rgb[1], rgb[2])
    raise RenderError(f"highlight colour for {what!r} must be a colour name, '#rrggbb' or an "
                      f"RGB triple, got {value!r}")
