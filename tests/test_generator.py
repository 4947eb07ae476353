"""The problem generator: determinism, validity and stability, the difficulty rule, duplicates.

Stability is checked independently of the generator's own screening: every
problem must solve, and its reactions must balance its loads (forces and
moments about the origin), computed here from the FORMAT.md support directions.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from structeval.dataset.difficulty import difficulty, features, level_of, redundancy
from structeval.dataset.fingerprint import fingerprint
from structeval.dataset.grid_rules import grid_problems
from structeval.dataset.images import renderer_status
from structeval.dataset.paths import CATEGORIES
from structeval.dataset.rawfile import presentation_of, read_raw, render_document
from structeval.dataset.wellposed import well_posed
from structeval.fe import analyze
from structeval.generation.builder import GRID, ModelBuilder, renumber_loads
from structeval.generation.classics import classic_problems, force, line_load
from structeval.generation.generator import generate_problem, synthesize
from structeval.generation.selection import STANDARD
from structeval.model import (
    DEFAULT_A,
    DEFAULT_E,
    DEFAULT_IZ,
    AngleMode,
    BendingMoment,
    DistributedLoad,
    Model,
    PointLoad,
    SupportKind,
    model_to_json,
    parse_model,
)
from structeval.model.semantics import (
    couple,
    distributed_extent,
    force_direction,
    link_axis,
    world_point_of_load,
)

ROOT = Path(__file__).resolve().parent.parent


def _synthesize_cli():  # type: ignore[no-untyped-def]
    import importlib.util

    spec = importlib.util.spec_from_file_location("synthesize_tool", ROOT / "tools" /
                                                  "synthesize.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.main


# -- independent physics check ------------------------------------------------------------

def _support_force(kind: SupportKind, angle: float, comps: dict[str, float]) -> tuple[float, float]:
    """World force of a support from its reported entries (FORMAT.md §4)."""
    if kind in (SupportKind.PIN, SupportKind.FIXED):
        return comps["ux"], comps["uy"]
    a = math.radians(angle)
    n = (-math.sin(a), math.cos(a)) if kind is SupportKind.ROLLER else (math.cos(a), math.sin(a))
    return comps["normal"] * n[0], comps["normal"] * n[1]


def _applied(model: Model) -> tuple[float, float, float]:
    """(Fx, Fy, moment about the origin) of every load."""
    fx = fy = mz = 0.0
    for load in model.loads:
        if isinstance(load, BendingMoment):
            mz += couple(load)
            continue
        dx, dy = force_direction(model, load)
        if isinstance(load, PointLoad):
            x, y = world_point_of_load(model, load)
            f = load.value
        else:
            assert isinstance(load, DistributedLoad)
            s0, s1, _ = distributed_extent(model, load)
            w0, w1 = load.w_start, load.w_end
            f = 0.5 * (w0 + w1) * (s1 - s0)
            centroid = s0 + (s1 - s0) * (w0 + 2 * w1) / (3 * (w0 + w1)) if w0 + w1 else s0
            link = model.link(load.target.id)
            cx, cy, _ = link_axis(model, link)
            pa = model.point(link.a)
            x, y = pa.x + cx * centroid, pa.y + cy * centroid
        fx, fy = fx + f * dx, fy + f * dy
        mz += x * f * dy - y * f * dx
    return fx, fy, mz


def equilibrium_residual(model: Model) -> float:
    """Largest unbalance of ΣF and ΣM (reactions + loads), relative to the loads."""
    solution = analyze(model)[0]
    by_support: dict[str, dict[str, float]] = {}
    for r in solution.reactions:
        by_support.setdefault(r.at_id, {})[r.type] = r.value
    fx, fy, mz = _applied(model)
    scale = abs(fx) + abs(fy) + 1.0
    for s in model.supports:
        comps = by_support[s.id]
        rx, ry = _support_force(s.kind, s.angle_deg, comps)
        p = model.point(s.at)
        fx, fy = fx + rx, fy + ry
        mz += p.x * ry - p.y * rx + comps.get("rz", 0.0)
        scale += abs(rx) + abs(ry)
    size = max(max(p.x for p in model.points) - min(p.x for p in model.points),
               max(p.y for p in model.points) - min(p.y for p in model.points), 1.0)
    return max(abs(fx), abs(fy), abs(mz) / size) / scale


def check_textbook_problem(model: Model, category: str) -> None:
    """The promises the dataset makes about every problem, checked on the model itself."""
    for p in model.points:
        assert math.isclose(p.x / GRID, round(p.x / GRID), abs_tol=1e-9), p
        assert math.isclose(p.y / GRID, round(p.y / GRID), abs_tol=1e-9), p
    for lk in model.links:
        assert (lk.E, lk.A, lk.Iz) == (DEFAULT_E, DEFAULT_A, DEFAULT_IZ)
        if category == "truss":
            assert lk.hinge_a and lk.hinge_b, f"truss member {lk.id} is not pin-jointed"
    for load in model.loads:
        values = ([load.w_start, load.w_end] if isinstance(load, DistributedLoad)
                  else [load.value])
        assert all(float(v).is_integer() and v >= 0 for v in values), load
        assert any(v > 0 for v in values), load
        if category == "truss":
            assert isinstance(load, PointLoad) and load.target.type == "point", load
        if isinstance(load, DistributedLoad):
            link = model.link(load.target.id)
            cx, cy, _ = link_axis(model, link)
            if abs(cx) > 1e-9 and abs(cy) > 1e-9:  # inclined: perpendicular only
                assert load.angle_mode is AngleMode.RELATIVE
                assert (load.angle_deg, load.flip) in ((90.0, 1), (90.0, -1), (270.0, 1))
            assert float(load.from_start / GRID).is_integer()
            assert float(load.from_end / GRID).is_integer()
    assert equilibrium_residual(model) < 1e-9


# -- determinism ----------------------------------------------------------------------------

@pytest.mark.parametrize("images", [False, True])
def test_same_seed_same_bytes(tmp_path: Path, images: bool) -> None:
    if images and renderer_status() != "available":
        pytest.skip(f"renderer {renderer_status()}")
    main = _synthesize_cli()
    runner = CliRunner()
    flag = "--images" if images else "--no-images"
    outs = []
    for name in ("a", "b"):
        out = tmp_path / name
        result = runner.invoke(main, ["--count", "15" if not images else "6", "--seed", "11",
                                      "--out", str(out), flag])
        assert result.exit_code == 0, result.output
        outs.append(out)
    files_a = sorted(p.relative_to(outs[0]) for p in outs[0].rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(outs[1]) for p in outs[1].rglob("*") if p.is_file())
    assert files_a == files_b and files_a
    assert any(f.suffix == ".png" for f in files_a) == images
    for rel in files_a:
        assert (outs[0] / rel).read_bytes() == (outs[1] / rel).read_bytes(), rel


def test_other_seed_other_problems() -> None:
    one = synthesize(6, seed=1)
    two = synthesize(6, seed=2)
    assert {fingerprint(p.model) for p in one}.isdisjoint(fingerprint(p.model) for p in two)


def test_plan_is_balanced() -> None:
    problems = synthesize(18, seed=5)
    counts = Counter((p.block["category"], difficulty(p.model, presentation_of(p.block)))
                     for p in problems)
    assert counts == {(c, d): 2 for c in CATEGORIES for d in STANDARD.levels(c)}
    assert set(STANDARD.levels("beam")) == {1, 2, 3}
    assert all(p.id.startswith(p.block["category"]) for p in problems)


# -- validity and stability -----------------------------------------------------------------

@pytest.mark.parametrize("category", CATEGORIES)
@pytest.mark.parametrize("level", (1, 2, 3))
def test_generated_problems_are_valid_and_stable(category: str, level: int) -> None:
    seen: set[str] = set()
    for seed in (3, 4):
        for index in range(3):
            problem = generate_problem(seed, index, category, level, "test", seen)
            text = render_document(problem.block, problem.model)
            model = parse_model(text)  # exactly what the file holds
            assert model_to_json(model) == model_to_json(problem.model)
            block = problem.block
            assert difficulty(model, presentation_of(block)) == level
            assert block["provenance"]["target_difficulty"] == level
            assert "difficulty" not in block  # the rule decides; the field is for overrides
            check_textbook_problem(model, category)
            assert grid_problems(model) == []
            if category == "truss":
                assert problem.block["notes"].startswith("All members of this truss are "
                                                         "pin-jointed")


def test_raw_file_round_trip(tmp_path: Path) -> None:
    problem = synthesize(1, seed=9, category="frame", difficulty_level=3)[0]
    path = tmp_path / f"{problem.id}.json"
    path.write_text(render_document(problem.block, problem.model), encoding="utf-8")
    data, block, model = read_raw(path)
    assert block == json.loads(json.dumps(problem.block))
    assert model_to_json(model) == model_to_json(problem.model)
    assert data.endswith(b"}\n") and b"\r" not in data


def test_classics_are_valid_stable_and_distinct() -> None:
    problems = classic_problems()
    assert len(problems) >= 12
    assert {p.block["category"] for p in problems} == set(CATEGORIES)
    assert len({fingerprint(p.model) for p in problems}) == len(problems)
    for p in problems:
        assert p.block["provenance"] == "hand-authored"
        model = parse_model(render_document(p.block, p.model))
        check_textbook_problem(model, p.block["category"])
        assert well_posed(model, expect_bending=p.block["category"] != "truss") is None


# -- screening ------------------------------------------------------------------------------

def _three_hinged_arch(rise: float) -> Model:
    b = ModelBuilder()
    left, crown, right = b.point(0, 0), b.point(20, rise), b.point(40, 0)
    b.link(left, crown, hinge_b=True)
    b.link(crown, right)
    b.support(left, "pin")
    b.support(right, "pin")
    return b.build(renumber_loads([force(crown, 10)]))


def test_near_mechanism_is_rejected() -> None:
    assert well_posed(_three_hinged_arch(4.0), expect_bending=False) is None
    reason = well_posed(_three_hinged_arch(0.5), expect_bending=False)  # thrust 200 kN
    assert reason is not None and reason.startswith("near-mechanism")


def test_mechanism_and_idle_loads_are_rejected() -> None:
    b = ModelBuilder()
    a, c = b.point(0, 0), b.point(4, 0)
    b.link(a, c)
    b.support(a, "roller")
    b.support(c, "roller")
    assert well_posed(b.build(renumber_loads([force(c, 10, 0)])),
                      expect_bending=True).startswith("mechanism")
    b2 = ModelBuilder()
    a, c = b2.point(0, 0), b2.point(4, 0)
    b2.link(a, c)
    b2.support(a, "pin")
    b2.support(c, "roller")
    idle = b2.build(renumber_loads([force(c, 10)]))  # straight into the roller
    assert well_posed(idle, expect_bending=True) == ("no bending: the loads go straight into "
                                                     "the supports")


# -- difficulty rule ------------------------------------------------------------------------

def _simple_beam(*loads_of: str) -> Model:
    b = ModelBuilder()
    a, m, c = b.point(0, 0), b.point(3, 0), b.point(6, 0)
    l1 = b.link(a, m)
    b.link(m, c)
    b.support(a, "pin")
    b.support(c, "roller")
    loads = {"udl": line_load(l1, 10), "force": force(m, 20),
             "slanted": force(m, 20, 240), "couple": BendingMoment("", _pt(m), 10, 1)}
    return b.build(renumber_loads([loads[k] for k in loads_of]))


def _pt(pid: str):  # type: ignore[no-untyped-def]
    from structeval.model import Target

    return Target("point", pid)


def test_level_bands() -> None:
    assert [level_of(s) for s in range(16)] == [1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 5]


def test_rule_on_hand_built_structures() -> None:
    assert difficulty(_simple_beam("udl")) == 1
    f = features(_simple_beam("udl", "slanted", "couple"))
    assert f.load_classes == ("couple", "slanted_force", "uniform_distributed")
    assert f.points()["load_classes"] == 2 and f.score() == 2 and f.level() == 1
    assert features(_simple_beam("udl", "force", "slanted", "couple")).points() == {
        "members": 0, "redundancy": 0, "hinges": 0, "inclined_members": 0,
        "slanted_supports": 0, "load_classes": 3, "load_count": 1, "inclined_distributed": 0,
        "coordinates": 0, "fine_detail": 0, "dimensioning": 0, "values": 0, "units": 0,
        "symbols": 0, "style": 0, "language": 0}


def test_redundancy_formula() -> None:
    by_id = {p.id: p.model for p in classic_problems()}
    assert redundancy(by_id["frame-classic-fixed-portal"]) == 3
    assert redundancy(by_id["frame-classic-two-bay-fixed"]) == 6
    assert redundancy(by_id["frame-classic-three-hinged-portal"]) == 0
    assert redundancy(by_id["beam-classic-gerber-3span"]) == 0
    assert redundancy(by_id["beam-classic-continuous-fixed"]) == 2
    truss = by_id["truss-classic-pratt-two-pins"]
    assert redundancy(truss) == len(truss.links) + 4 - 2 * len(truss.points) == 1
    assert features(by_id["frame-classic-three-hinged-gable"]).points()["inclined_distributed"]
    assert features(by_id["frame-classic-slanted-roller"]).points()["slanted_supports"] == 1


def test_difficulty_override_is_kept() -> None:
    stepped = next(p for p in classic_problems() if p.id == "frame-classic-three-hinged-stepped")
    assert stepped.block["difficulty"] == 3 != difficulty(stepped.model)


# -- duplicates -----------------------------------------------------------------------------

def _recoded(model: Model) -> Model:
    """The same physical problem: other ids, reversed order, links flipped, origin moved,
    loads re-encoded (relative → world angle, flip, metres → percent from the other end)."""
    from structeval.model import Link, OffsetMode, Point, Position, Support, Target

    pts = {p.id: f"N{i}" for i, p in enumerate(reversed(model.points))}
    lks = {lk.id: f"M{i}" for i, lk in enumerate(model.links)}
    points = tuple(Point(pts[p.id], p.x + 7.5, p.y - 2) for p in reversed(model.points))
    links = tuple(Link(lks[lk.id], pts[lk.b], pts[lk.a], lk.E, lk.A, lk.Iz, lk.hinge_b,
                       lk.hinge_a) for lk in reversed(model.links))
    supports = tuple(Support(f"R{i}", pts[s.at], s.kind, s.angle_deg + 360)
                     for i, s in enumerate(model.supports))
    loads = []
    for ld in model.loads:
        target = Target(ld.target.type, (pts if ld.target.type == "point" else lks)[ld.target.id])
        if isinstance(ld, DistributedLoad):
            dx, dy = force_direction(model, ld)
            angle = math.degrees(math.atan2(-dy, -dx))
            loads.append(DistributedLoad("", target, ld.w_end, ld.w_start, ld.from_end,
                                         ld.from_start, angle, AngleMode.WORLD, -1))
        elif isinstance(ld, PointLoad):
            dx, dy = force_direction(model, ld)
            pos = ld.position
            if pos is not None:
                length = link_axis(model, model.link(ld.target.id))[2]
                pos = Position("A", OffsetMode.PERCENT, 100 * (length - pos.s_on(length)) / length)
            loads.append(PointLoad("", target, ld.value, math.degrees(math.atan2(dy, dx)),
                                   AngleMode.WORLD, 1, pos))
        else:
            pos = ld.position
            if pos is not None:
                length = link_axis(model, model.link(ld.target.id))[2]
                pos = Position("B", OffsetMode.METRES, pos.s_on(length))
            loads.append(BendingMoment("", target, -ld.value, -ld.flip, pos))
    return Model(points, links, supports, renumber_loads(loads[::-1]))


def test_fingerprint_ignores_encoding_but_not_physics() -> None:
    for problem in [*classic_problems(), *synthesize(15, seed=21)]:
        model = problem.model
        assert fingerprint(_recoded(model)) == fingerprint(model), problem.id
        first = model.loads[0]
        heavier = replace(first, value=first.value + 1) if not isinstance(
            first, DistributedLoad) else replace(first, w_start=first.w_start + 1)
        assert fingerprint(model.with_(loads=(heavier, *model.loads[1:]))) != fingerprint(model)
        moved = model.with_(supports=(replace(model.supports[0], kind=SupportKind.FIXED
                                              if model.supports[0].kind is not SupportKind.FIXED
                                              else SupportKind.PIN), *model.supports[1:]))
        assert fingerprint(moved) != fingerprint(model)


def test_generator_rejects_duplicates() -> None:
    first = generate_problem(8, 0, "beam", 1, "test", set())
    seen = {fingerprint(first.model)}
    again = generate_problem(8, 0, "beam", 1, "test", seen)
    assert fingerprint(again.model) != fingerprint(first.model)
    assert again.block["provenance"]["attempt"] > first.block["provenance"]["attempt"]
    assert len(seen) == 2
    batch = synthesize(12, seed=8, avoid={fingerprint(first.model)})
    assert fingerprint(first.model) not in {fingerprint(p.model) for p in batch}


def test_cli_refuses_bad_arguments(tmp_path: Path) -> None:
    main = _synthesize_cli()
    runner = CliRunner()
    result = runner.invoke(main, ["--count", "2", "--split", "../x", "--out", str(tmp_path),
                                  "--no-images"])
    assert result.exit_code != 0 and "--split" in result.output
    result = runner.invoke(main, ["--out", str(tmp_path), "--no-images"])
    assert result.exit_code != 0 and "--count" in result.output
    assert not any(tmp_path.iterdir())


def test_idle_cuts_are_merged_and_ids_renumbered() -> None:
    from structeval.generation.builder import merge_idle_points, renumber

    b = ModelBuilder()
    a, m, n, c = b.point(0, 0), b.point(2, 0), b.point(4, 0), b.point(6, 0)
    b.link(a, m)
    second = b.link(m, n)
    b.link(n, c, hinge_b=True)
    b.support(a, "fixed")
    b.support(c, "roller")
    idle = b.build(renumber_loads([line_load(second, 5)]))
    # L2 carries a load: neither of its ends may disappear
    assert merge_idle_points(idle) == idle
    moved = b.build(renumber_loads([force(c, 5, 0)]))
    merged = renumber(merge_idle_points(moved))
    assert [(lk.id, lk.a, lk.b, lk.hinge_b) for lk in merged.links] == [("L1", "P1", "P2", True)]
    assert [p.id for p in merged.points] == ["P1", "P2"]
    assert merged.supports[1].at == "P2" and merged.loads[0].target.id == "P2"
    hinged = ModelBuilder()
    a, m, c = hinged.point(0, 0), hinged.point(3, 0), hinged.point(6, 0)
    hinged.link(a, m, hinge_b=True)
    hinged.link(m, c)
    hinged.support(a, "fixed")
    hinged.support(c, "roller")
    kept = hinged.build(renumber_loads([force(c, 5, 0)]))
    assert merge_idle_points(kept) == kept
