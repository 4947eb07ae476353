"""StructuralEval: grade vision-language models on structural drawings with an FE solver.

Public API: :func:`solve` (FrameCalc JSON → solution), :func:`parse_model`
(validation), :func:`score` (physics-equivalence verdict), and the typed errors.
"""

from .api import score, solve
from .fe import MechanismError, SolverError
from .model import Model, ModelError, StructEvalError, parse_model

__all__ = ["MechanismError", "Model", "ModelError", "SolverError", "StructEvalError",
           "parse_model", "score", "solve"]
__version__ = "0.1.0"
