"""Fast reading of well-formed canonical FrameCalc JSON into flat columns.

Why a second reader: the general validator (:mod:`.parse`) reads every field
through a small interpreter that records a JSON path and a fix for each problem
and accepts every loose form FORMAT.md allows. That costs ~30 µs per member,
ten times the solve itself, for input that is almost always canonical (our own
files, the scorer's variants, a model's clean answer). This reader accepts only
the canonical spelling of every field (numbers as JSON numbers, exact enum
strings, string ids). On the first deviation it returns None and
:func:`structeval.model.parse_model` hands the document to the general
validator, which is then the one that explains what is wrong. So both paths
accept and reject exactly the same documents and give equal models
(``tests/test_parse_paths.py`` checks this over the fuzz corpora).

Why columns and not objects: points and links, the numerous items, are read into
flat lists (coordinates, end indices, sections) — the form the geometry check and
the kernel's input consume — so that ``structeval.solve`` never builds a frozen
object per item. :meth:`Columns.model` builds the :class:`Model` (the very objects
the general validator builds) when a caller needs one. Supports, a handful per
drawing, are built as their objects right away; loads are kept as tuples of their
fields (:data:`LoadFields`), which the kernel's input is compiled from
(:func:`~structeval.fe.problem.compile_fields`), and become objects only in the model.

Geometry is checked afterwards (:func:`~structeval.model.geometry.columns_clearly_sane`,
or :func:`~structeval.model.geometry.check_geometry` on the model), in both paths.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import isfinite
from typing import Any

from .types import (
    AngleMode,
    BendingMoment,
    DistributedLoad,
    Link,
    Load,
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
_LOAD_CLASSES = {"pointLoad": PointLoad, "distributedLoad": DistributedLoad,
                 "bendingMoment": BendingMoment}

#: Values per link in :attr:`Columns.link_rows`, in this order (the kernel's element
#: layout, so the rows go into its input unchanged).
LINK_WIDTH = 7  # a, b (point indices), E, A, Iz, hinge_a, hinge_b

#: A load as the canonical reader keeps it, every default filled in: (class, id, target
#: type, target id, value — the start intensity of a distributed load —, end intensity,
#: fromStart, fromEnd, angle, angle mode, flip, position as (refEnd, offset mode, value)).
#: Fields a kind does not have hold 0.0 (angle mode: None; position: None when the
#: load is on a point or is distributed). Why tuples: three frozen objects per load
#: cost more than reading it; :meth:`Columns.loads` builds them when asked.
LoadFields = tuple[type, str, str, str, float, float, float, float, float, "AngleMode | None",
                   int, "tuple[str, OffsetMode, float] | None"]


@dataclass(slots=True, eq=False)
class Columns:
    """A canonical document as read, geometry not yet checked.

    ``xy`` holds x0, y0, x1, y1, … in document order; ``link_rows`` holds
    :data:`LINK_WIDTH` values per link; ``load_fields`` one :data:`LoadFields` tuple per
    load; ``support_points`` and ``load_targets`` are the point (or link) index each
    support and load refers to.
    """

    point_ids: list[str]
    point_index: dict[str, int]
    xy: list[float]
    link_ids: list[str]
    link_index: dict[str, int]
    link_rows: list[Any]
    supports: list[Support]
    support_points: list[int]
    load_fields: list[LoadFields]
    load_targets: list[int]

    @property
    def loads(self) -> list[Load]:
        """The load objects of :attr:`load_fields` (built on each call: the column path
        itself reads the fields)."""
        return [_load_object(fields) for fields in self.load_fields]

    def model(self) -> Model:
        """The :class:`Model` of these columns: the objects the general validator builds
        from the same document (frozen dataclasses filled without their ``__init__``)."""
        new = object.__new__
        xy, ids, rows = self.xy, self.point_ids, self.link_rows
        points, pmap = [], {}
        for pid, x, y in zip(ids, xy[0::2], xy[1::2], strict=True):
            point = new(Point)
            d = point.__dict__
            d["id"] = pid
            d["x"] = x
            d["y"] = y
            pmap[pid] = point
            points.append(point)
        links, lmap = [], {}
        for k, lid in enumerate(self.link_ids):
            a, b, e, area, iz, hinge_a, hinge_b = rows[LINK_WIDTH * k:LINK_WIDTH * (k + 1)]
            link = new(Link)
            d = link.__dict__
            d["id"] = lid
            d["a"] = ids[a]
            d["b"] = ids[b]
            d["E"] = e
            d["A"] = area
            d["Iz"] = iz
            d["hinge_a"] = hinge_a
            d["hinge_b"] = hinge_b
            lmap[lid] = link
            links.append(link)
        model = new(Model)
        # the id maps Model builds on first use (Model.point, Model.link), already at hand
        model.__dict__.update(points=tuple(points), links=tuple(links),
                              supports=tuple(self.supports), loads=tuple(self.loads),
                              _pmap=pmap, _lmap=lmap)
        return model


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


def _flip(value: Any) -> int:
    kind = type(value)
    if (kind is int or kind is float) and (value == 1 or value == -1):
        return int(value)
    raise _Deviation


def _non_negative(value: Any) -> float:
    number = value if type(value) is float and value - value == 0.0 else _num(value)
    if number >= 0:
        return number
    raise _Deviation


def _choice(obj: dict[str, Any], key: str, table: dict[str, Any], default: Any) -> Any:
    value = obj.get(key)
    if value is None:
        return default
    try:
        return table[value]
    except (KeyError, TypeError):  # a loose spelling, or not a string at all
        raise _Deviation from None


def _position(obj: dict[str, Any]) -> tuple[str, OffsetMode, float]:
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
    return ref, mode, value


_INF = float("inf")
_END = {None: False, "rigid": False, "hinge": True}  # endA / endB: absent, or exactly these


def _points(items: list[Any], cols: Columns) -> None:
    """Why written out field by field: on tens of items a loop of plain checks is cheaper
    than any call per field (each costs as much as several checks). A missing field
    (KeyError) is a deviation, caught by :func:`read_columns`."""
    index, ids, xy = cols.point_index, cols.point_ids, cols.xy
    for o in items:
        if type(o) is not dict:
            raise _Deviation
        pid = o["id"]
        x = o["x"]
        y = o["y"]
        if type(pid) is not str or pid in index or not pid or pid.isspace():
            raise _Deviation
        index[pid] = len(ids)
        ids.append(pid)
        # x - x is 0.0 exactly for every finite float, NaN for infinities and NaN
        xy += (x if type(x) is float and x - x == 0.0 else _num(x),
               y if type(y) is float and y - y == 0.0 else _num(y))


def _links(items: list[Any], cols: Columns, section: tuple[float, float, float]) -> None:
    point_index, index, ids, rows = cols.point_index, cols.link_index, cols.link_ids, cols.link_rows
    e0, a0, iz0 = section
    for o in items:
        if type(o) is not dict:
            raise _Deviation
        lid = o["id"]
        a = point_index[o["a"]]  # KeyError: an unknown point; TypeError: not hashable
        b = point_index[o["b"]]
        if a == b or type(lid) is not str or lid in index or not lid or lid.isspace():
            raise _Deviation
        e = o.get("E")
        area = o.get("A")
        iz = o.get("Iz")
        index[lid] = len(ids)
        ids.append(lid)
        rows += (a, b,
                 e0 if e is None else e if type(e) is float and 0.0 < e < _INF else _positive(e),
                 a0 if area is None else area if type(area) is float and 0.0 < area < _INF
                 else _positive(area),
                 iz0 if iz is None else iz if type(iz) is float and 0.0 < iz < _INF
                 else _positive(iz),
                 _END[o.get("endA")], _END[o.get("endB")])  # KeyError: a loose spelling


def _supports(items: list[Any], point_index: dict[str, int], out: list[Support],
              where: list[int]) -> None:
    new = object.__new__
    ids: set[str] = set()
    for o in items:
        if type(o) is not dict:
            raise _Deviation
        sid = o["id"]
        at = o["at"]
        kind = _KINDS[o["kind"]]  # KeyError: a loose spelling; TypeError: not a string
        if type(at) is not dict:
            raise _Deviation
        pid = at["id"]
        on = at.get("type")
        if (type(pid) is not str or (on is not None and on != "point") or type(sid) is not str
                or sid in ids or not sid or sid.isspace()):
            raise _Deviation
        where.append(point_index[pid])  # KeyError: an unknown point
        ids.add(sid)
        angle = o.get("angleDeg")
        support = new(Support)
        d = support.__dict__
        d["id"] = sid
        d["at"] = pid
        d["kind"] = kind
        d["angle_deg"] = (0.0 if angle is None else angle
                          if type(angle) is float and angle - angle == 0.0 else _num(angle))
        out.append(support)


def _loads(items: list[Any], point_index: dict[str, int], link_index: dict[str, int],
           out: list[LoadFields], targets: list[int]) -> None:
    ids: set[str] = set()
    relative = AngleMode.RELATIVE
    for o in items:
        if type(o) is not dict:
            raise _Deviation
        lid = o["id"]
        kind = o["kind"]
        at = o["at"]
        if type(lid) is not str or lid in ids or not lid or lid.isspace() or type(at) is not dict:
            raise _Deviation
        ids.add(lid)
        where = at["type"]
        tid = at["id"]
        if type(tid) is not str:
            raise _Deviation
        if where == "point":
            if kind == "distributedLoad":
                raise _Deviation
            targets.append(point_index[tid])  # KeyError: an unknown point
            on_link = False
        elif where == "link":
            targets.append(link_index[tid])  # KeyError: an unknown link
            on_link = True
        else:
            raise _Deviation
        flip = o.get("flip")
        flip = 1 if flip is None else _flip(flip)
        cls = _LOAD_CLASSES.get(kind)  # TypeError (an unhashable kind): a deviation
        if cls is None:
            raise _Deviation
        if cls is BendingMoment:
            out.append((cls, lid, where, tid, _num(o["value"]), 0.0, 0.0, 0.0, 0.0, None, flip,
                        _position(o) if on_link else None))
            continue
        angle = o.get("angleDeg")
        angle = (0.0 if angle is None else angle
                 if type(angle) is float and angle - angle == 0.0 else _num(angle))
        mode = o.get("angleMode")
        mode = relative if mode is None else _ANGLE_MODES[mode]
        if cls is DistributedLoad:
            w_start = _num(o["wStart"])
            w_end = o.get("wEnd")
            from_start = o.get("fromStart")
            from_end = o.get("fromEnd")
            out.append((cls, lid, where, tid, w_start, w_start if w_end is None else w_end
                        if type(w_end) is float and w_end - w_end == 0.0 else _num(w_end),
                        0.0 if from_start is None else _non_negative(from_start),
                        0.0 if from_end is None else _non_negative(from_end), angle, mode,
                        flip, None))
        else:
            out.append((cls, lid, where, tid, _num(o["value"]), 0.0, 0.0, 0.0, angle, mode,
                        flip, _position(o) if on_link else None))


def _load_object(fields: LoadFields) -> Load:
    """The frozen load object of one :data:`LoadFields` tuple (the objects the general
    validator builds, filled without their ``__init__``)."""
    cls, lid, where, tid, value, w_end, from_start, from_end, angle, mode, flip, pos = fields
    target = _build(Target, type=where, id=tid)
    if cls is DistributedLoad:
        return _build(cls, id=lid, target=target, kind=cls.kind, w_start=value, w_end=w_end,
                      from_start=from_start, from_end=from_end, angle_deg=angle,
                      angle_mode=mode, flip=flip)
    position = None if pos is None else _build(Position, ref_end=pos[0], mode=pos[1],
                                               value=pos[2])
    if cls is PointLoad:
        return _build(cls, id=lid, target=target, kind=cls.kind, value=value, angle_deg=angle,
                      angle_mode=mode, flip=flip, position=position)
    return _build(cls, id=lid, target=target, kind=cls.kind, value=value, flip=flip,
                  position=position)


def _array(doc: dict[str, Any], key: str, limit: int, required: bool) -> list[Any]:
    items = doc.get(key)
    if items is None and not required:
        return []
    if type(items) is not list or len(items) > limit or (required and not items):
        raise _Deviation
    return items


def read_columns(doc: Any, *, defaults: tuple[float, float, float], limit: int,
                 ) -> Columns | None:
    """The columns of a canonical document (geometry not yet checked), or None when any
    field deviates from the canonical form, a reference is unknown or an id repeats."""
    if type(doc) is not dict:
        return None
    cols = Columns([], {}, [], [], {}, [], [], [], [], [])
    try:
        raw_points = _array(doc, "points", limit, True)
        raw_links = _array(doc, "links", limit, True)
        raw_supports = _array(doc, "supports", limit, False)
        raw_loads = _array(doc, "loads", limit, False)
        _points(raw_points, cols)
        _links(raw_links, cols, defaults)
        _supports(raw_supports, cols.point_index, cols.supports, cols.support_points)
        _loads(raw_loads, cols.point_index, cols.link_index, cols.load_fields,
               cols.load_targets)
    except (_Deviation, KeyError, TypeError):  # TypeError: an unhashable id (a list, …)
        return None
    return cols


def read_canonical(doc: Any, *, defaults: tuple[float, float, float], limit: int,
                   ) -> Model | None:
    """The model of a canonical document (geometry not yet checked), or None when any
    field deviates from the canonical form, a reference is unknown or an id repeats."""
    cols = read_columns(doc, defaults=defaults, limit=limit)
    return None if cols is None else cols.model()
