"""The StructuralEval dataset: generator, ground truth, loader and self-check.

Public API used by the harness (kept stable)::

    from structeval.dataset import Task, load_tasks, DatasetError, DATA_DIR
"""

from .errors import DatasetError
from .loader import Task
from .paths import CATEGORIES, DATA_DIR, DIFFICULTIES
from .sources import load_tasks

__all__ = ["CATEGORIES", "DATA_DIR", "DIFFICULTIES", "DatasetError", "Task", "load_tasks"]
