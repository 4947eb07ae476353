"""Untrusted FrameCalc JSON → :class:`Model`, or a :class:`ModelError` listing every problem.

The accepted loose forms are exactly those FORMAT.md calls equivalent (numbers
as strings, ``global`` = ``world``, ``length`` = ``m``, missing optional fields
with their defaults); anything else is rejected with the JSON path and a fix.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from .canonical import Columns, read_columns
from .errors import Issue, ModelError
from .geometry import check_geometry, columns_clearly_sane, columns_loads_clear
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

#: Section used when a link omits E, A or Iz: the one every original problem uses
#: (steel-like E, 100 mm solid round bar). Documented in the README and prompts.
DEFAULT_E = 80918000.0
DEFAULT_A = 0.007853981633974483
DEFAULT_IZ = 4.908738521234054e-06

MAX_ITEMS = 5000  # per array; far above any drawing, keeps hostile input bounded

_MISSING = object()


class _Reader:
    """Collects issues while reading fields, so one pass reports everything."""

    def __init__(self) -> None:
        self.issues: list[Issue] = []

    def err(self, path: str, message: str) -> None:
        self.issues.append(Issue(path, message))

    def number(
        self,
        obj: dict[str, Any],
        key: str,
        path: str,
        *,
        default: Any = _MISSING,
        check: Callable[[float], str | None] | None = None,
    ) -> float | None:
        raw = obj.get(key, _MISSING)
        if raw is _MISSING or raw is None:
            if default is _MISSING:
                self.err(f"{path}.{key}", "is required (a number)")
                return None
            return default
        value = _as_number(raw)
        if value is None:
            self.err(f"{path}.{key}", f"must be a finite number, got {_show(raw)}")
            return None
        if check is not None:
            problem = check(value)
            if problem:
                self.err(f"{path}.{key}", f"{problem}, got {_show(raw)}")
                return None
        return value

    def ident(self, obj: dict[str, Any], key: str, path: str) -> str | None:
        raw = obj.get(key, _MISSING)
        if raw is _MISSING or raw is None:
            self.err(f"{path}.{key}", "is required (a string id)")
            return None
        if isinstance(raw, bool) or not isinstance(raw, (str, int)):
            self.err(f"{path}.{key}", f"must be a string id, got {_show(raw)}")
            return None
        text = str(raw)
        if not text.strip():
            self.err(f"{path}.{key}", "must not be empty")
            return None
        return text

    def choice(
        self,
        obj: dict[str, Any],
        key: str,
        path: str,
        table: dict[str, Any],
        *,
        default: Any = _MISSING,
    ) -> Any:
        raw = obj.get(key, _MISSING)
        if raw is _MISSING or raw is None:
            if default is _MISSING:
                self.err(f"{path}.{key}", f"is required (one of {_options(table)})")
            return None if default is _MISSING else default
        if isinstance(raw, str) and raw.strip().lower() in table:
            return table[raw.strip().lower()]
        self.err(f"{path}.{key}", f"must be one of {_options(table)}, got {_show(raw)}")
        return None


def _as_number(raw: Any) -> float | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, (int, float)):
        try:
            value = float(raw)
        except OverflowError:  # a JSON integer of hundreds of digits
            return None
    elif isinstance(raw, str):
        try:
            value = float(raw.strip())
        except ValueError:
            return None
    else:
        return None
    return value if math.isfinite(value) else None


def _show(raw: Any) -> str:
    text = json.dumps(raw) if not isinstance(raw, float) or math.isfinite(raw) else str(raw)
    return text if len(text) <= 40 else text[:37] + "..."


def _options(table: dict[str, Any]) -> str:
    """Canonical spellings only: aliases such as "global" are accepted but not advertised."""
    labels: list[str] = []
    for key, value in table.items():
        canonical = getattr(value, "value", value)
        label = f'"{canonical if isinstance(canonical, str) else key}"'
        if label not in labels:
            labels.append(label)
    return ", ".join(labels)


_POSITIVE = lambda v: None if v > 0 else "must be > 0"  # noqa: E731
_NON_NEGATIVE = lambda v: None if v >= 0 else "must be >= 0"  # noqa: E731

_ENDS = {"rigid": False, "hinge": True}
_SUPPORT_KINDS = {k.value: k for k in SupportKind}
_ANGLE_MODES = {"world": AngleMode.WORLD, "global": AngleMode.WORLD, "relative": AngleMode.RELATIVE}
_OFFSET_MODES = {"m": OffsetMode.METRES, "length": OffsetMode.METRES, "percent": OffsetMode.PERCENT}
_REF_ENDS = {"a": "A", "b": "B"}
_TARGET_TYPES = {"point": "point", "link": "link"}
_LOAD_KINDS = {"pointload": "pointLoad", "distributedload": "distributedLoad",
               "bendingmoment": "bendingMoment"}


def parse_model(source: Any) -> Model:
    """Validate FrameCalc JSON (text, bytes or a decoded object) into a :class:`Model`.

    Raises :class:`ModelError` naming every problem; never any other exception.
    Canonical documents take a fast reader (:mod:`.canonical`) that builds the same
    model; anything else, and every document with a problem, is read field by field.
    """
    parsed = parse_document(source)
    return parsed if isinstance(parsed, Model) else parsed.model()


def parse_document(source: Any) -> Columns | Model:
    """What :func:`parse_model` accepts, in the cheapest form that is known valid: the
    :class:`~.canonical.Columns` of a canonical document whose geometry
    :func:`~.geometry.columns_clearly_sane` confirms (no object per point or link is
    built), else the :class:`Model`. Accepts, rejects and raises exactly like
    :func:`parse_model`, whose model is :meth:`Columns.model` of the columns.
    """
    source = _document(source)
    cols = _canonical_columns(source)
    if cols is None:
        return _general(source)
    return cols if columns_clearly_sane(cols) else checked_model(cols)


def parse_for_solve(source: Any) -> Columns | Model:
    """What ``structeval.solve`` reads: the :class:`~.canonical.Columns` of a canonical
    document whose loads sit clear of their links' ends, its layout left for the
    kernel to confirm in the solve's one call (``layout_check``; when it cannot, the
    caller takes :func:`checked_model`); else what :func:`parse_document` gives. Why:
    the layout check is the larger half of validating a drawing in Python (about 11
    of 40 µs for 10 members) and a fraction of a microsecond in the kernel, which
    holds the coordinates anyway."""
    source = _document(source)
    cols = _canonical_columns(source)
    if cols is None:
        return _general(source)
    return cols if columns_loads_clear(cols) else checked_model(cols)


def checked_model(cols: Columns) -> Model:
    """The model of ``cols`` after the full geometry check (a ModelError listing every
    problem): for columns no shortcut could confirm."""
    model = cols.model()
    issues = check_geometry(model)
    if issues:
        raise ModelError(issues)
    return model


def _general(doc: Any) -> Model:
    """The field-by-field validator, for a document that is not in canonical form."""
    try:
        return _parse(doc)
    except RecursionError:
        raise ModelError([Issue("$", "document is nested too deeply")]) from None


def _document(source: Any) -> Any:
    """JSON text decoded (a ModelError if it is not JSON); anything else as given."""
    if isinstance(source, (str, bytes, bytearray)):
        try:
            return json.loads(source)
        except (ValueError, RecursionError) as exc:
            raise ModelError([Issue("$", f"not valid JSON ({exc})")]) from None
    return source


def _canonical_columns(doc: Any) -> Columns | None:
    try:
        return read_columns(doc, defaults=(DEFAULT_E, DEFAULT_A, DEFAULT_IZ), limit=MAX_ITEMS)
    except RecursionError:  # a self-referencing object passed from Python
        return None


def _parse(doc: Any) -> Model:
    r = _Reader()
    if not isinstance(doc, dict):
        raise ModelError([Issue("$", "must be a JSON object with points, links, supports, loads")])
    arrays: dict[str, list[Any]] = {}
    for key in ("points", "links", "supports", "loads"):
        raw = doc.get(key, _MISSING)
        if raw is _MISSING or raw is None:
            if key in ("points", "links"):
                r.err(f"$.{key}", "is required (a non-empty array)")
            arrays[key] = []
        elif not isinstance(raw, list):
            r.err(f"$.{key}", f"must be an array, got {_show(raw)}")
            arrays[key] = []
        elif len(raw) > MAX_ITEMS:
            r.err(f"$.{key}", f"has {len(raw)} entries; at most {MAX_ITEMS} are accepted")
            arrays[key] = []
        else:
            arrays[key] = raw
    if r.issues:
        raise ModelError(r.issues)
    if not arrays["points"] or not arrays["links"]:
        raise ModelError([Issue("$", "empty model: at least one point and one link are needed")])

    # References are checked against every id written, valid entry or not, so one
    # broken link does not also make each load on it "unknown".
    point_ids, link_ids = _written_ids(arrays["points"]), _written_ids(arrays["links"])
    points = _unique(r, "points", [_point(r, o, f"points[{i}]")
                                   for i, o in enumerate(arrays["points"])])
    links = _unique(r, "links", [_link(r, o, f"links[{i}]", point_ids)
                                 for i, o in enumerate(arrays["links"])])
    supports = _unique(r, "supports", [_support(r, o, f"supports[{i}]", point_ids)
                                       for i, o in enumerate(arrays["supports"])])
    loads = _unique(r, "loads", [_load(r, o, f"loads[{i}]", point_ids, link_ids)
                                 for i, o in enumerate(arrays["loads"])])
    if r.issues:
        raise ModelError(r.issues)
    model = Model(tuple(points), tuple(links), tuple(supports), tuple(loads))
    issues = check_geometry(model)
    if issues:
        raise ModelError(issues)
    return model


def _written_ids(items: list[Any]) -> set[str]:
    return {str(o["id"]) for o in items
            if isinstance(o, dict) and isinstance(o.get("id"), (str, int))
            and not isinstance(o.get("id"), bool)}


def _unique(r: _Reader, array: str, items: list[Any]) -> list[Any]:
    seen: dict[str, int] = {}
    kept = []
    for index, item in enumerate(items):
        if item is None:
            continue
        if item.id in seen:
            r.err(f"{array}[{index}].id",
                  f'duplicate id "{item.id}" (also {array}[{seen[item.id]}]); ids must be unique')
            continue
        seen[item.id] = index
        kept.append(item)
    return kept


def _object(r: _Reader, obj: Any, path: str) -> bool:
    if not isinstance(obj, dict):
        r.err(path, f"must be an object, got {_show(obj)}")
        return False
    return True


def _point(r: _Reader, obj: Any, path: str) -> Point | None:
    if not _object(r, obj, path):
        return None
    n = len(r.issues)
    pid = r.ident(obj, "id", path)
    x = r.number(obj, "x", path)
    y = r.number(obj, "y", path)
    if len(r.issues) > n:
        return None
    return Point(pid, x, y)  # type: ignore[arg-type]


def _link(r: _Reader, obj: Any, path: str, point_ids: set[str]) -> Link | None:
    if not _object(r, obj, path):
        return None
    n = len(r.issues)
    lid = r.ident(obj, "id", path)
    ends = []
    for key in ("a", "b"):
        pid = r.ident(obj, key, path)
        if pid is not None and pid not in point_ids:
            r.err(f"{path}.{key}", f'refers to unknown point "{pid}"')
        ends.append(pid)
    if ends[0] is not None and ends[0] == ends[1]:
        r.err(path, f'starts and ends at the same point "{ends[0]}"')
    E = r.number(obj, "E", path, default=DEFAULT_E, check=_POSITIVE)
    A = r.number(obj, "A", path, default=DEFAULT_A, check=_POSITIVE)
    Iz = r.number(obj, "Iz", path, default=DEFAULT_IZ, check=_POSITIVE)
    hinge_a = r.choice(obj, "endA", path, _ENDS, default=False)
    hinge_b = r.choice(obj, "endB", path, _ENDS, default=False)
    if len(r.issues) > n:
        return None
    return Link(lid, ends[0], ends[1], E, A, Iz, hinge_a, hinge_b)  # type: ignore[arg-type]


def _target(r: _Reader, obj: dict[str, Any], path: str, *, require_type: bool) -> Target | None:
    at = obj.get("at", _MISSING)
    if at is _MISSING or at is None:
        r.err(f"{path}.at", 'is required, e.g. {"type": "point", "id": "P1"}')
        return None
    if not isinstance(at, dict):
        r.err(f"{path}.at",
              f'must be an object like {{"type": "point", "id": "P1"}}, got {_show(at)}')
        return None
    default = _MISSING if require_type else "point"
    kind = r.choice(at, "type", f"{path}.at", _TARGET_TYPES, default=default)
    tid = r.ident(at, "id", f"{path}.at")
    if kind is None or tid is None:
        return None
    return Target(kind, tid)


def _support(r: _Reader, obj: Any, path: str, point_ids: set[str]) -> Support | None:
    if not _object(r, obj, path):
        return None
    n = len(r.issues)
    sid = r.ident(obj, "id", path)
    target = _target(r, obj, path, require_type=False)
    if target is not None:
        if target.type != "point":
            r.err(f"{path}.at.type", "supports stand at points; put a point there and use "
                                     '{"type": "point", "id": ...}')
        elif target.id not in point_ids:
            r.err(f"{path}.at.id", f'refers to unknown point "{target.id}"')
    kind = r.choice(obj, "kind", path, _SUPPORT_KINDS)
    angle = r.number(obj, "angleDeg", path, default=0.0)
    if len(r.issues) > n:
        return None
    return Support(sid, target.id, kind, angle)  # type: ignore[union-attr,arg-type]


def _flip(r: _Reader, obj: dict[str, Any], path: str) -> int | None:
    raw = obj.get("flip", _MISSING)
    if raw is _MISSING or raw is None:
        return 1
    value = _as_number(raw)
    if value not in (1.0, -1.0):
        r.err(f"{path}.flip", f"must be 1 or -1, got {_show(raw)}")
        return None
    return int(value)  # type: ignore[arg-type]


def _position(r: _Reader, obj: dict[str, Any], path: str) -> Position | None:
    """Offset of a concentrated load on a link (P1/P2)."""
    ref_end = r.choice(obj, "refEnd", path, _REF_ENDS, default="A")
    has_offset = obj.get("offset") is not None
    has_percent = obj.get("offsetPercent") is not None
    default_mode: Any = (OffsetMode.METRES if has_offset else
                         OffsetMode.PERCENT if has_percent else _MISSING)
    if default_mode is _MISSING and obj.get("offsetMode") is None:
        r.err(path, "a load on a link needs its position: offsetMode with offset (metres) "
                    "or offsetPercent (0-100)")
        return None
    mode = r.choice(obj, "offsetMode", path, _OFFSET_MODES, default=default_mode)
    if mode is OffsetMode.PERCENT:
        value = r.number(obj, "offsetPercent", path,
                         check=lambda v: None if 0 <= v <= 100 else "must be within 0..100")
    elif mode is OffsetMode.METRES:
        value = r.number(obj, "offset", path, check=_NON_NEGATIVE)
    else:
        return None
    if ref_end is None or value is None:
        return None
    return Position(ref_end, mode, value)


def _load(r: _Reader, obj: Any, path: str, point_ids: set[str], link_ids: set[str]) -> Load | None:
    if not _object(r, obj, path):
        return None
    n = len(r.issues)
    lid = r.ident(obj, "id", path)
    kind = r.choice(obj, "kind", path, _LOAD_KINDS)
    target = _target(r, obj, path, require_type=True)
    if target is not None:
        known = point_ids if target.type == "point" else link_ids
        if target.id not in known:
            r.err(f"{path}.at.id", f'refers to unknown {target.type} "{target.id}"')
        if kind == "distributedLoad" and target.type != "link":
            r.err(f"{path}.at.type", 'a distributedLoad acts on a link: use {"type": "link", ...}')
    if len(r.issues) > n or kind is None or target is None:
        return None
    on_link = target.type == "link"
    if kind == "pointLoad":
        value = r.number(obj, "value", path)
        angle = r.number(obj, "angleDeg", path, default=0.0)
        mode = r.choice(obj, "angleMode", path, _ANGLE_MODES, default=AngleMode.RELATIVE)
        flip = _flip(r, obj, path)
        position = _position(r, obj, path) if on_link else None
        if len(r.issues) > n:
            return None
        return PointLoad(lid, target, value, angle, mode, flip, position)  # type: ignore[arg-type]
    if kind == "bendingMoment":
        value = r.number(obj, "value", path)
        flip = _flip(r, obj, path)
        position = _position(r, obj, path) if on_link else None
        if len(r.issues) > n:
            return None
        return BendingMoment(lid, target, value, flip, position)  # type: ignore[arg-type]
    w_start = r.number(obj, "wStart", path)
    w_end = r.number(obj, "wEnd", path, default=w_start)
    from_start = r.number(obj, "fromStart", path, default=0.0, check=_NON_NEGATIVE)
    from_end = r.number(obj, "fromEnd", path, default=0.0, check=_NON_NEGATIVE)
    angle = r.number(obj, "angleDeg", path, default=0.0)
    mode = r.choice(obj, "angleMode", path, _ANGLE_MODES, default=AngleMode.RELATIVE)
    flip = _flip(r, obj, path)
    if len(r.issues) > n:
        return None
    return DistributedLoad(lid, target, w_start, w_end, from_start, from_end,  # type: ignore[arg-type]
                           angle, mode, flip)
