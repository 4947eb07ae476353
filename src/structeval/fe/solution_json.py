"""A solution as the public JSON form (``structeval.solve``, ``python -m structeval solve``).

Why its own module, vectorised and lazy: the form lists N/V/M samples along every
link, a few hundred small dicts for a drawing-sized model. Evaluated piece by
piece in Python that cost more than the solve itself. Here every piece of every
link is sampled in one numpy pass and Python only assembles the dicts, and that
happens when the samples are first used: :class:`Solution` is a ``dict`` whose
``"links"`` entry is built on first access (indexing, iteration, ``items()``,
``json.dumps``, comparison, copying), so a caller who reads the reactions or max
|M| never pays for the samples (the per-point ``"displacements"`` likewise). The values are the ones
:meth:`CaseSolution.link_samples` gives (same linspace, same polynomial
evaluation, same merging of equal neighbours), which ``tests/test_solution_json.py``
checks sample for sample and byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import compress
from operator import lt, not_
from typing import Any, NamedTuple

import numpy as np

from ..model.canonical import LINK_WIDTH, Columns
from ..model.errors import StructEvalError
from ..model.types import Support
from .abi import HDR_OUT, REC_PIECE, RawCase
from .problem import REACTION_TYPES
from .results import ROTATION_HELD, CaseSolution, displacement_rows

ZERO_CHOP = 1e-12  # relative to the largest value of its kind, like FrameCalc's O5
SAME = 1e-12  # neighbours closer than this (relative) at one station are one sample
MAX_SAMPLES = 500_000  # N/V/M samples in one solution (~45 MB of JSON); past it: an error


class OutputTooLarge(StructEvalError):
    """The requested output would be too large to build (samples × links)."""


def _live_pieces(raw: RawCase) -> int:
    """The pieces of nonzero length, each of which gets its own samples."""
    pieces = raw.pieces
    return int(np.count_nonzero(pieces[:, 2] > pieces[:, 1]))


def _reactions(flat: Sequence[float], supports: Sequence[Support]) -> list[dict[str, Any]]:
    """The reaction entries from the kernel's three nodal-basis components per support
    (one flat sequence), a value within ZERO_CHOP of the largest one's size given as 0.
    One loop builds the entries and a second chops only if some value is that small."""
    entries, values = [], []
    for k, s in enumerate(supports):
        for name, index in REACTION_TYPES[s.kind]:
            value = flat[3 * k + index]
            values.append(value)
            entries.append({"atId": s.id, "type": name, "value": value})
    if values:
        magnitudes = list(map(abs, values))
        cut = ZERO_CHOP * max(magnitudes)
        if min(magnitudes) <= cut:
            for entry, size in zip(entries, magnitudes, strict=True):
                if size <= cut:
                    entry["value"] = 0.0
    return entries


def _stations(s0: np.ndarray, s1: np.ndarray, per_piece: int) -> np.ndarray:
    """``np.linspace(s0[i], s1[i], per_piece)`` for every row i, bit for bit, in four
    array operations (linspace's own machinery costs more than the rest of this module
    on a small model). Its special cases (one station, a step that underflows to zero)
    are left to linspace, row by row, as before."""
    step = (s1 - s0) / (per_piece - 1) if per_piece > 1 else s1
    if per_piece < 2 or not step.all():
        return np.array([np.linspace(a, b, per_piece) for a, b in zip(s0, s1, strict=True)])
    ss = np.arange(per_piece, dtype=np.float64) * step[:, None]
    ss += s0[:, None]
    ss[:, -1] = s1
    return ss


def _samples(p: np.ndarray, max_abs_moment: float, n_links: int, per_piece: int,
             ) -> list[list[dict[str, float]]]:
    """N/V/M samples per link from the kernel's pieces ``p``: ``per_piece`` per stretch
    between loads and both sides of every jump, neighbours with equal values at one
    station merged into the later."""
    rows = p[p[:, 2] > p[:, 1]]
    if not len(rows):
        return [[] for _ in range(n_links)]
    link_of = rows[:, 0]
    if (link_of[1:] < link_of[:-1]).any():  # the kernel lists pieces by link already
        rows = rows[np.argsort(link_of, kind="stable")]
    ss = _stations(rows[:, 1], rows[:, 2], per_piece)
    t = ss - rows[:, 1:2]
    c = rows.T[:, :, None]  # coefficient k of every row as a column: c[k]
    nv = c[(3, 6),] + t * (c[(4, 7),] + t * c[(5, 8),])  # n and v stacked: (2, rows, k)
    m = c[9] + t * (c[10] + t * (c[11] + t * c[12]))
    values = np.concatenate((ss[None], nv, m[None])).reshape(4, -1)  # s, n, v, m
    link = np.repeat(rows[:, 0].astype(np.int64), per_piece)
    after = values[1:, 1:]
    same = (np.abs(values[1:, :-1] - after) <= SAME * (1 + np.abs(after))).all(axis=0)
    same &= (link[:-1] == link[1:]) & (values[0, :-1] == values[0, 1:])
    if same.any():
        keep = np.append(~same, True)
        values, link = values[:, keep], link[keep]
    m_row = values[3]
    m_row[np.abs(m_row) <= ZERO_CHOP * max_abs_moment] = 0.0
    s_, n_, v_, m_ = values.tolist()
    flat = [{"s": a, "n": b, "v": c_, "m": d} for a, b, c_, d in zip(s_, n_, v_, m_, strict=True)]
    bounds = np.searchsorted(link, np.arange(n_links + 1)).tolist()
    return [flat[bounds[i]:bounds[i + 1]] for i in range(n_links)]


class _Pending:
    """What a lazy slot holds until first use. Not serialisable on purpose: a C
    extension that reads a dict's storage directly, bypassing the mapping protocol
    (orjson, msgpack), fails loudly on it instead of writing the entries out as empty."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<computed on first use>"


PENDING = _Pending()

#: The entries of the form built on first use: one dict per sample, and one per point.
LAZY = ("links", "displacements")


class Solution(dict):  # type: ignore[type-arg]
    """``structeval.solve``'s result: a plain ``dict`` to every reader that goes through
    the mapping protocol (which includes ``json.dumps``, ``==``, ``dict(...)``, copies and
    pickling), with the :data:`LAZY` entries built on first use, each on its own.
    ``dict(solution)`` gives a plain dict with everything built."""

    __slots__ = ("_build",)

    def __init__(self, items: dict[str, Any], build: dict[str, Callable[[], Any]]):
        """``items`` holds :data:`PENDING` under every key of ``build``."""
        dict.__init__(self, items)
        self._build: dict[str, Callable[[], Any]] | None = build or None

    def _ready(self) -> None:
        build = self._build
        if build is not None:
            self._build = None
            for key, make in build.items():
                dict.__setitem__(self, key, make())

    def _one(self, key: Any) -> None:
        build = self._build
        if build is not None and key in LAZY and key in build:
            dict.__setitem__(self, key, build.pop(key)())
            if not build:
                self._build = None

    def _forget(self, key: Any) -> None:
        build = self._build
        if build is not None and key in LAZY:
            build.pop(key, None)
            if not build:
                self._build = None

    def __getitem__(self, key: Any) -> Any:
        self._one(key)
        return dict.__getitem__(self, key)

    def get(self, key: Any, default: Any = None) -> Any:
        self._one(key)
        return dict.get(self, key, default)

    def __setitem__(self, key: Any, value: Any) -> None:
        self._forget(key)
        dict.__setitem__(self, key, value)

    def __delitem__(self, key: Any) -> None:
        self._forget(key)
        dict.__delitem__(self, key)

    def __iter__(self) -> Iterator[Any]:
        self._ready()
        return dict.__iter__(self)

    def items(self) -> Any:
        self._ready()
        return dict.items(self)

    def values(self) -> Any:
        self._ready()
        return dict.values(self)

    def copy(self) -> dict[str, Any]:
        self._ready()
        return dict(dict.items(self))

    __copy__ = copy

    def pop(self, key: Any, *default: Any) -> Any:
        self._ready()
        return dict.pop(self, key, *default)

    def popitem(self) -> Any:
        self._ready()
        return dict.popitem(self)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        self._ready()
        return dict.setdefault(self, key, default)

    def update(self, *args: Any, **kwargs: Any) -> None:
        self._ready()
        dict.update(self, *args, **kwargs)

    def clear(self) -> None:
        self._build = None
        dict.clear(self)

    def __eq__(self, other: object) -> bool:
        self._ready()
        if isinstance(other, Solution):
            other._ready()
        return dict.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]

    def __or__(self, other: Any) -> Any:
        self._ready()
        return dict.__or__(dict(dict.items(self)), other)

    def __ror__(self, other: Any) -> Any:
        self._ready()
        return dict.__or__(other, dict(dict.items(self)))

    def __repr__(self) -> str:
        self._ready()
        return dict.__repr__(self)

    def __reduce__(self) -> Any:
        self._ready()
        return (dict, (dict(dict.items(self)),))


def solution_to_json(sol: CaseSolution, *, samples_per_segment: int = 11,
                     max_samples: int = MAX_SAMPLES) -> Solution:
    """The CLI/API form: reactions exactly as FrameCalc lists them, N/V/M samples per link
    (both sides of every jump; built on first use), the exact max |M| and the nodal
    displacements.

    OutputTooLarge when the samples would exceed ``max_samples`` (checked before any is
    made, so ``--samples 10000`` on a 5,000-link chain is a sentence, not the OOM killer).
    """
    model, raw = sol.model, sol.raw
    return _form(_Answer(raw.reactions.ravel().tolist(), raw.max_abs_moment, raw.max_elem,
                         raw.max_s, _live_pieces(raw), lambda: raw.pieces),
                 model.supports, [lk.id for lk in model.links], sol.displacements,
                 samples_per_segment, max_samples)


def columns_to_json(cols: Columns, block: bytes, *, samples_per_segment: int = 11,
                    max_samples: int = MAX_SAMPLES) -> Solution:
    """:func:`solution_to_json` of the kernel's output block ``block`` (its bytes, one
    load case) for the columns of a valid document: ``structeval.solve``'s path, no
    model built and no array made unless the samples are read. The same form, byte for
    byte (``tests/test_parse_columns.py``)."""
    values = memoryview(block).cast("d")
    n, m, n_supports = len(cols.point_ids), len(cols.link_ids), len(cols.supports)
    at = HDR_OUT + 3 * n
    reactions = values[at:at + 3 * n_supports].tolist()
    at += 3 * n_supports + 6 * m
    max_abs, max_elem, max_s, count = values[at:at + 4].tolist()
    at += 4
    k = int(count)
    live = k  # the pieces of nonzero length, counted when all k might be too many
    if k * samples_per_segment > max_samples:
        live = sum(map(lt, values[at + 1:at + REC_PIECE * k:REC_PIECE].tolist(),
                       values[at + 2:at + REC_PIECE * k:REC_PIECE].tolist()))
    return _form(_Answer(reactions, max_abs, int(max_elem), max_s, live,
                         lambda: np.frombuffer(block, np.float64, REC_PIECE * k,
                                               8 * at).reshape(k, REC_PIECE)),
                 cols.supports, cols.link_ids,
                 lambda: displacement_rows(cols.point_ids, _rotation_defined(cols),
                                           values[HDR_OUT:HDR_OUT + 3 * n].tolist()),
                 samples_per_segment, max_samples)


def _rotation_defined(cols: Columns) -> list[bool]:
    """Per point: does a rigid link end or a fixed or sliding support hold its rotation
    (:meth:`CaseSolution.displacements`' rule)."""
    rows = cols.link_rows
    if not any(rows[5::LINK_WIDTH]) and not any(rows[6::LINK_WIDTH]):
        return [True] * len(cols.point_ids)  # no hinge, and every point ends a link
    defined = [False] * len(cols.point_ids)
    for end in (0, 1):  # the point at each end, and whether that end is hinged
        for point in compress(rows[end::LINK_WIDTH], map(not_, rows[end + 5::LINK_WIDTH])):
            defined[point] = True
    for support, node in zip(cols.supports, cols.support_points, strict=True):
        if support.kind in ROTATION_HELD:
            defined[node] = True
    return defined


class _Answer(NamedTuple):
    """What the form takes from one load case's answer, read from either source."""

    reactions: list[float]  # three nodal-basis components per support
    max_abs_moment: float
    max_elem: int
    max_s: float
    live_pieces: int  # pieces of nonzero length (or more, when all fit): each is sampled
    pieces: Callable[[], np.ndarray]  # (K, REC_PIECE), made when the samples are read


def _form(answer: _Answer, supports: Sequence[Support], link_ids: list[str],
          displacements: Callable[[], list[dict[str, float | None]]],
          samples_per_segment: int, max_samples: int) -> Solution:
    needed = answer.live_pieces * samples_per_segment
    if needed > max_samples:
        raise OutputTooLarge(
            f"{samples_per_segment} samples per stretch over {len(link_ids):,} links "
            f"would make {needed:,} samples, more than the cap of {max_samples:,}; lower "
            "--samples (or raise --max-samples)")

    def links() -> list[dict[str, Any]]:
        samples = _samples(answer.pieces(), answer.max_abs_moment, len(link_ids),
                           samples_per_segment)
        return [{"linkId": name, "samples": samples[i]} for i, name in enumerate(link_ids)]

    return Solution({
        "reactions": _reactions(answer.reactions, supports),
        "links": PENDING,
        "max_abs_moment": answer.max_abs_moment,
        "max_abs_moment_at": {"linkId": link_ids[answer.max_elem], "s": answer.max_s},
        "displacements": PENDING,
    }, {"links": links, "displacements": displacements})
