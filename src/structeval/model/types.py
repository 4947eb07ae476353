"""Typed, validated FrameCalc model.

Objects here are only ever built by :mod:`structeval.model.parse` (from untrusted
JSON) or by code that constructs known-good structures (generator, scorer
variants), so every consumer may rely on the invariants documented per class
instead of re-checking them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Literal


class SupportKind(str, Enum):
    PIN = "pin"
    ROLLER = "roller"
    FIXED = "fixed"
    SLIDER = "slider"


class AngleMode(str, Enum):
    WORLD = "world"
    RELATIVE = "relative"


class OffsetMode(str, Enum):
    METRES = "m"
    PERCENT = "percent"


RefEnd = Literal["A", "B"]
TargetType = Literal["point", "link"]


@dataclass(frozen=True)
class Point:
    id: str
    x: float
    y: float


@dataclass(frozen=True)
class Link:
    """A straight prismatic member from point ``a`` (end A) to ``b`` (end B).

    ``hinge_a``/``hinge_b`` are exact moment releases (FORMAT.md M4).
    """

    id: str
    a: str
    b: str
    E: float
    A: float
    Iz: float
    hinge_a: bool = False
    hinge_b: bool = False


@dataclass(frozen=True)
class Support:
    """A support at a point; ``angle_deg`` only matters for rollers and sliders (S1)."""

    id: str
    at: str
    kind: SupportKind
    angle_deg: float = 0.0


@dataclass(frozen=True)
class Target:
    type: TargetType
    id: str


@dataclass(frozen=True)
class Position:
    """Where a concentrated load sits on a link (FORMAT.md P1/P2).

    ``value`` is metres from ``ref_end`` when ``mode`` is METRES, a percentage of
    the link length otherwise.
    """

    ref_end: RefEnd = "A"
    mode: OffsetMode = OffsetMode.METRES
    value: float = 0.0

    def s_on(self, length: float) -> float:
        return s_along(self.ref_end, self.mode, self.value, length)


def s_along(ref_end: RefEnd, mode: OffsetMode, value: float, length: float) -> float:
    """:meth:`Position.s_on` of the position (``ref_end``, ``mode``, ``value``), unclamped:
    for readers that hold the fields rather than the object (the canonical reader)."""
    d = value if mode is OffsetMode.METRES else length * value / 100.0
    return d if ref_end == "A" else length - d


@dataclass(frozen=True)
class PointLoad:
    id: str
    target: Target
    value: float
    angle_deg: float = 0.0
    angle_mode: AngleMode = AngleMode.RELATIVE
    flip: int = 1
    position: Position | None = None  # set iff target.type == "link"
    kind: Literal["pointLoad"] = field(default="pointLoad", init=False)


@dataclass(frozen=True)
class DistributedLoad:
    """Linearly varying load per metre of member length on ``fromStart ≤ s ≤ L − fromEnd``."""

    id: str
    target: Target  # always a link
    w_start: float
    w_end: float
    from_start: float = 0.0
    from_end: float = 0.0
    angle_deg: float = 0.0
    angle_mode: AngleMode = AngleMode.RELATIVE
    flip: int = 1
    kind: Literal["distributedLoad"] = field(default="distributedLoad", init=False)


@dataclass(frozen=True)
class BendingMoment:
    """A couple ``flip·value``, CCW positive (C1)."""

    id: str
    target: Target
    value: float
    flip: int = 1
    position: Position | None = None  # set iff target.type == "link"
    kind: Literal["bendingMoment"] = field(default="bendingMoment", init=False)


Load = PointLoad | DistributedLoad | BendingMoment


@dataclass(frozen=True)
class Model:
    """A validated structure: ids unique, references resolved, geometry sane."""

    points: tuple[Point, ...]
    links: tuple[Link, ...]
    supports: tuple[Support, ...]
    loads: tuple[Load, ...]

    def point(self, pid: str) -> Point:
        return self._points_by_id()[pid]

    def link(self, lid: str) -> Link:
        return self._links_by_id()[lid]

    def _points_by_id(self) -> dict[str, Point]:
        cache = self.__dict__.get("_pmap")
        if cache is None:
            cache = {p.id: p for p in self.points}
            object.__setattr__(self, "_pmap", cache)
        return cache

    def _links_by_id(self) -> dict[str, Link]:
        cache = self.__dict__.get("_lmap")
        if cache is None:
            cache = {lk.id: lk for lk in self.links}
            object.__setattr__(self, "_lmap", cache)
        return cache

    def link_geometry(self, link: Link) -> tuple[float, float, float, float]:
        """(x_a, y_a, length, axis angle in radians) of a link."""
        pa, pb = self.point(link.a), self.point(link.b)
        dx, dy = pb.x - pa.x, pb.y - pa.y
        return pa.x, pa.y, math.hypot(dx, dy), math.atan2(dy, dx)

    def with_(self, **changes: object) -> Model:
        """A copy with some fields replaced (the caller keeps the invariants)."""
        return replace(self, **changes)  # type: ignore[arg-type]
