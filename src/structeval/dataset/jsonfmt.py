"""Byte-stable, diff-friendly JSON for dataset files.

Files in ``data/`` are committed and compared byte for byte, so the writer fixes
everything json.dumps leaves open: key order (as built), float text (rounded to
a fixed number of significant digits, so last-bit noise of the solver cannot
change a file) and line breaks (short objects and number rows on one line).
"""

from __future__ import annotations

import json
import math
from typing import Any

SIGNIFICANT = 12
WIDTH = 100


def fixed(value: float, scale: float = 0.0, *, rel_zero: float = 1e-9) -> float | int:
    """``value`` rounded to SIGNIFICANT digits; exactly 0 when negligible against ``scale``."""
    if not math.isfinite(value):
        raise ValueError(f"non-finite number {value!r} cannot be stored")
    if abs(value) <= rel_zero * scale or value == 0.0:
        return 0
    rounded = float(f"{value:.{SIGNIFICANT}g}")
    return int(rounded) if rounded.is_integer() and abs(rounded) < 1e15 else rounded


def dumps(obj: Any, width: int = WIDTH) -> str:
    """Indented JSON whose leaves (objects and arrays that fit in ``width``) stay on one line."""
    return _render(obj, 0, width) + "\n"


def _inline(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(", ", ": "), allow_nan=False)


def _render(obj: Any, depth: int, width: int) -> str:
    flat = _inline(obj)
    if not isinstance(obj, (dict, list)) or len(flat) + 2 * depth <= width or not obj:
        return flat
    pad = "  " * (depth + 1)
    if isinstance(obj, dict):
        items = [f"{pad}{json.dumps(k, ensure_ascii=False)}: {_render(v, depth + 1, width)}"
                 for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + "  " * depth + "}"
    if all(not isinstance(v, (dict, list)) for v in obj):
        return _number_rows(obj, depth, width)
    items = [pad + _render(v, depth + 1, width) for v in obj]
    return "[\n" + ",\n".join(items) + "\n" + "  " * depth + "]"


def _number_rows(values: list[Any], depth: int, width: int) -> str:
    """A long list of scalars wrapped into rows, so 11 stations do not take 11 lines."""
    pad = "  " * (depth + 1)
    rows, row = [], ""
    for text in (_inline(v) for v in values):
        if row and len(pad) + len(row) + len(text) + 2 > width:
            rows.append(row)
            row = ""
        row = f"{row}, {text}" if row else text
    rows.append(row)
    return "[\n" + ",\n".join(pad + r for r in rows) + "\n" + "  " * depth + "]"
