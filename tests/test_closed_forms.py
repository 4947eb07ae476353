"""Textbook structures with their analytic answers written in, against our solver.

Every expected number below is derived by hand in the comment next to it (statics,
and for the indeterminate beams the standard Euler–Bernoulli results, which are
exact here because straight beams under transverse load carry no axial force).
Signs follow FORMAT.md: reactions are what the support exerts on the structure
(ux, uy world; normal along the support normal; rz CCW +), and m is the moment of
the A-side on the B-side, so a sagging moment on a link drawn left→right is
NEGATIVE and tension gives n < 0.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from structeval.fe import CaseSolution, analyze
from structeval.model import parse_model

from .structure_builders import DOWN as STRAIGHT_DOWN
from .structure_builders import model_doc

TOL = 1e-9  # of the problem's largest value: these answers are exact up to round-off


def solve(points: dict[str, tuple[float, float]], links: list[tuple[str, str, str, str, str]],
          supports: list[tuple[str, str, str, float]], loads: list[dict[str, Any]],
          ) -> CaseSolution:
    """links: (id, a, b, endA, endB); supports: (id, point, kind, angleDeg)."""
    return analyze(parse_model(model_doc(points, links, supports, loads)))[0]


def on_link(link: str, **fields: Any) -> dict[str, Any]:
    return {"at": {"type": "link", "id": link}, **fields}


def on_point(point: str, **fields: Any) -> dict[str, Any]:
    return {"at": {"type": "point", "id": point}, **fields}


DOWN = {**STRAIGHT_DOWN, "flip": 1}


def check_reactions(sol: CaseSolution, expected: list[tuple[str, str, float]]) -> None:
    got = [(r.at_id, r.type, r.value) for r in sol.reactions]
    assert [g[:2] for g in got] == [e[:2] for e in expected]
    scale = max(abs(e[2]) for e in expected)
    for g, e in zip(got, expected, strict=True):
        assert g[2] == pytest.approx(e[2], abs=TOL * scale), (g, e)


def check_m(sol: CaseSolution, link: str, stations: list[tuple[float, float]], *,
            side: str = "right", scale: float | None = None) -> None:
    index = [lk.id for lk in sol.model.links].index(link)
    s = np.array([a for a, _ in stations])
    _, _, m = sol.evaluate(np.full(len(s), index), s, side=side)
    want = np.array([b for _, b in stations])
    scale = scale or max(float(np.abs(want).max()), 1.0)
    assert np.allclose(m, want, rtol=0, atol=TOL * scale), list(zip(s, m, want, strict=True))


def check_nvm(sol: CaseSolution, link: str, s: float, side: str,
              n: float, v: float, m: float) -> None:
    index = [lk.id for lk in sol.model.links].index(link)
    got = sol.evaluate(np.array([index]), np.array([s]), side=side)
    scale = max(abs(n), abs(v), abs(m), 1.0)
    for name, value, want in zip("nvm", got, (n, v, m), strict=True):
        assert value[0] == pytest.approx(want, abs=TOL * scale), (name, value[0], want)


def check_max(sol: CaseSolution, value: float, link: str, s: float) -> None:
    assert sol.max_abs_moment == pytest.approx(value, rel=TOL)
    at_link, at_s = sol.max_abs_moment_at
    assert at_link == link
    assert at_s == pytest.approx(s, abs=1e-7)


RIGID = "rigid"
HINGE = "hinge"
SPAN6 = {"A": (0.0, 0.0), "B": (6.0, 0.0)}
BEAM6 = [("L1", "A", "B", RIGID, RIGID)]
SIMPLE = [("S1", "A", "pin", 0.0), ("S2", "B", "roller", 0.0)]
CANTILEVER = [("S1", "A", "fixed", 0.0)]
PROPPED = [("S1", "A", "fixed", 0.0), ("S2", "B", "roller", 0.0)]
FIXED_FIXED = [("S1", "A", "fixed", 0.0), ("S2", "B", "fixed", 0.0)]


# ------------------------------------------------------------- simply supported, L = 6


def test_simple_beam_point_load() -> None:
    # P = 10 down at a = 2 (b = 4): R_A = Pb/L = 20/3, R_B = Pa/L = 10/3.
    sol = solve(SPAN6, BEAM6, SIMPLE,
                [on_link("L1", kind="pointLoad", value=10, offsetMode="m", offset=2, **DOWN)])
    check_reactions(sol, [("S1", "ux", 0.0), ("S1", "uy", 20 / 3), ("S2", "normal", 10 / 3)])
    # m = -R_A s before the load (sagging negative), -R_B (L - s) after; max Pab/L = 40/3.
    check_m(sol, "L1", [(0, 0), (1, -20 / 3), (2, -40 / 3), (4, -20 / 3), (6, 0)])
    # v = R_A = 20/3 up to the load, R_A - P = -10/3 past it; m continuous at the load.
    check_nvm(sol, "L1", 2.0, "left", 0.0, 20 / 3, -40 / 3)
    check_nvm(sol, "L1", 2.0, "right", 0.0, -10 / 3, -40 / 3)
    check_max(sol, 40 / 3, "L1", 2.0)


def test_simple_beam_uniform_load() -> None:
    # w = 5 on L = 6: R = wL/2 = 15; m = -(15 s - 2.5 s²); midspan -wL²/8 = -22.5.
    sol = solve(SPAN6, BEAM6, SIMPLE,
                [on_link("L1", kind="distributedLoad", wStart=5, wEnd=5, **DOWN)])
    check_reactions(sol, [("S1", "ux", 0.0), ("S1", "uy", 15.0), ("S2", "normal", 15.0)])
    check_m(sol, "L1", [(0, 0), (1, -12.5), (3, -22.5), (5, -12.5), (6, 0)])
    check_nvm(sol, "L1", 0.0, "right", 0.0, 15.0, 0.0)
    check_nvm(sol, "L1", 6.0, "left", 0.0, -15.0, 0.0)
    check_max(sol, 22.5, "L1", 3.0)


def test_simple_beam_triangular_load() -> None:
    # 0 → w0 = 9 from A to B, L = 6: W = w0 L/2 = 27 at 2L/3, so R_A = 9, R_B = 18.
    # m = -(9 s - w0 s³/(6L)) = -(9 s - s³/4); max at s = L/√3 of w0 L²/(9√3) = 36/√3.
    sol = solve(SPAN6, BEAM6, SIMPLE,
                [on_link("L1", kind="distributedLoad", wStart=0, wEnd=9, **DOWN)])
    check_reactions(sol, [("S1", "ux", 0.0), ("S1", "uy", 9.0), ("S2", "normal", 18.0)])
    check_m(sol, "L1", [(0, 0), (2, -16.0), (3, -20.25), (4, -20.0), (6, 0)])
    check_max(sol, 36 / math.sqrt(3), "L1", 6 / math.sqrt(3))


def test_simple_beam_partial_uniform_load() -> None:
    # w = 4 on 1 ≤ s ≤ 4 (fromStart 1, fromEnd 2): 12 kN at s = 2.5 → R_B = 5, R_A = 7.
    # m(1) = -7, m(4) = -(28 - 12·1.5) = -10, m(5) = -R_B·1 = -5; v = 0 at s = 2.75 where
    # m = -(7·2.75 - 4·1.75²/2) = -13.125.
    sol = solve(SPAN6, BEAM6, SIMPLE,
                [on_link("L1", kind="distributedLoad", wStart=4, wEnd=4, fromStart=1,
                         fromEnd=2, **DOWN)])
    check_reactions(sol, [("S1", "ux", 0.0), ("S1", "uy", 7.0), ("S2", "normal", 5.0)])
    check_m(sol, "L1", [(0.5, -3.5), (1, -7), (2.75, -13.125), (4, -10), (5, -5)])
    check_max(sol, 13.125, "L1", 2.75)


def test_simple_beam_partial_trapezoidal_load() -> None:
    # 2 → 6 kN/m on 1 ≤ s ≤ 4: W = 12, centroid 3(2 + 12)/(3·8) = 1.75 past s = 1, i.e.
    # at 2.75: R_B = 12·2.75/6 = 5.5, R_A = 6.5. m(4) = -R_B·2 = -11, m(1) = -6.5.
    # Inside, with t = s - 1, q = 2 + 4t/3, v = 6.5 - 2t - 2t²/3 and
    # m = -(6.5 s - t² - 2t³/9): m(2.5) = -(16.25 - 2.25 - 0.75) = -13.25.
    # v = 0 at t² + 3t - 9.75 = 0, t* = (-3 + √48)/2, where |m| is largest.
    t = (-3 + math.sqrt(48)) / 2
    peak = 6.5 * (1 + t) - t**2 - 2 * t**3 / 9
    sol = solve(SPAN6, BEAM6, SIMPLE,
                [on_link("L1", kind="distributedLoad", wStart=2, wEnd=6, fromStart=1,
                         fromEnd=2, **DOWN)])
    check_reactions(sol, [("S1", "ux", 0.0), ("S1", "uy", 6.5), ("S2", "normal", 5.5)])
    check_m(sol, "L1", [(1, -6.5), (2.5, -13.25), (1 + t, -peak), (4, -11), (5, -5.5)])
    check_max(sol, peak, "L1", 1 + t)


def test_simple_beam_concentrated_moment() -> None:
    # C = 12 CCW at s = 2: ΣM_A: 6 R_B + 12 = 0 → R_B = -2, R_A = 2. m = -2s, then jumps
    # by +C: -4 → 8 at the couple, back to 0 at B (m = 12 - 2s).
    sol = solve(SPAN6, BEAM6, SIMPLE,
                [on_link("L1", kind="bendingMoment", value=12, flip=1, offsetMode="m",
                         offset=2)])
    check_reactions(sol, [("S1", "ux", 0.0), ("S1", "uy", 2.0), ("S2", "normal", -2.0)])
    check_m(sol, "L1", [(1, -2), (2, -4), (4, 4), (6, 0)], side="left")
    check_m(sol, "L1", [(2, 8), (3, 6)], side="right")
    check_max(sol, 8.0, "L1", 2.0)


def test_clockwise_couple_makes_m_drop() -> None:
    # flip -1 is clockwise: R_A = -2, R_B = 2; m = +2s then drops by 12 at s = 2.
    sol = solve(SPAN6, BEAM6, SIMPLE,
                [on_link("L1", kind="bendingMoment", value=12, flip=-1, offsetMode="m",
                         offset=2)])
    check_reactions(sol, [("S1", "ux", 0.0), ("S1", "uy", -2.0), ("S2", "normal", 2.0)])
    check_nvm(sol, "L1", 2.0, "left", 0.0, -2.0, 4.0)
    check_nvm(sol, "L1", 2.0, "right", 0.0, -2.0, -8.0)


def test_link_drawn_right_to_left_negates_m() -> None:
    # The uniform-load beam with its link drawn B → A: the same physical answer, s runs
    # from B, m changes sign (sagging is positive on a right→left link), n and v at a
    # physical section keep their values along the new axes (v now = -(shear left→right)).
    sol = solve(SPAN6, [("L1", "B", "A", RIGID, RIGID)], SIMPLE,
                [on_link("L1", kind="distributedLoad", wStart=5, wEnd=5, **DOWN)])
    check_reactions(sol, [("S1", "ux", 0.0), ("S1", "uy", 15.0), ("S2", "normal", 15.0)])
    check_m(sol, "L1", [(1, 12.5), (3, 22.5), (5, 12.5)])
    # at s = 0 (point B) the roller pushes up 15 and e_y = (0, -1): v = -15
    check_nvm(sol, "L1", 0.0, "right", 0.0, -15.0, 0.0)


def test_ref_end_b_in_metres() -> None:
    # L = 8, P = 10 at 3 m from B (s = 5, offsetMode "length" = metres):
    # R_A = 10·3/8 = 3.75, R_B = 6.25, m(5) = -3.75·5 = -18.75.
    sol = solve({"A": (0.0, 0.0), "B": (8.0, 0.0)}, BEAM6, SIMPLE,
                [on_link("L1", kind="pointLoad", value=10, refEnd="B", offsetMode="length",
                         offset=3, **DOWN)])
    check_reactions(sol, [("S1", "ux", 0.0), ("S1", "uy", 3.75), ("S2", "normal", 6.25)])
    check_nvm(sol, "L1", 5.0, "left", 0.0, 3.75, -18.75)
    check_nvm(sol, "L1", 5.0, "right", 0.0, -6.25, -18.75)
    check_max(sol, 18.75, "L1", 5.0)


# --------------------------------------------------------------------- cantilever, fixed at A


def test_cantilever_tip_load() -> None:
    # P = 10 down at the free end (a point load on point B), L = 4:
    # uy = 10, rz = +40 (the load turns clockwise about A); m = 40 - 10 s (hogging > 0).
    sol = solve({"A": (0.0, 0.0), "B": (4.0, 0.0)}, BEAM6, CANTILEVER,
                [on_point("B", kind="pointLoad", value=10, angleDeg=90, flip=-1)])
    check_reactions(sol, [("S1", "ux", 0.0), ("S1", "uy", 10.0), ("S1", "rz", 40.0)])
    check_m(sol, "L1", [(0, 40), (1, 30), (4, 0)])
    check_max(sol, 40.0, "L1", 0.0)


def test_cantilever_uniform_load() -> None:
    # w = 3 on L = 4: uy = 12, rz = wL²/2 = 24; m = w (L - s)²/2.
    sol = solve({"A": (0.0, 0.0), "B": (4.0, 0.0)}, BEAM6, CANTILEVER,
                [on_link("L1", kind="distributedLoad", wStart=3, wEnd=3, **DOWN)])
    check_reactions(sol, [("S1", "ux", 0.0), ("S1", "uy", 12.0), ("S1", "rz", 24.0)])
    check_m(sol, "L1", [(0, 24), (2, 6), (3, 1.5), (4, 0)])


def test_cantilever_triangular_load() -> None:
    # 0 → 6 kN/m towards the free end, L = 3: W = 9 at s = 2; uy = 9, rz = 18;
    # m(s) = moment of the load beyond s: w0 (L - s)² (2L + s)/(6L) → m(1) = 6·4·7/18.
    sol = solve({"A": (0.0, 0.0), "B": (3.0, 0.0)}, BEAM6, CANTILEVER,
                [on_link("L1", kind="distributedLoad", wStart=0, wEnd=6, **DOWN)])
    check_reactions(sol, [("S1", "ux", 0.0), ("S1", "uy", 9.0), ("S1", "rz", 18.0)])
    check_m(sol, "L1", [(0, 18), (1, 6 * 4 * 7 / 18), (2, 6 * 1 * 8 / 18), (3, 0)])


def test_cantilever_couple_on_point() -> None:
    # A clockwise couple of 5 on the free end (a point): rz = +5, m = 5 all along.
    sol = solve({"A": (0.0, 0.0), "B": (4.0, 0.0)}, BEAM6, CANTILEVER,
                [on_point("B", kind="bendingMoment", value=5, flip=-1)])
    check_reactions(sol, [("S1", "ux", 0.0), ("S1", "uy", 0.0), ("S1", "rz", 5.0)])
    check_m(sol, "L1", [(0, 5), (2, 5), (4, 5)])


def test_cantilever_axial_tension() -> None:
    # 7 kN pulling the free end along +x: ux = -7, tension → n = -7 everywhere.
    sol = solve({"A": (0.0, 0.0), "B": (4.0, 0.0)}, BEAM6, CANTILEVER,
                [on_point("B", kind="pointLoad", value=7, angleDeg=0, angleMode="world")])
    check_reactions(sol, [("S1", "ux", -7.0), ("S1", "uy", 0.0), ("S1", "rz", 0.0)])
    check_nvm(sol, "L1", 2.0, "right", -7.0, 0.0, 0.0)


# ------------------------------------------------------------- propped cantilever, L = 6


def test_propped_cantilever_uniform_load() -> None:
    # w = 4: R_B = 3wL/8 = 9, R_A = 5wL/8 = 15, M_A = wL²/8 = 18 (rz = +18, m(0) = +18);
    # largest sagging 9wL²/128 = 10.125 at s = 5L/8 = 3.75.
    sol = solve(SPAN6, BEAM6, PROPPED,
                [on_link("L1", kind="distributedLoad", wStart=4, wEnd=4, **DOWN)])
    check_reactions(sol, [("S1", "ux", 0.0), ("S1", "uy", 15.0), ("S1", "rz", 18.0),
                          ("S2", "normal", 9.0)])
    check_m(sol, "L1", [(0, 18), (3.75, -10.125), (6, 0)])
    check_max(sol, 18.0, "L1", 0.0)


def test_propped_cantilever_point_load() -> None:
    # P = 16 at midspan: R_B = 5P/16 = 5, R_A = 11, M_A = 3PL/16 = 18; m(3) = 18 - 33 = -15.
    sol = solve(SPAN6, BEAM6, PROPPED,
                [on_link("L1", kind="pointLoad", value=16, offsetMode="percent",
                         offsetPercent=50, **DOWN)])
    check_reactions(sol, [("S1", "ux", 0.0), ("S1", "uy", 11.0), ("S1", "rz", 18.0),
                          ("S2", "normal", 5.0)])
    check_m(sol, "L1", [(0, 18), (3, -15), (6, 0)])
    check_max(sol, 18.0, "L1", 0.0)


# ------------------------------------------------------------------ fixed–fixed, L = 6


def test_fixed_fixed_uniform_load() -> None:
    # w = 4: R = 12 each, end moments wL²/12 = 12 (hogging: m = +12 at both ends;
    # rz_A = +12 CCW, rz_B = -12), midspan -wL²/24 = -6.
    sol = solve(SPAN6, BEAM6, FIXED_FIXED,
                [on_link("L1", kind="distributedLoad", wStart=4, wEnd=4, **DOWN)])
    check_reactions(sol, [("S1", "ux", 0.0), ("S1", "uy", 12.0), ("S1", "rz", 12.0),
                          ("S2", "ux", 0.0), ("S2", "uy", 12.0), ("S2", "rz", -12.0)])
    check_m(sol, "L1", [(0, 12), (3, -6), (6, 12)])


def test_fixed_fixed_point_load() -> None:
    # P = 9 at a = 2, b = 4: M_A = Pab²/L² = 8, M_B = Pa²b/L² = 4,
    # R_A = Pb²(3a + b)/L³ = 20/3, R_B = Pa²(a + 3b)/L³ = 7/3, m(a) = -2Pa²b²/L³ = -16/3.
    sol = solve(SPAN6, BEAM6, FIXED_FIXED,
                [on_link("L1", kind="pointLoad", value=9, offsetMode="m", offset=2, **DOWN)])
    check_reactions(sol, [("S1", "ux", 0.0), ("S1", "uy", 20 / 3), ("S1", "rz", 8.0),
                          ("S2", "ux", 0.0), ("S2", "uy", 7 / 3), ("S2", "rz", -4.0)])
    check_m(sol, "L1", [(0, 8), (2, -16 / 3), (6, 4)])
    check_max(sol, 8.0, "L1", 0.0)


def test_fixed_fixed_concentrated_moment_at_midspan() -> None:
    # C = 12 CCW at L/2. Antisymmetric, and the tip of a cantilever from A must not move:
    # ∫ m (L - s) ds = 0 with m = m0 - V s + C·[s > L/2] gives V = 3C/(2L) = 3,
    # m0 = C/4 = 3: m(0) = 3, m(3-) = -6, m(3+) = 6, m(6) = -3; uy_A = 3, uy_B = -3 and
    # rz_A = rz_B = C/4 = 3 (ΣM: 3 + 3 + 12 - 3·6 = 0).
    sol = solve(SPAN6, BEAM6, FIXED_FIXED,
                [on_link("L1", kind="bendingMoment", value=12, offsetMode="m", offset=3)])
    check_reactions(sol, [("S1", "ux", 0.0), ("S1", "uy", 3.0), ("S1", "rz", 3.0),
                          ("S2", "ux", 0.0), ("S2", "uy", -3.0), ("S2", "rz", 3.0)])
    check_m(sol, "L1", [(0, 3), (3, -6)], side="left")
    check_m(sol, "L1", [(3, 6), (6, -3)], side="right")


# ------------------------------------------------------------- supports at angles


def test_inclined_roller() -> None:
    # Pin at A, roller at B at 30°: n = (-sin 30°, cos 30°). P = 10 down at midspan.
    # ΣM_A: 6·cos30°·R - 30 = 0 → R = 10/(2 cos 30°) = 5.7735 (normal), so B pushes with
    # R·n = (-2.8868, 5); the pin gives ux = +2.8868, uy = 5. The beam is compressed:
    # n = +2.8868; m = -5 s up to midspan.
    r = 10 / (2 * math.cos(math.radians(30)))
    sol = solve(SPAN6, BEAM6, [("S1", "A", "pin", 0.0), ("S2", "B", "roller", 30.0)],
                [on_link("L1", kind="pointLoad", value=10, offsetMode="percent",
                         offsetPercent=50, **DOWN)])
    check_reactions(sol, [("S1", "ux", r / 2), ("S1", "uy", 5.0), ("S2", "normal", r)])
    check_nvm(sol, "L1", 1.5, "right", r / 2, 5.0, -7.5)
    check_max(sol, 15.0, "L1", 3.0)


def test_slider_at_zero_degrees() -> None:
    # Slider at A, 0°: holds x (n = +x) and rotation, free along y. Roller at B holds y.
    # P = 10 down at s = 2: R_B = 10; ΣM_A: rz + 60 - 20 = 0 → rz = -40; normal = 0.
    # m = -40 on [0, 2] (no shear there), then -40 + 10 (s - 2) → 0 at B.
    sol = solve(SPAN6, BEAM6, [("S1", "A", "slider", 0.0), ("S2", "B", "roller", 0.0)],
                [on_link("L1", kind="pointLoad", value=10, offsetMode="m", offset=2, **DOWN)])
    check_reactions(sol, [("S1", "normal", 0.0), ("S1", "rz", -40.0), ("S2", "normal", 10.0)])
    check_m(sol, "L1", [(0, -40), (2, -40), (4, -20), (6, 0)])
    check_max(sol, 40.0, "L1", 0.0)


def test_slider_at_270_and_roller_at_90() -> None:
    # Slider at A, 270°: n = (0, -1), holds y and rotation. Roller at B, 90°: n = (-1, 0),
    # holds x. P = 10 down at s = 2: the slider pushes up 10 = -10·n → normal = -10;
    # rz = +20; roller normal 0. m = 20 - 10 s on [0, 2], 0 beyond.
    sol = solve(SPAN6, BEAM6, [("S1", "A", "slider", 270.0), ("S2", "B", "roller", 90.0)],
                [on_link("L1", kind="pointLoad", value=10, offsetMode="m", offset=2, **DOWN)])
    check_reactions(sol, [("S1", "normal", -10.0), ("S1", "rz", 20.0), ("S2", "normal", 0.0)])
    check_m(sol, "L1", [(0, 20), (1, 10), (2, 0), (4, 0)])


def test_roller_at_180_pulls_down_as_negative_normal() -> None:
    # Roller at B at 180°: n = (0, -1). Under a downward load it pushes up: normal = -R.
    sol = solve(SPAN6, BEAM6, [("S1", "A", "pin", 0.0), ("S2", "B", "roller", 180.0)],
                [on_link("L1", kind="distributedLoad", wStart=5, wEnd=5, **DOWN)])
    check_reactions(sol, [("S1", "ux", 0.0), ("S1", "uy", 15.0), ("S2", "normal", -15.0)])


# ----------------------------------------------------------- loads on an inclined member

INCLINED = {"A": (0.0, 0.0), "B": (4.0, 3.0)}  # L = 5, e_x = (0.8, 0.6), e_y = (-0.6, 0.8)
INCLINED_SUPPORTS = [("S1", "A", "pin", 0.0), ("S2", "B", "roller", 0.0)]


def test_relative_distributed_load_on_inclined_member() -> None:
    # w = 2 per metre at relative 270° (= -e_y = (0.6, -0.8)): 10 kN at the midpoint
    # (2, 1.5) as (6, -8). ΣM_A: 4 R_B + (2·(-8) - 1.5·6) = 0 → R_B = 6.25;
    # A: ux = -6, uy = 8 - 6.25 = 1.75. At A: n = (-6, 1.75)·e_x = -3.75 (tension),
    # v = (-6, 1.75)·e_y = 5 = wL/2; midspan m = -wL²/8 = -6.25.
    sol = solve(INCLINED, BEAM6, INCLINED_SUPPORTS,
                [on_link("L1", kind="distributedLoad", wStart=2, wEnd=2, angleDeg=270,
                         angleMode="relative", flip=1)])
    check_reactions(sol, [("S1", "ux", -6.0), ("S1", "uy", 1.75), ("S2", "normal", 6.25)])
    check_nvm(sol, "L1", 0.0, "right", -3.75, 5.0, 0.0)
    check_m(sol, "L1", [(2.5, -6.25), (1, -4.0)])
    check_max(sol, 6.25, "L1", 2.5)


def test_relative_point_load_on_inclined_member_with_percent_from_b() -> None:
    # 10 kN at relative 90°, flip -1 (= -e_y), 40 % from B → s = 3, point (2.4, 1.8),
    # force (6, -8). ΣM_A: 4 R_B - 19.2 - 10.8 = 0 → R_B = 7.5; A: ux = -6, uy = 0.5.
    # Transverse: Pab/L = 10·3·2/5 = 12 → m(3) = -12; v = 4 before, -6 past the load.
    sol = solve(INCLINED, BEAM6, INCLINED_SUPPORTS,
                [on_link("L1", kind="pointLoad", value=10, angleDeg=90, angleMode="relative",
                         flip=-1, refEnd="B", offsetMode="percent", offsetPercent=40)])
    check_reactions(sol, [("S1", "ux", -6.0), ("S1", "uy", 0.5), ("S2", "normal", 7.5)])
    # n = (-6, 0.5)·e_x = -4.5 on both sides: the load has no axial component.
    check_nvm(sol, "L1", 3.0, "left", -4.5, 4.0, -12.0)
    check_nvm(sol, "L1", 3.0, "right", -4.5, -6.0, -12.0)
    check_max(sol, 12.0, "L1", 3.0)


def test_world_distributed_load_on_inclined_member_is_per_member_length() -> None:
    # w = 2 per metre of member, straight down (world 270°): 10 kN at (2, 1.5).
    # R_B = 20/4 = 5, A: ux = 0, uy = 5. Transverse part 2·0.8 = 1.6 per metre:
    # midspan m = -1.6·25/8 = -5.
    sol = solve(INCLINED, BEAM6, INCLINED_SUPPORTS,
                [on_link("L1", kind="distributedLoad", wStart=2, wEnd=2, **DOWN)])
    check_reactions(sol, [("S1", "ux", 0.0), ("S1", "uy", 5.0), ("S2", "normal", 5.0)])
    check_m(sol, "L1", [(2.5, -5.0)])


def test_couple_on_inclined_member() -> None:
    # C = 10 CCW at the middle of the inclined member: R_B = -10/4 = -2.5, uy_A = 2.5;
    # m jumps by +10 at s = 2.5: m(2.5-) = moment of (0, 2.5) at A about (2, 1.5) = -5.
    sol = solve(INCLINED, BEAM6, INCLINED_SUPPORTS,
                [on_link("L1", kind="bendingMoment", value=10, offsetMode="percent",
                         offsetPercent=50)])
    check_reactions(sol, [("S1", "ux", 0.0), ("S1", "uy", 2.5), ("S2", "normal", -2.5)])
    check_m(sol, "L1", [(2.5, -5.0)], side="left")
    check_m(sol, "L1", [(2.5, 5.0)], side="right")


# ------------------------------------------------------------------ three-hinged frame


def test_three_hinged_frame() -> None:
    # Columns A(0,0)→B(0,4) and E(8,0)→D(8,4), beam B→C→D with a hinge at C(4,4);
    # pins at A and E; w = 10 down on the whole beam (80 kN). By symmetry uy = 40 each;
    # moments about C of the left half: -4·40 + 4 H_A + 40·2 = 0 → H_A = 20 (ux_A = 20,
    # ux_E = -20). Column AB: m = 20 s → 80 at B. Beam BC: m = 80 - 40 s + 5 s²
    # (0 at the hinge). Beam CD: m = 5 s² → 80 at D. Column ED: m = -20 s → -80 at D.
    points = {"A": (0.0, 0.0), "B": (0.0, 4.0), "C": (4.0, 4.0), "D": (8.0, 4.0),
              "E": (8.0, 0.0)}
    links = [("L1", "A", "B", RIGID, RIGID), ("L2", "B", "C", RIGID, HINGE),
             ("L3", "C", "D", RIGID, RIGID), ("L4", "E", "D", RIGID, RIGID)]
    sol = solve(points, links, [("S1", "A", "pin", 0.0), ("S2", "E", "pin", 0.0)],
                [on_link(lk, kind="distributedLoad", wStart=10, wEnd=10, **DOWN)
                 for lk in ("L2", "L3")])
    check_reactions(sol, [("S1", "ux", 20.0), ("S1", "uy", 40.0),
                          ("S2", "ux", -20.0), ("S2", "uy", 40.0)])
    check_m(sol, "L1", [(0, 0), (2, 40), (4, 80)], scale=80)
    check_m(sol, "L2", [(0, 80), (2, 20), (4, 0)], scale=80)
    check_m(sol, "L3", [(0, 0), (2, 20), (4, 80)], scale=80)
    check_m(sol, "L4", [(0, 0), (2, -40), (4, -80)], scale=80)
    # columns: compression 40 (n > 0), shear from the thrust
    check_nvm(sol, "L1", 1.0, "right", 40.0, -20.0, 20.0)
    assert sol.max_abs_moment == pytest.approx(80.0, rel=TOL)


# -------------------------------------------------------- pin-jointed truss, method of joints


def test_truss_by_method_of_joints() -> None:
    # A(0,0), B(4,0), C(8,0), D(4,3); members AB, BC, AD, DC, BD, all ends hinged; pin at A,
    # roller at C, 12 kN down at B. Reactions 6 and 6. Joint A: F_AD·3/5 + 6 = 0 → F_AD = -10
    # (compression), F_AB = -F_AD·4/5 = 8 (tension). Joint B: F_BD = 12, F_BC = 8.
    # Joint C: F_CD = -10. FrameCalc signs: tension → n < 0, so n = -8, -8, +10, +10, -12.
    points = {"A": (0.0, 0.0), "B": (4.0, 0.0), "C": (8.0, 0.0), "D": (4.0, 3.0)}
    links = [(name, a, b, HINGE, HINGE) for name, a, b in
             (("AB", "A", "B"), ("BC", "B", "C"), ("AD", "A", "D"), ("DC", "D", "C"),
              ("BD", "B", "D"))]
    sol = solve(points, links, [("S1", "A", "pin", 0.0), ("S2", "C", "roller", 0.0)],
                [on_point("B", kind="pointLoad", value=12, **DOWN)])
    check_reactions(sol, [("S1", "ux", 0.0), ("S1", "uy", 6.0), ("S2", "normal", 6.0)])
    for link, n in (("AB", -8.0), ("BC", -8.0), ("AD", 10.0), ("DC", 10.0), ("BD", -12.0)):
        length = 5.0 if link in ("AD", "DC") else (3.0 if link == "BD" else 4.0)
        for s in (0.0, length / 2, length):
            check_nvm(sol, link, s, "left" if s == length else "right", n, 0.0, 0.0)
    assert sol.max_abs_moment <= 1e-9 * 12


# ------------------------------------------------------------ swapping a link's ends


def test_swapping_link_ends_mirrors_the_diagrams_even_with_loads_at_the_ends() -> None:
    # FORMAT.md O2: drawing a link B→A instead of A→B maps s → L − s, keeps n and v at
    # each physical section and negates m, so |m| and max |M| are invariant. Loads exactly
    # at the link's ends (a couple at B, a force at C) act on the link's end; "right" at s
    # on one drawing is "left" at L − s on the other, ends included.
    points = {"A": (0.0, 0.0), "B": (0.0, 4.0), "C": (5.0, 4.0)}
    supports = [("S1", "A", "fixed", 0.0), ("S2", "C", "roller", 0.0)]
    couple = {"kind": "bendingMoment", "value": 8, "flip": 1}
    force = {"kind": "pointLoad", "value": 10, **DOWN}
    forward = solve(points, [("COL", "A", "B", RIGID, RIGID), ("BEAM", "B", "C", RIGID, RIGID)],
                    supports, [on_link("BEAM", **couple, offsetMode="m", offset=0),
                               on_link("BEAM", **force, offsetMode="m", offset=5)])
    backward = solve(points, [("COL", "A", "B", RIGID, RIGID), ("BEAM", "C", "B", RIGID, RIGID)],
                     supports, [on_link("BEAM", **couple, refEnd="B", offsetMode="m", offset=0),
                                on_link("BEAM", **force, refEnd="B", offsetMode="m", offset=5)])
    assert [r.value for r in forward.reactions] == pytest.approx(
        [r.value for r in backward.reactions], abs=1e-12 * 50)
    assert forward.max_abs_moment == pytest.approx(backward.max_abs_moment, rel=1e-12)
    s = np.linspace(0.0, 5.0, 11)
    beam = np.full(len(s), 1)
    for side, other in (("right", "left"), ("left", "right")):
        n1, v1, m1 = forward.evaluate(beam, s, side=side)
        n2, v2, m2 = backward.evaluate(beam, 5.0 - s, side=other)
        assert np.allclose(n1, n2, atol=1e-10) and np.allclose(v1, v2, atol=1e-10)
        assert np.allclose(m1, -m2, atol=1e-10)
    # the couple at s = 0 makes m jump by +8 from the node's side to the beam's side
    _, _, m0 = forward.evaluate(np.array([1]), np.array([0.0]))
    _, _, m0_node = forward.evaluate(np.array([1]), np.array([0.0]), side="left")
    assert m0[0] - m0_node[0] == pytest.approx(8.0, abs=1e-9)
