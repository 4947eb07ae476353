"""FrameCalc model: typed objects, validation of untrusted JSON, load semantics, serialization."""

from .errors import Issue, ModelError, StructEvalError
from .parse import DEFAULT_A, DEFAULT_E, DEFAULT_IZ, parse_model
from .serialize import dumps_model, model_to_json
from .types import (
    AngleMode,
    BendingMoment,
    DistributedLoad,
    Link,
    Load,
    Model,
    OffsetMode,
    Point,
    PointLoad,
    Position,
    Support,
    SupportKind,
    Target,
)

__all__ = [
    "DEFAULT_A", "DEFAULT_E", "DEFAULT_IZ", "AngleMode", "BendingMoment", "DistributedLoad",
    "Issue", "Link", "Load", "Model", "ModelError", "OffsetMode", "Point", "PointLoad",
    "Position", "StructEvalError", "Support", "SupportKind", "Target", "dumps_model",
    "model_to_json", "parse_model",
]
