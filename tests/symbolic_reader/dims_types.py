"""The chain record the coordinate modules share (dimension chains and level marks)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .geometry import XY


@dataclass
class Chain:
    axis: str  # "x" or "y"
    along: XY
    line: tuple[XY, XY]
    stations: list[float]  # page coordinate of each tick along the axis, ascending
    inner: list[XY]  # the extension line's inner end per tick (the tick itself if none)
    values: list[float | None]
    level: bool = False  # a level mark: one station whose value its text fixes
    outer: list[XY] = field(default_factory=list)  # the extension line's outer end per tick
