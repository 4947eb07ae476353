"""A progress line at a fixed interval, for runs whose stdout is not a terminal.

The progress bar (tqdm, on stderr) hides itself when it cannot redraw in place,
so a run under ``nohup``, a batch scheduler or ``| tee`` used to print nothing
for hours. There, one plain line every ``--progress-interval`` seconds says how
far the run is: tasks done of the total, the running accuracy (weighted, after
repair, of the finished tasks: the bar's number), how many are unavailable, and
what this session has paid. Lines are written whole, so a log stays greppable.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from .cost import CostMeter
from .results import SCORED, TaskResult, running_accuracy

#: seconds between two lines unless --progress-interval says otherwise
DEFAULT_INTERVAL_S = 30.0


class ProgressLines:
    """Prints :meth:`line` whenever ``interval`` seconds have passed since the last one."""

    def __init__(self, interval: float, echo: Callable[[str], None],
                 clock: Callable[[], float] = time.monotonic):
        self.interval = interval
        self.echo = echo
        self.clock = clock
        self._total = 0
        self._kept: list[TaskResult] = []
        self._meter: CostMeter | None = None
        self._priced = False
        self._started = self._due = 0.0

    def start(self, total: int, kept: Iterable[TaskResult], meter: CostMeter, *,
              priced: bool) -> None:
        """The session begins: ``total`` (run, task) pairs, ``kept`` already finished."""
        self._total = total
        self._kept = list(kept)
        self._meter = meter
        self._priced = priced
        self._started = self.clock()
        self._due = self._started + self.interval

    def until_due(self) -> float:
        """Seconds until the next line is due (never negative)."""
        return max(0.0, self._due - self.clock())

    def tick(self, fresh: Iterable[TaskResult]) -> None:
        """Print a line if one is due; the next is due one interval later."""
        now = self.clock()
        if now < self._due:
            return
        self.echo(self.line([*self._kept, *fresh], now - self._started))
        self._due = now + self.interval

    def line(self, finished: list[TaskResult], elapsed: float) -> str:
        unavailable = sum(r.status != SCORED for r in finished)
        paid = (f"${self._meter.paid:.4f} paid" if self._priced and self._meter is not None
                else "cost unknown (no prices given)")
        return (f"progress: {len(finished)}/{self._total} tasks done, running accuracy "
                f"{running_accuracy(finished):.1f}%, {unavailable} unavailable, {paid}, "
                f"{elapsed:.0f} s")


__all__ = ["DEFAULT_INTERVAL_S", "ProgressLines"]
