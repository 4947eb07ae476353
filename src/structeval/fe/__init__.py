"""Finite-element analysis through the WebAssembly kernel."""

from .analyze import MechanismError, analyze
from .problem import FEProblem, compile_model
from .results import CaseSolution, Reaction
from .wasm import Kernel, SolverError, default_kernel

__all__ = ["CaseSolution", "FEProblem", "Kernel", "MechanismError", "Reaction", "SolverError",
           "analyze", "compile_model", "default_kernel"]
