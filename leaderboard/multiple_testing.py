"""Adjusted p-values for testing many differences at once (the Compare tab's scores).
Pure Python, no dependency: each is a few lines, and the tests check them by hand.

    holm([0.01, 0.04, 0.03, 0.005])                  # [0.03, 0.06, 0.06, 0.02]: family-wise error
    benjamini_hochberg([0.01, 0.04, 0.03, 0.005])    # [0.02, 0.04, 0.04, 0.02]: false discovery rate
    significant(adjusted)                            # adjusted p ≤ ALPHA

An adjusted p-value is the smallest level at which the procedure would call that
difference significant, so "adjusted p ≤ 0.05" is the procedure run at 5%. Both are
returned in the order given; tied p-values get the same adjusted value; none exceeds 1.
docs/compare.md says which one the tab's headline uses, and why.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

ALPHA = 0.05
HOLM, BH = "Holm", "Benjamini-Hochberg"


def _checked(p_values: Sequence[float]) -> list[float]:
    values = [float(p) for p in p_values]
    if any(math.isnan(p) or not 0.0 <= p <= 1.0 for p in values):
        raise ValueError(f"p-values lie in [0, 1]: {values}")
    return values


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment: the i-th smallest of m p-values times (m − i + 1),
    never below the adjusted value before it. Controls the chance of any false
    "significant" at the level, whatever the dependence between the tests."""
    values = _checked(p_values)
    m = len(values)
    out = [0.0] * m
    running = 0.0
    for i, at in enumerate(sorted(range(m), key=values.__getitem__)):
        running = max(running, min(1.0, (m - i) * values[at]))
        out[at] = running
    return out


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Benjamini and Hochberg's step-up adjustment: the i-th smallest of m p-values times
    m / i, never above the adjusted value after it. Controls the expected share of false
    ones among the differences called significant (independent or positively dependent tests)."""
    values = _checked(p_values)
    m = len(values)
    out = [0.0] * m
    running = 1.0
    for i, at in enumerate(sorted(range(m), key=values.__getitem__, reverse=True)):
        running = min(running, values[at] * m / (m - i))
        out[at] = running
    return out


def significant(adjusted: Sequence[float], alpha: float = ALPHA) -> list[bool]:
    return [p <= alpha for p in adjusted]
