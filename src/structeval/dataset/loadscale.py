"""How big a problem's loads are, as one force and one moment.

Used wherever "small" or "absurdly large" must be judged relative to the problem
(well-posedness screening, zero-chopping of stored results), so those
thresholds mean the same for a 5 kN and a 500 kN problem.
"""

from __future__ import annotations

from ..model.geometry import model_scale
from ..model.semantics import couple, distributed_extent
from ..model.types import BendingMoment, DistributedLoad, Model, PointLoad


def load_scales(model: Model) -> tuple[float, float]:
    """(force scale in kN, moment scale in kN·m): total applied force, and that force
    times the model size plus the applied couples."""
    size = model_scale(model)
    force = 0.0
    couples = 0.0
    for load in model.loads:
        if isinstance(load, PointLoad):
            force += abs(load.value)
        elif isinstance(load, DistributedLoad):
            s0, s1, _ = distributed_extent(model, load)
            force += 0.5 * (abs(load.w_start) + abs(load.w_end)) * max(s1 - s0, 0.0)
        elif isinstance(load, BendingMoment):
            couples += abs(couple(load))
    force = max(force, couples / size)
    return force, force * size + couples
