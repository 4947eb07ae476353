"""The fast canonical reader and the general validator are one parser (issue 12, item 2).

``parse_model`` tries :mod:`structeval.model.canonical` first and falls back to the
field-by-field validator. Over the fuzz corpora (mutants, hypothesis documents, the
validation cases, random structures, the shipped problems) both paths must accept
and reject exactly the same documents, build equal models (equal *and* with the same
field types, so 1 and 1.0 are told apart) and report the same issues. The geometry
shortcut (:func:`clearly_sane`) must never wave through a model the full check
faults, also on models built to sit at the tolerance.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings

from structeval.model import ModelError, parse_model
from structeval.model import geometry as geo
from structeval.model.canonical import Columns, read_canonical
from structeval.model.parse import (
    DEFAULT_A,
    DEFAULT_E,
    DEFAULT_IZ,
    MAX_ITEMS,
    _parse,
    parse_document,
)

from .random_structures import random_models
from .test_fuzz import _documents, mutants
from .test_model_validation import INVALID, LOOSE, canonical, edited

DATA = Path(__file__).resolve().parent.parent / "data" / "raw_models"
DEFAULTS = (DEFAULT_E, DEFAULT_A, DEFAULT_IZ)


def _reference(doc: Any) -> tuple[str, Any]:
    """The general validator alone (the fast reader bypassed)."""
    if isinstance(doc, str | bytes):
        try:
            doc = json.loads(doc)
        except (ValueError, RecursionError):
            return ("not json", None)
    try:
        model = _parse(doc)
    except ModelError as exc:
        return ("invalid", [str(i) for i in exc.issues])
    except RecursionError:
        return ("too deep", None)
    return ("model", repr(model), model)


def _public(doc: Any) -> tuple[str, Any]:
    """``parse_document`` (what ``structeval.solve`` reads through: columns or a model),
    and ``parse_model``, its model, alike."""
    try:
        parsed = parse_document(doc)
        model = parsed.model() if isinstance(parsed, Columns) else parsed
        assert repr(parse_model(doc)) == repr(model)
    except ModelError as exc:
        if exc.issues and exc.issues[0].message.startswith("not valid JSON"):
            return ("not json", None)
        if exc.issues and exc.issues[0].message.startswith("document is nested"):
            return ("too deep", None)
        return ("invalid", [str(i) for i in exc.issues])
    return ("model", repr(model), model)


def _fast_taken(doc: Any) -> bool:
    if isinstance(doc, str | bytes):
        try:
            doc = json.loads(doc)
        except (ValueError, RecursionError):
            return False
    return read_canonical(doc, defaults=DEFAULTS, limit=MAX_ITEMS) is not None


def _corpus() -> list[Any]:
    docs: list[Any] = [doc for _, doc in random_models(77, 60)]
    docs += [json.loads(p.read_text()) for p in sorted(DATA.glob("*.json"))]
    docs += [edited(c[1]) for c in INVALID]
    for _, explicit, loose in LOOSE:
        reference = edited(explicit) if explicit else canonical()
        written = copy.deepcopy(reference)
        loose(written)
        docs += [reference, written]
    docs += list(mutants(2500))
    return docs


def test_both_paths_agree_on_the_fuzz_corpus() -> None:
    fast = agree = 0
    kinds: dict[str, int] = {}
    for doc in _corpus():
        expected = _reference(copy.deepcopy(doc))
        got = _public(doc)
        assert got[:2] == expected[:2], json.dumps(doc)[:500] if not isinstance(
            doc, str) else doc[:500]
        fast += _fast_taken(doc)
        agree += 1
        kinds[expected[0]] = kinds.get(expected[0], 0) + 1
    print(f"\n{agree} documents, {fast} through the fast reader; outcomes {kinds}")
    # both kinds are well represented, so the agreement is not vacuous
    assert fast >= 400 and kinds["invalid"] >= 1500 and kinds["model"] >= 400


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(_documents())
def test_both_paths_agree_on_hypothesis_documents(doc: Any) -> None:
    assert _public(copy.deepcopy(doc))[:2] == _reference(doc)[:2]


def test_shipped_problems_take_both_shortcuts() -> None:
    """The fast paths are the ones real input takes, not a curiosity."""
    for path in sorted(DATA.glob("*.json")):
        doc = json.loads(path.read_text())
        model = read_canonical(doc, defaults=DEFAULTS, limit=MAX_ITEMS)
        assert model is not None, path.name
        assert geo.clearly_sane(model, geo.REL_TOL * geo.model_scale(model)), path.name


def _near_limit_models(rng: np.random.Generator) -> list[Any]:
    """Models with a point, a link or a load position placed at fractions and multiples
    of the tolerance from where the full check starts to complain."""
    out = []
    factors = [0.0, 0.3, 0.49, 0.51, 0.9, 0.999, 1.0, 1.001, 1.1, 1.49, 1.51, 1.99, 2.01, 3.0]
    for _, doc in random_models(77, 100):
        model = read_canonical(doc, defaults=DEFAULTS, limit=MAX_ITEMS)
        if model is None:  # written in a loose form: the geometry is what matters here
            model = parse_model(doc)
        tol = geo.REL_TOL * geo.model_scale(model)
        for _ in range(6):
            f = float(rng.choice(factors)) * tol
            mutated = copy.deepcopy(doc)
            kind = int(rng.integers(4))
            links = mutated["links"]
            pts = {p["id"]: p for p in mutated["points"]}
            lk = links[int(rng.integers(len(links)))]
            a, b = pts[lk["a"]], pts[lk["b"]]
            dx, dy = b["x"] - a["x"], b["y"] - a["y"]
            length = math.hypot(dx, dy)
            nx, ny = -dy / length, dx / length
            if kind == 0:  # a new point beside the link, near its middle or an end
                t = float(rng.choice([0.5, f / length, 1 - f / length]))
                mutated["points"].append({"id": "Q", "x": a["x"] + t * dx + f * nx,
                                          "y": a["y"] + t * dy + f * ny})
                links.append({"id": "LQ", "a": lk["a"], "b": "Q"})
            elif kind == 1:  # a point next to another
                mutated["points"].append({"id": "Q", "x": a["x"] + f, "y": a["y"]})
                links.append({"id": "LQ", "a": lk["b"], "b": "Q"})
            elif kind == 2:  # a link doubling back along another
                t = float(rng.choice([0.5, 1.0, 0.0])) * length + f
                mutated["points"].append({"id": "Q", "x": a["x"] + t * dx / length,
                                          "y": a["y"] + t * dy / length + f * ny})
                links.append({"id": "LQ", "a": lk["b"], "b": "Q"})
            else:  # a load at or just past an end
                mutated["loads"].append({"id": "FQ", "kind": "pointLoad",
                                         "at": {"type": "link", "id": lk["id"]},
                                         "value": 1, "offset": length + f - 2 * f * int(
                                             rng.integers(2))})
                mutated["loads"].append({"id": "WQ", "kind": "distributedLoad",
                                         "at": {"type": "link", "id": lk["id"]},
                                         "wStart": 1, "fromStart": length / 2,
                                         "fromEnd": length / 2 - f})
            out.append(mutated)
    return out


def test_geometry_shortcut_is_sound_at_the_tolerance() -> None:
    rng = np.random.default_rng(5)
    confirmed = faulted = looked_closer = 0
    for doc in _near_limit_models(rng):
        model = read_canonical(doc, defaults=DEFAULTS, limit=MAX_ITEMS)
        if model is None:  # e.g. a load offset below zero: not canonical
            continue
        tol = geo.REL_TOL * geo.model_scale(model)
        full = geo._full_check(model, tol)
        if geo.clearly_sane(model, tol):
            assert full == [], (full, json.dumps(doc)[:300])
            confirmed += 1
        else:
            looked_closer += 1
            faulted += bool(full)
        assert _public(doc)[:2] == _reference(doc)[:2]
    print(f"\nnear-limit models: {confirmed} confirmed sane, {looked_closer} checked in full "
          f"({faulted} with problems)")
    assert confirmed >= 20 and faulted >= 100


def _storey_frame(bays: int, storeys: int) -> dict[str, Any]:
    points = [{"id": f"P{i}_{j}", "x": 5.0 * i, "y": 3.5 * j}
              for j in range(storeys + 1) for i in range(bays + 1)]
    links = [{"id": f"C{i}_{j}", "a": f"P{i}_{j - 1}", "b": f"P{i}_{j}"}
             for j in range(1, storeys + 1) for i in range(bays + 1)]
    links += [{"id": f"B{i}_{j}", "a": f"P{i}_{j}", "b": f"P{i + 1}_{j}"}
              for j in range(1, storeys + 1) for i in range(bays)]
    supports = [{"id": f"S{i}", "at": {"type": "point", "id": f"P{i}_0"}, "kind": "fixed"}
                for i in range(bays + 1)]
    return {"points": points, "links": links, "supports": supports, "loads": []}


def _line(n: int, vertical: bool) -> dict[str, Any]:
    points = [{"id": f"P{i}", "x": 0.0 if vertical else float(i),
               "y": float(i) if vertical else 0.0} for i in range(n)]
    links = [{"id": f"L{i}", "a": f"P{i}", "b": f"P{i + 1}"} for i in range(n - 1)]
    return {"points": points, "links": links,
            "supports": [{"id": "S", "at": {"type": "point", "id": "P0"}, "kind": "fixed"}]}


def test_large_regular_models_take_the_shortcut() -> None:
    """The shortcut's work budget covers real layouts (a 200-member storey frame, 5000
    members in one line either way), so they are not sent to the quadratic full check."""
    for doc in (_storey_frame(12, 8), _storey_frame(30, 20), _line(MAX_ITEMS, False),
                _line(MAX_ITEMS, True)):
        model = read_canonical(doc, defaults=DEFAULTS, limit=MAX_ITEMS)
        assert model is not None
        assert geo.clearly_sane(model, geo.REL_TOL * geo.model_scale(model)), len(model.links)
