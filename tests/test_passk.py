"""pass@k and majority-of-K (structeval.statistics.passk) against hand-computed values.

The binary estimator is 1 − C(n−c, k)/C(n, k); the graded one the expected best credit
of k answers drawn without replacement; majority the credit a strict majority reach.
Besides the hand-worked cases, both estimators are checked against brute force over
every k-subset, and the run statistics against the harness's own pass@1.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from structeval.statistics.passk import (
    expected_best,
    majority_credit,
    pass_at_k,
    reported_ks,
)
from structeval.statistics.runs import format_statistics, run_statistics

CREDITS = st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0])


@pytest.mark.parametrize(("n", "c", "k", "expected"), [
    (5, 2, 1, 2 / 5),  # 1 − C(3,1)/C(5,1) = 1 − 3/5
    (5, 2, 2, 7 / 10),  # 1 − C(3,2)/C(5,2) = 1 − 3/10
    (5, 2, 3, 9 / 10),  # 1 − C(3,3)/C(5,3) = 1 − 1/10
    (5, 2, 4, 1.0),  # fewer than 4 wrong answers: any 4 include a right one
    (10, 3, 3, 85 / 120),  # 1 − C(7,3)/C(10,3) = 1 − 35/120
    (4, 0, 2, 0.0),
    (4, 4, 1, 1.0),
    (1, 1, 1, 1.0),
])
def test_pass_at_k_by_hand(n, c, k, expected):
    assert pass_at_k(n, c, k) == pytest.approx(expected, abs=1e-15)


@pytest.mark.parametrize("args", [(3, 4, 1), (3, 1, 0), (3, 1, 4), (3, -1, 1)])
def test_pass_at_k_refuses_impossible_counts(args):
    with pytest.raises(ValueError):
        pass_at_k(*args)


def test_expected_best_by_hand():
    # pairs of (0, 0.5, 1): (0, .5) → .5, (0, 1) → 1, (.5, 1) → 1: mean 2.5/3
    assert expected_best([0.0, 0.5, 1.0], 2) == pytest.approx(2.5 / 3)
    assert expected_best([0.2, 0.4, 0.6, 0.8], 1) == pytest.approx(0.5)  # the mean
    assert expected_best([0.2, 0.4, 0.6, 0.8], 4) == pytest.approx(0.8)  # the best
    # (0, .25, .75): pairs → .25, .75, .75: mean 1.75/3
    assert expected_best([0.75, 0.0, 0.25], 2) == pytest.approx(1.75 / 3)


@pytest.mark.parametrize(("credits", "expected"), [
    ([1.0, 1.0, 0.0], 1.0),
    ([1.0, 0.0], 0.0),  # a tie is no majority
    ([0.2, 0.9, 0.5], 0.5),  # the median of an odd count
    ([1.0, 1.0, 0.0, 0.0], 0.0),
    ([0.25, 1.0, 0.5, 0.75], 0.5),  # 3 of 4 reach 0.5, only 2 reach 0.75
    ([0.75], 0.75),
])
def test_majority_by_hand(credits, expected):
    assert majority_credit(credits) == expected


@settings(max_examples=150, deadline=None)
@given(st.lists(CREDITS, min_size=1, max_size=7), st.data())
def test_both_estimators_agree_with_brute_force_over_every_subset(credits, data):
    k = data.draw(st.integers(1, len(credits)))
    subsets = list(itertools.combinations(credits, k))
    best = sum(max(s) for s in subsets) / len(subsets)
    hit = sum(any(x >= 1.0 for x in s) for s in subsets) / len(subsets)
    assert expected_best(credits, k) == pytest.approx(best)
    assert pass_at_k(len(credits), sum(x >= 1.0 for x in credits), k) == pytest.approx(hit)
    strict = [x for x in credits if sum(y >= x for y in credits) > len(credits) / 2]
    assert majority_credit(credits) == max(strict)


def test_reported_ks():
    assert reported_ks(1) == [1]
    assert reported_ks(4) == [1, 2, 3, 4]
    assert reported_ks(12) == [1, 2, 3, 5, 10, 12]


@dataclass(frozen=True)
class Row:
    id: str
    difficulty: int
    run: int
    first_attempt_ratio: float | None
    status: str = "scored"
    category: str = "beam"
    ratio: float = 1.0
    stage: str | None = "perfect"
    first_attempt_stage: str | None = "perfect"
    structure: str = ""
    presentation: dict = field(default_factory=dict)


def test_run_statistics_carry_pass_at_k_and_majority_by_hand():
    """Three runs. a (difficulty 1): first answers 1, 1, 0 → c = 2 of 3; b (difficulty 3):
    0.5, unavailable, 1 → credits 0.5, 0, 1, c = 1.
    pass@1 perfect = (2/3 + 1/3)/2 = 50 %; pass@2 = (1 + (1 − C(2,2)/C(3,2)))/2 =
    (1 + 2/3)/2 = 83.3333 %; pass@3 = 100 %. Weighted: pass@2 (1 + 3·2/3)/4 = 75 %.
    Graded k = 1: a 2/3, b 0.5 → (2/3 + 1.5)/4 = 54.1667 %, the pass@1 weighted accuracy.
    Majority: a 1, b 0.5 → (1 + 1.5)/4 = 62.5 % weighted, 75 % average, 50 % perfect."""
    rows = [Row("a", 1, 0, 1.0), Row("a", 1, 1, 1.0), Row("a", 1, 2, 0.0),
            Row("b", 3, 0, 0.5), Row("b", 3, 1, None, status="unavailable", stage=None,
                                     first_attempt_stage=None, ratio=0.0),
            Row("b", 3, 2, 1.0)]
    st_ = run_statistics(rows)
    values = {v["k"]: v for v in st_["pass_at_k"]["values"]}
    assert sorted(values) == [1, 2, 3]
    assert values[1]["perfect"] == 50.0
    assert values[2]["perfect"] == 83.3333
    assert values[3]["perfect"] == 100.0
    assert values[2]["perfect_weighted"] == 75.0
    assert values[1]["credit_weighted"] == 54.1667
    assert values[1]["credit_weighted"] == st_["pass_at_1_weighted_accuracy"]["estimate"]
    assert st_["majority"]["weighted_accuracy"] == 62.5
    assert st_["majority"]["avg_ratio"] == 75.0
    assert st_["majority"]["perfect"] == 50.0
    text = format_statistics(st_)
    assert "pass@1 50.0%, pass@2 83.3%, pass@3 100.0%" in text
    assert "Majority of 3 (credit a strict majority of the first answers reach): 62.50%" in text
