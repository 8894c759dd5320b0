"""Optional leaderboard columns of model-ID runs (issue 14): each benchmark's "no video"
score (the blind pass, evaluator/runners/blind.py) beside its real score, and what the
run cost (evaluator/runners/costs.py). Hidden by default; empty for prediction files
and papers' rows, where nothing was run or measured. Pure pandas: views.py uses it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

GPU_SECONDS, TTFT, TOKENS_PER_S, DEVICE = "GPU-s / call", "TTFT (s)", "Tokens/s", "GPU"
COST_COLUMNS = (GPU_SECONDS, TTFT, TOKENS_PER_S, DEVICE)
# label -> (table column, decimals): rounded for reading, still numbers for sorting
COST_SOURCES = {GPU_SECONDS: ("cost.gpu_seconds_per_call", 3), TTFT: ("cost.ttft_s", 3),
                TOKENS_PER_S: ("cost.tokens_per_s", 1)}


def no_video_label(column: str) -> str:
    return f"{column} (no video)"


def no_video_sources(average: str, titles: dict[str, str]) -> dict[str, str]:
    """Display label -> table column of every no-video score (leaderboard/aggregate.py)."""
    return {no_video_label(average): "blind.average",
            **{no_video_label(title): f"blind.{name}.overall" for name, title in titles.items()}}


def beside(scores: Sequence[str]) -> tuple[str, ...]:
    """Each score column followed by its no-video column."""
    return tuple(c for title in scores for c in (title, no_video_label(title)))


def _values(rows: pd.DataFrame, column: str) -> pd.Series:
    if column not in rows.columns:
        return pd.Series(np.nan, index=rows.index, dtype=float)
    return pd.to_numeric(rows[column], errors="coerce").astype(float)


def column(rows: pd.DataFrame, name: str, no_video: dict[str, str]) -> pd.Series | None:
    """The display column `name` if it is one of these, else None."""
    if name in no_video:
        return _values(rows, no_video[name])
    if name in COST_SOURCES:
        source, digits = COST_SOURCES[name]
        return _values(rows, source).round(digits)
    if name == DEVICE:
        device = rows["cost.device"] if "cost.device" in rows.columns else pd.Series(None, index=rows.index)
        return device.where(device.notna(), "").astype(object)
    return None


def texts(rows: pd.DataFrame, no_video: dict[str, str]) -> dict[str, list]:
    """Label -> shown text of each no-video column: two decimals, like the scores beside them."""
    return {name: [None if np.isnan(v) else f"{v:.2f}" for v in _values(rows, source).to_numpy()]
            for name, source in no_video.items()}
