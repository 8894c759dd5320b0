"""Multiple-comparisons corrections (leaderboard/multiple_testing.py) and the paired
bootstrap's p-value (evaluator/bootstrap.py two_sided_p), against examples computed by
hand here: order kept, ties, p-values of 1, the cap at 1, an empty family."""

from __future__ import annotations

import numpy as np
import pytest

from evaluator import bootstrap
from leaderboard import multiple_testing as mt


def test_holm_by_hand():
    # sorted: 0.005 (x4), 0.01 (x3), 0.03 (x2), 0.04 (x1) -> 0.02, 0.03, 0.06, 0.04 -> running max
    assert mt.holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # one test: nothing to correct
    assert mt.holm([0.2]) == [0.2]


def test_benjamini_hochberg_by_hand():
    # sorted: 0.005 (x4/1), 0.01 (x4/2), 0.03 (x4/3), 0.04 (x4/4) -> 0.02, 0.02, 0.04, 0.04 -> running min from the top
    assert mt.benjamini_hochberg([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.02, 0.04, 0.04, 0.02])
    # the step-up: a larger p-value's lower adjusted value carries down to smaller ones
    # sorted 0.01 (x3/1 = 0.03), 0.02 (x3/2 = 0.03), 0.021 (x3/3 = 0.021) -> 0.021 for all three
    assert mt.benjamini_hochberg([0.02, 0.01, 0.021]) == pytest.approx([0.021, 0.021, 0.021])


def test_ties_and_p_values_of_one():
    p = [0.02, 1.0, 0.02, 0.5]
    # Holm: sorted 0.02, 0.02, 0.5, 1 -> x4 = 0.08, x3 = 0.06 -> 0.08 (running max), x2 = 1.0, x1 = 1.0
    assert mt.holm(p) == pytest.approx([0.08, 1.0, 0.08, 1.0])
    # BH: 0.02 x4/1 = 0.08, 0.02 x4/2 = 0.04, 0.5 x4/3 = 0.667, 1 x4/4 = 1 -> running min from the top
    assert mt.benjamini_hochberg(p) == pytest.approx([0.04, 1.0, 0.04, 2 / 3])
    # every p 1 stays 1; Holm's products are capped at 1
    assert mt.holm([1.0, 1.0, 1.0]) == mt.benjamini_hochberg([1.0, 1.0, 1.0]) == [1.0, 1.0, 1.0]
    assert mt.holm([0.3, 0.4]) == pytest.approx([0.6, 0.6])
    assert mt.holm([0.6, 0.7]) == [1.0, 1.0]


def test_bh_is_never_stricter_than_holm_and_neither_below_the_raw_p():
    rng = np.random.default_rng(3)
    for _ in range(200):
        p = list(rng.uniform(0, 1, rng.integers(1, 30)) ** 3)
        holm, bh = mt.holm(p), mt.benjamini_hochberg(p)
        assert all(raw <= b + 1e-12 and b <= h + 1e-12 and h <= 1.0 for raw, b, h in zip(p, bh, holm))


def test_significance_and_edge_cases():
    assert mt.significant([0.05, 0.0500001, 0.01]) == [True, False, True]
    assert mt.holm([]) == mt.benjamini_hochberg([]) == []
    for bad in ([float("nan")], [1.2], [-0.1]):
        with pytest.raises(ValueError):
            mt.holm(bad)


def test_bootstrap_p_value_by_hand():
    # all 99 resamples above 0: 2 x (0 + 1) / (99 + 1)
    assert bootstrap.two_sided_p(np.arange(1, 100)) == pytest.approx(0.02)
    # 3 of 99 at or below 0 (one exactly 0): 2 x (3 + 1) / 100
    assert bootstrap.two_sided_p(np.array([-2.0, -1.0, 0.0, *range(1, 97)])) == pytest.approx(0.08)
    # the same with the signs turned: the smaller side counts, whichever it is
    assert bootstrap.two_sided_p(-np.array([-2.0, -1.0, 0.0, *range(1, 97)])) == pytest.approx(0.08)
    # identical results: every difference 0 counts on both sides -> 1
    assert bootstrap.two_sided_p(np.zeros(1000)) == 1.0
    # balanced: capped at 1
    assert bootstrap.two_sided_p(np.array([-1.0, 1.0])) == 1.0


def test_a_p_value_at_most_5_percent_means_the_interval_excludes_zero():
    """two_sided_p's promise: p ≤ 0.05 implies the 95% percentile interval excludes 0
    (the converse can fail only at the edge, where p is the more cautious)."""
    rng = np.random.default_rng(0)
    for _ in range(400):
        diffs = np.round(rng.normal(rng.uniform(-0.5, 3.5), 1.0, rng.integers(40, 1200)), 1)
        p = bootstrap.two_sided_p(diffs)
        low, high = bootstrap.percentile_interval(diffs)
        if p <= 0.05:
            assert low > 0 or high < 0, (p, low, high)
