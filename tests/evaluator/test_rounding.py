"""Scores are rounded half-up on their exact value, to 2 decimals, everywhere a result
shows one (Python's round() rounds the binary float with ties to even)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from evaluator.records import pct, round_half_up


@pytest.mark.parametrize("num, den, shown", [
    (87, 160, 54.38),      # 54.375
    (71, 160, 44.38),      # 44.375
    (0.54375, 1, 54.38),   # a float numerator, taken as written
    (1, 3, 33.33),
    (2, 3, 66.67),
    (1, 8000, 0.01),       # 0.0125
    (0, 7, 0.0),
    (7, 7, 100.0),
])
def test_pct_rounds_ties_up(num, den, shown):
    assert pct(num, den) == shown


def test_pct_of_nothing_is_none():
    assert pct(3, 0) is None


@pytest.mark.parametrize("value, shown", [
    (1.005, 1.01), (2.675, 2.68), (-2.345, -2.35), (-0.004, 0.0), (Fraction(10875, 200), 54.38),
    (np.float64(12.345), 12.35),
])
def test_round_half_up(value, shown):
    assert round_half_up(value) == shown
