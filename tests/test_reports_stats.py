"""Statistics of the reports against published values and hand derivations.

Wilcoxon sources:

* Hollander, M. & Wolfe, D. A. (1973; 2nd ed. 1999), *Nonparametric Statistical
  Methods*, Wiley — Example 3.1: Hamilton depression scale factor IV of nine
  patients before (x) and after (y) a tranquilliser. T+ = 40, and the exact
  one-sided probability P(T+ ≥ 40) = 10/512 = 0.01953 (R's ``wilcox.test``
  documentation reproduces this example: "V = 40, p-value = 0.01953"); the
  two-sided p-value is twice that, 0.0390625.
* Fisher, R. A. (1935), *The Design of Experiments*, §17 — Darwin's Zea mays
  data, 15 paired differences (eighths of an inch) of cross- minus
  self-fertilised plant heights. |−48| ranks 10th and |−67| 14th of the 15
  magnitudes, so W− = 24 and W+ = 120 − 24 = 96; the exact two-sided signed-rank
  p-value is 0.0413 (= 1352/32768), the value quoted for these data in
  ``scipy.stats.wilcoxon``'s documentation.

Where scipy is importable (it is in the dev venv, as a dependency of other
packages) every case is also cross-checked against ``scipy.stats.wilcoxon``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from structeval.statistics.resampling import (
    BOOTSTRAP_RESAMPLES,
    average_ranks,
    bootstrap_ci,
    paired_bootstrap_ci,
    signed_rank_null,
    stage_consistency,
    weighted_mean,
    wilcoxon_signed_rank,
)

try:
    import scipy.stats as scipy_stats
except ImportError:  # pragma: no cover - scipy is only a dev convenience
    scipy_stats = None

needs_scipy = pytest.mark.skipif(scipy_stats is None, reason="scipy is not installed")

DEPRESSION_X = [1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30]
DEPRESSION_Y = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29]
DARWIN = [6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75]

# Hand-derived normal-approximation case with ties and a zero (see the test's docstring).
TIED = [0.25, 0.25, 0.5, -0.25, 0.75, 0.75, 0.5, 1.0, 0.0, -0.5, 0.25, 1.0]


def test_hollander_wolfe_depression_example_exact():
    """Hollander & Wolfe Example 3.1: T+ = 40, two-sided exact p = 2 × 10/512."""
    d = np.subtract(DEPRESSION_X, DEPRESSION_Y)
    result = wilcoxon_signed_rank(d)
    assert result.method == "exact"
    assert (result.w_plus, result.w_minus, result.n) == (40.0, 5.0, 9)
    assert result.p_value == pytest.approx(2 * 10 / 512, abs=1e-12)
    assert round(result.p_value / 2, 5) == 0.01953  # the published one-sided value


def test_fisher_darwin_zea_mays_exact():
    """Fisher (1935) Zea mays: W− = 24, W+ = 96, two-sided exact p = 0.0413."""
    result = wilcoxon_signed_rank(DARWIN)
    assert result.method == "exact"
    assert (result.statistic, result.w_plus) == (24.0, 96.0)
    assert round(result.p_value, 4) == 0.0413
    assert result.p_value == pytest.approx(1352 / 32768, abs=1e-12)


def test_normal_approximation_with_ties_and_a_zero_by_hand():
    """TIED by hand: the zero is dropped (n = 11). |d| groups: 0.25 ×4 → ranks 1–4, mean 2.5;
    0.5 ×3 → 5–7, mean 6; 0.75 ×2 → 8–9, mean 8.5; 1.0 ×2 → 10–11, mean 10.5.
    Negative: −0.25 (2.5) and −0.5 (6): W− = 8.5, W+ = 66 − 8.5 = 57.5.
    E[W+] = 11·12/4 = 33; Var = 11·12·23/24 − [(4³−4) + (3³−3) + 2(2³−2)]/48
    = 126.5 − 96/48 = 124.5; z = (|57.5 − 33| − 0.5)/√124.5 = 24/√124.5."""
    result = wilcoxon_signed_rank(TIED)
    assert result.method == "normal"
    assert (result.n, result.zeros, result.w_plus, result.w_minus) == (11, 1, 57.5, 8.5)
    z = 24 / math.sqrt(124.5)
    assert result.z == pytest.approx(z, rel=1e-12)
    assert result.p_value == pytest.approx(math.erfc(z / math.sqrt(2)), rel=1e-12)
    assert round(result.p_value, 4) == 0.0315


@needs_scipy
@pytest.mark.parametrize("differences", [
    np.subtract(DEPRESSION_X, DEPRESSION_Y), DARWIN, [3.0, -1.0, 2.0, 5.0, -4.0, 6.0, 7.0]])
def test_exact_branch_agrees_with_scipy(differences):
    ours = wilcoxon_signed_rank(differences)
    theirs = scipy_stats.wilcoxon(differences, method="exact")
    assert ours.statistic == theirs.statistic
    assert ours.p_value == pytest.approx(theirs.pvalue, abs=1e-12)


@needs_scipy
def test_normal_branch_agrees_with_scipy_on_random_tied_samples():
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(60):
        d = rng.integers(-4, 5, size=int(rng.integers(5, 90))) * 0.25
        ours = wilcoxon_signed_rank(d)
        if ours.method != "normal":
            continue
        theirs = scipy_stats.wilcoxon(d, method="approx", correction=True, zero_method="wilcox")
        assert ours.p_value == pytest.approx(theirs.pvalue, abs=1e-12)
        checked += 1
    assert checked > 40


@needs_scipy
def test_many_untied_differences_use_the_normal_approximation_like_scipy():
    d = np.random.default_rng(3).normal(0.3, 1.0, size=80)
    ours = wilcoxon_signed_rank(d)
    assert ours.method == "normal"
    theirs = scipy_stats.wilcoxon(d, method="approx", correction=True)
    assert ours.p_value == pytest.approx(theirs.pvalue, abs=1e-12)


def test_null_distribution_is_the_subset_sum_count():
    """n = 4: the 16 sign patterns give W+ counts 1,1,1,2,2,2,2,2,1,1,1 for 0…10."""
    expected = np.array([1, 1, 1, 2, 2, 2, 2, 2, 1, 1, 1]) / 16
    assert np.array_equal(signed_rank_null(4), expected)
    assert signed_rank_null(30).sum() == pytest.approx(1.0, abs=1e-15)


def test_average_ranks_share_ties():
    ranks, sizes = average_ranks(np.array([3.0, 1.0, 3.0, 2.0, 3.0]))
    assert ranks.tolist() == [4.0, 1.0, 4.0, 2.0, 4.0]
    assert sorted(sizes.tolist()) == [1, 1, 3]


def test_all_zero_differences_are_no_evidence():
    result = wilcoxon_signed_rank([0.0, 0.0, 1e-12])
    assert (result.method, result.n, result.zeros, result.p_value) == ("none", 0, 3, 1.0)


def test_symmetric_differences_give_p_one():
    assert wilcoxon_signed_rank([1.0, -1.0, 2.0, -2.0]).p_value == 1.0


def test_float_noise_from_run_means_is_a_tie_not_an_order():
    """Three runs of 1/3 each sum to 0.9999999999999999 or 1.0 depending on order; both
    must rank as the same value."""
    noisy = [1 / 3 + 1 / 3 + 1 / 3, 1.0, 0.1 + 0.2, 0.3]
    ours = wilcoxon_signed_rank(noisy)
    assert ours.method == "normal"  # ties detected → not the exact (untied) distribution
    assert ours.w_plus == 10.0


# ------------------------------------------------------------------------- bootstrap


def test_weighted_mean_is_the_weighted_accuracy():
    # ratios 1, 0.75, 1, 0 at difficulties 1, 3, 2, 2 (the harness test's run): 65.625 %
    assert weighted_mean([1, 0.75, 1, 0], [1, 3, 2, 2]) == 0.65625


def test_bootstrap_is_reproducible_and_seed_dependent():
    values = np.random.default_rng(1).integers(0, 5, size=120) / 4
    weights = np.random.default_rng(2).integers(1, 6, size=120)
    a = bootstrap_ci(values, weights)
    b = bootstrap_ci(values, weights)
    assert a == b
    assert a.resamples == BOOTSTRAP_RESAMPLES == 10_000
    other = bootstrap_ci(values, weights, seed=a.seed + 1)
    assert (other.low, other.high) != (a.low, a.high)
    assert other.estimate == a.estimate


def test_bootstrap_interval_brackets_the_estimate_sensibly():
    values = np.random.default_rng(5).random(200)
    iv = bootstrap_ci(values)
    assert iv.low < iv.estimate < iv.high
    # the standard error of a mean of U(0,1) values is 1/sqrt(12·200) ≈ 0.0204, so a 95%
    # interval is about 2·1.96·0.0204 ≈ 0.080 wide; the bootstrap must land near that
    assert 0.065 < iv.high - iv.low < 0.095


def test_constant_sample_has_a_point_interval():
    iv = bootstrap_ci([0.75] * 30, [1, 2, 3, 4, 5] * 6)
    assert iv.low == iv.estimate == iv.high == 0.75


def test_interval_shrinks_with_more_tasks():
    rng = np.random.default_rng(11)
    widths = []
    for n in (20, 80, 320):
        values = rng.integers(0, 5, size=n) / 4
        iv = bootstrap_ci(values, rng.integers(1, 6, size=n))
        widths.append(iv.high - iv.low)
    assert widths[0] > widths[1] > widths[2]
    assert widths[0] / widths[2] > 2.5  # ~ sqrt(16) = 4 in theory


def test_coverage_of_the_true_mean_is_near_95_percent():
    """Draw 200 samples of 60 tasks from a known population; about 95% of the intervals
    must contain the population's weighted mean (binomial 2σ band for 200 trials ≈ ±3%,
    and percentile intervals run slightly narrow at this n)."""
    rng = np.random.default_rng(123)
    ratios = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
    probs = np.array([0.2, 0.1, 0.1, 0.2, 0.4])
    truth = float((ratios * probs).sum())  # equal weights: population mean 0.6
    hits = 0
    for trial in range(200):
        sample = rng.choice(ratios, size=60, p=probs)
        iv = bootstrap_ci(sample, resamples=1000, seed=trial)
        hits += iv.low <= truth <= iv.high
    assert 0.88 <= hits / 200 <= 0.99


def test_paired_bootstrap_of_identical_runs_is_zero():
    values = np.random.default_rng(4).random(50)
    iv = paired_bootstrap_ci(values, values, np.arange(1, 51) % 5 + 1)
    assert (iv.estimate, iv.low, iv.high) == (0.0, 0.0, 0.0)


def test_paired_interval_is_narrower_than_unpaired_for_correlated_runs():
    """B = A minus a small task-independent shift: pairing removes the between-task spread,
    so the difference is sharply estimated although each accuracy alone is not."""
    rng = np.random.default_rng(9)
    a = rng.random(100)
    b = np.clip(a - 0.05 + rng.normal(0, 0.01, 100), 0, 1)
    paired = paired_bootstrap_ci(a, b)
    single = bootstrap_ci(a)
    assert paired.high - paired.low < (single.high - single.low) / 5
    assert paired.low > 0.0
    assert paired.estimate == pytest.approx(float(np.mean(a - b)), abs=1e-12)


def test_bootstrap_rejects_unusable_input():
    with pytest.raises(ValueError):
        bootstrap_ci([])
    with pytest.raises(ValueError):
        bootstrap_ci([0.5, float("nan")])
    with pytest.raises(ValueError):
        bootstrap_ci([0.5, 0.5], [1, 0])
    with pytest.raises(ValueError):
        paired_bootstrap_ci([0.5], [0.5, 0.5])


# ------------------------------------------------------------------------- consistency


def test_stage_consistency_counts_tasks_with_one_stage_in_every_run():
    runs = [{"a": "perfect", "b": "loads", "c": "geometry", "d": None},
            {"a": "perfect", "b": "supports", "c": "geometry", "d": "perfect"},
            {"a": "perfect", "b": "loads", "c": "geometry", "d": "perfect"}]
    c = stage_consistency(runs)
    # d was unavailable once: not comparable; a and c agree, b does not → 2 of 3
    assert (c.tasks, c.consistent, c.runs) == (3, 2, 3)
    assert c.share == round(2 / 3, 6)


def test_stage_consistency_needs_two_runs():
    c = stage_consistency([{"a": "perfect"}])
    assert c.share is None and c.runs == 1
