"""95% bootstrap intervals for each benchmark's headline, resampling videos.

Each benchmark reduces its items to one row of additive statistics per source
video (e.g. [correct, total]); a resample draws videos with replacement, which is
a multinomial weight per video, so all resamples are one matrix product.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from evaluator.records import round_half_up


def interval(video_stats: np.ndarray, overall_from: Callable[[np.ndarray], np.ndarray],
             samples: int = 1000, seed: int = 0, level: float = 0.95) -> list[float] | None:
    """[low, high] of the headline over `samples` video resamples; None with no videos."""
    n = len(video_stats)
    if n == 0 or samples <= 0:
        return None
    rng = np.random.default_rng(seed)
    weights = rng.multinomial(n, np.full(n, 1.0 / n), size=samples).astype(np.float64)
    values = np.asarray(overall_from(weights @ video_stats), dtype=np.float64)
    values = values[np.isfinite(values)]
    if values.size == 0:
        return None
    tail = (1.0 - level) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return [round_half_up(float(low)), round_half_up(float(high))]
