"""Deterministic FrameCalc models the solver tests share: compact tables to JSON, and
the long straight structures used for size and conditioning limits."""

from __future__ import annotations

from typing import Any

Doc = dict[str, Any]
STEEL = {"E": 2e8, "A": 1e-2, "Iz": 1e-4}  # realistic section, used unless a test needs others
DOWN = {"angleDeg": 270, "angleMode": "world"}


def model_doc(points: dict[str, tuple[float, float]],
              links: list[tuple[str, str, str, str, str]],
              supports: list[tuple[str, str, str, float]],
              loads: list[dict[str, Any]] | None = None) -> Doc:
    """links: (id, a, b, endA, endB); supports: (id, point, kind, angleDeg); loads are
    FrameCalc load objects without ids (LD1, LD2, ... are given in order)."""
    return {
        "points": [{"id": k, "x": x, "y": y} for k, (x, y) in points.items()],
        "links": [{"id": i, "a": a, "b": b, "endA": ea, "endB": eb, **STEEL}
                  for i, a, b, ea, eb in links],
        "supports": [{"id": i, "at": {"type": "point", "id": p}, "kind": k, "angleDeg": t}
                     for i, p, k, t in supports],
        "loads": [{"id": f"LD{n}", **ld} for n, ld in enumerate(loads or [], start=1)],
    }


def _straight(n: int) -> Doc:
    return {"points": [{"id": f"P{i}", "x": float(i), "y": 0.0} for i in range(n + 1)],
            "links": [{"id": f"L{i}", "a": f"P{i}", "b": f"P{i + 1}"} for i in range(n)]}


def continuous_beam(n: int) -> Doc:
    """n spans of 1 m on rollers (pin first), 1 kN/m on every span, default section:
    as many entries as wanted, and well conditioned however long."""
    return {**_straight(n),
            "supports": [{"id": f"S{i}", "at": {"type": "point", "id": f"P{i}"},
                          "kind": "pin" if i == 0 else "roller"} for i in range(n + 1)],
            "loads": [{"id": f"W{i}", "kind": "distributedLoad",
                       "at": {"type": "link", "id": f"L{i}"}, "wStart": 1, **DOWN}
                      for i in range(n)]}


def cantilever_chain(n: int) -> Doc:
    """n one-metre links in a line, fixed at P0, 1 kN down at the tip: stiffness at the
    tip falls as 1/n³, so long chains probe the solver's conditioning."""
    doc = _straight(n)
    for link in doc["links"]:
        link.update(STEEL)
    return {**doc,
            "supports": [{"id": "S", "at": {"type": "point", "id": "P0"}, "kind": "fixed"}],
            "loads": [{"id": "F", "kind": "pointLoad", "at": {"type": "point", "id": f"P{n}"},
                       "value": 1, **DOWN}]}
