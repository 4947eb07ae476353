"""The default selection of an evaluation: the benchmark set, balanced over category × level."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass

import pytest

from structeval.dataset import load_tasks
from structeval.dataset.benchmark import PER_CELL, SHIPPED_SPLITS, benchmark_ids


@dataclass(frozen=True)
class Row:
    id: str
    category: str
    difficulty: int
    split: str
    structure: str


def _rank(tid: str) -> str:
    return hashlib.sha256(f"benchmark|{tid}".encode()).hexdigest()


def test_rule_by_hand() -> None:
    """In hash order, a task while its cell has room and its structure is not taken yet,
    only from shipped splits."""
    rows = [Row(f"t{i}", "beam", 1 + i % 2, "core", f"s{i // 3}") for i in range(9)]
    rows += [Row("x1", "beam", 1, "custom", "x1"), Row("f1", "frame", 2, "hard", "f1")]
    chosen = benchmark_ids(rows, per_cell=2)
    expected, taken, filled = set(), set(), Counter()
    for row in sorted((r for r in rows if r.split != "custom"), key=lambda r: _rank(r.id)):
        cell = (row.category, row.difficulty)
        if filled[cell] < 2 and row.structure not in taken:
            filled[cell] += 1
            taken.add(row.structure)
            expected.add(row.id)
    assert chosen == expected and "f1" in chosen
    assert len({r.structure for r in rows if r.id in chosen}) == len(chosen)
    assert "x1" not in chosen
    assert benchmark_ids([Row("x1", "beam", 1, "custom", "x1")]) == set()


@pytest.fixture(scope="module")
def shipped_all() -> list:
    return load_tasks(split="all")


def test_shipped_benchmark_is_balanced_and_one_task_per_structure(shipped_all: list) -> None:
    bench = load_tasks(split="benchmark")
    ids = {t.id for t in bench}
    assert ids == benchmark_ids(shipped_all)
    per_cell = Counter((t.category, t.difficulty) for t in bench)
    taken = {t.structure for t in bench}
    assert len(taken) == len(bench)  # one task per structure
    for task in shipped_all:  # a cell short of PER_CELL has no structure left to give
        if task.split in SHIPPED_SPLITS and per_cell[(task.category, task.difficulty)] < PER_CELL:
            assert task.structure in taken, task.id
    assert max(per_cell.values()) == PER_CELL
    # the shipped data fills every cell of category × level (1-5)
    cells = [(c, d) for c in ("beam", "frame", "truss") for d in range(1, 6)]
    assert all(per_cell[cell] == PER_CELL for cell in cells), per_cell
    assert len(bench) == PER_CELL * len(cells)


def test_benchmark_narrowed_by_other_filters(shipped_all: list) -> None:
    bench = {t.id for t in load_tasks(split="benchmark")}
    beams = load_tasks(split="benchmark", categories=["beam"])
    assert beams and {t.id for t in beams} == {i for i in bench if i.startswith("beam")}
    assert len(load_tasks(split="all")) == len(shipped_all) >= len(bench)
