"""Hostile input: 5,000+ mutated models and 300 hypothesis-built documents.

Whatever a model writes — fields deleted, wrong types, NaN/Inf/huge/tiny numbers,
nested junk, duplicate ids, arrays up to the size cap, degenerate geometry,
mechanisms, broken JSON text — ``structeval.solve`` must either return a finite
solution or raise a StructEvalError subclass. Anything else escaping is a crash
of the judge. Every example runs under a deadline (SIGALRM), so a hang fails the
test with the model that caused it instead of stalling CI.
"""

from __future__ import annotations

import contextlib
import copy
import json
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from structeval import solve
from structeval.fe import MechanismError, SolverError
from structeval.model import ModelError, StructEvalError
from structeval.model.parse import MAX_ITEMS

from .conftest import shared_dir
from .random_structures import random_models
from .structure_builders import continuous_beam

SEED = 424242
MUTANTS = 5200
DEADLINE_S = 20.0  # per example; the largest (size-cap) cases take ~3 s
Json = Any


class Hang(Exception):
    """Raised by the alarm: one example ran past its deadline."""


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    if not hasattr(signal, "SIGALRM") or threading.current_thread() is not threading.main_thread():
        yield  # no alarm on Windows or off the main thread; the solver's fuel still bounds it
        return

    def _raise(signum: int, frame: Any) -> None:
        raise Hang(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, _raise)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def outcome(source: Json, *, springs: bool = False) -> str:
    """Name of what happened; any exception that is not a StructEvalError propagates."""
    try:
        result = solve(source, spring=1e12 if springs else 0.0)
    except ModelError:
        return "invalid"
    except MechanismError as exc:
        assert "nan" not in str(exc).lower(), str(exc)
        assert exc.motions, "a mechanism names its free motions"
        return "mechanism"
    except SolverError:
        return "solver"
    except StructEvalError:
        return "other typed"
    json.dumps(result, allow_nan=False)  # a solution is finite all through
    return "solved"


# ---------------------------------------------------------------- mutations

JUNK: list[Json] = [
    None, True, False, 0, -0.0, 1, -1, 0.5, "", " ", "abc", "P1", "L1", "1e3", " 7 ", "NaN",
    "-inf", "0x10", "1,5", "１２", [], [None], {}, {"id": None}, [[[]]], {"a": {"b": [1, {}]}},
    float("nan"), float("inf"), float("-inf"), 1e308, -1e308, 1e-308, 5e-324, 1e15, -1e15,
    10**30, 10**400, -(10**400), 2**63, "x" * 10_000, "\u0000", "\ud800", "ü", ["P1", "P2"],
]

NUMBERS: list[Json] = [
    float("nan"), float("inf"), float("-inf"), 1e308, -1e308, 1e-308, 5e-324, 0, -0.0, 1e-12,
    1e12, 1e200, -1, -1e-9, 10**30, 10**400, "1e400", " 3 ", "nan", "1_000", True,
]

KINDS = {
    "kind": ["pin", "roller", "fixed", "slider", "pointLoad", "distributedLoad",
             "bendingMoment", "hinge", "PIN", "Roller ", "clamp", "", "force"],
    "endA": ["rigid", "hinge", "Hinge", "pinned", "", None],
    "endB": ["rigid", "hinge", "released", 1],
    "angleMode": ["world", "relative", "global", "local", "WORLD", 0],
    "offsetMode": ["m", "length", "percent", "%", "mm", None],
    "refEnd": ["A", "B", "a", "C", 0],
    "type": ["point", "link", "node", "member", None],
}


def _nodes(doc: Json) -> list[tuple[Json, Json]]:
    """Every (container, key) pair in the document, depth first."""
    found: list[tuple[Json, Json]] = []

    def walk(node: Json) -> None:
        if isinstance(node, dict):
            for k in list(node):
                found.append((node, k))
                walk(node[k])
        elif isinstance(node, list):
            for i in range(len(node)):
                found.append((node, i))
                walk(node[i])

    walk(doc)
    return found


def _pick(rng: np.random.Generator, items: list[Any]) -> Any:
    return items[int(rng.integers(len(items)))]


def _delete_field(rng: np.random.Generator, doc: Json) -> Json:
    places = [(c, k) for c, k in _nodes(doc) if isinstance(c, dict)]
    if places:
        container, key = _pick(rng, places)
        del container[key]
    return doc


def _junk_value(rng: np.random.Generator, doc: Json) -> Json:
    places = _nodes(doc)
    if places:
        container, key = _pick(rng, places)
        container[key] = copy.deepcopy(_pick(rng, JUNK))
    return doc


def _bad_number(rng: np.random.Generator, doc: Json) -> Json:
    places = [(c, k) for c, k in _nodes(doc)
              if isinstance(c[k], int | float) and not isinstance(c[k], bool)]
    if places:
        container, key = _pick(rng, places)
        container[key] = _pick(rng, NUMBERS)
    return doc


def _scale_numbers(rng: np.random.Generator, doc: Json) -> Json:
    """Every number of one kind (coordinates, sections or loads) scaled by 1e±k."""
    factor = 10.0 ** float(rng.choice([-300, -30, -8, 8, 30, 300]))
    keys = _pick(rng, [("x", "y"), ("E", "A", "Iz"), ("value", "wStart", "wEnd")])
    for container, key in _nodes(doc):
        if key in keys and isinstance(container[key], int | float) and not isinstance(
                container[key], bool):
            with contextlib.suppress(OverflowError):  # a planted 400-digit integer
                container[key] = container[key] * factor
    return doc


def _duplicate_entry(rng: np.random.Generator, doc: Json) -> Json:
    arrays = [v for v in doc.values() if isinstance(v, list) and v] if isinstance(
        doc, dict) else []
    if arrays:
        array = _pick(rng, arrays)
        array.insert(int(rng.integers(len(array) + 1)), copy.deepcopy(_pick(rng, array)))
    return doc


def _rewire(rng: np.random.Generator, doc: Json) -> Json:
    """A reference pointed at another id (existing or not), or a link closed on itself."""
    refs = [(c, k) for c, k in _nodes(doc) if k in ("a", "b", "id") and isinstance(c[k], str)]
    ids = [c[k] for c, k in refs] + ["P404", "", "L1 "]
    if refs:
        container, key = _pick(rng, refs)
        container[key] = _pick(rng, ids)
    return doc


def _degenerate_geometry(rng: np.random.Generator, doc: Json) -> Json:
    """A point moved onto another point, onto the middle of a link, or far away."""
    points = [p for p in doc.get("points", []) if isinstance(p, dict)] if isinstance(
        doc, dict) else []
    if len(points) < 2:
        return doc
    p, q, r = (_pick(rng, points) for _ in range(3))
    choice = int(rng.integers(4))
    try:
        if choice == 0:
            p["x"], p["y"] = q.get("x"), q.get("y")
        elif choice == 1:
            p["x"] = (q["x"] + r["x"]) / 2
            p["y"] = (q["y"] + r["y"]) / 2
        elif choice == 2:
            p["x"], p["y"] = q.get("x"), r.get("y")
        else:
            p["x"] = 1e154
    except (KeyError, TypeError):
        pass
    return doc


def _mechanism(rng: np.random.Generator, doc: Json) -> Json:
    """Supports removed or turned into rollers, every end hinged, or a couple on a point."""
    if not isinstance(doc, dict):
        return doc
    choice = int(rng.integers(4))
    supports = [s for s in doc.get("supports", []) if isinstance(s, dict)]
    links = [lk for lk in doc.get("links", []) if isinstance(lk, dict)]
    if choice == 0:
        doc["supports"] = supports[:1]
    elif choice == 1:
        for s in supports:
            s["kind"], s["angleDeg"] = "roller", 0
    elif choice == 2:
        for lk in links:
            lk["endA"] = lk["endB"] = "hinge"
    else:
        for lk in links:
            lk["endA"] = lk["endB"] = "hinge"
        points = [p.get("id") for p in doc.get("points", []) if isinstance(p, dict)]
        if points and isinstance(doc.get("loads"), list):
            doc["loads"].append({"id": "LDC", "kind": "bendingMoment", "value": 5,
                                 "at": {"type": "point", "id": _pick(rng, points)}})
    return doc


def _kind_swap(rng: np.random.Generator, doc: Json) -> Json:
    places = [(c, k) for c, k in _nodes(doc) if k in KINDS]
    if places:
        container, key = _pick(rng, places)
        container[key] = _pick(rng, KINDS[key])
    return doc


def _type_confusion(rng: np.random.Generator, doc: Json) -> Json:
    """A container turned into the other kind, or the whole document replaced."""
    if rng.random() < 0.1:
        return copy.deepcopy(_pick(rng, JUNK))
    places = [(c, k) for c, k in _nodes(doc) if isinstance(c[k], dict | list)]
    if places:
        container, key = _pick(rng, places)
        value = container[key]
        container[key] = list(value.values()) if isinstance(value, dict) else {
            str(i): v for i, v in enumerate(value)}
    return doc


def _pile_of_loads(rng: np.random.Generator, doc: Json) -> Json:
    """Hundreds of loads on one link, many at the same or clashing positions."""
    links = [lk for lk in doc.get("links", []) if isinstance(lk, dict)] if isinstance(
        doc, dict) else []
    if links and isinstance(doc.get("loads"), list):
        link = _pick(rng, links).get("id")
        for i in range(int(rng.integers(50, 400))):
            doc["loads"].append({"id": f"X{i}", "kind": "pointLoad", "value": 1,
                                 "angleDeg": 90, "at": {"type": "link", "id": link},
                                 "offsetMode": "percent",
                                 "offsetPercent": float(rng.choice([0, 50, 100, 33.3]))})
    return doc


MUTATIONS: list[Callable[[np.random.Generator, Json], Json]] = [
    _delete_field, _junk_value, _bad_number, _scale_numbers, _duplicate_entry, _rewire,
    _degenerate_geometry, _mechanism, _kind_swap, _type_confusion, _pile_of_loads,
]
WEIGHTS = np.array([3, 3, 4, 1, 2, 2, 2, 2, 2, 1, 0.2])


def _seeds() -> list[Json]:
    docs = [doc for _, doc in random_models(SEED, 40)]
    shared = shared_dir()
    if shared is not None:
        docs += [json.loads(p.read_text()) for p in
                 sorted((shared / "framecalc" / "conformance").glob("*.model.json"))]
    return docs


def mutants(count: int) -> Iterator[Json]:
    rng = np.random.default_rng(SEED)
    seeds = _seeds()
    p = WEIGHTS / WEIGHTS.sum()
    for _ in range(count):
        doc = copy.deepcopy(_pick(rng, seeds))
        for _ in range(int(rng.integers(1, 4))):
            doc = MUTATIONS[int(rng.choice(len(MUTATIONS), p=p))](rng, doc)
        if rng.random() < 0.08:  # as broken JSON text: truncated or with bytes flipped
            text = json.dumps(doc)
            cut = int(rng.integers(len(text) + 1))
            doc = text[:cut] if rng.random() < 0.5 else text[:cut] + _pick(
                rng, ["}", "]", ",", '"', "\\", "NaN", "\x00"]) + text[cut:]
        yield doc


def test_mutation_fuzz() -> None:
    seen: Counter[str] = Counter()
    started = time.perf_counter()
    for index, doc in enumerate(mutants(MUTANTS)):
        try:
            with deadline(DEADLINE_S):
                seen[outcome(doc, springs=index % 7 == 0)] += 1
        except BaseException as exc:
            shown = json.dumps(doc, default=repr)[:2000] if not isinstance(doc, str) else doc[
                :2000]
            raise AssertionError(f"mutant {index} escaped with {exc!r}: {shown}") from exc
    elapsed = time.perf_counter() - started
    total = sum(seen.values())
    assert total >= 5000
    # the mutants really reach every outcome, not just the parser's front door
    assert seen["solved"] >= 0.1 * total, seen
    assert seen["invalid"] >= 0.3 * total, seen
    assert seen["mechanism"] >= 0.02 * total, seen
    assert seen["solver"] >= 5, seen
    print(f"{total} mutants in {elapsed:.1f} s: {dict(seen)}")


# --------------------------------------------------------------- the size cap


def test_arrays_at_the_size_cap() -> None:
    with deadline(60):
        assert outcome(continuous_beam(MAX_ITEMS - 1)) == "solved"
        over = continuous_beam(MAX_ITEMS)
        assert outcome(over) == "invalid"


def test_dense_random_graph_at_the_cap_is_refused_not_hung() -> None:
    """2,500 points on a circle (so no point lies on another's link) joined by the polygon
    and 2,500 random chords: valid, stable, but its matrix profile is quadratic, so the
    solve must stop on its instruction budget instead of running for minutes."""
    rng = np.random.default_rng(SEED)
    n = MAX_ITEMS // 2
    angle = np.arange(n) * 2 * np.pi / n
    xy = 1000 * np.c_[np.cos(angle), np.sin(angle)]
    pairs = {(i, i + 1) for i in range(n - 1)} | {(0, n - 1)}
    while len(pairs) < MAX_ITEMS:
        i, j = sorted(int(v) for v in rng.choice(n, 2, replace=False))
        pairs.add((i, j))
    doc = {"points": [{"id": f"P{i}", "x": x, "y": y} for i, (x, y) in enumerate(xy)],
           "links": [{"id": f"L{k}", "a": f"P{i}", "b": f"P{j}"}
                     for k, (i, j) in enumerate(sorted(pairs))],
           "supports": [{"id": f"S{i}", "at": {"type": "point", "id": f"P{i}"},
                         "kind": "fixed"} for i in range(0, n, 800)],
           "loads": [{"id": "F", "kind": "pointLoad", "at": {"type": "point", "id": "P5"},
                      "value": 1}]}
    with deadline(60), pytest.raises(SolverError, match="instruction budget"):
        solve(doc)


# ----------------------------------------------------------------- hypothesis

_json_leaf = st.one_of(st.none(), st.booleans(), st.integers(-(10**20), 10**20),
                       st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=8))
_json = st.recursive(_json_leaf, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=12)
_BASE = continuous_beam(3)
_FIELDS = ["points", "links", "supports", "loads"]


@st.composite
def _documents(draw: st.DrawFn) -> Json:
    """A 3-span beam with hypothesis-chosen JSON values planted at chosen places."""
    doc = copy.deepcopy(_BASE)
    places = _nodes(doc)
    for _ in range(draw(st.integers(1, 3))):
        container, key = places[draw(st.integers(0, len(places) - 1))]
        with contextlib.suppress(KeyError, IndexError, TypeError):
            container[key] = draw(_json)
    if draw(st.booleans()):
        doc[draw(st.sampled_from(_FIELDS))] = draw(_json)
    return doc


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(_documents())
def test_hypothesis_documents(doc: Json) -> None:
    with deadline(DEADLINE_S):
        outcome(doc)
