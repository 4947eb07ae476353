"""Make physically identical support encodings identical before the staged diagnosis.

A fixed support at a point where every link end is hinged holds a rotation that
nothing is attached to: it acts as a pin (a slider there acts as a roller). The
final physics does not care, but the early stages make every joint rigid, where
the two encodings would differ. So when one model's support is such a "hinged
fixed" and the other model has the pin it is equivalent to, the former is
rewritten as that pin, and the stages compare like with like. Nothing is
rewritten otherwise: a hinge written at a genuinely fixed support stays a hinge
fault, found at the releases stage.
"""

from __future__ import annotations

from dataclasses import replace

from ..model.types import BendingMoment, Model, Support, SupportKind
from .align import Alignment


def _loose_equivalent(model: Model, s: Support) -> Support | None:
    """The pin/roller a fixed/slider support acts as at an all-hinged point, else None."""
    if s.kind not in (SupportKind.FIXED, SupportKind.SLIDER):
        return None
    held = any(not (lk.hinge_a if lk.a == s.at else lk.hinge_b)
               for lk in model.links if s.at in (lk.a, lk.b))
    couple = any(isinstance(ld, BendingMoment) and ld.target.type == "point"
                 and ld.target.id == s.at for ld in model.loads)
    if held or couple:
        return None
    if s.kind is SupportKind.FIXED:
        return replace(s, kind=SupportKind.PIN, angle_deg=0.0)
    # a slider at θ restrains what a roller at θ − 90° restrains (FORMAT.md S3)
    return replace(s, kind=SupportKind.ROLLER, angle_deg=s.angle_deg - 90.0)


def restraint(s: Support) -> tuple[int, float, bool]:
    """(restrained translations: 2 both, 1 one line; that line's normal angle mod 180°;
    rotation held) — what a support does, whatever way it is written."""
    if s.kind in (SupportKind.PIN, SupportKind.FIXED):
        return 2, 0.0, s.kind is SupportKind.FIXED
    normal = s.angle_deg + 90.0 if s.kind is SupportKind.ROLLER else s.angle_deg
    return 1, normal % 180.0, s.kind is SupportKind.SLIDER


def same_restraint(a: Support, b: Support) -> bool:
    ra, rb = restraint(a), restraint(b)
    if ra[0] != rb[0] or ra[2] != rb[2]:
        return False
    diff = abs(ra[1] - rb[1]) % 180.0
    return min(diff, 180.0 - diff) < 0.5


def harmonize_supports(gt: Model, cand: Model, al: Alignment) -> tuple[Model, Model]:
    gt_sup, cand_sup = list(gt.supports), list(cand.supports)
    for i, j in enumerate(al.support_map):
        if j < 0:
            continue
        g, c = gt_sup[i], cand_sup[j]
        if same_restraint(g, c):
            continue
        c_eq, g_eq = _loose_equivalent(cand, c), _loose_equivalent(gt, g)
        if c_eq is not None and same_restraint(c_eq, g):
            cand_sup[j] = c_eq
        elif g_eq is not None and same_restraint(g_eq, c):
            gt_sup[i] = g_eq
    gt_out = gt if gt_sup == list(gt.supports) else replace(gt, supports=tuple(gt_sup))
    cand_out = cand if cand_sup == list(cand.supports) else replace(cand, supports=tuple(cand_sup))
    return gt_out, cand_out
