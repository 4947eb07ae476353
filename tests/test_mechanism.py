"""Mechanisms are reported with their free points; stable hinged structures are not.

A mechanism must come back as a MechanismError naming the points that move (and
how), with finite numbers only, in exact-constraint and in spring mode. The
opposite error matters as much: a point where every link end is hinged, a link
hinged at both ends, or a very slender structure must solve, not be called a
mechanism.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from structeval.fe import MechanismError, analyze
from structeval.model import parse_model

from .structure_builders import DOWN, cantilever_chain, model_doc

MODES = {"exact": 0.0, "springs": 1e12}


R, H = "rigid", "hinge"


def _truss(loads: list[dict[str, Any]]) -> dict[str, Any]:
    """The 2-panel pin-jointed truss of test_closed_forms: B and D have only hinged ends."""
    return model_doc({"A": (0, 0), "B": (4, 0), "C": (8, 0), "D": (4, 3)},
                 [(n, a, b, H, H) for n, a, b in (("AB", "A", "B"), ("BC", "B", "C"),
                                                  ("AD", "A", "D"), ("DC", "D", "C"),
                                                  ("BD", "B", "D"))],
                 [("S1", "A", "pin", 0), ("S2", "C", "roller", 0)], loads)


#: (case, model, number of independent free motions, the points that must be named)
MECHANISMS = [
    ("beam on two rollers",
     model_doc({"A": (0, 0), "B": (6, 0)}, [("L1", "A", "B", R, R)],
           [("S1", "A", "roller", 0), ("S2", "B", "roller", 0)]), 1, {"A", "B"}),
    ("no supports",
     model_doc({"A": (0, 0), "B": (6, 0)}, [("L1", "A", "B", R, R)], []), 3, {"A", "B"}),
    ("three hinges in a line",
     model_doc({"A": (0, 0), "B": (3, 0), "C": (6, 0)},
           [("L1", "A", "B", R, H), ("L2", "B", "C", R, R)],
           [("S1", "A", "pin", 0), ("S2", "C", "pin", 0)]), 1, {"B"}),
    ("four-bar linkage",
     model_doc({"A": (0, 0), "B": (0, 3), "C": (4, 3), "D": (4, 0)},
           [("L1", "A", "B", H, H), ("L2", "B", "C", H, H), ("L3", "C", "D", H, H)],
           [("S1", "A", "pin", 0), ("S2", "D", "pin", 0)]), 1, {"B", "C"}),
    ("couple on a node where every end is hinged",
     _truss([{"id": "M", "kind": "bendingMoment", "at": {"type": "point", "id": "B"},
              "value": 5}]), 1, {"B"}),
    ("roller whose normal passes through the pin",
     model_doc({"A": (0, 0), "B": (6, 0)}, [("L1", "A", "B", R, R)],
           [("S1", "A", "pin", 0), ("S2", "B", "roller", 90)]), 1, {"B"}),
    # Round-off once hid this one (pivot 1e-11 of its node's scale): three rollers whose
    # normals leave a sliding motion, with a hinge inside.
    ("rollers at 60°, -20°, 180° with a hinge",
     {"points": [{"id": "P1", "x": 0.0, "y": 0.0}, {"id": "P2", "x": 3.33, "y": 0.0},
                 {"id": "P3", "x": 5.7, "y": 0.0}],
      "links": [{"id": "L1", "a": "P1", "b": "P2", "endB": "hinge", "E": 249815058.87631357,
                 "A": 0.016342388551055513, "Iz": 0.00014673417775541378},
                {"id": "L2", "a": "P3", "b": "P2"}],
      "supports": [{"id": "S1", "at": {"type": "point", "id": "P1"}, "kind": "roller",
                    "angleDeg": 60.0},
                   {"id": "S2", "at": {"type": "point", "id": "P2"}, "kind": "roller",
                    "angleDeg": -20.0},
                   {"id": "S3", "at": {"type": "point", "id": "P3"}, "kind": "roller",
                    "angleDeg": 180.0}],
      "loads": [{"id": "LD1", "kind": "pointLoad", "at": {"type": "point", "id": "P2"},
                 "value": 10.12, "angleDeg": 90.0}]}, 1, {"P1", "P2", "P3"}),
]


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize(("doc", "count", "points"), [c[1:] for c in MECHANISMS],
                         ids=[c[0] for c in MECHANISMS])
def test_mechanism_is_reported_with_its_free_points(doc: dict[str, Any], count: int,
                                                   points: set[str], mode: str) -> None:
    with pytest.raises(MechanismError) as info:
        analyze(parse_model(doc), spring=MODES[mode])
    exc = info.value
    assert exc.count == count
    assert set(exc.moving_points) == points
    text = str(exc)
    assert text.startswith("mechanism:")
    assert "nan" not in text.lower() and "inf" not in text.lower()
    for pid in points:
        assert pid in text
    for motion in exc.motions:
        assert motion["points"] and motion["kind"] in ("translation", "rotation")


def test_free_rotation_is_explained() -> None:
    with pytest.raises(MechanismError, match="every link end there is hinged"):
        analyze(parse_model(MECHANISMS[4][1]))


def test_free_motion_is_the_physical_one() -> None:
    """Four-bar linkage: B and C sway together horizontally, A and D stay."""
    with pytest.raises(MechanismError) as info:
        analyze(parse_model(MECHANISMS[3][1]))
    text = info.value.motions[0]["text"]
    assert "along (1.00, 0.00)" in text or "along (-1.00, 0.00)" in text


# -------------------------------------------------------------------- not mechanisms


def test_all_hinged_node_without_couple_is_not_singular() -> None:
    """Every end at B and D is hinged; a force (not a couple) there is fine."""
    sol = analyze(parse_model(_truss([{"id": "F", "kind": "pointLoad",
                                       "at": {"type": "point", "id": "B"}, "value": 12,
                                       **DOWN}])))[0]
    assert [r.value for r in sol.reactions] == pytest.approx([0.0, 6.0, 6.0], abs=1e-9)
    # and the undefined rotation is reported as such, not as a number
    rz = {d["pointId"]: d["rz"] for d in sol.displacements()}
    assert rz["B"] is None and rz["D"] is None


def test_four_hinged_ends_at_one_point() -> None:
    """FORMAT.md M5: a point joining four hinged ends, loaded by a force, solves."""
    doc = model_doc({"A": (0, 0), "B": (8, 0), "C": (4, 4), "D": (0, 8), "E": (8, 8)},
                [("L1", "A", "C", R, H), ("L2", "B", "C", R, H), ("L3", "C", "D", H, R),
                 ("L4", "C", "E", H, R)],
                [("S1", "A", "fixed", 0), ("S2", "B", "fixed", 0), ("S3", "D", "pin", 0),
                 ("S4", "E", "pin", 0)],
                [{"id": "F", "kind": "pointLoad", "at": {"type": "point", "id": "C"},
                  "value": 10, **DOWN}])
    sol = analyze(parse_model(doc))[0]
    uy = sum(r.value for r in sol.reactions if r.type == "uy")
    assert uy == pytest.approx(10.0, rel=1e-12)


def test_hinge_hinge_link_is_a_two_force_member() -> None:
    """A brace hinged at both ends, without loads on it, carries only a constant axial
    force: v = m = 0 all along it."""
    doc = model_doc({"A": (0, 0), "B": (0, 4), "C": (3, 4), "D": (3, 0)},
                [("COL1", "A", "B", R, R), ("BEAM", "B", "C", R, R), ("COL2", "D", "C", R, R),
                 ("BRACE", "A", "C", H, H)],
                [("S1", "A", "pin", 0), ("S2", "D", "pin", 0)],
                [{"id": "W", "kind": "pointLoad", "at": {"type": "point", "id": "B"},
                  "value": 10, "angleDeg": 0, "angleMode": "world"}])
    sol = analyze(parse_model(doc))[0]
    index = [lk.id for lk in sol.model.links].index("BRACE")
    s = np.linspace(0, 5, 21)
    n, v, m = sol.evaluate(np.full(len(s), index), s)
    assert np.abs(v).max() <= 1e-9 * 10 and np.abs(m).max() <= 1e-9 * 10
    assert np.ptp(n) <= 1e-9 * 10 and abs(n[0]) > 1.0  # it does carry the wind load


def test_hinge_hinge_link_with_a_load_is_a_simple_beam() -> None:
    """Loaded along its length, a link hinged at both ends bends like a simply supported
    beam between its ends: w = 4 on L = 5 gives m = -wL²/8 = -12.5 at midspan, 0 at the
    ends (fixed-end forces of a doubly released member)."""
    doc = model_doc({"A": (0, 0), "B": (5, 0), "C": (5, 3), "D": (0, 3)},
                [("BEAM", "A", "B", H, H), ("COL1", "B", "C", R, R), ("TOP", "C", "D", R, R),
                 ("COL2", "D", "A", R, R)],
                [("S1", "A", "fixed", 0), ("S2", "B", "roller", 0)],
                [{"id": "W", "kind": "distributedLoad", "at": {"type": "link", "id": "BEAM"},
                  "wStart": 4, "wEnd": 4, **DOWN}])
    sol = analyze(parse_model(doc))[0]
    index = [lk.id for lk in sol.model.links].index("BEAM")
    _, v, m = sol.evaluate(np.full(3, index), np.array([0.0, 2.5, 5.0]))
    assert m == pytest.approx([0.0, -12.5, 0.0], abs=1e-9 * 12.5)
    assert v == pytest.approx([10.0, 0.0, -10.0], abs=1e-9 * 10)


@pytest.mark.parametrize(("links", "tolerance"), [(300, 1e-6), (2000, 1e-3)])
def test_slender_cantilever_is_not_a_mechanism(links: int, tolerance: float) -> None:
    """A straight cantilever of 300 or 2,000 one-metre links: its pivots get tiny (the tip
    stiffness falls as 1/N³) but its softest motion bends the members, so it is stable.
    Statics give uy = 1, rz = N. The tolerance is the conditioning (∝ N⁴, ~1e14 for
    N = 2,000) times round-off, not a modelling error: measured 6e-9 and 1.6e-5."""
    sol = analyze(parse_model(cantilever_chain(links)))[0]
    values = [r.value for r in sol.reactions]
    assert values == pytest.approx([0.0, 1.0, float(links)], rel=tolerance, abs=tolerance)
