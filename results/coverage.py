"""How much of the call list a row answered.

A prediction file may leave calls without a reply. Each such call counts as wrong in its
benchmark's score, so a low score may be partly calls never answered. The site marks
those scores with PARTIAL_MARK and says how many calls were answered. A benchmark with
no reply at all has no score, and its cell stays empty.

    unanswered(row)          {"expvid": (13, 60)}: benchmarks answered in part, as (answered, calls)
    partial(frame, "expvid") one bool per row: its ExpVid score counts unanswered calls
    coverage_text(row)       "ExpVid 13 of 60 calls (47 unanswered)"
    not_answered(row, held)  ["ExAct"]: the suite's benchmarks the row has no score in
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from evaluator.benchmarks import BENCHMARKS as _MODULES
from evaluator.benchmarks import ORDER

PARTIAL_MARK = "◐"
PARTIAL_NOTE = (f"**{PARTIAL_MARK}**: some of the benchmark's calls were never answered (a prediction file left "
                "them out); they count as wrong in its score, and the protocol card says how many.")


def _count(value: Any) -> int | None:
    number = pd.to_numeric(value, errors="coerce") if value is not None else np.nan
    return None if pd.isna(number) else int(number)


def unanswered(row: dict | pd.Series) -> dict[str, tuple[int, int]]:
    """Each benchmark answered in part: (calls answered, calls asked), in the benchmarks' order."""
    out = {}
    for name in ORDER:
        calls, answered = _count(row.get(f"{name}.n_calls")), _count(row.get(f"{name}.n_answered"))
        if calls and answered is not None and answered < calls:
            out[name] = (answered, calls)
    return out


def partial(frame: pd.DataFrame, benchmark: str) -> np.ndarray:
    """Per row: whether its score in `benchmark` counts calls left unanswered."""
    def column(key: str) -> np.ndarray:
        values = frame[key] if key in frame.columns else pd.Series(np.nan, index=frame.index)
        return pd.to_numeric(values, errors="coerce").to_numpy(float)
    calls, answered = column(f"{benchmark}.n_calls"), column(f"{benchmark}.n_answered")
    return (answered < calls) & (calls > 0)  # NaN compares False: no counts, no mark


def any_partial(frame: pd.DataFrame) -> np.ndarray:
    """Per row: whether any of its scores counts calls left unanswered (its Average does too)."""
    found = np.zeros(len(frame), dtype=bool)
    for name in ORDER:
        found |= partial(frame, name)
    return found


def coverage_text(row: dict | pd.Series) -> str:
    """"ExpVid 13 of 60 calls (47 unanswered); ...", or "" where every scored benchmark was
    answered in full."""
    return "; ".join(f"{_MODULES[name].TITLE} {answered} of {calls} calls ({calls - answered} unanswered)"
                     for name, (answered, calls) in unanswered(row).items())


def not_answered(row: dict | pd.Series, held) -> list[str]:
    """The titles of the benchmarks in `held` (the suite's) where the row has no score: a
    prediction file that answered none of their calls."""
    return [_MODULES[name].TITLE for name in ORDER if name in held and _count(row.get(f"{name}.n_calls")) is None
            and pd.isna(pd.to_numeric(row.get(f"{name}.overall"), errors="coerce"))]


__all__ = ["PARTIAL_MARK", "PARTIAL_NOTE", "any_partial", "coverage_text", "not_answered", "partial", "unanswered"]
