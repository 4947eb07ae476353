"""Bar charts as inline SVG text: no plotting library, no script, nothing fetched.

Inline SVG keeps the report one self-contained file that renders identically
offline and prints sharply; the charts here are simple enough that drawing
them by hand is shorter than configuring a library would be.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

SERIES_COLOURS = ("#9aa9bd", "#1f4e89")  # pass@1, after repair
STAGE_COLOURS = {"no_json": "#7f7f7f", "invalid": "#b4b4b4", "geometry": "#d55e00",
                 "supports": "#e69f00", "releases": "#f0e442", "loads": "#56b4e9",
                 "perfect": "#009e73"}
_FONT = "font-family='sans-serif' font-size='11'"


def _n(value: float) -> str:
    """Coordinates with fixed precision, so equal inputs give equal bytes."""
    return f"{value:.1f}"


def grouped_bars(title: str, groups: Sequence[tuple[str, Sequence[float]]],
                 series: Sequence[str], colours: Sequence[str] = SERIES_COLOURS) -> str:
    """Vertical bars on a 0–100 % axis; one cluster per group, one bar per series."""
    bar, gap, pad_l, pad_b, top, height = 18.0, 16.0, 36.0, 34.0, 28.0, 150.0
    width = pad_l + max(1, len(groups)) * (len(series) * bar + gap) + gap + 120.0
    total_h = top + height + pad_b
    out = [f"<svg xmlns='http://www.w3.org/2000/svg' class='chart' role='img' "
           f"width='{_n(width)}' height='{_n(total_h)}' viewBox='0 0 {_n(width)} {_n(total_h)}'>",
           f"<title>{escape(title)}</title>",
           f"<text x='{_n(pad_l)}' y='16' {_FONT} font-weight='bold'>{escape(title)}</text>"]
    for tick in (0, 25, 50, 75, 100):
        y = top + height * (1 - tick / 100)
        out.append(f"<line x1='{_n(pad_l)}' x2='{_n(width - 120)}' y1='{_n(y)}' y2='{_n(y)}' "
                   "stroke='#ddd'/>")
        out.append(f"<text x='{_n(pad_l - 4)}' y='{_n(y + 4)}' text-anchor='end' {_FONT}>"
                   f"{tick}%</text>")
    x = pad_l + gap
    for label, values in groups:
        for k, value in enumerate(values):
            v = min(max(float(value), 0.0), 100.0)
            h = height * v / 100
            out.append(f"<rect x='{_n(x + k * bar)}' y='{_n(top + height - h)}' "
                       f"width='{_n(bar - 2)}' height='{_n(h)}' fill='{colours[k]}'>"
                       f"<title>{escape(label)} {escape(series[k])}: {value:.1f}%</title></rect>")
            out.append(f"<text x='{_n(x + k * bar + bar / 2 - 1)}' y='{_n(top + height - h - 3)}' "
                       f"text-anchor='middle' font-family='sans-serif' font-size='9'>"
                       f"{value:.0f}</text>")
        centre = x + len(values) * bar / 2
        out.append(f"<text x='{_n(centre)}' y='{_n(top + height + 16)}' text-anchor='middle' "
                   f"{_FONT}>{escape(label)}</text>")
        x += len(series) * bar + gap
    for k, name in enumerate(series):
        y = top + 8 + 16 * k
        out.append(f"<rect x='{_n(width - 112)}' y='{_n(y - 9)}' width='10' height='10' "
                   f"fill='{colours[k]}'/><text x='{_n(width - 98)}' y='{_n(y)}' {_FONT}>"
                   f"{escape(name)}</text>")
    out.append("</svg>")
    return "".join(out)


def stage_bars(title: str, rows: Sequence[tuple[str, dict[str, int]]]) -> str:
    """One horizontal 100 % bar per row, split by stage, with a legend."""
    pad_l, bar_w, bar_h, top = 90.0, 460.0, 22.0, 28.0
    height = top + len(rows) * (bar_h + 10) + 44
    width = pad_l + bar_w + 20
    out = [f"<svg xmlns='http://www.w3.org/2000/svg' class='chart' role='img' "
           f"width='{_n(width)}' height='{_n(height)}' viewBox='0 0 {_n(width)} {_n(height)}'>",
           f"<title>{escape(title)}</title>",
           f"<text x='{_n(pad_l)}' y='16' {_FONT} font-weight='bold'>{escape(title)}</text>"]
    y = top
    for label, counts in rows:
        total = sum(counts.values())
        out.append(f"<text x='{_n(pad_l - 6)}' y='{_n(y + 15)}' text-anchor='end' {_FONT}>"
                   f"{escape(label)}</text>")
        x = pad_l
        for stage, colour in STAGE_COLOURS.items():
            count = counts.get(stage, 0)
            if not total or not count:
                continue
            w = bar_w * count / total
            out.append(f"<rect x='{_n(x)}' y='{_n(y)}' width='{_n(w)}' height='{_n(bar_h)}' "
                       f"fill='{colour}'><title>{escape(label)} {stage}: {count}</title></rect>")
            if w >= 16:
                out.append(f"<text x='{_n(x + w / 2)}' y='{_n(y + 15)}' text-anchor='middle' "
                           f"{_FONT}>{count}</text>")
            x += w
        if not total:
            out.append(f"<text x='{_n(pad_l)}' y='{_n(y + 15)}' {_FONT}>no scored task</text>")
        y += bar_h + 10
    x = 6.0
    for stage, colour in STAGE_COLOURS.items():
        out.append(f"<rect x='{_n(x)}' y='{_n(y + 6)}' width='10' height='10' fill='{colour}'/>"
                   f"<text x='{_n(x + 13)}' y='{_n(y + 15)}' {_FONT}>{stage}</text>")
        x += 13 + 7 * len(stage) + 12
    out.append("</svg>")
    return "".join(out)
