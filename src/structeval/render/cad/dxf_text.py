"""Text styles of a DXF drawing: one per script, chosen by what a text is written in.

A CAD program draws a TEXT entity in its text style's font, and a Latin font has no
Chinese glyphs, so a Chinese label needs a style whose font has them. Which style a
text takes is data (:data:`TEXT_STYLES`, tried in order, the first whose script
matches wins): adding a language means adding a row with its character ranges and
a font name, nothing else. Fonts are named by file, as DXF STYLE entries do; the
drawing stays valid where a font is missing (the CAD program substitutes one).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TextStyle:
    name: str  # the STYLE table entry
    font: str  # font file name, as a DXF STYLE names it
    ranges: tuple[tuple[int, int], ...]  # code points that call for this style; () = any


#: CJK ideographs, radicals, punctuation, kana, Hangul, full-width forms
CJK = ((0x2E80, 0x2FDF), (0x3000, 0x303F), (0x3040, 0x30FF), (0x3100, 0x312F),
       (0x31A0, 0x31BF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xAC00, 0xD7AF),
       (0xF900, 0xFAFF), (0xFE30, 0xFE4F), (0xFF00, 0xFFEF), (0x20000, 0x2FA1F))

TEXT_STYLES: tuple[TextStyle, ...] = (
    TextStyle("LABELS_CJK", "NotoSansCJK-Regular.ttc", CJK),  # Debian fonts-noto-cjk
    TextStyle("LABELS", "DejaVuSans.ttf", ()),  # Latin, ·, °, ², Greek
)


def style_for(text: str, styles: tuple[TextStyle, ...] = TEXT_STYLES) -> TextStyle:
    """The first style whose ranges hold a character of ``text`` (or that takes any)."""
    for style in styles:
        if not style.ranges or any(lo <= ord(ch) <= hi for ch in text
                                   for lo, hi in style.ranges):
            return style
    return styles[-1]
