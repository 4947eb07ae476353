"""Small models that exercise one presentation device each (shared by the exam tests)."""

from __future__ import annotations

from typing import Any

from .structure_builders import DOWN, model_doc

Doc = dict[str, Any]


def _udl(link: str, w: float) -> dict[str, Any]:
    return {"kind": "distributedLoad", "at": {"type": "link", "id": link}, "wStart": w,
            "wEnd": w, "fromStart": 0, "fromEnd": 0, **DOWN, "flip": 1}


def _force(point: str, value: float, angle: float = 270) -> dict[str, Any]:
    return {"kind": "pointLoad", "at": {"type": "point", "id": point}, "value": value,
            "angleDeg": angle, "angleMode": "world", "flip": 1}


def symmetric_beam(right_load: float = 10.0) -> Doc:
    """Fixed at both ends, four 2 m bays, 10 kN at B and (``right_load``) at D, 5 kN/m on
    every bay: symmetric about x = 4 when ``right_load`` is 10."""
    pts = {"A": (0, 0), "B": (2, 0), "C": (4, 0), "D": (6, 0), "E": (8, 0)}
    links = [(f"L{i}", a, b, "rigid", "rigid") for i, (a, b) in
             enumerate(zip("ABCD", "BCDE", strict=True), start=1)]
    loads = [_force("B", 10.0), _force("D", right_load)] + [_udl(f"L{i}", 5) for i in range(1, 5)]
    return model_doc(pts, links, [("S1", "A", "fixed", 0), ("S2", "E", "fixed", 0)], loads)


def roof_truss() -> Doc:
    """A pitched truss: bottom chord 4 × 3 m, top chord straight from A to the apex C and
    on to E; the top chord's middle joints F and G are on the chords (heights implied)."""
    pts = {"A": (0, 0), "B": (3, 0), "C": (6, 0), "D": (9, 0), "E": (12, 0),
           "F": (3, 1.5), "G": (6, 3), "H": (9, 1.5)}
    pairs = [("A", "B"), ("B", "C"), ("C", "D"), ("D", "E"), ("A", "F"), ("F", "G"),
             ("G", "H"), ("H", "E"), ("B", "F"), ("C", "G"), ("D", "H"), ("F", "C"),
             ("C", "H")]
    links = [(f"L{i}", a, b, "hinge", "hinge") for i, (a, b) in enumerate(pairs, start=1)]
    return model_doc(pts, links, [("S1", "A", "pin", 0), ("S2", "E", "roller", 0)],
                     [_force("F", 12.0), _force("G", 20.0), _force("D", 8.0)])


def building_frame() -> Doc:
    """Two bays of 6 m, three storeys of 3.5 m, fixed feet, loads on every floor."""
    pts: dict[str, tuple[float, float]] = {}
    for j, y in enumerate((0.0, 3.5, 7.0, 10.5)):
        for i, x in enumerate((0.0, 6.0, 12.0)):
            pts[f"P{j}{i}"] = (x, y)
    links = []
    for j in range(3):
        for i in range(3):
            links.append((f"C{j}{i}", f"P{j}{i}", f"P{j + 1}{i}", "rigid", "rigid"))
        for i in range(2):
            links.append((f"B{j}{i}", f"P{j + 1}{i}", f"P{j + 1}{i + 1}", "rigid", "rigid"))
    loads = [_udl("B00", 10), _udl("B11", 8), _force("P20", 15.0, 0), _force("P30", 12.0, 0)]
    return model_doc(pts, links, [(f"S{i}", f"P0{i}", "fixed", 0) for i in range(3)], loads)


def pitched_portal() -> Doc:
    """Columns 4 m high 12 m apart, a ridge 1.5 m above the eaves (slope 1:4), asymmetric
    loads: the ridge height follows from the slope."""
    pts = {"A": (0, 0), "B": (0, 4), "C": (6, 5.5), "D": (12, 4), "E": (12, 0)}
    links = [("L1", "A", "B", "rigid", "rigid"), ("L2", "B", "C", "rigid", "rigid"),
             ("L3", "C", "D", "rigid", "rigid"), ("L4", "D", "E", "rigid", "rigid")]
    return model_doc(pts, links, [("S1", "A", "pin", 0), ("S2", "E", "pin", 0)],
                     [_force("C", 20.0), _force("B", 8.0, 0)])
