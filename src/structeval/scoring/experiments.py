"""The controlled experiments of the staged diagnosis, built on the numeric FE problem.

Each stage solves ground truth and candidate under the same probe loads,
placed by world position (a probe at a ground-truth point lands on the
candidate's point there, or on the candidate link passing through it):

1. geometry — one material, every joint rigid, both fixed at the ground truth's
   support positions: only the shape and connectivity can differ;
2. supports — each model's own supports restored;
3. releases — each model's own hinges restored;
4. loads — each model's own loads and materials.

Probes cover every direction so that a difference that can change the physics
under some load shows at its own stage: uniform loads along −y and +x on every
member, a force at every ground-truth point at a different angle each, and (while
all joints are rigid) a couple at every ground-truth point; once hinges are restored,
only where the ground truth's joint can take a couple.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from ..fe.analyze import MechanismError, run_problem
from ..fe.problem import LOAD_COUPLE, LOAD_DISTRIBUTED, LOAD_FORCE, FEProblem, compile_model
from ..fe.results import CaseSolution
from ..model.parse import DEFAULT_A, DEFAULT_E, DEFAULT_IZ
from ..model.types import Model
from .align import Alignment, Placement
from .gtcache import GT_CACHE
from .stations import Stations

STAGES = ("geometry", "supports", "releases", "loads")
PROBES = ("uniform load along -y", "uniform load along +x", "forces at points",
          "couples at points")


@dataclass(frozen=True)
class StageRun:
    """Both models' solutions for one stage, and how their supports correspond."""

    stage: str
    case_names: tuple[str, ...]
    gt: list[CaseSolution]
    cand: list[CaseSolution] | None  # None when the candidate is a mechanism here
    mechanism: MechanismError | None
    gt_supports: np.ndarray  # support arrays used (for world reactions)
    cand_supports: np.ndarray
    pairs: tuple[tuple[int, int], ...]  # (gt support, candidate support), -1 = none
    stations: Stations


def _unified(elems: np.ndarray, *, rigid: bool) -> np.ndarray:
    out = elems.copy()
    out[:, 2], out[:, 3], out[:, 4] = DEFAULT_E, DEFAULT_A, DEFAULT_IZ
    if rigid:
        out[:, 5:7] = 0.0
    return out


def _udl_cases(p: FEProblem, first_case: int) -> np.ndarray:
    """Uniform loads of 1 per metre along world −y, then +x, on every element."""
    xy = p.nodes
    d = xy[p.elems[:, 1].astype(int)] - xy[p.elems[:, 0].astype(int)]
    length = np.hypot(d[:, 0], d[:, 1])
    c, s = d[:, 0] / length, d[:, 1] / length
    rows = []
    for case, (wx, wy) in enumerate(((0.0, -1.0), (1.0, 0.0)), start=first_case):
        qx, qy = wx * c + wy * s, -wx * s + wy * c
        m = len(length)
        rows.append(np.column_stack([np.full(m, case), np.arange(m), np.full(m, LOAD_DISTRIBUTED),
                                     np.zeros(m), length, qx, qy, qx, qy]))
    return np.vstack(rows)


def _point_probe(k: int) -> tuple[float, float, float]:
    """Force direction and couple of the probe at ground-truth point k (all differ)."""
    angle = math.radians((37.0 + 61.0 * k) % 360.0)
    return math.cos(angle), math.sin(angle), (1.0 + k % 3) * (1.0 if k % 2 == 0 else -1.0)


def _point_cases(p: FEProblem, places: list[Placement | None], couples: np.ndarray,
                 scale: float) -> tuple[np.ndarray, np.ndarray]:
    """Case 2: forces at the ground-truth points; case 3: couples where ``couples`` allows."""
    nodal, onlink = [], []
    xy = p.nodes
    for k, place in enumerate(places):
        if place is None:
            continue
        fx, fy, cm = _point_probe(k)
        cm *= scale
        if place.point is not None:
            nodal.append((2, place.point, fx, fy, 0.0))
            if couples[k]:
                nodal.append((3, place.point, 0.0, 0.0, cm))
            continue
        e = place.link
        a, b = int(p.elems[e, 0]), int(p.elems[e, 1])
        d = xy[b] - xy[a]
        length = math.hypot(d[0], d[1])
        c, s = d[0] / length, d[1] / length
        onlink.append((2, e, LOAD_FORCE, place.s, fx * c + fy * s, -fx * s + fy * c, 0, 0, 0))
        if couples[k]:
            onlink.append((3, e, LOAD_COUPLE, place.s, cm, 0, 0, 0, 0))
    return (np.array(nodal, dtype=float).reshape(-1, 5),
            np.array(onlink, dtype=float).reshape(-1, 9))


def _couple_probe_points(gt: Model) -> np.ndarray:
    """Ground-truth points that take a probe couple once hinges are restored.

    A joint with a single rigid end passes no moment to its member under member
    loads, so whether that end is written hinged is invisible unless a couple acts
    on the joint (a rotation-holding support or a real couple there). Probing such
    joints with couples would fault harmless encodings such as a hinge written at a
    pin support; probing the others catches every hinge that matters.
    """
    rigid: dict[str, int] = {}
    for lk in gt.links:
        for pid, hinged in ((lk.a, lk.hinge_a), (lk.b, lk.hinge_b)):
            rigid[pid] = rigid.get(pid, 0) + (not hinged)
    held = {s.at for s in gt.supports if s.kind.value in ("fixed", "slider")}
    held |= {ld.target.id for ld in gt.loads
             if ld.kind == "bendingMoment" and ld.target.type == "point"}
    return np.array([rigid.get(p.id, 0) >= 2 or (rigid.get(p.id, 0) >= 1 and p.id in held)
                     for p in gt.points])


def split_element(p: FEProblem, e: int, at: float) -> tuple[FEProblem, int, int]:
    """Cut element e at s = at with a rigid joint; loads follow their positions.

    Returns (problem, new node, new element holding the part beyond ``at``).
    """
    a, b = int(p.elems[e, 0]), int(p.elems[e, 1])
    d = p.nodes[b] - p.nodes[a]
    length = math.hypot(d[0], d[1])
    node = len(p.nodes)
    nodes = np.vstack([p.nodes, p.nodes[a] + d * (at / length)])
    head, tail = p.elems[e].copy(), p.elems[e].copy()
    head[1], head[6] = node, 0.0
    tail[0], tail[5] = node, 0.0
    elems = np.vstack([p.elems, tail])
    elems[e] = head
    new = len(p.elems)
    rows = []
    for r in p.elem_loads:
        if int(r[1]) != e:
            rows.append(r)
            continue
        if int(r[2]) != LOAD_DISTRIBUTED:
            r = r.copy()
            if r[3] > at:
                r[1], r[3] = new, r[3] - at
            rows.append(r)
            continue
        s1, s2 = r[3], r[4]

        def q(s: float, r: np.ndarray = r, s1: float = s1, s2: float = s2) -> np.ndarray:
            f = (s - s1) / (s2 - s1)
            return r[5:7] + f * (r[7:9] - r[5:7])

        if s1 < at:
            hi = min(s2, at)
            rows.append(np.r_[r[0], e, LOAD_DISTRIBUTED, s1, hi, q(s1), q(hi)])
        if s2 > at:
            lo = max(s1, at)
            rows.append(np.r_[r[0], new, LOAD_DISTRIBUTED, lo - at, s2 - at, q(lo), q(s2)])
    elem_loads = np.array(rows, dtype=float).reshape(-1, 9)
    return replace(p, nodes=nodes, elems=elems, elem_loads=elem_loads), node, new


def _fixed_at(nodes: list[int]) -> np.ndarray:
    return np.array([(n, 0b111, 1.0, 0.0, 0.0) for n in nodes], dtype=float).reshape(-1, 5)




class Experiment:
    """Runs (and caches) the stages for one ground truth / candidate pair."""

    def __init__(self, gt: Model, cand: Model, al: Alignment, stations: Stations):
        self.gt, self.cand, self.al, self.stations = gt, cand, al, stations
        self.gt_base = GT_CACHE.get(gt, "base", lambda: compile_model(gt))
        self.cand_base = compile_model(cand)
        self.scale = float(max(al.gt.length.max(), 1e-9))
        self.gt_places = [Placement(k, None, 0.0) for k in range(len(gt.points))]
        self.cand_places = [
            Placement(int(al.point_map[k]), None, 0.0) if al.point_map[k] >= 0
            else al.locate(al.gt.xy[k]) for k in range(len(gt.points))]
        self.pairs = tuple((i, int(j)) for i, j in enumerate(al.support_map)) + tuple(
            (-1, j) for j in al.extra_supports)
        self._runs: dict[str, StageRun] = {}
        self.couple_ok = _couple_probe_points(gt)

    def _probe_problem(self, base: FEProblem, places: list[Placement | None], *, rigid: bool,
                       supports: np.ndarray) -> FEProblem:
        p = replace(base, elems=_unified(base.elems, rigid=rigid), supports=supports)
        couples = np.ones(len(places), dtype=bool) if rigid else self.couple_ok
        nodal, onlink = _point_cases(p, places, couples, self.scale)
        loads = np.vstack([_udl_cases(p, 0), onlink])
        return replace(p, nodal_loads=nodal, elem_loads=loads, n_cases=len(PROBES))

    def run(self, stage: str) -> StageRun:
        if stage not in self._runs:
            self._runs[stage] = self._run(stage)
        return self._runs[stage]

    def _run(self, stage: str) -> StageRun:
        stations, pairs = self.stations, self.pairs
        gt_base = self.gt_base
        gt_sup = gt_base.supports
        if stage == "loads":
            names: tuple[str, ...] = ("the given loads",)
            cand_p = self.cand_base

            def gt_problem() -> FEProblem:
                return gt_base
        elif stage == "geometry":
            names = PROBES
            gt_index = {p.id: i for i, p in enumerate(self.gt.points)}
            gt_nodes = [gt_index[s.at] for s in self.gt.supports]
            gt_sup = _fixed_at(gt_nodes)
            cand_p, stations = self._geometry_candidate(gt_nodes)
            pairs = tuple((i, i) for i in range(len(gt_nodes)))

            def gt_problem() -> FEProblem:
                return self._probe_problem(gt_base, self.gt_places, rigid=True, supports=gt_sup)
        else:
            rigid = stage == "supports"
            names = PROBES
            cand_p = self._probe_problem(self.cand_base, self.cand_places, rigid=rigid,
                                         supports=self.cand_base.supports)

            def gt_problem() -> FEProblem:
                return self._probe_problem(gt_base, self.gt_places, rigid=rigid, supports=gt_sup)
        gt_sols = GT_CACHE.get(self.gt, f"stage:{stage}",
                               lambda: run_problem(gt_problem(), self.gt))
        try:
            cand_sols: list[CaseSolution] | None = run_problem(cand_p, self.cand)
            mech = None
        except MechanismError as exc:
            cand_sols, mech = None, exc
        return StageRun(stage, names, gt_sols, cand_sols, mech, gt_sup, cand_p.supports,
                        pairs, stations)

    def _geometry_candidate(self, gt_nodes: list[int]) -> tuple[FEProblem, Stations]:
        """Candidate probe problem held fixed at the ground truth's support positions.

        Where the candidate has no point at such a position its link is cut there
        (cuts on one link go from the far end inwards so earlier positions stay valid).
        """
        cand_p = self._probe_problem(self.cand_base, self.cand_places, rigid=True,
                                     supports=_fixed_at([]))
        stations = self.stations
        nodes: list[int] = [-1] * len(gt_nodes)
        cuts: list[tuple[int, float, int]] = []
        for slot, k in enumerate(gt_nodes):
            place = self.cand_places[k]
            if place is None:
                raise ValueError("geometry stage needs every support position on the candidate")
            if place.point is not None:
                nodes[slot] = place.point
            else:
                cuts.append((int(place.link), place.s, slot))  # type: ignore[arg-type]
        for elem, at, slot in sorted(cuts, key=lambda c: (c[0], -c[1])):
            cand_p, node, new = split_element(cand_p, elem, at)
            stations = stations.remap_split(elem, at, new)
            nodes[slot] = node
        return replace(cand_p, supports=_fixed_at(nodes)), stations
