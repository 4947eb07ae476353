"""``structeval.solve``'s column path is the model path, only cheaper (issue 12, item 2).

``parse_document`` hands back the :class:`~structeval.model.canonical.Columns` of a
canonical document when :func:`~structeval.model.geometry.columns_clearly_sane`
confirms its geometry; ``structeval.solve`` reads the same columns
(``parse_for_solve``), compiles them for the kernel without building a model and has
the kernel confirm the layout in the same call. Three promises make that safe, and each is checked
here against the slow path it replaces:

* the shortcut never confirms a layout the full geometry check faults — over random
  and adversarial layouts built to sit at every limit it uses (points within or just
  past ``SEPARATION`` tolerances, a hair inside or outside vertical, horizontal and
  inclined links, collinear overlapping links, repeated end pairs, duplicate supports,
  orphan points, loads at or just past link ends, huge and tiny coordinates);
* ``parse_document`` accepts, rejects and raises exactly like the general validator
  (``_parse``, the field-by-field reader), issue lists included;
* ``structeval.solve(dict)`` returns what the model path returns, and the kernel gets
  the very same bytes;
* the kernel's own layout check (``layout_check``, which ``structeval.solve`` asks for
  instead of running the shortcut in Python) gives the shortcut's verdict on every
  layout it accepts, so it is as sound.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import structeval
from structeval.fe import MechanismError
from structeval.fe.abi import pack
from structeval.fe.problem import compile_model, pack_columns
from structeval.fe.solution_json import OutputTooLarge
from structeval.model import Model, ModelError, StructEvalError, model_to_json, parse_model
from structeval.model import geometry as geo
from structeval.model.canonical import Columns, read_columns
from structeval.model.parse import MAX_ITEMS, _parse, parse_document

from .random_structures import random_models
from .test_fuzz import mutants
from .test_parse_paths import DATA, DEFAULTS

Json = dict[str, Any]

# ------------------------------------------------------------------ helpers


def _columns(doc: Any) -> Columns | None:
    return read_columns(doc, defaults=DEFAULTS, limit=MAX_ITEMS)


def _tol(cols: Columns) -> float:
    return geo.REL_TOL * geo.layout_scale(cols.xy[0::2], cols.xy[1::2])


def _shape(model: Model) -> tuple[str, list[str]]:
    """A model as text with the type of every field, so 1 and 1.0 (or True and 1.0)
    are told apart, which ``==`` on dataclasses does not do."""
    types = [type(getattr(item, f.name)).__name__
             for item in (*model.points, *model.links, *model.supports, *model.loads)
             for f in fields(item)]
    return repr(model), types


def _verdict(read: Callable[[Any], Any], doc: Any) -> tuple[Any, ...]:
    """What a reader does with ``doc``: the model it builds, or the issues it reports."""
    try:
        parsed = read(doc)
    except ModelError as exc:
        return ("invalid", [str(issue) for issue in exc.issues])
    model = parsed.model() if isinstance(parsed, Columns) else parsed
    return ("model", _shape(model))


def _slow(doc: Any) -> Any:
    """The general validator alone, the fast reader bypassed."""
    return _parse(copy.deepcopy(doc))


def kernel_confirms(cols: Columns) -> bool | None:
    """The kernel's layout check (``layout_check``, solver/framecalc.c ``layout_clear``)
    on ``cols``: True when it confirms the layout, False when it asks to look closer,
    None when the kernel refused the input before checking (then ``structeval.solve``
    checks the model in full, as for False)."""
    from structeval.fe import default_kernel
    from structeval.fe.abi import ST_BAD_INPUT, ST_LOOK_CLOSER

    block = default_kernel().run_bytes(pack_columns(cols, layout_check=geo.REL_TOL))
    status = np.frombuffer(block)[0]
    return None if status == ST_BAD_INPUT else bool(status != ST_LOOK_CLOSER)


class Tally:
    """How many layouts took which way, so a sweep can show it is not vacuous."""

    def __init__(self) -> None:
        self.confirmed = self.fell_back_clean = self.fell_back_faulted = self.not_canonical = 0
        self.kernel_confirmed = 0

    def __str__(self) -> str:
        return (f"{self.confirmed} confirmed by the shortcut, {self.fell_back_clean} checked in "
                f"full and clean, {self.fell_back_faulted} checked in full with problems, "
                f"{self.not_canonical} not canonical; {self.kernel_confirmed} confirmed by the "
                "kernel's check")


def check_layout(doc: Json, tally: Tally | None = None) -> None:
    """The three promises on one document (geometry, verdict, and parse_model's model)."""
    cols = _columns(copy.deepcopy(doc))
    if cols is None:
        if tally:
            tally.not_canonical += 1
    else:
        tol = _tol(cols)
        model = cols.model()
        full = geo._full_check(model, tol)
        shortcut = geo.columns_clearly_sane(cols, tol)
        if shortcut:
            assert full == [], (full, json.dumps(doc)[:600])
            assert geo.check_geometry(model) == []
            if tally:
                tally.confirmed += 1
        elif tally and full:
            tally.fell_back_faulted += 1
        elif tally:
            tally.fell_back_clean += 1
        # the kernel's check (asked only when the loads sit clear, as structeval.solve
        # asks it) is the shortcut written again: it agrees wherever it accepts the input
        if geo.columns_loads_clear(cols):
            verdict = kernel_confirms(cols)
            assert verdict is None or verdict is shortcut, (verdict, json.dumps(doc)[:600])
            if verdict:
                assert full == [], (full, json.dumps(doc)[:600])
                if tally:
                    tally.kernel_confirmed += 1
    expected = _verdict(_slow, doc)
    assert _verdict(parse_document, copy.deepcopy(doc)) == expected, json.dumps(doc)[:600]
    assert _verdict(parse_model, copy.deepcopy(doc)) == expected


# ------------------------------------------------------- adversarial layouts

#: Multiples of the tolerance that straddle every limit the two checks use: the full
#: check's 1 tol, the shortcut's 0.5 / 1.5 / 2 tol margins and its SEPARATION tol grid.
FACTORS = (0.0, 0.3, 0.49, 0.5, 0.51, 0.99, 1.0, 1.01, 1.49, 1.5, 1.51, 1.99, 2.0, 2.01,
           3.0, 9.99, 10.0, 10.01, 11.0, 25.0)
#: Grid units from near the bottom to near the top of the float range, and offsets that
#: put the whole layout far from the origin (rounding then dwarfs small perturbations).
UNITS = (1e-300, 3e-150, 1e-3, 1.0, 7.3, 2.5e4, 1e150, 1e300)
OFFSETS = (0.0, 0.0, 1e6, 1e15)


class Chooser:
    """The choices a layout is built from, drawn by hypothesis or by a seeded generator."""

    def __init__(self, pick: Callable[[Sequence[Any]], Any], integer: Callable[[int, int], int]):
        self.pick, self.integer = pick, integer

    def factor(self) -> float:
        return self.pick((1.0, -1.0)) * self.pick(FACTORS)


def _grid(ch: Chooser) -> tuple[list[Json], list[Json], float, float]:
    """Points on a grid, with links between neighbours, along diagonals and at slopes of
    1/2 and 2 (inclined links whose direction is not exact in binary)."""
    unit, offset = ch.pick(UNITS), ch.pick(OFFSETS)
    if offset * unit > 1e300:
        offset = 0.0  # the layout would overflow to infinity
    nx, ny = ch.integer(2, 4), ch.integer(1, 3)
    points = [{"id": f"G{i}_{j}", "x": (i + offset) * unit, "y": (j + offset) * unit}
              for j in range(ny) for i in range(nx)]
    steps = ((0, 1), (1, 1), (1, -1), (2, 1), (1, 2), (2, -1))
    links: list[Json] = []

    def join(i: int, j: int, di: int, dj: int) -> None:
        a, b = f"G{i}_{j}", f"G{i + di}_{j + dj}"
        if ch.integer(0, 3) == 0:  # drawn the other way round
            a, b = b, a
        links.append({"id": f"L{len(links)}", "a": a, "b": b})

    for j in range(ny):  # every row, and the first column, so no grid point is an orphan
        for i in range(nx - 1):
            join(i, j, 1, 0)
        if j:
            join(0, j - 1, 0, 1)
    for j in range(ny):
        for i in range(nx):
            for di, dj in steps:
                if (0 <= i + di < nx and 0 <= j + dj < ny and (i, di) != (0, 0)
                        and ch.integer(0, 3) == 0):
                    join(i, j, di, dj)
    scale = max(nx - 1, ny - 1, 1) * unit
    return points, links, unit, geo.REL_TOL * scale


def _frame(points: list[Json], link: Json) -> tuple[float, float, float, float, float]:
    """(xa, ya, ux, uy, length) of a link, from the document."""
    at = {p["id"]: p for p in points}
    a, b = at[link["a"]], at[link["b"]]
    dx, dy = b["x"] - a["x"], b["y"] - a["y"]
    length = math.hypot(dx, dy)
    if not length:  # a zero-length link an earlier item made: any direction will do
        return a["x"], a["y"], 1.0, 0.0, 0.0
    return a["x"], a["y"], dx / length, dy / length, length


def adversarial_layout(ch: Chooser) -> Json:
    """A grid layout with one to four items placed at a limit of the geometry checks."""
    points, links, _, tol = _grid(ch)
    supports: list[Json] = [{"id": "S0", "at": {"type": "point", "id": points[0]["id"]},
                             "kind": "fixed"}]
    loads: list[Json] = []
    grid_ids = [p["id"] for p in points]

    def new_point(x: float, y: float) -> str:
        pid = f"Q{len(points)}"
        points.append({"id": pid, "x": x, "y": y})
        return pid

    def new_link(a: str, b: str) -> None:
        if a != b:
            links.append({"id": f"L{len(links)}", "a": a, "b": b})

    def attach(pid: str, link: Json) -> None:
        """Join a new point to the layout (or leave it an orphan)."""
        how = ch.integer(0, 5)
        if how == 5:
            return
        how = min(how, 2)
        new_link(pid, (link["a"], link["b"], ch.pick(grid_ids))[how])

    for _ in range(ch.integer(1, 4)):
        link = ch.pick(links)
        xa, ya, ux, uy, length = _frame(points, link)
        nx_, ny_ = -uy, ux
        kind = ch.integer(0, 9)
        if kind <= 1:  # a point a hair inside, beside or past the link (ends included)
            t = ch.pick((0.0, 0.25, 0.5, 1.0)) * length + ch.factor() * tol
            c = ch.factor() * tol
            attach(new_point(xa + t * ux + c * nx_, ya + t * uy + c * ny_), link)
        elif kind == 2:  # a point next to a grid point, along an axis or diagonally
            p = ch.pick(points)
            attach(new_point(p["x"] + ch.factor() * tol, p["y"] + ch.factor() * tol), link)
        elif kind == 3:  # a collinear link running on past an end, or back from it
            t = ch.pick((0.5, 1.0, 1.5, 2.0)) * length + ch.factor() * tol
            c = ch.factor() * tol
            q = new_point(xa + t * ux + c * nx_, ya + t * uy + c * ny_)
            new_link(ch.pick((link["a"], link["b"])), q)
        elif kind == 4:  # the same two ends joined again, either way round
            ends = [link["a"], link["b"]]
            if ch.integer(0, 1):
                ends.reverse()
            new_link(*ends)
        elif kind == 5:  # a second support at a point (or a first one elsewhere)
            supports.append({"id": f"S{len(supports)}",
                             "at": {"type": "point", "id": ch.pick(grid_ids)},
                             "kind": ch.pick(("pin", "roller", "fixed", "slider"))})
        elif kind == 6:  # a concentrated load at or just past an end
            offset = ch.pick((0.0, length)) + ch.factor() * tol
            entry: Json = {"id": f"F{len(loads)}", "kind": ch.pick(("pointLoad", "bendingMoment")),
                           "at": {"type": "link", "id": link["id"]}, "value": 3.0,
                           "refEnd": ch.pick(("A", "B"))}
            if ch.integer(0, 1):
                entry["offset"] = offset
            else:
                entry["offsetPercent"] = 100.0 * offset / length if length else 0.0
            loads.append(entry)
        elif kind == 7:  # a distributed load leaving (almost) nothing of its link loaded
            rest = ch.factor() * tol
            share = ch.pick((0.0, 0.5, 1.0))
            loads.append({"id": f"W{len(loads)}", "kind": "distributedLoad",
                          "at": {"type": "link", "id": link["id"]}, "wStart": 2.0,
                          "fromStart": share * (length - rest),
                          "fromEnd": (1.0 - share) * (length - rest)})
        elif kind == 8:  # a short link across an end, almost along the link: the
            # overlap the shortcut finds through a point inside one of the two
            end = ch.pick((0.0, length))
            ends = []
            for _ in range(2):
                t, c = end + ch.factor() * tol, ch.factor() * tol
                ends.append(new_point(xa + t * ux + c * nx_, ya + t * uy + c * ny_))
            new_link(*ends)
        else:  # an orphan point far from everything
            new_point(points[0]["x"] - 0.5 * length, points[0]["y"] - 0.5 * length)
    return {"points": points, "links": links, "supports": supports, "loads": loads}


def _seeded(rng: np.random.Generator) -> Chooser:
    return Chooser(lambda seq: seq[int(rng.integers(len(seq)))],
                   lambda lo, hi: int(rng.integers(lo, hi + 1)))


def test_shortcut_sound_on_a_seeded_sweep() -> None:
    """3,000 adversarial layouts; the tallies show every branch is exercised."""
    rng = np.random.default_rng(20261201)
    tally = Tally()
    near_limit = 0  # confirmed layouts holding an item placed at a limit
    for _ in range(3000):
        doc = adversarial_layout(_seeded(rng))
        before = tally.confirmed
        check_layout(doc, tally)
        if tally.confirmed > before and (doc["loads"] or len(doc["supports"]) > 1 or any(
                p["id"].startswith("Q") for p in doc["points"])):
            near_limit += 1
    print(f"\nadversarial layouts: {tally}; {near_limit} confirmed with an item at a limit")
    assert tally.confirmed >= 120 and near_limit >= 120, tally
    assert tally.kernel_confirmed >= 80, tally
    assert tally.fell_back_faulted >= 1500, tally
    assert tally.fell_back_clean >= 150, tally


@settings(max_examples=400, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_shortcut_sound_on_hypothesis_layouts(data: st.DataObject) -> None:
    ch = Chooser(lambda seq: data.draw(st.sampled_from(seq)),
                 lambda lo, hi: data.draw(st.integers(lo, hi)))
    check_layout(adversarial_layout(ch))


# Why a repeated pair of ends is the only overlap columns_clearly_sane looks for. The
# full check faults links i (P→Q, length L) and j (R→S) when R and S lie within a
# tolerance t of i's line and their projections tR ≤ tS on it overlap [0, L] by more
# than t. In a separated layout (distinct x, and distinct y, values > 10 t apart) two
# points within 1.5 t of each other are one point, and every link is longer than 10 t.
#   * tR in (t, L − t): R lies inside i; the full check and the shortcut both see it.
#   * tR in [−t, t]: R is within √2 t of P, so R is P. Then tS in (t, L − t) puts S
#     inside i; tS in [L − t, L + t] makes S = Q, the same pair of ends; tS > L + t
#     puts Q inside j (the case below, mirrored); tS ≤ t leaves no overlap.
#   * tR < −t: P lies inside j. Its distance from j's line is a mix of the offsets of R
#     and S, so at most t; along j it is at least (10 − 2)/10 t ≈ 0.8 t from either
#     end (j is longer than 10 t and turned from i by at most 2t/10t), past the
#     shortcut's 0.5 t margin with a quarter tolerance to spare.
#   * tR ≥ L − t: the overlap is at most t.
# So every overlap shows as a point inside a link or a repeated pair; the layouts
# above (kind 3 and kind 8) place links at exactly these limits.


def _confirmed(doc: Json) -> bool:
    cols = _columns(doc)
    return cols is not None and geo.columns_clearly_sane(cols, _tol(cols))


def _line_with(extra: Json, *, links: list[tuple[str, str]] | None = None,
               unit: float = 1.0, supports: list[str] | None = None,
               loads: list[Json] | None = None) -> Json:
    """A 4-unit horizontal line A-B-C plus a 4-unit column A-D and an inclined brace B-D,
    with ``extra`` points; every coordinate in units of ``unit``."""
    base = {"A": (0.0, 0.0), "B": (2.0, 0.0), "C": (4.0, 0.0), "D": (0.0, 4.0)} | extra
    pairs = [("A", "B"), ("B", "C"), ("A", "D"), ("B", "D")] + (links or [])
    return {"points": [{"id": k, "x": x * unit, "y": y * unit} for k, (x, y) in base.items()],
            "links": [{"id": f"L{i}", "a": a, "b": b} for i, (a, b) in enumerate(pairs)],
            "supports": [{"id": f"S{i}", "at": {"type": "point", "id": p}, "kind": "pin"}
                         for i, p in enumerate(supports or ["A"])],
            "loads": loads or []}


TOL = 4e-6  # REL_TOL × the 4-unit layout of _line_with at unit 1

#: Hand-placed cases: (name, document, whether the shortcut may confirm it). Each one
#: is also checked against the full check and the general validator.
CASES: list[tuple[str, Json, bool]] = [
    ("clean layout", _line_with({}), True),
    ("clean, tiny", _line_with({}, unit=1e-300), True),
    ("clean, huge", _line_with({}, unit=1e300), True),
    ("point just outside separation in x", _line_with({"E": (4 + 10.01 * TOL, 2.0)},
                                                      links=[("C", "E")]), True),
    ("point just within separation in x", _line_with({"E": (4 + 9.99 * TOL, 2.0)},
                                                     links=[("C", "E")]), False),
    ("point inside the vertical link", _line_with({"E": (0.0, 2.0)}, links=[("E", "C")]), False),
    ("point a hair past the vertical link's end",
     _line_with({"E": (0.0, 4 + 11 * TOL)}, links=[("E", "C")]), True),
    ("point a hair inside the vertical link's end",
     _line_with({"E": (0.0, 4 - 11 * TOL)}, links=[("E", "C")]), False),
    ("point inside the horizontal link", _line_with({"E": (1.0, 0.0)}, links=[("E", "D")]),
     False),
    ("point a hair inside the horizontal link's end",
     _line_with({"E": (4 - 11 * TOL, 0.0)}, links=[("E", "D")]), False),
    ("point on the inclined link", _line_with({"E": (1.0, 2.0)}, links=[("E", "C")]), False),
    ("point a tolerance beside the inclined link",
     _line_with({"E": (1.0 + 2 * TOL / math.sqrt(5), 2.0 + TOL / math.sqrt(5))},
                links=[("E", "C")]), False),
    ("point 1.6 tolerances beside the inclined link",
     _line_with({"E": (1.0 + 3.2 * TOL / math.sqrt(5), 2.0 + 1.6 * TOL / math.sqrt(5))},
                links=[("E", "C")]), True),
    ("collinear link running on past an end", _line_with({"E": (6.0, 0.0)}, links=[("B", "E")]),
     False),
    ("collinear link doubling back", _line_with({}, links=[("C", "A")]), False),
    ("repeated end pair", _line_with({}, links=[("A", "B")]), False),
    ("repeated end pair, reversed", _line_with({}, links=[("B", "A")]), False),
    ("two supports at one point", _line_with({}, supports=["A", "A"]), False),
    ("orphan point", _line_with({"E": (3.0, 3.0)}), False),
    ("point load just past the end",
     _line_with({}, loads=[{"id": "F", "kind": "pointLoad", "at": {"type": "link", "id": "L0"},
                            "value": 1.0, "offset": 2 + 1.01 * TOL}]), False),
    ("point load at the end",
     _line_with({}, loads=[{"id": "F", "kind": "pointLoad", "at": {"type": "link", "id": "L0"},
                            "value": 1.0, "offset": 2.0}]), True),
    ("distributed load leaving nothing loaded",
     _line_with({}, loads=[{"id": "W", "kind": "distributedLoad",
                            "at": {"type": "link", "id": "L1"}, "wStart": 1.0,
                            "fromStart": 1.0, "fromEnd": 1.0 - 0.5 * TOL}]), False),
]


@pytest.mark.parametrize("name, doc, may_confirm", CASES, ids=[c[0] for c in CASES])
def test_hand_placed_layouts(name: str, doc: Json, may_confirm: bool) -> None:
    check_layout(doc)
    assert _confirmed(doc) is may_confirm, name
    cols = _columns(doc)
    assert cols is not None
    if geo.columns_loads_clear(cols):  # (the kernel does not see the loads' places)
        verdict = kernel_confirms(cols)
        # the same verdict as the shortcut, or an input the kernel refuses outright (the
        # squares of the coordinates underflow at 1e-300 and overflow at 1e300; one
        # support per node): then structeval.solve checks the model in full
        assert verdict is may_confirm or (verdict is None and name in (
            "clean, tiny", "clean, huge", "two supports at one point")), (name, verdict)


def test_the_differential_check_can_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """A shortcut that trusted every layout would be caught: the check above fails on a
    point inside a link once the shortcut is replaced by one that always says yes."""
    monkeypatch.setattr(geo, "columns_clearly_sane", lambda cols, tol: True)
    with pytest.raises(AssertionError):
        check_layout(_line_with({"E": (1.0, 0.0)}, links=[("E", "D")]))


# ------------------------------------------------- shipped and reference documents


def _shipped() -> list[tuple[str, Json]]:
    docs = []
    for path in sorted(DATA.glob("*.json")):
        doc = json.loads(path.read_text())
        doc.pop("problem", None)
        docs.append((path.name, doc))
    return docs


def _conformance(directory: Path) -> list[tuple[str, Json]]:
    return [(p.name, json.loads(p.read_text())) for p in sorted(directory.glob("*.model.json"))]


def test_shipped_ground_truths_take_the_column_path() -> None:
    """Every shipped ground truth is read as columns and confirmed by the shortcut (so
    real input takes the fast path), with the verdict of the general validator."""
    docs = _shipped()
    assert len(docs) >= 20
    for name, doc in docs:
        check_layout(doc)
        assert isinstance(parse_document(doc), Columns), name


def test_conformance_problems_take_the_fast_path_or_fall_back_alike(
        conformance_dir: Path) -> None:
    docs = _conformance(conformance_dir)
    assert docs, f"no *.model.json in {conformance_dir}"
    fast = 0
    for _, doc in docs:
        check_layout(doc)
        fast += isinstance(parse_document(doc), Columns)
    print(f"\nconformance: {fast} of {len(docs)} read as columns")
    assert fast >= 0.8 * len(docs)


# ------------------------------------------------------------- structeval.solve


def _close(got: Any, want: Any, where: str = "$") -> Iterator[str]:
    """Where two JSON values differ (floats compared to 1e-12 relative)."""
    if isinstance(want, float) and isinstance(got, float):
        if not math.isclose(got, want, rel_tol=1e-12, abs_tol=0.0):
            yield f"{where}: {got!r} != {want!r}"
    elif isinstance(want, dict) and isinstance(got, dict):
        if list(got) != list(want):
            yield f"{where}: keys {list(got)} != {list(want)}"
        else:
            for key in want:
                yield from _close(got[key], want[key], f"{where}.{key}")
    elif isinstance(want, list) and isinstance(got, list):
        if len(got) != len(want):
            yield f"{where}: {len(got)} items != {len(want)}"
        else:
            for i, (g, w) in enumerate(zip(got, want, strict=True)):
                yield from _close(g, w, f"{where}[{i}]")
    elif type(got) is not type(want) or got != want:
        yield f"{where}: {got!r} != {want!r}"


def _outcome(call: Callable[[], Any]) -> tuple[str, Any]:
    try:
        return "solved", json.loads(json.dumps(call()))
    except StructEvalError as exc:
        return type(exc).__name__, str(exc)


def _same_solve(doc: Json, **options: Any) -> str:
    """Solve through the public call and through the model; both must agree."""
    cols = parse_document(copy.deepcopy(doc))
    model = parse_model(copy.deepcopy(doc))
    if isinstance(cols, Columns):  # the kernel gets the very same bytes
        spring = options.get("spring", 0.0)
        assert pack_columns(cols, spring=spring) == pack(
            compile_model(model, spring=spring)).tobytes()
    got = _outcome(lambda: structeval.solve(copy.deepcopy(doc), **options))
    want = _outcome(lambda: structeval.solve(model, **options))
    assert got[0] == want[0], (got, want)
    if got[0] == "solved":
        differences = list(_close(got[1], want[1]))
        assert not differences, differences[:5]
    else:
        assert got[1] == want[1]
    return got[0]


@pytest.fixture(scope="module")
def random_docs() -> list[tuple[Json, Json]]:
    """Random stable models as generated (many in loose spellings, which the general
    validator reads) and in canonical form (which the column path reads)."""
    return [(doc, model_to_json(parse_model(doc))) for _, doc in random_models(1207, 48)]


def test_random_structures_agree(random_docs: list[tuple[Json, Json]]) -> None:
    """The differential generator's structures (jittered grids among them), as written
    and in canonical form: same geometry verdict, same model."""
    for written, canonical in random_docs:
        check_layout(written)
        check_layout(canonical)


def test_solve_equals_the_model_path_on_random_models(
        random_docs: list[tuple[Json, Json]]) -> None:
    fast = 0
    for written, canonical in random_docs:
        assert _same_solve(written) == "solved"
        assert _same_solve(canonical) == "solved"
        fast += isinstance(parse_document(canonical), Columns)
    # the comparison covers the column path, not only the fallback
    assert fast >= 0.8 * len(random_docs), fast


def test_solve_equals_the_model_path_with_options(random_docs: list[tuple[Json, Json]]) -> None:
    """Springs, sample counts and the output cap go through both paths alike."""
    outcomes = set()
    for i, (_, doc) in enumerate(random_docs[:16]):
        outcomes.add(_same_solve(doc, spring=1e12 if i % 2 else 0.0,
                                 samples_per_segment=(1, 2, 5, 40)[i % 4]))
        outcomes.add(_same_solve(doc, max_samples=5))
    assert outcomes == {"solved", OutputTooLarge.__name__}


def test_solve_reports_mechanisms_like_the_model_path(random_docs: list[tuple[Json, Json]]) -> None:
    """An unstable structure read as columns raises the error the model path raises."""
    mechanisms = 0
    for _, doc in random_docs[:16]:
        loose = copy.deepcopy(doc)
        for link in loose["links"]:
            link["endA"] = link["endB"] = "hinge"
        loose["supports"] = loose["supports"][:1]
        mechanisms += _same_solve(loose) == MechanismError.__name__
    assert mechanisms >= 12


def test_solve_equals_the_model_path_on_shipped_problems() -> None:
    for _, doc in _shipped():
        assert _same_solve(doc) == "solved"


def test_solve_equals_the_model_path_on_conformance(conformance_dir: Path) -> None:
    for name, doc in _conformance(conformance_dir):
        assert _same_solve(doc) in ("solved", MechanismError.__name__), name


def test_solve_equals_the_model_path_on_mutants() -> None:
    """The fuzz mutants that are valid (scaled numbers, mechanisms, piles of loads among
    them) end alike through both paths: the same solution or the same error."""
    outcomes: dict[str, int] = {}
    for doc in mutants(600):
        try:
            parse_model(copy.deepcopy(doc))
        except ModelError:
            continue
        outcome = _same_solve(doc)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    print(f"\nvalid mutants: {outcomes}")
    assert outcomes.get("solved", 0) >= 50 and outcomes.get(MechanismError.__name__, 0) >= 10


def test_the_solve_comparison_can_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """A column path that lost a digit of one reaction would be caught."""
    import structeval.api as api

    honest = api.columns_to_json

    def off_by_a_little(*args: Any, **kwargs: Any) -> Any:
        out = dict(honest(*args, **kwargs))
        out["reactions"] = [dict(r, value=r["value"] * (1 + 1e-9)) for r in out["reactions"]]
        return out

    monkeypatch.setattr(api, "columns_to_json", off_by_a_little)
    doc = _line_with({}, supports=["A", "C"],
                     loads=[{"id": "F", "kind": "pointLoad", "at": {"type": "link", "id": "L0"},
                             "value": 1.0, "offset": 1.0}])
    assert isinstance(parse_document(doc), Columns)
    with pytest.raises(AssertionError):
        _same_solve(doc)


class _Replaying:
    """A kernel that answers every call with the given output block."""

    def __init__(self, block: bytes):
        self.block = block

    def run_bytes(self, data: Any) -> bytes:
        return self.block


def test_a_short_output_block_is_a_solver_error_on_the_column_path() -> None:
    """The column path reads the kernel's block without numpy's shape checks, so it
    measures the block first: one cut short, or claiming more pieces than it holds, is
    a SolverError (never an IndexError or a silently short answer)."""
    from structeval.fe import SolverError, default_kernel

    doc = _line_with({}, supports=["A", "C"],
                     loads=[{"id": "F", "kind": "pointLoad", "at": {"type": "link", "id": "L0"},
                             "value": 1.0, "offset": 1.0}])
    cols = parse_document(doc)
    assert isinstance(cols, Columns)
    block = default_kernel().run_bytes(pack_columns(cols))
    assert structeval.solve(doc, kernel=_Replaying(block)) == structeval.solve(doc)
    values = np.frombuffer(block).copy()
    pieces_at = 4 + 3 * 4 + 3 * 2 + 6 * 4  # header, displacements, reactions, end forces
    too_many = values.copy()
    too_many[pieces_at + 3] += 1  # one piece more than the block holds
    for bad in (block[:8 * (pieces_at + 2)], block[:-8], too_many.tobytes()):
        with pytest.raises(SolverError, match="malformed"):
            structeval.solve(doc, kernel=_Replaying(bad))


def test_displacements_and_samples_are_built_on_first_use_each() -> None:
    """Reading the reactions builds neither per-point nor per-sample entries; reading
    one lazy entry builds that one only; the values are those of the model path."""
    from structeval.fe.solution_json import PENDING

    doc = _line_with({}, supports=["A", "C"],
                     loads=[{"id": "F", "kind": "pointLoad", "at": {"type": "link", "id": "L0"},
                             "value": 1.0, "offset": 1.0}])
    result = structeval.solve(doc)
    assert result["reactions"] and result["max_abs_moment"] > 0
    assert dict.__getitem__(result, "displacements") is PENDING
    assert dict.__getitem__(result, "links") is PENDING
    want = structeval.solve(parse_model(doc))
    assert result["displacements"] == want["displacements"]
    assert dict.__getitem__(result, "links") is PENDING
    assert list(result) == ["reactions", "links", "max_abs_moment", "max_abs_moment_at",
                            "displacements"]
    assert json.dumps(result) == json.dumps(want)


def _validity(call: Callable[[], Any]) -> tuple[str, Any]:
    """("invalid", issues) when ``call`` raises ModelError, else ("valid", None): what a
    reader of the document's geometry concludes, whatever the solve then does."""
    try:
        call()
    except ModelError as exc:
        return "invalid", [str(issue) for issue in exc.issues]
    except StructEvalError:  # a mechanism or a kernel limit: the document itself was valid
        pass
    return "valid", None


def test_solve_words_faulty_layouts_like_the_validator() -> None:
    """``structeval.solve`` leaves the layout to the kernel's check; where that check
    asks to look closer, the model is checked in full, so a faulty drawing gets the
    validator's issues, word for word (hand-placed cases and 400 adversarial layouts,
    most of them faulty)."""
    rng = np.random.default_rng(20261202)
    docs = [doc for _, doc, _ in CASES] + [adversarial_layout(_seeded(rng)) for _ in range(400)]
    faulty = 0
    for doc in docs:
        want = _validity(lambda d=doc: parse_model(copy.deepcopy(d)))
        got = _validity(lambda d=doc: structeval.solve(copy.deepcopy(d)))
        assert got == want, (got, want, json.dumps(doc)[:600])
        faulty += want[0] == "invalid"
    assert faulty >= 200, faulty
