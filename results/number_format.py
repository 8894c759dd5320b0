"""How the site writes a number: one rule for every tab, plot and export.

    score(52.8)              "52.80"          a score (a percentage, or a paper's other metric):
                                              two decimals, as the Leaderboard shows it
    count(120.0)             "120"            a count (calls, answers, frames, ranks): a whole number
    amount(7.615616512)      "7.62"           another quantity (parameters in billions): at most two
                                              decimals, no trailing zeros
    with_half(61.2, 1.79)    "61.20 ±1.79"    a score and half its 95% interval
    interval(6.0, 15.63)     "[6.00, 15.63]"  the interval's bounds
    p_value(0.0002)          "<0.001"         a p-value: three decimals
    text(kind, value)                         by kind: SCORE, COUNT or AMOUNT
    rounded(value), whole(value)              the same rule as numbers (plot data, exports)
    is_count(metric)                          whether a metric key ("n_calls") holds a count

Missing values (None, NaN) come back as None: the cell stays empty. Rounding is half
away from zero on the value as written, as the scorer rounds (evaluator/records.py
round_half_up): 1.785 reads "1.79", never "1.78" as its binary neighbour would.

The plots' axes: SCORE_LIMITS spans every score axis (0-100, so its ticks are round
numbers even when every point has the same score) and AXIS_FORMAT (a d3 format) drops
the digits Vega would pad a tick with ("11.000000" reads "11").
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

DECIMALS = 2
SCORE, COUNT, AMOUNT = "score", "count", "amount"
SCORE_LIMITS = [0, 100]
AXIS_FORMAT = "~r"  # d3-format: significant digits, trailing zeros trimmed
_COUNT_KEYS = ("judge_unscored", "calls", "answered")


def _finite(value: Any) -> float | None:
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        try:
            value = float(value)  # numpy scalars, pandas' NA-free extension scalars
        except (TypeError, ValueError):
            return None
    value = float(value)
    return value if math.isfinite(value) else None


def _decimal(value: float, places: int) -> Decimal:
    exact = Decimal(repr(value))  # as written: 1.785, not 1.78499999...
    out = exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return out if out != 0 else abs(out)  # never "-0.00"


def score(value: Any) -> str | None:
    number = _finite(value)
    return None if number is None else str(_decimal(number, DECIMALS))


def count(value: Any) -> str | None:
    number = _finite(value)
    return None if number is None else str(int(_decimal(number, 0)))


def amount(value: Any) -> str | None:
    number = _finite(value)
    if number is None:
        return None
    text = str(_decimal(number, DECIMALS))
    return text.rstrip("0").rstrip(".") if "." in text else text


def with_half(value: Any, half: Any) -> str | None:
    """"61.20 ±1.79"; the score alone where it has no interval (half missing or 0)."""
    shown, spread = score(value), _finite(half)
    if shown is None:
        return None
    return f"{shown} ±{score(spread)}" if spread else shown


def interval(low: Any, high: Any) -> str | None:
    low_text, high_text = score(low), score(high)
    return None if low_text is None or high_text is None else f"[{low_text}, {high_text}]"


def p_value(value: Any) -> str | None:
    number = _finite(value)
    if number is None:
        return None
    return "<0.001" if number < 0.0005 else str(_decimal(number, 3))


_WRITERS = {SCORE: score, COUNT: count, AMOUNT: amount}


def text(kind: str, value: Any) -> str | None:
    return _WRITERS[kind](value)


def rounded(value: Any) -> float | None:
    """A score as a number with the shown digits (a plot's point, its tooltip)."""
    number = _finite(value)
    return None if number is None else float(_decimal(number, DECIMALS))


def whole(value: Any) -> int | None:
    """A count as an integer (a JSON count reads 120, not 120.0)."""
    number = _finite(value)
    return None if number is None else int(_decimal(number, 0))


def is_count(metric: str) -> bool:
    """Whether a metric key names a count: "n_calls", "calibration_n", "judge_unscored"."""
    key = str(metric)
    return key.startswith("n_") or key.endswith("_n") or key == "n" or key in _COUNT_KEYS
