"""``--limit N``: a small selection that still looks like the whole one.

Cutting the id-sorted tasks after N (``--limit-order id``) took N beams, since
``beam_…`` sorts first: a quick trial run then said nothing about frames or
trusses. The default takes a *stratified* sample instead: strata are the
(category, difficulty level) cells; each gets a share of N proportional to its
size (largest-remainder rounding: floors first, the seats left over to the
largest remainders, ties broken by a hash of the cell's name so no category is
favoured); inside a cell the tasks are taken in the order of a hash of their id
(sha256 of ``"limit|" + id``), so the sample does not depend on how ids were
numbered and is the same on every machine. The sample is returned in dataset
order.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from fractions import Fraction
from typing import Protocol, TypeVar

STRATIFIED = "stratified"
ID_ORDER = "id"
LIMIT_ORDERS = (STRATIFIED, ID_ORDER)


class _Stratified(Protocol):
    id: str
    category: str
    difficulty: int


T = TypeVar("T", bound=_Stratified)


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def shares(sizes: dict[tuple[str, int], int], n: int) -> dict[tuple[str, int], int]:
    """How many tasks each cell gives to a sample of ``n`` (largest remainder method)."""
    total = sum(sizes.values())
    if n >= total:
        return dict(sizes)
    exact = {cell: Fraction(n * size, total) for cell, size in sizes.items()}
    out = {cell: int(value) for cell, value in exact.items()}  # floors
    left = n - sum(out.values())
    order = sorted(sizes, key=lambda c: (-(exact[c] - out[c]), _hash(f"{c[0]}|{c[1]}")))
    for cell in order[:left]:
        out[cell] += 1
    return out


def stratified_sample(tasks: Sequence[T], n: int) -> list[T]:
    """At most ``n`` of ``tasks``, spread over category × level in proportion, in the
    order of ``tasks``."""
    cells: dict[tuple[str, int], list[T]] = {}
    for task in tasks:
        cells.setdefault((task.category, int(task.difficulty)), []).append(task)
    quota = shares({cell: len(members) for cell, members in cells.items()}, n)
    chosen: set[str] = set()
    for cell, members in cells.items():
        ranked = sorted(members, key=lambda t: _hash(f"limit|{t.id}"))
        chosen.update(t.id for t in ranked[:quota[cell]])
    return [t for t in tasks if t.id in chosen]


def limited(tasks: Sequence[T], n: int | None, order: str = STRATIFIED) -> list[T]:
    """``--limit n`` with ``--limit-order order`` (``stratified`` or ``id``)."""
    if order not in LIMIT_ORDERS:
        raise ValueError(f"unknown limit order {order!r}; one of {', '.join(LIMIT_ORDERS)}")
    if not n:
        return list(tasks)
    return list(tasks)[:n] if order == ID_ORDER else stratified_sample(tasks, n)


__all__ = ["ID_ORDER", "LIMIT_ORDERS", "STRATIFIED", "limited", "shares", "stratified_sample"]
