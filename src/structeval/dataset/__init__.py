"""The StructuralEval dataset: generator, ground truth, loader and self-check.

Public API used by the harness (kept stable)::

    from structeval.dataset import Task, load_tasks, DatasetError, DATA_DIR
"""

from .errors import DatasetError
from .loader import Task, load_tasks
from .paths import CATEGORIES, DATA_DIR, DIFFICULTIES

__all__ = ["CATEGORIES", "DATA_DIR", "DIFFICULTIES", "DatasetError", "Task", "load_tasks"]
