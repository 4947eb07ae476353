"""Fast reading of well-formed canonical FrameCalc JSON into a :class:`Model`.

Why a second reader: the general validator (:mod:`.parse`) reads every field
through a small interpreter that records a JSON path and a fix for each problem
and accepts every loose form FORMAT.md allows. That costs ~30 µs per member,
ten times the solve itself, for input that is almost always canonical (our own
files, the scorer's variants, a model's clean answer). This reader accepts only
the canonical spelling of every field (numbers as JSON numbers, exact enum
strings, string ids) and builds the same objects directly. On the first
deviation it returns None and :func:`structeval.model.parse_model` hands the
document to the general validator, which is then the one that explains what is
wrong. So both paths accept and reject exactly the same documents and give
equal models (``tests/test_parse_paths.py`` checks this over the fuzz corpora).

Geometry is checked by the same :func:`~structeval.model.geometry.check_geometry`
in both paths.
"""

from __future__ import annotations

from math import isfinite
from typing import Any

from .types import (
    AngleMode,
    BendingMoment,
    DistributedLoad,
    Link,
    Model,
    OffsetMode,
    Point,
    PointLoad,
    Position,
    Support,
    SupportKind,
    Target,
)

_ENDS = {"rigid": False, "hinge": True}
_KINDS = {k.value: k for k in SupportKind}
_ANGLE_MODES = {"world": AngleMode.WORLD, "relative": AngleMode.RELATIVE}
_OFFSET_MODES = {"m": OffsetMode.METRES, "percent": OffsetMode.PERCENT}
_REF_ENDS = ("A", "B")


class _Deviation(Exception):
    """The document is not in canonical form: the general validator takes over."""


def _build(cls: type, **values: Any) -> Any:
    """A frozen dataclass instance without its ``__init__`` (which sets every field
    through ``object.__setattr__``, a third of this reader's time). Every field,
    defaults and ``init=False`` ones included, is passed by the callers below."""
    obj = object.__new__(cls)
    obj.__dict__.update(values)
    return obj


def _num(value: Any) -> float:
    kind = type(value)
    if kind is float:
        if isfinite(value):
            return value
    elif kind is int:
        try:
            return float(value)  # a huge integer overflows: the validator explains it
        except OverflowError:
            pass
    raise _Deviation


def _positive(value: Any) -> float:
    number = value if type(value) is float and isfinite(value) else _num(value)
    if number > 0:
        return number
    raise _Deviation


def _opt_num(obj: dict[str, Any], key: str, default: float) -> float:
    value = obj.get(key)
    if value is None:
        return default
    return value if type(value) is float and isfinite(value) else _num(value)


def _ident(value: Any) -> str:
    if type(value) is str and value and not value.isspace():
        return value
    raise _Deviation


def _flip(obj: dict[str, Any]) -> int:
    value = obj.get("flip")
    if value is None:
        return 1
    kind = type(value)
    if (kind is int or kind is float) and (value == 1 or value == -1):
        return int(value)
    raise _Deviation


def _choice(obj: dict[str, Any], key: str, table: dict[str, Any], default: Any) -> Any:
    value = obj.get(key)
    if value is None:
        return default
    try:
        return table[value]
    except (KeyError, TypeError):  # a loose spelling, or not a string at all
        raise _Deviation from None


def _target(obj: dict[str, Any]) -> tuple[str, str]:
    at = obj.get("at")
    if type(at) is not dict:
        raise _Deviation
    return at.get("type"), _ident(at.get("id"))


def _position(obj: dict[str, Any]) -> Position:
    ref = obj.get("refEnd")
    if ref is None:
        ref = "A"
    elif ref not in _REF_ENDS:
        raise _Deviation
    has_offset = obj.get("offset") is not None
    default = (OffsetMode.METRES if has_offset else
               OffsetMode.PERCENT if obj.get("offsetPercent") is not None else None)
    mode = _choice(obj, "offsetMode", _OFFSET_MODES, default)
    if mode is OffsetMode.PERCENT:
        value = _num(obj.get("offsetPercent"))
        if not 0 <= value <= 100:
            raise _Deviation
    elif mode is OffsetMode.METRES:
        value = _num(obj.get("offset"))
        if value < 0:
            raise _Deviation
    else:
        raise _Deviation
    return _build(Position, ref_end=ref, mode=mode, value=value)


def _points(items: list[Any], ids: dict[str, Point]) -> list[Point]:
    out = []
    new = object.__new__
    for o in items:
        if type(o) is not dict:
            raise _Deviation
        pid, x, y = o.get("id"), o.get("x"), o.get("y")
        if type(pid) is not str or not pid or pid.isspace() or pid in ids:
            raise _Deviation
        point = new(Point)
        d = point.__dict__  # stores into the instance dict: half the cost of update(**kw)
        d["id"] = pid
        d["x"] = x if type(x) is float and isfinite(x) else _num(x)
        d["y"] = y if type(y) is float and isfinite(y) else _num(y)
        ids[pid] = point
        out.append(point)
    return out


def _hinge(value: Any) -> bool:
    if value is None:
        return False
    if type(value) is str:
        hinge = _ENDS.get(value)
        if hinge is not None:
            return hinge
    raise _Deviation


def _links(items: list[Any], point_ids: dict[str, Point], ids: dict[str, Link],
           section: tuple[float, float, float]) -> list[Link]:
    out = []
    new = object.__new__
    e, a, iz = section
    for o in items:
        if type(o) is not dict:
            raise _Deviation
        lid, end_a, end_b = o.get("id"), o.get("a"), o.get("b")
        if (type(end_a) is not str or type(end_b) is not str or end_a not in point_ids
                or end_b not in point_ids or end_a == end_b or type(lid) is not str
                or not lid or lid.isspace() or lid in ids):
            raise _Deviation
        sec_e, sec_a, sec_iz = o.get("E"), o.get("A"), o.get("Iz")
        link = new(Link)
        d = link.__dict__
        d["id"] = lid
        d["a"] = end_a
        d["b"] = end_b
        d["E"] = e if sec_e is None else _positive(sec_e)
        d["A"] = a if sec_a is None else _positive(sec_a)
        d["Iz"] = iz if sec_iz is None else _positive(sec_iz)
        d["hinge_a"] = _hinge(o.get("endA"))
        d["hinge_b"] = _hinge(o.get("endB"))
        ids[lid] = link
        out.append(link)
    return out


def _supports(items: list[Any], point_ids: dict[str, Point]) -> list[Support]:
    out = []
    new = object.__new__
    ids: set[str] = set()
    for o in items:
        if type(o) is not dict:
            raise _Deviation
        where, at = _target(o)
        if (where is not None and where != "point") or at not in point_ids:
            raise _Deviation
        kind = _choice(o, "kind", _KINDS, None)
        sid = _ident(o.get("id"))
        if kind is None or sid in ids:
            raise _Deviation
        ids.add(sid)
        support = new(Support)
        d = support.__dict__
        d["id"] = sid
        d["at"] = at
        d["kind"] = kind
        d["angle_deg"] = _opt_num(o, "angleDeg", 0.0)
        out.append(support)
    return out


def _loads(items: list[Any], point_ids: dict[str, Point], link_ids: dict[str, Link],
           ) -> list[Any]:
    out: list[Any] = []
    new = object.__new__
    ids: set[str] = set()
    for o in items:
        if type(o) is not dict:
            raise _Deviation
        lid, kind, at = o.get("id"), o.get("kind"), o.get("at")
        if (type(lid) is not str or not lid or lid.isspace() or lid in ids
                or type(at) is not dict):
            raise _Deviation
        ids.add(lid)
        where, tid = at.get("type"), at.get("id")
        if type(tid) is not str:
            raise _Deviation
        if where == "point":
            if tid not in point_ids or kind == "distributedLoad":
                raise _Deviation
        elif where != "link" or tid not in link_ids:
            raise _Deviation
        target = new(Target)
        t = target.__dict__
        t["type"] = where
        t["id"] = tid
        on_link = where == "link"
        if kind == "pointLoad":
            load = new(PointLoad)
            d = load.__dict__
            d["id"] = lid
            d["target"] = target
            d["value"] = _num(o.get("value"))
            d["angle_deg"] = _opt_num(o, "angleDeg", 0.0)
            d["angle_mode"] = _choice(o, "angleMode", _ANGLE_MODES, AngleMode.RELATIVE)
            d["flip"] = _flip(o)
            d["position"] = _position(o) if on_link else None
            d["kind"] = "pointLoad"
        elif kind == "distributedLoad":
            w_start = _num(o.get("wStart"))
            from_start, from_end = _opt_num(o, "fromStart", 0.0), _opt_num(o, "fromEnd", 0.0)
            if from_start < 0 or from_end < 0:
                raise _Deviation
            load = new(DistributedLoad)
            d = load.__dict__
            d["id"] = lid
            d["target"] = target
            d["w_start"] = w_start
            d["w_end"] = _opt_num(o, "wEnd", w_start)
            d["from_start"] = from_start
            d["from_end"] = from_end
            d["angle_deg"] = _opt_num(o, "angleDeg", 0.0)
            d["angle_mode"] = _choice(o, "angleMode", _ANGLE_MODES, AngleMode.RELATIVE)
            d["flip"] = _flip(o)
            d["kind"] = "distributedLoad"
        elif kind == "bendingMoment":
            load = new(BendingMoment)
            d = load.__dict__
            d["id"] = lid
            d["target"] = target
            d["value"] = _num(o.get("value"))
            d["flip"] = _flip(o)
            d["position"] = _position(o) if on_link else None
            d["kind"] = "bendingMoment"
        else:
            raise _Deviation
        out.append(load)
    return out


def _array(doc: dict[str, Any], key: str, limit: int, required: bool) -> list[Any]:
    items = doc.get(key)
    if items is None and not required:
        return []
    if type(items) is not list or len(items) > limit or (required and not items):
        raise _Deviation
    return items


def read_canonical(doc: Any, *, defaults: tuple[float, float, float], limit: int,
                   ) -> Model | None:
    """The model of a canonical document (geometry not yet checked), or None when any
    field deviates from the canonical form, a reference is unknown or an id repeats."""
    if type(doc) is not dict:
        return None
    point_ids: dict[str, Point] = {}
    link_ids: dict[str, Link] = {}
    try:
        raw_points = _array(doc, "points", limit, True)
        raw_links = _array(doc, "links", limit, True)
        raw_supports = _array(doc, "supports", limit, False)
        raw_loads = _array(doc, "loads", limit, False)
        points = _points(raw_points, point_ids)
        links = _links(raw_links, point_ids, link_ids, defaults)
        supports = _supports(raw_supports, point_ids)
        loads = _loads(raw_loads, point_ids, link_ids)
    except _Deviation:
        return None
    # the id maps Model builds on first use (Model.point, Model.link), already at hand
    return _build(Model, points=tuple(points), links=tuple(links), supports=tuple(supports),
                  loads=tuple(loads), _pmap=point_ids, _lmap=link_ids)
