"""Our kernel against an independent FE code (PyNiteFEA) on 240 random stable structures.

PyNite is a 3-D frame code written independently of ours: the structures are
built in its XY plane with the out-of-plane freedoms held. Both codes use
Euler–Bernoulli members with axial deformation (realistic sections, E ≈ 2e8,
A ≈ 1e-2, Iz ≈ 1e-4, see tests/random_structures.py), exact end releases and
exact fixed-end actions, so they solve the same equations and must agree to
round-off; the bar is 1e-6 of the problem's largest value.

Supports: PyNite restrains only world axes, so a model whose rollers/sliders are
all axis-aligned is compared with exact constraints (our default). Every model
is also compared with support springs of stiffness K_SPRING in both codes (our
``spring=`` mode); an inclined restraint is a PyNite axial-only member of
stiffness K_SPRING along the support normal to a fixed point, which is exactly a
spring there. Load directions and positions come from ``structeval.model.semantics``
(the single source of FrameCalc's angle/offset rules, checked by hand values in
test_closed_forms.py); what is under test here is the mechanics.
"""

from __future__ import annotations

import contextlib
import io
import math
from dataclasses import dataclass

import numpy as np
import pytest

pytest.importorskip("Pynite")
from Pynite import Analysis, FEModel3D

from structeval.fe import CaseSolution, MechanismError, analyze
from structeval.model import (
    BendingMoment,
    DistributedLoad,
    Model,
    ModelError,
    PointLoad,
    SupportKind,
    parse_model,
)
from structeval.model.semantics import (
    couple,
    distributed_extent,
    force_direction,
    position_on_link,
)

from .random_structures import random_models

SEED = 20260601
COUNT = 240
K_SPRING = 1e8
REL_TOL = 1e-6
AUX = 0.437  # length of PyNite's inclined spring members (odd, to miss other points)
STATIONS = 11  # k·L/10 on every link, plus both sides of every load position

_rejected: list[dict] = []
MODELS = random_models(SEED, COUNT, keep_rejected=_rejected)


# ------------------------------------------------------- restraints (FORMAT.md §4)


Direction = tuple[float, float, float]


def _restraints(kind: SupportKind, angle_deg: float) -> list[tuple[str, Direction]]:
    """(reported type, restrained direction (x, y, rotation)) of a support, from the
    table in FORMAT.md §4, written out independently of structeval.fe.problem."""
    t = math.radians(angle_deg)
    if kind is SupportKind.PIN:
        return [("ux", (1.0, 0.0, 0.0)), ("uy", (0.0, 1.0, 0.0))]
    if kind is SupportKind.FIXED:
        return [("ux", (1.0, 0.0, 0.0)), ("uy", (0.0, 1.0, 0.0)), ("rz", (0.0, 0.0, 1.0))]
    if kind is SupportKind.ROLLER:
        return [("normal", (-math.sin(t), math.cos(t), 0.0))]
    return [("normal", (math.cos(t), math.sin(t), 0.0)), ("rz", (0.0, 0.0, 1.0))]


def _world_axis(direction: Direction) -> str | None:
    """'DX' / 'DY' / 'RZ' when the restraint is along a world axis, else None."""
    for name, axis in (("DX", 0), ("DY", 1), ("RZ", 2)):
        if abs(abs(direction[axis]) - 1.0) < 1e-12:
            return name
    return None


def _axis_aligned(model: Model) -> bool:
    return all(_world_axis(d) is not None
               for s in model.supports for _, d in _restraints(s.kind, s.angle_deg))


# ------------------------------------------------------------- PyNite model


@dataclass
class Reference:
    fe: FEModel3D
    spring: float

    def reactions(self, model: Model) -> list[tuple[str, str, float]]:
        out = []
        for s in model.supports:
            node = self.fe.nodes[s.at]
            u = (node.DX["Combo 1"], node.DY["Combo 1"], node.RZ["Combo 1"])
            r = (node.RxnFX["Combo 1"], node.RxnFY["Combo 1"], node.RxnMZ["Combo 1"])
            for name, d in _restraints(s.kind, s.angle_deg):
                if self.spring:  # spring force on the structure
                    value = -self.spring * sum(a * b for a, b in zip(u, d, strict=True))
                else:
                    value = sum(a * b for a, b in zip(r, d, strict=True))
                out.append((s.id, name, float(value)))
        return out

    def internal(self, link_id: str, s: float, side: str) -> tuple[float, float, float]:
        """(n, v, m) in FrameCalc's signs (O2); PyNite's local y may be −e_y."""
        physical = self.fe.members[link_id]
        assert len(physical.sub_members) == 1, "PyNite split a link at a node lying on it"
        member = next(iter(physical.sub_members.values()))
        member.moment("Mz", 0.0)  # makes PyNite cut the member into its segments
        segments = member.SegmentsZ
        tol = 1e-9 * member.L()
        if side == "right":
            seg = next((g for g in segments if g.x1 - tol <= s < g.x2 - tol), segments[-1])
        else:
            seg = next((g for g in segments if g.x1 + tol < s <= g.x2 + tol), segments[0])
        x = s - seg.x1
        t = member.T()
        ex = np.array([t[0, 0], t[0, 1]])
        ey_pynite = np.array([t[1, 0], t[1, 1]])
        sign = float(np.sign(ey_pynite @ np.array([-ex[1], ex[0]])))
        return float(seg.axial(x)), sign * float(seg.shear(x)), sign * float(seg.moment(x))

    def max_abs_moment(self) -> float:
        return max(max(abs(m.max_moment("Mz")), abs(m.min_moment("Mz")))
                   for m in self.fe.members.values() if not m.name.startswith("aux:"))


def build_reference(model: Model, spring: float, *, solve: bool = True) -> FEModel3D:
    """PyNite's version of ``model``: supports exact (spring 0) or springs of ``spring``."""
    fe = FEModel3D()
    rotation_held = {s.at for s in model.supports if s.kind in (SupportKind.FIXED,
                                                                SupportKind.SLIDER)}
    rigid = {lk.a for lk in model.links if not lk.hinge_a} | {
        lk.b for lk in model.links if not lk.hinge_b}
    restraints = {s.at: _restraints(s.kind, s.angle_deg) for s in model.supports}
    for p in model.points:
        fe.add_node(p.id, p.x, p.y, 0.0)
        held = {"DX": False, "DY": False, "RZ": p.id not in rigid and p.id not in rotation_held}
        for _, d in restraints.get(p.id, []):
            axis = _world_axis(d)
            if not spring:
                assert axis is not None
                held[axis] = True
            elif axis is not None:
                fe.def_support_spring(p.id, axis, spring)
            else:  # axial-only member of stiffness `spring` along the normal, to a fixed point
                aux = f"aux:{p.id}"
                fe.add_node(aux, p.x + AUX * d[0], p.y + AUX * d[1], 0.0)
                fe.def_support(aux, True, True, True, True, True, True)
                fe.add_material(aux, spring, spring / 2.6, 0.3, 0.0)
                fe.add_section(aux, AUX, 1.0, 1.0, 1.0)  # E·A/L = spring
                fe.add_member(aux, p.id, aux, aux, aux)
                fe.def_releases(aux, Rzi=True, Rzj=True)
        fe.def_support(p.id, held["DX"], held["DY"], True, True, True, held["RZ"])
    for lk in model.links:
        fe.add_material(lk.id, lk.E, lk.E / 2.6, 0.3, 0.0)
        fe.add_section(lk.id, lk.A, lk.Iz, lk.Iz, lk.Iz)
        fe.add_member(lk.id, lk.a, lk.b, lk.id, lk.id)
        fe.def_releases(lk.id, Rzi=lk.hinge_a, Rzj=lk.hinge_b)
    for load in model.loads:
        _add_load(fe, model, load)
    if solve:
        with contextlib.redirect_stdout(io.StringIO()):
            fe.analyze_linear(check_stability=True, sparse=False)
    return fe


def _add_load(fe: FEModel3D, model: Model, load: PointLoad | DistributedLoad | BendingMoment,
              ) -> None:
    tid = load.target.id
    if isinstance(load, BendingMoment):
        if load.target.type == "point":
            fe.add_node_load(tid, "MZ", couple(load))
        else:
            fe.add_member_pt_load(tid, "MZ", couple(load), position_on_link(model, load))
        return
    dx, dy = force_direction(model, load)
    if isinstance(load, PointLoad):
        if load.target.type == "point":
            fe.add_node_load(tid, "FX", load.value * dx)
            fe.add_node_load(tid, "FY", load.value * dy)
        else:
            s = position_on_link(model, load)
            fe.add_member_pt_load(tid, "FX", load.value * dx, s)
            fe.add_member_pt_load(tid, "FY", load.value * dy, s)
        return
    s0, s1, _ = distributed_extent(model, load)
    fe.add_member_dist_load(tid, "FX", load.w_start * dx, load.w_end * dx, s0, s1)
    fe.add_member_dist_load(tid, "FY", load.w_start * dy, load.w_end * dy, s0, s1)


# ------------------------------------------------------------------ comparison


def _stations(model: Model, index: int, length: float) -> list[tuple[float, str]]:
    """k·L/10, and both sides of every concentrated load and partial-load edge.

    At s = L the interior side ("left") is compared: a load exactly at an end acts on
    the link end, and the state past it is the end force, not a section of the link.
    """
    out = [(k * length / (STATIONS - 1), "right") for k in range(STATIONS - 1)]
    out.append((length, "left"))
    link_id = model.links[index].id
    for load in model.loads:
        if load.target.type != "link" or load.target.id != link_id:
            continue
        if isinstance(load, DistributedLoad):
            s0, s1, _ = distributed_extent(model, load)
            places = [s0, s1]
        else:
            places = [position_on_link(model, load)]
        for s in places:
            if 0.0 < s < length:
                out += [(s, "left"), (s, "right")]
    return out


def _compare(model: Model, ours: CaseSolution, ref: Reference) -> None:
    got = [(r.at_id, r.type, r.value) for r in ours.reactions]
    want = ref.reactions(model)
    assert [g[:2] for g in got] == [w[:2] for w in want]
    r_ours = np.array([g[2] for g in got])
    r_ref = np.array([w[2] for w in want])
    scale = max(float(np.abs(r_ref).max()), 1e-300)
    bad = np.abs(r_ours - r_ref) > REL_TOL * scale
    assert not bad.any(), [(want[i], r_ours[i]) for i in np.flatnonzero(bad)]

    rows_ours, rows_ref, where = [], [], []
    for index, link in enumerate(model.links):
        length = float(ours.lengths[index])
        for s, side in _stations(model, index, length):
            n, v, m = ours.evaluate(np.array([index]), np.array([s]), side=side)
            rows_ours.append((n[0], v[0], m[0]))
            rows_ref.append(ref.internal(link.id, s, side))
            where.append((link.id, round(s, 6), side))
    a, b = np.array(rows_ours), np.array(rows_ref)
    # Largest |value| of the problem: forces for n and v; for m the larger of max |m| and
    # that force times 1 m, so an all-zero diagram (a truss under nodal loads) is not
    # judged against its own round-off.
    force = max(float(np.abs(r_ref).max()), float(np.abs(b[:, :2]).max()))
    for col, name in enumerate("nvm"):
        scale = max(force, float(np.abs(b[:, col]).max()))
        bad = np.abs(a[:, col] - b[:, col]) > REL_TOL * scale
        assert not bad.any(), (name, [(where[i], a[i, col], b[i, col])
                                      for i in np.flatnonzero(bad)[:5]])
    ref_max = ref.max_abs_moment()
    assert abs(ours.max_abs_moment - ref_max) <= REL_TOL * max(force, ref_max), (
        ours.max_abs_moment, ref_max)


def _case_id(index: int) -> str:
    family, doc = MODELS[index]
    return f"{index:03d}-{family}-{len(doc['links'])}links"


@pytest.mark.parametrize("index", range(COUNT), ids=_case_id)
def test_against_pynite(index: int) -> None:
    _, doc = MODELS[index]
    model = parse_model(doc)
    modes = ([0.0] if _axis_aligned(model) else []) + [K_SPRING]
    for spring in modes:
        ours = analyze(model, spring=spring)[0]
        _compare(model, ours, Reference(build_reference(model, spring), spring))


def test_generator_covers_every_feature() -> None:
    """The 240 models really contain what the differential claims to test."""
    models = [parse_model(doc) for _, doc in MODELS]
    seen: set[str] = set()
    for m in models:
        ends_at: dict[str, list[bool]] = {}
        for lk in m.links:
            ends_at.setdefault(lk.a, []).append(lk.hinge_a)
            ends_at.setdefault(lk.b, []).append(lk.hinge_b)
            if lk.hinge_a and lk.hinge_b:
                seen.add("hinge-hinge link")
            elif lk.hinge_a or lk.hinge_b:
                seen.add("one hinged end")
        if any(all(flags) and len(flags) > 1 for flags in ends_at.values()):
            seen.add("all-hinged node")
        for s in m.supports:
            seen.add(f"{s.kind.value}{'' if s.angle_deg % 90 == 0 else ' inclined'}")
        for ld in m.loads:
            seen.add(f"{ld.kind} on {ld.target.type}")
            if isinstance(ld, DistributedLoad) and (ld.from_start or ld.from_end) and (
                    ld.w_start != ld.w_end):
                seen.add("partial trapezoidal")
            if isinstance(ld, PointLoad | DistributedLoad) and ld.target.type == "link":
                seen.add(f"angle {ld.angle_mode.value}")
            if getattr(ld, "position", None) is not None:
                seen.add(f"refEnd {ld.position.ref_end}")
                seen.add(f"offset {ld.position.mode.value}")
        if not _axis_aligned(m):
            seen.add("spring-only comparison")
    need = {"hinge-hinge link", "one hinged end", "all-hinged node", "pin", "fixed", "roller",
            "slider", "roller inclined", "slider inclined", "pointLoad on point",
            "pointLoad on link", "distributedLoad on link", "bendingMoment on link",
            "bendingMoment on point", "partial trapezoidal", "angle world", "angle relative",
            "refEnd A", "refEnd B", "offset m", "offset percent"}
    assert need <= seen, need - seen
    assert len(models) >= 200


# ----------------------------------------------------------- stability, independently


#: Smallest/largest eigenvalue below which PyNite's matrix counts as singular. Measured
#: over this seed: stable models ≥ 5e-7, mechanisms ≤ 6e-16; the cut sits between.
SINGULAR = 1e-11


def _smallest_scaled_eigenvalue(model: Model) -> float:
    """Of PyNite's stiffness matrix with springs at the supports, diagonally scaled so
    rotations and translations compare; no load vector is involved."""
    fe = build_reference(model.with_(loads=()), K_SPRING, solve=False)
    Analysis._prepare_model(fe)
    free, _, _ = Analysis._partition_D(fe)
    k = fe.Ke("Combo 1", log=False, check_stability=False, sparse=False)[np.ix_(free, free)]
    d = np.diag(k)
    if (d <= 1e-12 * d.max()).any():  # a freedom nothing holds (its diagonal is round-off)
        return 0.0
    eig = np.linalg.eigvalsh(k / np.sqrt(np.outer(d, d)))
    return float(eig[0] / eig[-1])


def test_stability_agrees_with_pynite() -> None:
    """Every model we call stable is non-singular in PyNite and every candidate we
    rejected as a mechanism is singular there (the generator's filter is sound)."""
    stable = [_smallest_scaled_eigenvalue(parse_model(doc)) for _, doc in MODELS[::2]]
    mechanisms = []
    for doc in _rejected:
        try:
            model = parse_model(doc)
            analyze(model)
        except ModelError:
            continue
        except MechanismError:
            mechanisms.append(_smallest_scaled_eigenvalue(model))
    assert len(mechanisms) >= 20
    assert min(stable) > SINGULAR, min(stable)
    assert max(mechanisms) < SINGULAR, max(mechanisms)
