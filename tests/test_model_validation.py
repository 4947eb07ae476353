"""Validation of untrusted FrameCalc JSON (issue 2, item 3).

Every invalid input must be refused before any solve with a ModelError whose
issues name the exact JSON path and say what is wrong; the loose forms FORMAT.md
calls equivalent must be accepted and mean exactly what the canonical form means
(same parsed model, same solution bytes).
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable
from typing import Any

import pytest

from structeval import solve
from structeval.model import ModelError, parse_model
from structeval.model.parse import MAX_ITEMS

Doc = dict[str, Any]


def canonical() -> Doc:
    """An L-frame with every field written out; L2 is vertical, so relative ≠ world."""
    section = {"E": 2e8, "A": 1e-2, "Iz": 1e-4}
    return {
        "points": [{"id": "P1", "x": 0, "y": 0}, {"id": "P2", "x": 4, "y": 0},
                   {"id": "P3", "x": 4, "y": 3}],
        "links": [{"id": "L1", "a": "P1", "b": "P2", "endA": "rigid", "endB": "rigid",
                   **section},
                  {"id": "L2", "a": "P2", "b": "P3", "endA": "rigid", "endB": "hinge",
                   **section}],
        "supports": [{"id": "S1", "at": {"type": "point", "id": "P1"}, "kind": "fixed",
                      "angleDeg": 0},
                     {"id": "S2", "at": {"type": "point", "id": "P3"}, "kind": "roller",
                      "angleDeg": 90}],
        "loads": [
            {"id": "LD1", "kind": "pointLoad", "at": {"type": "link", "id": "L1"}, "value": 10,
             "angleDeg": 270, "angleMode": "world", "flip": 1, "refEnd": "A",
             "offsetMode": "m", "offset": 1.5},
            {"id": "LD2", "kind": "distributedLoad", "at": {"type": "link", "id": "L2"},
             "wStart": 3, "wEnd": 5, "fromStart": 0.5, "fromEnd": 0.5, "angleDeg": 90,
             "angleMode": "relative", "flip": -1},
            {"id": "LD3", "kind": "bendingMoment", "at": {"type": "link", "id": "L1"},
             "value": 7, "flip": -1, "refEnd": "B", "offsetMode": "percent",
             "offsetPercent": 25},
            {"id": "LD4", "kind": "pointLoad", "at": {"type": "point", "id": "P3"}, "value": 4,
             "angleDeg": 180, "angleMode": "world", "flip": 1},
        ],
    }


def edited(change: Callable[[Doc], Any]) -> Doc:
    doc = canonical()
    change(doc)
    return doc


def issues(source: Any) -> list[tuple[str, str]]:
    with pytest.raises(ModelError) as info:
        parse_model(source)
    return [(i.path, i.message) for i in info.value.issues]


def test_canonical_model_is_valid() -> None:
    model = parse_model(canonical())
    assert [lk.id for lk in model.links] == ["L1", "L2"]
    solve(canonical())  # and stable


# ---------------------------------------------------------------- invalid inputs


def _set(path: tuple[Any, ...], value: Any) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        target = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return change


def _drop(path: tuple[Any, ...]) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        target = doc
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
    return change


def _append(array: str, item: Doc) -> Callable[[Doc], None]:
    return lambda doc: doc[array].append(item)


def _all(*changes: Callable[[Doc], None]) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        for c in changes:
            c(doc)
    return change


_P4_INSIDE_L1 = {"id": "P4", "x": 2, "y": 0}
_L3 = {"id": "L3", "a": "P3", "b": "P4"}

#: (case, change to the canonical model, [(exact JSON path, words the message must hold)]).
#: The list is the complete set of issues expected: nothing vague, nothing spurious.
INVALID: list[tuple[str, Callable[[Doc], None], list[tuple[str, str]]]] = [
    ("dangling link end", _set(("links", 1, "b"), "P9"),
     [("links[1].b", 'unknown point "P9"')]),
    ("support at unknown point", _set(("supports", 1, "at", "id"), "P9"),
     [("supports[1].at.id", 'unknown point "P9"')]),
    ("load on unknown link", _set(("loads", 0, "at", "id"), "L9"),
     [("loads[0].at.id", 'unknown link "L9"')]),
    ("load on unknown point", _set(("loads", 3, "at", "id"), "P9"),
     [("loads[3].at.id", 'unknown point "P9"')]),
    ("duplicate point id", _append("points", {"id": "P2", "x": 9, "y": 9}),
     [("points[3].id", 'duplicate id "P2"')]),
    ("duplicate link id", _append("links", {"id": "L1", "a": "P1", "b": "P3"}),
     [("links[2].id", 'duplicate id "L1"')]),
    ("duplicate support id", _set(("supports", 1, "id"), "S1"),
     [("supports[1].id", 'duplicate id "S1"')]),
    ("duplicate load id", _set(("loads", 2, "id"), "LD1"),
     [("loads[2].id", 'duplicate id "LD1"')]),
    ("orphan point", _append("points", {"id": "P4", "x": 9, "y": 9}),
     [("points[3]", "belongs to no link")]),
    ("link from a point to itself", _set(("links", 1, "b"), "P2"),
     [("links[1]", "same point")]),
    ("zero-length link between coincident points",
     _all(_append("points", {"id": "P4", "x": 4, "y": 3}), _append("links", _L3)),
     [("links[2]", "zero length"), ("points[3]", "same place")]),
    ("overlapping links", _append("links", {"id": "L3", "a": "P2", "b": "P1"}),
     [("links[2]", 'overlaps link "L1"')]),
    ("collinear link running past a point",
     _all(_append("points", {"id": "P4", "x": 8, "y": 0}),
          _append("links", {"id": "L3", "a": "P1", "b": "P4"})),
     [("links[2]", 'overlaps link "L1"'), ("points[1]", 'inside link "L3"')]),
    ("point inside a link", _all(_append("points", _P4_INSIDE_L1), _append("links", _L3)),
     [("points[3]", 'inside link "L1"')]),
    ("two supports on a point",
     _append("supports", {"id": "S3", "at": {"type": "point", "id": "P1"}, "kind": "pin"}),
     [("supports[2]", "already has support")]),
    ("NaN E", _set(("links", 0, "E"), float("nan")), [("links[0].E", "finite number")]),
    ("infinite A", _set(("links", 0, "A"), float("inf")), [("links[0].A", "finite number")]),
    ("Iz as 'inf' text", _set(("links", 1, "Iz"), "inf"), [("links[1].Iz", "finite number")]),
    ("zero E", _set(("links", 0, "E"), 0), [("links[0].E", "> 0")]),
    ("negative A", _set(("links", 1, "A"), -0.01), [("links[1].A", "> 0")]),
    ("negative Iz", _set(("links", 0, "Iz"), -1e-4), [("links[0].Iz", "> 0")]),
    ("unknown support kind", _set(("supports", 0, "kind"), "clamp"),
     [("supports[0].kind", '"clamp"')]),
    ("unknown load kind", _set(("loads", 0, "kind"), "force"), [("loads[0].kind", '"force"')]),
    ("unknown end release", _set(("links", 0, "endA"), "pinned"),
     [("links[0].endA", '"pinned"')]),
    ("unknown angle mode", _set(("loads", 1, "angleMode"), "local"),
     [("loads[1].angleMode", '"local"')]),
    ("unknown offset mode", _set(("loads", 0, "offsetMode"), "feet"),
     [("loads[0].offsetMode", '"feet"')]),
    ("unknown refEnd", _set(("loads", 0, "refEnd"), "C"), [("loads[0].refEnd", '"C"')]),
    ("unknown target type", _set(("loads", 3, "at", "type"), "node"),
     [("loads[3].at.type", '"node"')]),
    ("support on a link", _set(("supports", 1, "at"), {"type": "link", "id": "L2"}),
     [("supports[1].at.type", "stand at points")]),
    ("distributed load on a point", _set(("loads", 1, "at"), {"type": "point", "id": "P2"}),
     [("loads[1].at.type", "acts on a link")]),
    ("flip 2", _set(("loads", 0, "flip"), 2), [("loads[0].flip", "1 or -1")]),
    ("offset beyond the link", _set(("loads", 0, "offset"), 4.5),
     [("loads[0].offset", "outside")]),
    ("negative offset", _set(("loads", 0, "offset"), -1), [("loads[0].offset", ">= 0")]),
    ("percent above 100", _set(("loads", 2, "offsetPercent"), 120),
     [("loads[2].offsetPercent", "0..100")]),
    ("percent below 0", _set(("loads", 2, "offsetPercent"), -5),
     [("loads[2].offsetPercent", "0..100")]),
    ("link load without a position",
     _all(_drop(("loads", 0, "offsetMode")), _drop(("loads", 0, "offset"))),
     [("loads[0]", "needs its position")]),
    ("fromStart + fromEnd = length", _all(_set(("loads", 1, "fromStart"), 1.5),
                                          _set(("loads", 1, "fromEnd"), 1.5)),
     [("loads[1]", "leaves nothing")]),
    ("fromStart + fromEnd > length", _set(("loads", 1, "fromStart"), 2.9),
     [("loads[1]", "leaves nothing")]),
    ("negative fromEnd", _set(("loads", 1, "fromEnd"), -0.5), [("loads[1].fromEnd", ">= 0")]),
    ("missing coordinate", _drop(("points", 1, "y")), [("points[1].y", "required")]),
    ("missing load value", _drop(("loads", 2, "value")), [("loads[2].value", "required")]),
    ("missing wStart", _drop(("loads", 1, "wStart")), [("loads[1].wStart", "required")]),
    ("missing support kind", _drop(("supports", 0, "kind")),
     [("supports[0].kind", "required")]),
    ("boolean as a number", _set(("points", 0, "x"), True), [("points[0].x", "finite number")]),
    ("400-digit integer", _set(("points", 2, "y"), 10**400),
     [("points[2].y", "finite number")]),
    ("object as a number", _set(("loads", 3, "value"), {"v": 1}),
     [("loads[3].value", "finite number")]),
    ("empty id", _set(("loads", 0, "id"), " "), [("loads[0].id", "empty")]),
    ("load that is not an object", _set(("loads", 0), "10 kN down"),
     [("loads[0]", "must be an object")]),
    ("removed point leaves its links dangling", _set(("points", 1), [4, 0]),
     [("points[1]", "must be an object"), ("links[0].b", 'unknown point "P2"'),
      ("links[1].a", 'unknown point "P2"')]),
    ("points not an array", _set(("points",), {"P1": [0, 0]}), [("$.points", "array")]),
    ("links missing", _drop(("links",)), [("$.links", "required")]),
    ("too many supports", _set(("supports",), [{}] * (MAX_ITEMS + 1)),
     [("$.supports", f"at most {MAX_ITEMS}")]),
]


@pytest.mark.parametrize(("change", "expected"), [c[1:] for c in INVALID],
                         ids=[c[0] for c in INVALID])
def test_invalid_model_names_the_path(change: Callable[[Doc], None],
                                      expected: list[tuple[str, str]]) -> None:
    found = issues(edited(change))
    assert sorted(p for p, _ in found) == sorted(p for p, _ in expected), found
    for path, words in expected:
        message = next(m for p, m in found if p == path)
        assert words in message, (path, message)


def test_huge_integer_in_json_text() -> None:
    """json.loads turns 1 followed by 400 zeros into an int that float() cannot hold."""
    text = json.dumps(canonical()).replace('"x": 4,', '"x": 1' + "0" * 400 + ",", 1)
    assert [p for p, _ in issues(text)] == ["points[1].x"]


def test_every_problem_is_reported_at_once() -> None:
    doc = edited(_all(_set(("links", 1, "b"), "P9"), _set(("links", 0, "E"), -1),
                      _set(("supports", 0, "kind"), "clamp"),
                      _set(("loads", 2, "offsetPercent"), 120)))
    paths = {p for p, _ in issues(doc)}
    assert paths == {"links[1].b", "links[0].E", "supports[0].kind", "loads[2].offsetPercent"}


def test_error_text_lists_paths_and_fixes() -> None:
    with pytest.raises(ModelError) as info:
        parse_model(edited(_set(("links", 1, "b"), "P9")))
    text = str(info.value)
    assert text.startswith("invalid FrameCalc model")
    assert 'links[1].b: refers to unknown point "P9"' in text


@pytest.mark.parametrize(("source", "words"), [
    ({}, "required"),
    ({"points": [], "links": []}, "empty model"),
    ({"points": [{"id": "P1", "x": 0, "y": 0}], "links": []}, "empty model"),
    ([], "JSON object"),
    (5, "JSON object"),
    ("[1, 2]", "JSON object"),
    ('"a model"', "JSON object"),
    (None, "JSON object"),
    ("{", "not valid JSON"),
    ("", "not valid JSON"),
    (b"\xff\xfe{", "not valid JSON"),
    ("{'points': []}", "not valid JSON"),
    ("[" * 100_000 + "]" * 100_000, ""),
])
def test_documents_that_are_not_models(source: Any, words: str) -> None:
    found = issues(source)
    assert found and found[0][0].startswith("$"), found
    assert any(words in m for _, m in found), found


# --------------------------------------------------------- loose forms FORMAT.md accepts


def _stringify_numbers(doc: Doc) -> None:
    """Every number written as a string, some with spaces around it."""
    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        if isinstance(node, bool) or not isinstance(node, int | float):
            return node
        return f" {node!r} " if isinstance(node, float) else str(node)
    doc.update(walk(doc))


def _rename(path: tuple[Any, ...], value: Any) -> Callable[[Doc], None]:
    return _set(path, value)


#: The section a link without E, A, Iz gets, as full-precision literals.
DEFAULT_SECTION = {"E": 80918000.0, "A": 0.007853981633974483, "Iz": 4.908738521234054e-06}

#: (case, change making the canonical model hold the default explicitly (or nothing),
#:  change writing the loose form). Both must parse to the same model and solve the same.
LOOSE: list[tuple[str, Callable[[Doc], None] | None, Callable[[Doc], None]]] = [
    ("numbers as strings", None, _stringify_numbers),
    ("global = world", None, _rename(("loads", 0, "angleMode"), "global")),
    ("length = m", None, _rename(("loads", 0, "offsetMode"), "length")),
    ("missing endA/endB = rigid", None,
     _all(_drop(("links", 0, "endA")), _drop(("links", 0, "endB")),
          _drop(("links", 1, "endA")))),
    ("missing angleMode = relative", None, _drop(("loads", 1, "angleMode"))),
    ("missing flip = 1", None, _drop(("loads", 0, "flip"))),
    ("missing angleDeg = 0", _set(("loads", 1, "angleDeg"), 0), _drop(("loads", 1, "angleDeg"))),
    ("missing refEnd = A", None, _drop(("loads", 0, "refEnd"))),
    ("offsetMode inferred from offset", None, _drop(("loads", 0, "offsetMode"))),
    ("offsetMode inferred from offsetPercent", None, _drop(("loads", 2, "offsetMode"))),
    ("missing wEnd = wStart", _set(("loads", 1, "wEnd"), 3), _drop(("loads", 1, "wEnd"))),
    ("missing fromStart/fromEnd = 0",
     _all(_set(("loads", 1, "fromStart"), 0), _set(("loads", 1, "fromEnd"), 0)),
     _all(_drop(("loads", 1, "fromStart")), _drop(("loads", 1, "fromEnd")))),
    ("missing E/A/Iz = default section",
     _all(*(_set(("links", 1, k), v) for k, v in DEFAULT_SECTION.items())),
     _all(*(_drop(("links", 1, k)) for k in ("E", "A", "Iz")))),
    ("missing support angleDeg = 0", None, _drop(("supports", 0, "angleDeg"))),
    ("missing support at.type = point", None, _drop(("supports", 1, "at", "type"))),
    ("unknown extra fields ignored", None,
     _all(_set(("links", 0, "density"), 7850), _set(("loads", 0, "angleWorldDeg"), 0))),
]


@pytest.mark.parametrize(("explicit", "loose"), [c[1:] for c in LOOSE],
                         ids=[c[0] for c in LOOSE])
def test_loose_form_means_the_canonical_one(explicit: Callable[[Doc], None] | None,
                                            loose: Callable[[Doc], None]) -> None:
    reference = edited(explicit) if explicit else canonical()
    written = copy.deepcopy(reference)
    loose(written)
    assert written != reference
    assert parse_model(written) == parse_model(reference)
    assert json.dumps(solve(written)) == json.dumps(solve(reference))


@pytest.mark.parametrize(("field", "other"), [
    (("loads", 1, "angleMode"), "world"),
    (("loads", 0, "flip"), -1),
    (("loads", 0, "refEnd"), "B"),
    (("links", 0, "endB"), "hinge"),
    (("loads", 1, "fromStart"), 1.0),
])
def test_defaults_are_not_arbitrary(field: tuple[Any, ...], other: Any) -> None:
    """The controls: writing the other value changes the answer, so the loose-form
    test above would notice a wrong default."""
    assert json.dumps(solve(edited(_set(field, other)))) != json.dumps(solve(canonical()))


def test_default_section_is_the_documented_round_bar() -> None:
    model = parse_model(edited(_all(*(_drop(("links", 0, k)) for k in ("E", "A", "Iz")))))
    link = model.links[0]
    assert (link.E, link.A, link.Iz) == tuple(DEFAULT_SECTION.values())
    # FORMAT.md's example section: a 100 mm solid round bar, E = 80918000
    assert math.isclose(link.A, math.pi * 0.05**2, rel_tol=1e-12)
    assert math.isclose(link.Iz, math.pi * 0.05**4 / 4, rel_tol=1e-12)


def test_json_text_and_bytes_are_accepted() -> None:
    text = json.dumps(canonical())
    assert parse_model(text) == parse_model(canonical())
    assert parse_model(text.encode()) == parse_model(canonical())
