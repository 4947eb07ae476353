"""Repeated spacings: "6 × 2 m" written once over six equal intervals.

The text stands centred on its run of intervals (ticks at every station), so the
reader gives it to the run of ``count`` consecutive intervals whose middle is
nearest to the text's centre; each of those intervals then has that length.
"""

from __future__ import annotations

from .view import ReadError


def first_interval(stations: list[float], s: float, count: int) -> int:
    """The first of the ``count`` consecutive intervals a text centred at ``s`` stands on
    (for a plain text, ``count`` = 1: the interval its centre lies in)."""
    if count == 1:
        return max(i for i in range(len(stations) - 1) if stations[i] <= s)
    starts = range(len(stations) - count)
    if not starts:
        raise ReadError(f"a '{count} ×' text stands on a chain of fewer intervals")
    return min(starts, key=lambda i: abs((stations[i] + stations[i + count]) / 2 - s))
