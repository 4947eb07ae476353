"""Bar charts and a forest plot as inline SVG text: no plotting library, no script.

Inline SVG keeps the report one self-contained file that renders identically
offline and prints sharply. The charts are simple enough that writing the few
elements by hand is shorter than configuring a library, and smaller and
faster: the category chart with whiskers is ~4 kB here; the same chart from
matplotlib's SVG backend (not a dependency) measured 28 kB with glyphs as
paths, 13 kB with fonts left to the viewer, after a 1.5 s import. Every bar
has its 95 % interval as a whisker; every value is also in a ``<title>`` (the
tooltip) with its interval.
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


Whisker = tuple[float, float]  # (low, high) of a 95 % interval, percent


def grouped_bars(title: str,
                 groups: Sequence[tuple[str, Sequence[float | None], Sequence[Whisker]]],
                 series: Sequence[str], colours: Sequence[str] = SERIES_COLOURS) -> str:
    """Vertical bars on a 0–100 % axis with interval whiskers; one cluster per group
    (label, values, intervals), one bar per series."""
    bar, gap, pad_l, pad_b, top, height = 18.0, 16.0, 36.0, 34.0, 28.0, 150.0
    legend = 24.0 + 6.2 * max((len(name) for name in series), default=0)
    width = pad_l + max(1, len(groups)) * (len(series) * bar + gap) + gap + legend
    total_h = top + height + pad_b
    out = [f"<svg xmlns='http://www.w3.org/2000/svg' class='chart' role='img' "
           f"width='{_n(width)}' height='{_n(total_h)}' viewBox='0 0 {_n(width)} {_n(total_h)}'>",
           f"<title>{escape(title)}</title>",
           f"<text x='{_n(pad_l)}' y='16' {_FONT} font-weight='bold'>{escape(title)}</text>"]
    for tick in (0, 25, 50, 75, 100):
        y = top + height * (1 - tick / 100)
        out.append(f"<line x1='{_n(pad_l)}' x2='{_n(width - legend)}' y1='{_n(y)}' "
                   f"y2='{_n(y)}' "
                   "stroke='#ddd'/>")
        out.append(f"<text x='{_n(pad_l - 4)}' y='{_n(y + 4)}' text-anchor='end' {_FONT}>"
                   f"{tick}%</text>")
    x = pad_l + gap

    def y_of(value: float) -> float:
        return top + height * (1 - min(max(float(value), 0.0), 100.0) / 100)

    for label, values, whiskers in groups:
        for k, (value, (low, high)) in enumerate(zip(values, whiskers, strict=True)):
            if value is None:  # the group does not occur in this series (another run)
                continue
            y = y_of(value)
            mid = x + k * bar + bar / 2 - 1
            out.append(f"<rect x='{_n(x + k * bar)}' y='{_n(y)}' "
                       f"width='{_n(bar - 2)}' height='{_n(top + height - y)}' "
                       f"fill='{colours[k]}'><title>{escape(label)} {escape(series[k])}: "
                       f"{value:.1f}% (95% CI {low:.1f}–{high:.1f})</title></rect>")
            out.append(f"<path class='whisker' d='M{_n(mid - 3)} {_n(y_of(low))}h6M{_n(mid)} "
                       f"{_n(y_of(low))}V{_n(y_of(high))}M{_n(mid - 3)} {_n(y_of(high))}h6' "
                       "stroke='#222' fill='none'/>")
            out.append(f"<text x='{_n(mid)}' y='{_n(y_of(high) - 3)}' "
                       f"text-anchor='middle' font-family='sans-serif' font-size='9'>"
                       f"{value:.0f}</text>")
        centre = x + len(values) * bar / 2
        out.append(f"<text x='{_n(centre)}' y='{_n(top + height + 16)}' text-anchor='middle' "
                   f"{_FONT}>{escape(label)}</text>")
        x += len(series) * bar + gap
    for k, name in enumerate(series):
        y = top + 8 + 16 * k
        out.append(f"<rect x='{_n(width - legend + 8)}' y='{_n(y - 9)}' width='10' "
                   f"height='10' fill='{colours[k]}'/><text x='{_n(width - legend + 22)}' "
                   f"y='{_n(y)}' {_FONT}>"
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


def forest_plot(title: str, rows: Sequence[tuple[str, float, float, float, bool]],
                note: str = "") -> str:
    """One row per paired delta (label, estimate, low, high, confounded), in points, on a
    symmetric axis around 0; a confounded delta is drawn hollow and marked †."""
    pad_l = 20.0 + 6.2 * max((len(r[0]) + 2 for r in rows), default=10)
    plot_w, row_h, top = 320.0, 20.0, 30.0
    reach = max([5.0] + [max(abs(lo), abs(hi)) for _, _, lo, hi, _ in rows])
    reach = float(10 * -(-reach // 10))  # a round bound, so ticks are whole numbers
    height = top + len(rows) * row_h + 40 + (14 if note else 0)
    width = pad_l + plot_w + 30

    def x_of(value: float) -> float:
        return pad_l + plot_w * (value + reach) / (2 * reach)

    out = [f"<svg xmlns='http://www.w3.org/2000/svg' class='chart forest' role='img' "
           f"width='{_n(width)}' height='{_n(height)}' viewBox='0 0 {_n(width)} {_n(height)}'>",
           f"<title>{escape(title)}</title>",
           f"<text x='6' y='16' {_FONT} font-weight='bold'>{escape(title)}</text>"]
    bottom = top + len(rows) * row_h
    for tick in (-reach, -reach / 2, 0.0, reach / 2, reach):
        out.append(f"<line x1='{_n(x_of(tick))}' x2='{_n(x_of(tick))}' y1='{_n(top - 4)}' "
                   f"y2='{_n(bottom)}' stroke='{'#777' if tick == 0 else '#ddd'}'/>"
                   f"<text x='{_n(x_of(tick))}' y='{_n(bottom + 14)}' text-anchor='middle' "
                   f"{_FONT}>{tick:+.0f}</text>")
    out.append(f"<text x='{_n(x_of(0))}' y='{_n(bottom + 28)}' text-anchor='middle' {_FONT}>"
               "difference in points (95% paired bootstrap CI)</text>")
    for k, (label, estimate, low, high, confounded) in enumerate(rows):
        y = top + k * row_h + row_h / 2
        mark = " †" if confounded else ""
        out.append(f"<text x='{_n(pad_l - 8)}' y='{_n(y + 4)}' text-anchor='end' {_FONT}>"
                   f"{escape(label)}{mark}</text>")
        out.append(f"<g class='ci'><title>{escape(label)}: {estimate:+.1f} [{low:+.1f}, "
                   f"{high:+.1f}]{' (confounded)' if confounded else ''}</title>"
                   f"<line x1='{_n(x_of(low))}' x2='{_n(x_of(high))}' y1='{_n(y)}' "
                   f"y2='{_n(y)}' stroke='#1f4e89' stroke-width='1.6'/>"
                   f"<rect x='{_n(x_of(estimate) - 4)}' y='{_n(y - 4)}' width='8' height='8' "
                   f"fill='{'#fff' if confounded else '#1f4e89'}' stroke='#1f4e89'/></g>")
    if note:
        out.append(f"<text x='6' y='{_n(height - 6)}' {_FONT}>{escape(note)}</text>")
    out.append("</svg>")
    return "".join(out)
