"""Where the tasks come from: one place decides the source of ``--data-dir`` and hands it to
its loader.

A ``data/`` folder goes to :func:`loader.load_folder`; a folder written by
``tools/export_hf.py`` or an ``hf://owner/name@revision`` reference goes to
:func:`hf_load.load_export_tasks`. Both loaders sit below this module and share the
filters of :func:`loader.select_metas`, so neither needs the other.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from . import hf_load
from .benchmark import ALL, BENCHMARK, benchmark_ids
from .errors import UnknownSplit
from .loader import Task, load_folder
from .paths import resolve_data_dir


def load_tasks(data_dir: Path | str | None = None, *, split: str | None = None,
               categories: Sequence[str] | None = None,
               difficulties: Sequence[int] | None = None,
               id_filter: str | None = None,
               presentation: Mapping[str, Iterable[str]] | None = None) -> list[Task]:
    """Every task that passes the filters, sorted by id, or one DatasetError listing all faults.

    ``data_dir`` is a ``data/`` folder, a folder written by ``tools/export_hf.py`` or an
    ``hf://owner/name@revision`` reference (default: :func:`paths.resolve_data_dir`).
    ``split`` is a split name or several joined by commas, ``"all"`` (every task, like
    None) or ``"benchmark"`` (the default selection of an evaluation,
    :mod:`structeval.dataset.benchmark`); ``id_filter`` is a glob
    (``beam-*``) or, without wildcards, a substring of the id; ``presentation`` maps
    factors to accepted values (see :func:`structeval.presentation.parse_selectors`).
    """
    root = resolve_data_dir(data_dir)
    if split == ALL:
        split = None
    if split == BENCHMARK:
        return _benchmark(root, categories=categories, difficulties=difficulties,
                          id_filter=id_filter, presentation=presentation)
    select = {"split": split, "categories": categories, "difficulties": difficulties,
              "id_filter": id_filter, "presentation": presentation}
    tasks = _load(root, **select)
    if split is not None:
        _check_split_names(root, split, tasks)
    return tasks


def _load(root: Path | str, **select: Any) -> list[Task]:
    if isinstance(root, str) or hf_load.is_export(root):
        return hf_load.load_export_tasks(root, **select)
    return load_folder(root, **select)


def _check_split_names(root: Path | str, split: str, selected: Sequence[Task]) -> None:
    """Raise UnknownSplit when a name of ``split`` (comma-joined) is no split of the
    dataset. Only when a name found no task is the whole dataset read to list its splits,
    so a valid selection costs nothing more."""
    wanted = split.split(",")
    if all(name in {t.split for t in selected} for name in wanted):
        return
    existing = sorted({t.split for t in _load(root, split=None, categories=None,
                                              difficulties=None, id_filter=None,
                                              presentation=None)})
    unknown = [name for name in wanted if name not in existing]
    if unknown:
        names = ", ".join(repr(name) for name in dict.fromkeys(unknown))
        raise UnknownSplit(f"{root} has no split {names}; its splits are "
                           f"{', '.join(existing) or 'none'} (or choose {BENCHMARK}, the "
                           f"default benchmark set, or {ALL})")


def _benchmark(root: Path | str, **filters: Any) -> list[Task]:
    """The benchmark set (:mod:`benchmark`), narrowed by the other filters; every task of
    a folder that holds none of the shipped splits."""
    chosen = benchmark_ids(load_tasks(root))
    narrowed = load_tasks(root, **filters)
    return [t for t in narrowed if t.id in chosen] if chosen else narrowed
