"""Two signs the bundled font lacks, set the way print sets them.

Pillow's bundled face has no "×" and no "²", which parametric and exam labels need
("6 × 2 m", "qa²"). Rather than depend on a system font (different bytes on every
machine), such a text is set in runs: plain runs in the bundled font, "²" as a
small "2" raised to the cap line, "×" as two crossing strokes the width of an "x".
Measuring (:func:`ink_box`) and drawing (:func:`draw_text`) use the same runs, so a
label's recorded box is the box of its pixels.
"""

from __future__ import annotations

from PIL import ImageDraw, ImageFont

SPECIAL = frozenset("²×")
SUPER = 0.62  # size of a superscript against its text


def has_special(text: str) -> bool:
    return any(c in SPECIAL for c in text)


def _runs(text: str) -> list[str]:
    out: list[str] = []
    for c in text:
        if c in SPECIAL or not out or out[-1] in SPECIAL:
            out.append(c)
        else:
            out[-1] += c
    return out


Piece = tuple[str, float, float, float, float, float]  # kind, x, y, x1, y1, size


def _layout(text: str, font: ImageFont.FreeTypeFont) -> list[Piece]:
    """Per run: what to draw and where (origin-relative, in the font's pixels)."""
    size = float(font.size)
    cap_top, cap_bottom = font.getbbox("H")[1], font.getbbox("H")[3]
    x_top = font.getbbox("x")[1]
    pen = 0.0
    out: list[Piece] = []
    for run in _runs(text):
        if run == "²":
            small = font.font_variant(size=max(1, round(size * SUPER)))
            top = small.getbbox("2")[1]
            out.append(("²", pen, cap_top - top, 0.0, 0.0, float(small.size)))
            pen += small.getlength("2")
        elif run == "×":
            adv = font.getlength("x")
            half = 0.36 * (cap_bottom - x_top)
            cx, cy = pen + adv / 2, (x_top + cap_bottom) / 2
            out.append(("×", cx - half, cy - half, cx + half, cy + half, size))
            pen += adv
        else:
            out.append(("text:" + run, pen, 0.0, 0.0, 0.0, size))
            pen += font.getlength(run)
    return out


def ink_box(text: str, font: ImageFont.FreeTypeFont) -> tuple[float, float, float, float]:
    """(left, top, right, bottom) of the set text's ink relative to its origin."""
    boxes = []
    for kind, x, y, x1, y1, size in _layout(text, font):
        if kind == "×":
            boxes.append((x, y, x1, y1))
        elif kind == "²":
            b = font.font_variant(size=round(size)).getbbox("2")
            boxes.append((x + b[0], y + b[1], x + b[2], y + b[3]))
        else:
            b = font.getbbox(kind[5:])
            boxes.append((x + b[0], y + b[1], x + b[2], y + b[3]))
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes),
            max(b[3] for b in boxes))


def draw_text(draw: ImageDraw.ImageDraw, origin: tuple[float, float], text: str,
              font: ImageFont.FreeTypeFont, fill: tuple[int, int, int]) -> None:
    """Draw the set text with its origin at ``origin`` (as ``ImageDraw.text`` would)."""
    ox, oy = origin
    stroke = max(1, round(font.size * 0.075))
    for kind, x, y, x1, y1, size in _layout(text, font):
        if kind == "×":
            draw.line([(ox + x, oy + y), (ox + x1, oy + y1)], fill=fill, width=stroke)
            draw.line([(ox + x, oy + y1), (ox + x1, oy + y)], fill=fill, width=stroke)
        elif kind == "²":
            draw.text((ox + x, oy + y), "2", font=font.font_variant(size=round(size)), fill=fill)
        else:
            draw.text((ox + x, oy + y), kind[5:], font=font, fill=fill)
