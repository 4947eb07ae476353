"""Model → canonical FrameCalc JSON (the form FORMAT.md documents, every field explicit)."""

from __future__ import annotations

import json
from typing import Any

from .semantics import link_axis
from .types import BendingMoment, DistributedLoad, Load, Model, OffsetMode, PointLoad


def _num(value: float) -> float | int:
    """Integral floats as ints keep files short and byte-stable."""
    return int(value) if float(value).is_integer() and abs(value) < 2**53 else float(value)


def _position_fields(model: Model, load: PointLoad | BendingMoment) -> dict[str, Any]:
    pos = load.position
    assert pos is not None
    _, _, length = link_axis(model, model.link(load.target.id))
    if pos.mode is OffsetMode.PERCENT:
        metres, percent = length * pos.value / 100.0, pos.value
    else:
        metres, percent = pos.value, 100.0 * pos.value / length
    return {"refEnd": pos.ref_end, "offsetMode": pos.mode.value,
            "offset": _num(metres), "offsetPercent": _num(percent)}


def load_to_json(model: Model, load: Load) -> dict[str, Any]:
    out: dict[str, Any] = {"id": load.id, "kind": load.kind,
                           "at": {"type": load.target.type, "id": load.target.id}}
    if isinstance(load, DistributedLoad):
        out.update(fromStart=_num(load.from_start), fromEnd=_num(load.from_end),
                   wStart=_num(load.w_start), wEnd=_num(load.w_end),
                   angleDeg=_num(load.angle_deg), angleMode=load.angle_mode.value, flip=load.flip)
        return out
    out["value"] = _num(load.value)
    if isinstance(load, PointLoad):
        out.update(angleDeg=_num(load.angle_deg), angleMode=load.angle_mode.value)
    out["flip"] = load.flip
    if load.target.type == "link":
        out.update(_position_fields(model, load))
    return out


def model_to_json(model: Model) -> dict[str, Any]:
    return {
        "points": [{"id": p.id, "x": _num(p.x), "y": _num(p.y)} for p in model.points],
        "links": [{"id": lk.id, "a": lk.a, "b": lk.b,
                   "endA": "hinge" if lk.hinge_a else "rigid",
                   "endB": "hinge" if lk.hinge_b else "rigid",
                   "E": _num(lk.E), "A": _num(lk.A), "Iz": _num(lk.Iz)} for lk in model.links],
        "supports": [{"id": s.id, "at": {"type": "point", "id": s.at}, "kind": s.kind.value,
                      "angleDeg": _num(s.angle_deg)} for s in model.supports],
        "loads": [load_to_json(model, ld) for ld in model.loads],
    }


def dumps_model(model: Model, *, indent: int | None = 2) -> str:
    return json.dumps(model_to_json(model), indent=indent, ensure_ascii=False) + "\n"
