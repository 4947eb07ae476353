"""Coordinates implied by a straight member: a joint on a chord between two known joints.

When the picture shows a joint on a straight run of members (the members at it are
in line, within half a degree, and the run continues straight through it), and the
run reaches, in each direction, a joint whose x and y are known, the joint lies on
the segment between those two: its y follows exactly from its x (and its x from its
y, for a run that is not horizontal). Nothing is taken from a pixel distance.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .geometry import XY, dot, parallel, sub, unit
from .topology import Topology


def _onward(top: Topology, j: int, d: XY) -> int | None:
    """The joint at the far end of the member leaving ``j`` straight on in direction d."""
    ahead = []
    for k in top.members_at(j):
        m = top.members[k]
        other = m.b if m.a == j else m.a
        e = unit(sub(top.joints[other], top.joints[j]))
        if parallel(e, d) and dot(e, d) > 0:
            ahead.append(other)
    return ahead[0] if len(ahead) == 1 else None


def _known_end(top: Topology, j: int, d: XY, got: list[dict[str, float]]) -> int | None:
    seen = {j}
    k = _onward(top, j, d)
    while k is not None and k not in seen:
        if "x" in got[k] and "y" in got[k]:
            return k
        seen.add(k)
        k = _onward(top, k, d)
    return None


def on_chords(top: Topology, spots: Sequence[Any], got: list[dict[str, float]]) -> None:
    for j in range(len(top.joints)):
        have = got[j]
        if ("x" in have) == ("y" in have):
            continue
        dirs = [unit(sub(top.joints[top.members[k].b if top.members[k].a == j
                                     else top.members[k].a], top.joints[j]))
                for k in top.members_at(j)]
        for d in dirs:
            back = (-d[0], -d[1])
            if not any(parallel(e, back) and dot(e, back) > 0 for e in dirs):
                continue
            a, b = _known_end(top, j, d, got), _known_end(top, j, back, got)
            if a is None or b is None:
                continue
            (xa, ya), (xb, yb) = (got[a]["x"], got[a]["y"]), (got[b]["x"], got[b]["y"])
            if "x" in have and abs(xb - xa) > 1e-12:
                have["y"] = ya + (have["x"] - xa) * (yb - ya) / (xb - xa)
            elif "y" in have and abs(yb - ya) > 1e-12:
                have["x"] = xa + (have["y"] - ya) * (xb - xa) / (yb - ya)
            break
