"""The single place where the harness meets the dataset loader (:mod:`structeval.dataset`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any


def select_tasks(data_dir: Path | str | None, *, split: str | None, categories: Sequence[str],
                 difficulties: Sequence[int], id_filter: str | None,
                 limit: int | None, presentation: Sequence[str] = (),
                 limit_order: str = "stratified") -> list[Any]:
    """Tasks in dataset order, filtered by the loader, then cut to ``limit``: a sample
    stratified over category × level, or (``limit_order="id"``) the first ``limit``
    (:mod:`structeval.dataset.sampling`).

    ``presentation`` holds ``KEY=VALUE`` selectors (``--presentation``). Raises the
    loader's DatasetError (a StructEvalError) with its explanation, or a
    PresentationError (a ValueError) for an unknown factor or value.
    """
    from ...dataset import load_tasks
    from ...dataset.sampling import limited
    from ...presentation import parse_selectors

    selectors = parse_selectors(presentation)
    tasks = load_tasks(data_dir, split=split,
                       categories=list(categories) or None,
                       difficulties=list(difficulties) or None, id_filter=id_filter,
                       presentation=selectors or None)
    return limited(tasks, limit, limit_order)


def verify_selected(tasks: list[Any]) -> Any:
    """The dataset's self-check (``--debug``): loader, images, GT through solver and scorer."""
    from ...dataset.verify import verify_tasks

    return verify_tasks(tasks)
