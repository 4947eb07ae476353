"""Physics-equivalence scoring with a staged diagnosis (geometry → supports → releases → loads)."""

from .diagnose import DEFAULT_TOLERANCE, score
from .verdict import CREDIT, Verdict

__all__ = ["CREDIT", "DEFAULT_TOLERANCE", "Verdict", "score"]
