"""Reject problems a textbook would not pose: mechanisms and near-mechanisms.

A mechanism fails the solve outright. A near-mechanism solves, but its answer
is dominated by conditioning (three hinges almost in line, a member almost
parallel to a roller's free direction): reactions far larger than the loads,
or displacements far beyond what bending of the whole structure could give. The
factors below are generous for real structures (a cantilever reaches 1/3 of the
displacement bound, a lever reaction a few times the load; over 2,250 template
drafts the largest ratios seen were 7.1 for reactions, on a Gerber beam, and 1.3
for displacements) and small against conditioning blow-ups, which grow without
bound as the geometry degenerates (a three-hinged arch of rise 0.5 m over 40 m
pushes 20× its load sideways and is rejected).

:func:`near_mechanism` is the part every shipped problem must pass, hand-authored
ones included (``tools/generate_gt.py`` and ``run_eval.py --debug`` apply it): the
same two bounds with a factor of :data:`ILL_CONDITIONED_FACTOR`, loose enough for a
real lever or a shallow arch, far below what a near-mechanism gives (a point 1e-9 m
off the line of a two-bar truss carries 5e8 times its load).
"""

from __future__ import annotations

import math

from ..fe import CaseSolution, MechanismError, SolverError, analyze
from ..model.geometry import model_scale
from ..model.types import Model
from .loadscale import load_scales

REACTION_FACTOR = 12.0  # |reaction| ≤ factor × total load (moments: × size)
DISPLACEMENT_FACTOR = 10.0  # |u| ≤ factor × (F·size³/EI + F·size/EA)
MIN_MOMENT_SHARE = 1e-3  # beams and frames must actually bend: max|M| ≥ share × F·size
ILL_CONDITIONED_FACTOR = 100.0  # any problem: reactions and displacements within 100× the bounds


def well_posed(model: Model, *, expect_bending: bool) -> str | None:
    """None when the problem is fit to ship, else why not."""
    if not model.loads:
        return "no loads"
    try:
        solution = analyze(model)[0]
    except MechanismError as exc:
        return f"mechanism ({exc.count} free motion(s))"
    except SolverError as exc:
        return f"solver error: {exc}"
    reason = near_mechanism(model, solution, reaction_factor=REACTION_FACTOR,
                            displacement_factor=DISPLACEMENT_FACTOR)
    if reason is not None:
        return reason
    force, _ = load_scales(model)
    size = model_scale(model)
    if expect_bending and not solution.max_abs_moment >= MIN_MOMENT_SHARE * force * size:
        return "no bending: the loads go straight into the supports"
    return None


def near_mechanism(model: Model, solution: CaseSolution, *,
                   reaction_factor: float = ILL_CONDITIONED_FACTOR,
                   displacement_factor: float = ILL_CONDITIONED_FACTOR) -> str | None:
    """Why the solved problem is ill-conditioned (a near-mechanism), or None: a reaction
    beyond ``reaction_factor`` × the loads, or a point moving beyond
    ``displacement_factor`` × what bending and stretching of the whole structure give."""
    if not model.loads:
        return None
    force, moment = load_scales(model)
    size = model_scale(model)
    if not (force > 0 and math.isfinite(force)):
        return "loads have no size"
    for r in solution.reactions:
        limit = reaction_factor * (moment if r.type == "rz" else force)
        if not math.isfinite(r.value) or abs(r.value) > limit:
            unit = "kN·m" if r.type == "rz" else "kN"
            return (f"near-mechanism: reaction {r.at_id}.{r.type} = {r.value:.4g} {unit} for "
                    f"loads of {force:.4g} kN (more than {reaction_factor:g}× the loads: the "
                    "structure is almost unstable, e.g. a point almost on a straight line of "
                    "pin-jointed members)")
    ei = min(lk.E * lk.Iz for lk in model.links)
    ea = min(lk.E * lk.A for lk in model.links)
    bound = displacement_factor * (force * size**3 / ei + force * size / ea)
    for d in solution.displacements():
        u = math.hypot(float(d["ux"] or 0.0), float(d["uy"] or 0.0))
        if not math.isfinite(u) or u > bound:
            return f"near-mechanism: point {d['pointId']} moves {u:.4g} m (bound {bound:.4g} m)"
    return None
