"""Which characters a font file has a glyph for, read from its ``cmap`` table.

Text that mixes scripts (a Chinese note with "EI" and "kN·m" in it) is drawn
run by run, each character in the first font of its lettering that has it; a
character a font lacks would otherwise come out as a missing-glyph box. Pillow
cannot say whether a font maps a character, so the table is read here directly:
the sfnt container (a single font or a collection, ``.ttc``), the Unicode
subtables of format 4 (the Basic Multilingual Plane) and 12 (all planes). A font
without such a subtable maps nothing, which routes every character elsewhere.
"""

from __future__ import annotations

import struct

#: Unicode subtables in order of preference: (platform, encoding, format)
PREFERRED = ((3, 10, 12), (0, 6, 12), (0, 4, 12), (3, 1, 4), (0, 3, 4), (0, 4, 4), (0, 3, 12))


class FontFileError(ValueError):
    """The bytes are not a font this reader understands."""


def _font_offset(data: bytes, index: int) -> int:
    if data[:4] != b"ttcf":
        if index != 0:
            raise FontFileError(f"a single font has no face {index}")
        return 0
    (count,) = struct.unpack_from(">I", data, 8)
    if not 0 <= index < count:
        raise FontFileError(f"the collection has {count} faces, not face {index}")
    (offset,) = struct.unpack_from(">I", data, 12 + 4 * index)
    return int(offset)


def _table(data: bytes, font_at: int, tag: bytes) -> int:
    (tables,) = struct.unpack_from(">H", data, font_at + 4)
    for i in range(tables):
        rec = font_at + 12 + 16 * i
        if data[rec:rec + 4] == tag:
            return int(struct.unpack_from(">I", data, rec + 8)[0])
    raise FontFileError(f"the font has no {tag.decode()} table")


def _format4(data: bytes, at: int) -> set[int]:
    (seg2,) = struct.unpack_from(">H", data, at + 6)
    segs = seg2 // 2
    ends = struct.unpack_from(f">{segs}H", data, at + 14)
    starts_at = at + 16 + seg2
    starts = struct.unpack_from(f">{segs}H", data, starts_at)
    deltas = struct.unpack_from(f">{segs}h", data, starts_at + seg2)
    ranges_at = starts_at + 2 * seg2
    ranges = struct.unpack_from(f">{segs}H", data, ranges_at)
    out: set[int] = set()
    for i in range(segs):
        for c in range(starts[i], ends[i] + 1):
            if c == 0xFFFF:
                continue
            if ranges[i] == 0:
                glyph = (c + deltas[i]) & 0xFFFF
            else:
                where = ranges_at + 2 * i + ranges[i] + 2 * (c - starts[i])
                (glyph,) = struct.unpack_from(">H", data, where)
                glyph = (glyph + deltas[i]) & 0xFFFF if glyph else 0
            if glyph:
                out.add(c)
    return out


def _format12(data: bytes, at: int) -> set[int]:
    (groups,) = struct.unpack_from(">I", data, at + 12)
    out: set[int] = set()
    for i in range(groups):
        start, end, first = struct.unpack_from(">3I", data, at + 16 + 12 * i)
        out.update(c for c in range(start, end + 1) if first + c - start)
    return out


def mapped_characters(data: bytes, index: int = 0) -> frozenset[int]:
    """Code points that face ``index`` of the font file ``data`` maps to a real glyph."""
    try:
        cmap = _table(data, _font_offset(data, index), b"cmap")
        (count,) = struct.unpack_from(">H", data, cmap + 2)
        found: dict[tuple[int, int, int], int] = {}
        for i in range(count):
            platform, encoding, offset = struct.unpack_from(">HHI", data, cmap + 4 + 8 * i)
            (fmt,) = struct.unpack_from(">H", data, cmap + offset)
            found.setdefault((platform, encoding, fmt), cmap + offset)
        for key in PREFERRED:
            if key in found:
                reader = _format12 if key[2] == 12 else _format4
                return frozenset(reader(data, found[key]))
    except struct.error as exc:
        raise FontFileError(f"the font file is cut short: {exc}") from exc
    return frozenset()
