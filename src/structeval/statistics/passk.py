"""pass@k and majority-of-k over the K answers of ``--runs K``.

Both read each task's K *first-attempt* credits (one per run; a run in which the
task was unavailable counts as credit 0 there, as everywhere else in the
benchmark): the first answer is what pass@1 — the headline — measures, and the
repair rounds are a different quantity.

pass@k, binary (``perfect``): the unbiased estimator of the chance that at least
one of k answers drawn from the task's n = K is perfect (credit 1.0), with c
perfect among them: 1 − C(n−c, k) / C(n, k), per task, then averaged over tasks.

pass@k, graded (``credit``): the same draw, but the expected *best credit* of the
k answers, Σᵢ x₍ᵢ₎ · C(i−1, k−1) / C(n, k) over the credits sorted ascending.
With credits of 0 and 1 only it is the binary estimator; at k = 1 it is the mean
credit, so its difficulty-weighted k = 1 value is the run's pass@1 weighted
accuracy.

majority-of-k: the credit a strict majority of the K answers reach, i.e. the
(⌊K/2⌋+1)-th largest credit: the median for odd K, the lower of the two middle
credits for even K (a tie is no majority). With credits of 0 and 1 it is the
majority vote "more than half of the answers are perfect".
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import comb
from typing import Any

from .resampling import weighted_mean

#: the k reported (those ≤ K, and K itself)
REPORTED_K = (1, 2, 3, 5, 10, 20, 50, 100)


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k of one task: n answers, c of them correct, 1 ≤ k ≤ n."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 ≤ c ≤ n and 1 ≤ k ≤ n, got n={n}, c={c}, k={k}")
    return float(1 - Fraction(comb(n - c, k), comb(n, k)))


def expected_best(credits: Sequence[float], k: int) -> float:
    """The expected highest credit of k answers drawn without replacement from ``credits``."""
    n = len(credits)
    if not 1 <= k <= n:
        raise ValueError(f"expected best of k needs 1 ≤ k ≤ {n}, got k={k}")
    total = comb(n, k)
    ranked = sorted(credits)
    return sum(x * comb(i, k - 1) for i, x in enumerate(ranked)) / total


def majority_credit(credits: Sequence[float]) -> float:
    """The credit a strict majority of the answers reach (see the module docstring)."""
    if not credits:
        raise ValueError("majority of no answers")
    return sorted(credits, reverse=True)[len(credits) // 2]


def reported_ks(runs: int) -> list[int]:
    return sorted({k for k in REPORTED_K if k <= runs} | {runs})


def _pct(value: float) -> float:
    return round(100.0 * value, 4)


def repeated_answers(credits: Sequence[Sequence[float]], weights: Sequence[int]
                     ) -> dict[str, Any]:
    """The ``pass_at_k`` and ``majority`` entries of ``summary.statistics``: ``credits`` holds
    each task's K first-attempt credits, ``weights`` its difficulty."""
    runs = min((len(c) for c in credits), default=0)
    if runs == 0:
        return {}
    rows = []
    for k in reported_ks(runs):
        perfect = [pass_at_k(len(c), sum(x >= 1.0 for x in c), k) for c in credits]
        graded = [expected_best(c, k) for c in credits]
        rows.append({"k": k, "perfect": _pct(weighted_mean(perfect)),
                     "perfect_weighted": _pct(weighted_mean(perfect, weights)),
                     "credit_weighted": _pct(weighted_mean(graded, weights))})
    majority = [majority_credit(c) for c in credits]
    return {"pass_at_k": {"answers_per_task": runs, "of": "first attempts", "values": rows},
            "majority": {"answers_per_task": runs, "of": "first attempts",
                         "rule": "credit reached by a strict majority of the answers",
                         "weighted_accuracy": _pct(weighted_mean(majority, weights)),
                         "avg_ratio": _pct(weighted_mean(majority)),
                         "perfect": _pct(weighted_mean([m >= 1.0 for m in majority]))}}


__all__ = ["REPORTED_K", "expected_best", "majority_credit", "pass_at_k", "repeated_answers",
           "reported_ks"]
