"""Error bars and paired tests for benchmark scores (numpy only; scipy is not a runtime need).

Why these particular methods:

* **Task-level bootstrap.** The uncertainty a reader cares about is "would another
  draw of tasks of this kind give a similar score?", so tasks are the resampling
  unit (with their difficulty weights), not attempts or runs. Percentile
  intervals from a fixed number of resamples drawn from a seeded PCG64 stream:
  the same inputs give the same interval, byte for byte, on every machine with
  the same numpy.
* **Paired bootstrap of a difference.** Two models answered the same tasks, so the
  same resampled task indices are applied to both; this removes the (large)
  between-task variance that an unpaired comparison would wrongly count.
* **Wilcoxon signed-rank test.** Per-task score differences are bounded,
  discrete and far from normal, so a rank test is the honest choice. Zeros are
  discarded (Wilcoxon's original treatment); without ties and for n ≤ 50 the
  exact null distribution is used, otherwise the normal approximation with the
  tie-corrected variance and a continuity correction.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

BOOTSTRAP_RESAMPLES = 10_000
BOOTSTRAP_SEED = 2025  # fixed so that published intervals can be reproduced exactly
CI_LEVEL = 0.95
EXACT_MAX_N = 50  # exact Wilcoxon distribution up to this many non-zero differences
TIE_DECIMALS = 9  # differences equal to 9 decimals are ties (float noise from run means)
_CHUNK_ELEMENTS = 2_000_000  # resample indices held in memory at once


@dataclass(frozen=True)
class Interval:
    """A point estimate with its bootstrap percentile interval (same units as the data)."""

    estimate: float
    low: float
    high: float
    level: float
    resamples: int
    seed: int
    n: int  # tasks resampled

    def scaled(self, factor: float, decimals: int = 4) -> Interval:
        """The same interval in other units (e.g. ×100 for percent), rounded for storage."""
        return Interval(round(self.estimate * factor, decimals), round(self.low * factor, decimals),
                        round(self.high * factor, decimals), self.level, self.resamples, self.seed,
                        self.n)

    def to_json(self) -> dict[str, Any]:
        return {"estimate": self.estimate, "low": self.low, "high": self.high,
                "level": self.level, "resamples": self.resamples, "seed": self.seed, "n": self.n}


@dataclass(frozen=True)
class WilcoxonResult:
    """Two-sided Wilcoxon signed-rank test of "the differences are symmetric about 0"."""

    statistic: float  # min(W+, W−), the usual two-sided statistic
    w_plus: float  # sum of the ranks of positive differences
    w_minus: float
    n: int  # non-zero differences (the ones ranked)
    zeros: int  # differences discarded as zero
    p_value: float
    method: str  # "exact" | "normal" | "none" (nothing to rank)
    z: float | None  # the normal deviate when method == "normal"

    def to_json(self) -> dict[str, Any]:
        return {"statistic": self.statistic, "w_plus": self.w_plus, "w_minus": self.w_minus,
                "n": self.n, "zeros": self.zeros, "p_value": self.p_value,
                "method": self.method, "z": self.z}


@dataclass(frozen=True)
class Consistency:
    """How often repeated runs agree on a task's stage."""

    share: float | None  # consistent / tasks; None when fewer than two runs
    tasks: int  # tasks scored in every run (the ones that can be compared)
    consistent: int
    runs: int

    def to_json(self) -> dict[str, Any]:
        return {"share": self.share, "tasks": self.tasks, "consistent": self.consistent,
                "runs": self.runs}


def _as_arrays(values: Sequence[float] | np.ndarray, weights: Sequence[float] | np.ndarray | None,
               ) -> tuple[np.ndarray, np.ndarray]:
    v = np.asarray(values, dtype=float).reshape(-1)
    w = np.ones_like(v) if weights is None else np.asarray(weights, dtype=float).reshape(-1)
    if v.shape != w.shape:
        raise ValueError(f"{v.size} values but {w.size} weights")
    if v.size == 0:
        raise ValueError("no values: an interval needs at least one task")
    if not (np.isfinite(v).all() and np.isfinite(w).all()) or (w <= 0).any():
        raise ValueError("values must be finite and weights finite and positive")
    return v, w


def weighted_mean(values: Sequence[float] | np.ndarray,
                  weights: Sequence[float] | np.ndarray | None = None) -> float:
    v, w = _as_arrays(values, weights)
    return float((v * w).sum() / w.sum())


def _resampled_means(v: np.ndarray, w: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """Weighted means of ``resamples`` task resamples; the index stream depends only on
    (seed, n, resamples), so paired callers get identical resamples for both sides."""
    n = v.size
    rng = np.random.Generator(np.random.PCG64(seed))
    rows = max(1, _CHUNK_ELEMENTS // n)
    out = np.empty(resamples)
    for start in range(0, resamples, rows):
        count = min(rows, resamples - start)
        idx = rng.integers(0, n, size=(count, n))
        wi = w[idx]
        out[start:start + count] = (v[idx] * wi).sum(axis=1) / wi.sum(axis=1)
    return out


def _interval(estimate: float, draws: np.ndarray, level: float, resamples: int, seed: int,
              n: int) -> Interval:
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(draws, [tail, 1.0 - tail])
    # a resample mean of identical values can differ from them in the last bit; an
    # interval must still contain its own estimate
    return Interval(estimate, min(float(low), estimate), max(float(high), estimate), level,
                    resamples, seed, n)


def bootstrap_ci(values: Sequence[float] | np.ndarray,
                 weights: Sequence[float] | np.ndarray | None = None, *,
                 resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED,
                 level: float = CI_LEVEL) -> Interval:
    """Percentile interval of the weighted mean, resampling tasks with replacement.

    ``values`` are per-task scores (e.g. ratios averaged over runs) and ``weights``
    the difficulties, so the estimate is the weighted accuracy as a fraction.
    """
    v, w = _as_arrays(values, weights)
    _check_settings(resamples, level)
    draws = _resampled_means(v, w, resamples, seed)
    return _interval(weighted_mean(v, w), draws, level, resamples, seed, v.size)


def paired_bootstrap_ci(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray,
                        weights: Sequence[float] | np.ndarray | None = None, *,
                        resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED,
                        level: float = CI_LEVEL) -> Interval:
    """Interval of weighted mean(a) − weighted mean(b) over the same tasks, both sides
    resampled with the same task indices."""
    va, w = _as_arrays(a, weights)
    vb, _ = _as_arrays(b, weights)
    if va.shape != vb.shape:
        raise ValueError(f"paired samples differ in size: {va.size} and {vb.size}")
    _check_settings(resamples, level)
    # the weighted mean is linear, so the difference of means is the mean of differences
    diff = va - vb
    draws = _resampled_means(diff, w, resamples, seed)
    return _interval(weighted_mean(diff, w), draws, level, resamples, seed, diff.size)


def _check_settings(resamples: int, level: float) -> None:
    if resamples < 1:
        raise ValueError("resamples must be at least 1")
    if not 0.0 < level < 1.0:
        raise ValueError("level must lie strictly between 0 and 1")


# --------------------------------------------------------------------------- Wilcoxon


def average_ranks(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ranks 1..n of ``values`` with ties sharing their mean rank, and the tie-group sizes."""
    order = np.argsort(values, kind="mergesort")
    sorted_vals = values[order]
    starts = np.flatnonzero(np.r_[True, sorted_vals[1:] != sorted_vals[:-1]])
    sizes = np.diff(np.r_[starts, values.size])
    mean_rank = starts + (sizes + 1) / 2.0  # ranks are 1-based: start+1 … start+size
    ranks = np.empty(values.size)
    ranks[order] = np.repeat(mean_rank, sizes)
    return ranks, sizes


def signed_rank_null(n: int) -> np.ndarray:
    """P(W+ = k), k = 0 … n(n+1)/2, for n untied non-zero differences under H0.

    Each rank enters W+ with probability 1/2 independently, so the distribution is
    built one rank at a time; working in probabilities (halving at every step)
    stays exact in binary floating point far beyond the n used here.
    """
    top = n * (n + 1) // 2
    prob = np.zeros(top + 1)
    prob[0] = 1.0
    for k in range(1, n + 1):
        shifted = np.zeros_like(prob)
        shifted[k:] = prob[:-k]
        prob = (prob + shifted) / 2.0
    return prob


def wilcoxon_signed_rank(differences: Sequence[float] | np.ndarray) -> WilcoxonResult:
    """Two-sided Wilcoxon signed-rank test on paired differences (see module docstring)."""
    d = np.round(np.asarray(differences, dtype=float).reshape(-1), TIE_DECIMALS)
    if not np.isfinite(d).all():
        raise ValueError("differences must be finite")
    nonzero = d[d != 0.0]
    zeros = int(d.size - nonzero.size)
    n = int(nonzero.size)
    if n == 0:
        return WilcoxonResult(0.0, 0.0, 0.0, 0, zeros, 1.0, "none", None)
    ranks, ties = average_ranks(np.abs(nonzero))
    w_plus = float(ranks[nonzero > 0].sum())
    w_minus = float(ranks[nonzero < 0].sum())
    statistic = min(w_plus, w_minus)
    if n <= EXACT_MAX_N and (ties == 1).all():
        prob = signed_rank_null(n)
        k = round(w_plus)
        lower, upper = float(prob[:k + 1].sum()), float(prob[k:].sum())
        p = min(1.0, 2.0 * min(lower, upper))
        return WilcoxonResult(statistic, w_plus, w_minus, n, zeros, p, "exact", None)
    mean = n * (n + 1) / 4.0
    variance = n * (n + 1) * (2 * n + 1) / 24.0 - float((ties**3 - ties).sum()) / 48.0
    # variance > 0 for n ≥ 1: even all-tied ranks leave n(n+1)(3n+3)/48
    z = max(abs(w_plus - mean) - 0.5, 0.0) / math.sqrt(variance)
    return WilcoxonResult(statistic, w_plus, w_minus, n, zeros, _normal_two_sided(z), "normal",
                          z)


def _normal_two_sided(z: float) -> float:
    return math.erfc(abs(z) / math.sqrt(2.0))


# --------------------------------------------------------------------------- runs


def stage_consistency(runs: Sequence[dict[str, str | None]]) -> Consistency:
    """Share of tasks that end at the same stage in every run.

    ``runs`` holds one ``{task id: stage}`` map per run (None = unavailable). Only
    tasks scored in every run are compared: an outage says nothing about the model.
    """
    if len(runs) < 2:
        return Consistency(None, 0, 0, len(runs))
    ids = sorted(set.intersection(*(set(r) for r in runs)))
    compared = [i for i in ids if all(r[i] is not None for r in runs)]
    same = sum(len({r[i] for r in runs}) == 1 for i in compared)
    share = round(same / len(compared), 6) if compared else None
    return Consistency(share, len(compared), same, len(runs))
