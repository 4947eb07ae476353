"""Solutions of one load case: reactions as FrameCalc reports them, exact internal forces.

Internal forces come from the kernel as polynomials per piece between load
positions, so any station can be evaluated exactly (both sides of a jump), and
sampling for display is a presentation choice, not an approximation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..model.types import Model, SupportKind
from .abi import RawCase
from .problem import REACTION_TYPES


@dataclass(frozen=True)
class Reaction:
    at_id: str
    type: str  # "ux" | "uy" | "rz" | "normal"
    value: float

    def to_json(self) -> dict[str, object]:
        return {"atId": self.at_id, "type": self.type, "value": self.value}


@dataclass(frozen=True)
class CaseSolution:
    model: Model
    raw: RawCase
    lengths: np.ndarray = field(repr=False)

    @cached_property
    def reactions(self) -> list[Reaction]:
        out = []
        for s, comps in zip(self.model.supports, self.raw.reactions, strict=True):
            for name, index in REACTION_TYPES[s.kind]:
                out.append(Reaction(s.id, name, float(comps[index])))
        return out

    @property
    def max_abs_moment(self) -> float:
        return self.raw.max_abs_moment

    @property
    def max_abs_moment_at(self) -> tuple[str, float]:
        return self.model.links[self.raw.max_elem].id, self.raw.max_s

    def evaluate(self, link_index: np.ndarray, s: np.ndarray, *,
                 side: str | np.ndarray = "right",
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(n, v, m) at stations s of links; ``side="left"`` gives the values just before
        a concentrated load at s, ``"right"`` just past it (FrameCalc's choice); a boolean
        array (True = right) reads mixed sides in one pass.

        The ends are symmetric, so swapping a link's a and b maps ``right`` at s to
        ``left`` at L − s: past loads exactly at s = L is the action on node B, and
        before loads exactly at s = 0 is the action of node A (its end force).
        """
        n, v, m = evaluate_cases([self], link_index, s, side=side)
        return n[0], v[0], m[0]

    def link_samples(self, link_index: int, per_piece: int = 11) -> list[dict[str, float]]:
        """Samples along one link: ``per_piece`` per stretch between loads, and both
        sides of every jump inside it (the later entry is the value just past the load).
        Sections only: loads exactly at an end act on that end, so the state past
        loads at s = L (the action on node B) is not a sample, as the state before
        loads at s = 0 is not."""
        p = self.raw.pieces
        rows = p[(p[:, 0] == link_index) & (p[:, 2] > p[:, 1])]
        out: list[dict[str, float]] = []
        for row in rows:
            s0, s1 = row[1], row[2]
            ss = np.linspace(s0, s1, per_piece) if s1 > s0 else np.array([s0])
            t = ss - s0
            n = row[3] + t * (row[4] + t * row[5])
            v = row[6] + t * (row[7] + t * row[8])
            m = row[9] + t * (row[10] + t * (row[11] + t * row[12]))
            for k in range(len(ss)):
                sample = {"s": float(ss[k]), "n": float(n[k]), "v": float(v[k]), "m": float(m[k])}
                same = out and out[-1]["s"] == sample["s"] and all(
                    abs(out[-1][c] - sample[c]) <= 1e-12 * (1 + abs(sample[c])) for c in "nvm")
                if same:
                    out[-1] = sample
                    continue
                out.append(sample)
        return out

    def displacements(self) -> list[dict[str, float | None]]:
        """World displacements; ``rz`` is None at points where every link end is hinged
        and no support holds the rotation (it is undefined there, FORMAT.md M5)."""
        model = self.model
        rigid = {lk.a for lk in model.links if not lk.hinge_a}
        rigid |= {lk.b for lk in model.links if not lk.hinge_b}
        rigid |= {s.at for s in model.supports if s.kind in ROTATION_HELD}
        ids = [p.id for p in model.points]
        return displacement_rows(ids, [pid in rigid for pid in ids],
                                 self.raw.displacements.ravel().tolist())


#: Support kinds that hold the rotation of their point.
ROTATION_HELD = frozenset((SupportKind.FIXED, SupportKind.SLIDER))


def displacement_rows(point_ids: Sequence[str], rotation_defined: Sequence[bool],
                      flat: Sequence[float]) -> list[dict[str, float | None]]:
    """The displacement entries of the JSON form from the kernel's ux, uy, rz per point
    in one flat sequence: ``rz`` None where it is undefined."""
    return [{"pointId": pid, "ux": ux, "uy": uy, "rz": rz if defined else None}
            for pid, defined, ux, uy, rz in zip(point_ids, rotation_defined, flat[0::3],
                                                flat[1::3], flat[2::3], strict=True)]


def evaluate_cases(cases: Sequence[CaseSolution], link_index: np.ndarray, s: np.ndarray, *,
                   side: str | np.ndarray = "right",
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(n, v, m), each (cases, stations), for solutions of one structure under several
    load cases, in one vectorised pass (the scorer reads every probe case at once)."""
    lengths = cases[0].lengths
    n_elem = len(lengths)
    li = np.asarray(link_index, dtype=np.int64)
    s = np.clip(np.asarray(s, dtype=float), 0.0, lengths[li])
    right = (np.full(len(li), side == "right") if isinstance(side, str)
             else np.asarray(side, dtype=bool))
    pieces = np.concatenate([c.raw.pieces for c in cases])
    owner = np.repeat(np.arange(len(cases)), [len(c.raw.pieces) for c in cases])
    elem = pieces[:, 0].astype(np.int64)
    block = owner * (n_elem + 1) + elem  # pieces are sorted by (case, element, s)
    keys = block + 0.5 * pieces[:, 1] / lengths[elem]
    bases = np.arange(len(cases))[:, None] * (n_elem + 1)
    first = np.searchsorted(block, bases + np.arange(n_elem)[None, :])  # (C, M)
    q = bases + (li + 0.5 * s / lengths[li])[None, :]
    idx = np.where(right[None, :], np.searchsorted(keys, q, side="right"),
                   np.searchsorted(keys, q, side="left")) - 1
    idx = np.maximum(idx, first[:, li])
    p = pieces[idx]
    t = s[None, :] - p[..., 1]
    n = p[..., 3] + t * (p[..., 4] + t * p[..., 5])
    v = p[..., 6] + t * (p[..., 7] + t * p[..., 8])
    m = p[..., 9] + t * (p[..., 10] + t * (p[..., 11] + t * p[..., 12]))
    at_a = (s == 0.0) & ~right
    if at_a.any():
        ends = np.stack([c.raw.end_forces for c in cases])[:, li[at_a]]
        n[:, at_a], v[:, at_a], m[:, at_a] = ends[..., 0], ends[..., 1], ends[..., 2]
    return n, v, m
