"""Optional leaderboard columns of model-ID runs: each benchmark's "no video"
score (the blind pass, evaluator/runners/blind.py) beside its real score, and what the
run cost (evaluator/runners/costs.py). Hidden by default; empty for prediction files
and papers' rows, where nothing was run or measured. Pure pandas: leaderboard/views/ uses it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from evaluator.benchmarks import BENCHMARKS, ORDER
from results import number_format

GPU_SECONDS, TTFT, TOKENS_PER_S, DEVICE = "GPU-s / call", "TTFT (s)", "Tokens/s", "GPU"
# What a remote LLM judge cost to grade the row (any row it graded, prediction files too).
JUDGE_TOKENS, JUDGE_USD = "Judge tokens", "Judge $"
COST_COLUMNS = (GPU_SECONDS, TTFT, TOKENS_PER_S, DEVICE, JUDGE_TOKENS, JUDGE_USD)
# label -> (table column, decimals): rounded for reading, still numbers for sorting
COST_SOURCES = {GPU_SECONDS: ("cost.gpu_seconds_per_call", 3), TTFT: ("cost.ttft_s", 3),
                TOKENS_PER_S: ("cost.tokens_per_s", 1), JUDGE_TOKENS: ("cost.judge_tokens", 0),
                JUDGE_USD: ("cost.judge_usd", 4)}


def no_video_label(column: str) -> str:
    return f"{column} (no video)"


AVERAGE = "Average"  # views.AVERAGE (views imports this module)
NO_VIDEO_AVERAGE = no_video_label(AVERAGE)
# display label -> table column of every no-video score (results/aggregate.py)
NO_VIDEO = {NO_VIDEO_AVERAGE: "blind.average",
            **{no_video_label(BENCHMARKS[name].TITLE): f"blind.{name}.overall" for name in ORDER}}
NO_VIDEO_COLUMNS = tuple(NO_VIDEO)


def beside(scores: Sequence[str]) -> tuple[str, ...]:
    """The no-video average, then each score column followed by its no-video column."""
    return (NO_VIDEO_AVERAGE, *(c for title in scores for c in (title, no_video_label(title))))


def _values(rows: pd.DataFrame, column: str) -> pd.Series:
    if column not in rows.columns:
        return pd.Series(np.nan, index=rows.index, dtype=float)
    return pd.to_numeric(rows[column], errors="coerce").astype(float)


def _device(rows: pd.DataFrame) -> pd.Series:
    device = rows["cost.device"] if "cost.device" in rows.columns else pd.Series(None, index=rows.index)
    return device.where(device.notna(), "").astype(object)


def sources(rows: pd.DataFrame) -> dict[str, Callable[[], pd.Series]]:
    """Display label -> its column of `rows` (computed when called), for every column here."""
    out: dict[str, Callable[[], pd.Series]] = {DEVICE: lambda: _device(rows)}
    out.update({name: (lambda c=column: _values(rows, c)) for name, column in NO_VIDEO.items()})
    out.update({name: (lambda c=column, d=digits: _values(rows, c).round(d))
                for name, (column, digits) in COST_SOURCES.items()})
    return out


def texts(rows: pd.DataFrame, key: Callable[[str], str]) -> dict[str, np.ndarray]:
    """key(label) -> shown text of each no-video column: two decimals, like the scores beside them."""
    return {key(name): np.array([number_format.score(v) for v in _values(rows, source).to_numpy()], dtype=object)
            for name, source in NO_VIDEO.items()}
