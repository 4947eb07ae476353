"""Joints, members and hinges, from the member glyphs' end points and the circles."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .geometry import XY, point_segment
from .view import Drawing, ReadError

JOIN = 1.5  # px: member ends this close meet at one joint


@dataclass
class Member:
    a: int  # joint indices, in the order the member's glyph lists its ends
    b: int
    hinge_a: bool = False
    hinge_b: bool = False


@dataclass
class Topology:
    joints: list[XY] = field(default_factory=list)
    members: list[Member] = field(default_factory=list)

    def joint_at(self, p: XY, tol: float = JOIN) -> int | None:
        best = min(range(len(self.joints)), key=lambda i: math.dist(self.joints[i], p),
                   default=None)
        if best is not None and math.dist(self.joints[best], p) <= tol:
            return best
        return None

    def segment(self, m: Member) -> tuple[XY, XY]:
        return self.joints[m.a], self.joints[m.b]

    def members_at(self, j: int) -> list[int]:
        return [k for k, m in enumerate(self.members) if j in (m.a, m.b)]

    def member_through(self, p: XY, tol: float = JOIN) -> int | None:
        """The member whose line passes through p (between its ends)."""
        hits = [k for k, m in enumerate(self.members) if point_segment(p, *self.segment(m)) <= tol]
        if len(hits) > 1:
            raise ReadError(f"the place at {p} lies on {len(hits)} members")
        return hits[0] if hits else None


def read_topology(d: Drawing) -> Topology:
    top = Topology()
    for g in d.of("member"):
        a, b = g.paths["ends"]
        ends = []
        for p in (a, b):
            j = top.joint_at(p)
            if j is None:
                top.joints.append(p)
                j = len(top.joints) - 1
            ends.append(j)
        if ends[0] == ends[1]:
            raise ReadError("a member of no length")
        top.members.append(Member(ends[0], ends[1]))
    if not top.members:
        raise ReadError("the drawing shows no members")
    return top


def read_hinges(d: Drawing, top: Topology, pin_jointed: bool) -> None:
    """A circle on a joint releases every member end there; a circle beside a joint on a
    member releases that member's end. A pin-jointed truss (the notes say so) has every
    end released."""
    if pin_jointed:
        for m in top.members:
            m.hinge_a = m.hinge_b = True
    for g in d.of("hinge"):
        c = g.pts["centre"]
        j = top.joint_at(c)
        if j is not None:
            for k in top.members_at(j):
                m = top.members[k]
                m.hinge_a |= m.a == j
                m.hinge_b |= m.b == j
            continue
        k = top.member_through(c)
        if k is None:
            raise ReadError(f"a hinge circle at {c} is on no member")
        m = top.members[k]
        if released_joint(top, c) == m.a:
            m.hinge_a = True
        else:
            m.hinge_b = True


def released_joint(top: Topology, centre: XY) -> int | None:
    """The joint whose member end a circle on a member releases: the member's nearer end
    (None when the circle is on no member)."""
    k = top.member_through(centre)
    if k is None:
        return None
    m = top.members[k]
    pa, pb = top.segment(m)
    return m.a if math.dist(centre, pa) < math.dist(centre, pb) else m.b
