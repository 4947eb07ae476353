"""The places of a model a drawing must let a reader locate, and their distinct stations.

Read from the model alone (no pixel): the dimension chains tick these places and the
value texts choose a legend from the gaps between them, so both read them here.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...model.semantics import distributed_extent, link_axis, world_point_of_load
from ...model.types import DistributedLoad, Model


def features(model: Model) -> list[tuple[float, float]]:
    """World (x, y) of every joint, concentrated load on a member and distributed-load edge."""
    return [f.world for f in places(model)]


@dataclass(frozen=True)
class Place:
    """A place a reader must locate: a joint or a load position on a member.

    ``axes`` are the coordinates it needs from the chains: a joint both (unless a
    member along an axis gives one), a place on a horizontal member only x, on a
    vertical one only y, on an inclined one either (``"either"``).
    """

    world: tuple[float, float]
    target: str  # "point:P3" or "link:L2"
    axes: str  # "xy", "x", "y" or "either"


def places(model: Model) -> list[Place]:
    out = [Place((p.x, p.y), f"point:{p.id}", "xy") for p in model.points]
    for load in model.loads:
        if load.target.type != "link":
            continue
        link = model.link(load.target.id)
        ex, ey, length = link_axis(model, link)
        axes = "x" if abs(ey) < 1e-12 else "y" if abs(ex) < 1e-12 else "either"
        pa = model.point(link.a)
        if isinstance(load, DistributedLoad):
            s0, s1, _ = distributed_extent(model, load)
            stations = [s for s in (s0, s1) if 1e-9 < s < length - 1e-9]
            out += [Place((pa.x + ex * s, pa.y + ey * s), f"link:{link.id}", axes)
                    for s in stations]
        else:
            out.append(Place(world_point_of_load(model, load), f"link:{link.id}", axes))
    return out


def distinct(values: list[float], tol: float) -> list[float]:
    out: list[float] = []
    for v in sorted(values):
        if not out or v - out[-1] > tol:
            out.append(v)
    return out

