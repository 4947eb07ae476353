"""Task selection for researchers: ``--limit N`` is a stratified sample, ``--limit-order id``
keeps the id order, and ``--split`` with an unknown name lists the splits there are."""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from structeval.dataset import load_tasks
from structeval.dataset.errors import UnknownSplit
from structeval.dataset.sampling import limited, shares, stratified_sample
from tests.fakeserver import fixture as fx
from tests.fakeserver.process import common, run_eval
from tests.fakeserver.server import Answer, FakeOpenAI


@dataclass(frozen=True)
class T:
    id: str
    category: str
    difficulty: int


def _tasks(sizes: dict[tuple[str, int], int]) -> list[T]:
    """Tasks sorted by id, as the loader gives them (``beam_…`` first)."""
    out = [T(f"{cat}_{level}_{k:03d}", cat, level) for (cat, level), n in sizes.items()
           for k in range(n)]
    return sorted(out, key=lambda t: t.id)


BALANCED = {(cat, level): 30 for cat in ("beam", "frame", "truss") for level in range(1, 6)}


def test_limit_12_of_a_balanced_set_takes_12_different_cells_not_12_beams():
    tasks = _tasks(BALANCED)
    assert {t.category for t in limited(tasks, 12, "id")} == {"beam"}  # the old behaviour
    sample = limited(tasks, 12)
    cells = Counter((t.category, t.difficulty) for t in sample)
    assert len(sample) == 12 and max(cells.values()) == 1
    assert set(Counter(t.category for t in sample)) == {"beam", "frame", "truss"}


def test_shares_are_proportional_by_hand():
    # 60 / 30 / 10 of 100, n = 10 → exactly 6 / 3 / 1
    assert shares({("beam", 1): 60, ("frame", 1): 30, ("truss", 1): 10}, 10) == {
        ("beam", 1): 6, ("frame", 1): 3, ("truss", 1): 1}
    # 50 / 30 / 20, n = 7 → exact 3.5 / 2.1 / 1.4: floors 3 / 2 / 1, the seat left goes
    # to the largest remainder (0.5)
    assert shares({("beam", 1): 50, ("frame", 1): 30, ("truss", 1): 20}, 7) == {
        ("beam", 1): 4, ("frame", 1): 2, ("truss", 1): 1}


def test_the_sample_is_deterministic_and_in_dataset_order():
    tasks = _tasks({("beam", 1): 40, ("frame", 2): 25, ("truss", 3): 9})
    a = stratified_sample(tasks, 11)
    shuffled = tasks[:]
    random.Random(7).shuffle(shuffled)
    assert {t.id for t in stratified_sample(shuffled, 11)} == {t.id for t in a}
    assert a == stratified_sample(tasks, 11)
    assert [t.id for t in a] == sorted(t.id for t in a)
    # within a cell it is not simply the first ids
    beams = [t for t in a if t.category == "beam"]
    assert [t.id for t in beams] != [t.id for t in tasks if t.category == "beam"][:len(beams)]


@settings(max_examples=120, deadline=None)
@given(st.dictionaries(st.tuples(st.sampled_from(["beam", "frame", "truss"]),
                                 st.integers(1, 5)), st.integers(1, 40), min_size=1),
       st.integers(1, 250))
def test_every_cell_gets_its_share_rounded_down_or_up(sizes, n):
    tasks = _tasks(sizes)
    sample = stratified_sample(tasks, n)
    total = sum(sizes.values())
    assert len(sample) == min(n, total)
    assert len({t.id for t in sample}) == len(sample)
    got = Counter((t.category, t.difficulty) for t in sample)
    for cell, size in sizes.items():
        exact = min(n, total) * size / total
        assert int(exact) <= got[cell] <= int(exact) + 1 and got[cell] <= size


def test_no_limit_and_a_large_limit_keep_every_task():
    tasks = _tasks({("beam", 1): 3, ("truss", 2): 2})
    assert limited(tasks, None) == tasks
    assert limited(tasks, 99) == tasks
    with pytest.raises(ValueError):
        limited(tasks, 2, "random")


# ----------------------------------------------------------------------------- the CLI


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("limit") / "data"
    fx.build_dataset(root, copies=3)  # 12 tasks: beams first in id order
    return root


def test_unknown_split_is_one_sentence_listing_the_splits(dataset):
    with pytest.raises(UnknownSplit) as info:
        load_tasks(dataset, split="test,nosuch")
    text = str(info.value)
    assert "no split 'nosuch'" in text and "its splits are test" in text
    assert "benchmark" in text and "all" in text and "\n" not in text
    assert len(load_tasks(dataset, split="test")) == 12  # a valid name is unchanged


def test_run_eval_split_nosuch_exits_2_with_the_list(dataset):
    done = run_eval("--model", "m", "--api-base", "http://127.0.0.1:9/v1", "--data-dir",
                    str(dataset), "--split", "nosuch", "--dry-run")
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "Traceback" not in done.stderr
    assert "no split 'nosuch'; its splits are test" in done.stderr
    assert ".." not in done.stderr


@pytest.mark.parametrize("order", ["id", "stratified"])
def test_run_eval_limit_is_stratified_unless_limit_order_id(dataset, tmp_path, order):
    """12 tasks in four cells of three (beam 1, beam 2, frame 3, truss 2): --limit 4 takes
    one of each cell, --limit-order id the first four ids (all beams)."""
    ids = sorted(t.id for t in load_tasks(dataset))
    with FakeOpenAI(lambda call: Answer(fx.NO_JSON)) as server:
        done = run_eval(*common(server, dataset, tmp_path / "run", "--split", "all",
                                "--limit", "4", "--limit-order", order, "--max-retries", "0",
                                "--progress-interval", "0"))
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    chosen = [t["id"] for t in results["tasks"]]
    assert results["summary"]["selection"]["limit"] == 4
    assert results["summary"]["selection"]["limit_order"] == order
    assert results["summary"]["selection"]["split"] == "all"
    if order == "id":
        assert chosen == ids[:4]
    else:
        assert chosen == [t.id for t in stratified_sample(load_tasks(dataset), 4)]
        assert len({t["category"] for t in results["tasks"]}) == 3  # beam, frame, truss


def test_the_inspect_task_selects_like_run_eval(dataset):
    """``-T limit=4`` takes the same stratified sample as ``--limit 4``; ``-T split=nosuch``
    is a parameter error that lists the splits (no traceback from inside the loader)."""
    pytest.importorskip("inspect_ai", reason="inspect-ai is not installed")
    from structeval.harness.inputs.tasks import select_tasks
    from structeval.inspect_task import TaskParameterError, select_dataset_tasks

    common_args = {"category": None, "difficulty": None, "presentation": None,
                   "data_dir": str(dataset), "id_filter": None}
    ours = select_dataset_tasks(split="all", limit=4, **common_args)
    cli = select_tasks(dataset, split="all", categories=(), difficulties=(), id_filter=None,
                       limit=4)
    assert [t.id for t in ours] == [t.id for t in cli]
    assert len({t.category for t in ours}) == 3
    with pytest.raises(TaskParameterError, match="its splits are test"):
        select_dataset_tasks(split="nosuch", limit=None, **common_args)
