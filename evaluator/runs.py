"""Several runs of one benchmark made into one score, where its protocol asks for repeats
(Video SimpleQA: three runs at temperature 1.0; evaluator/reference.py).

    combined = combine([score_run1, score_run2, score_run3])    # BenchmarkScore's
    spread(combined)                                            # {"runs": 3, "overall_per_run": [...], ...}

The paper repeats each experiment and does not say how it combines the repeats; we
take the mean of the runs' scores, metric by metric (breakdowns too), rounded half-up
to 2 decimals, and keep each run's overall so its spread can be shown. The interval
resamples videos once for all runs: each video's statistics of every run side by side
(`video_stats` blocks), the headline the mean of each run's own headline.
"""

from __future__ import annotations

import statistics
from fractions import Fraction
from typing import Any

import numpy as np

from evaluator.records import BenchmarkScore, round_half_up


def _mean(values: list[Any]) -> Any:
    """The mean of one metric over runs: numbers averaged (equal ones kept as they are,
    so item counts stay whole), dicts key by key, anything else kept when equal."""
    first = values[0]
    if all(v == first for v in values) and not isinstance(first, dict):
        return first
    if all(isinstance(v, dict) for v in values):
        keys = list(dict.fromkeys(k for v in values for k in v))
        return {k: _mean([v.get(k) for v in values]) for k in keys}
    numbers = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if len(numbers) != len(values):
        return None  # a metric some run could not compute (None) has no mean
    return round_half_up(sum(Fraction(repr(float(v))) for v in numbers) / len(numbers))


def _blocks_mean(overall_from, width: int, runs: int):
    def overall(sums: np.ndarray) -> np.ndarray:
        parts = [overall_from(sums[..., r * width:(r + 1) * width]) for r in range(runs)]
        return np.mean(np.stack(parts), axis=0)
    return overall


def combine(scores: list[BenchmarkScore]) -> BenchmarkScore:
    """One BenchmarkScore from the same benchmark scored on each run (module docstring)."""
    if len(scores) == 1:
        return scores[0]
    first = scores[0]
    shapes = {s.video_stats.shape for s in scores}
    if len(shapes) != 1:
        raise ValueError(f"runs of one benchmark have per-video statistics of different shapes: {sorted(shapes)}")
    width = first.video_stats.shape[1] if first.video_stats.ndim == 2 else 1
    counts: dict[str, Any] = {}
    for s in scores:
        for key, value in s.counts.items():
            counts[key] = counts.get(key, 0) + value if isinstance(value, (int, float)) else value
    overalls = [s.metrics.get("overall") for s in scores]
    details = dict(first.details) | {"runs": len(scores), "overall_per_run": overalls}
    return BenchmarkScore(metrics=_mean([s.metrics for s in scores]), counts=counts,
                          video_stats=np.concatenate([s.video_stats.reshape(len(s.video_stats), -1)
                                                      for s in scores], axis=1),
                          overall_from=_blocks_mean(first.overall_from, width, len(scores)), details=details)


def spread(score: BenchmarkScore) -> dict[str, Any] | None:
    """The runs' overalls and how far apart they are; None for a single run."""
    overalls = score.details.get("overall_per_run") if score.details else None
    if not overalls or len(overalls) < 2:
        return None
    known = [v for v in overalls if v is not None]
    out: dict[str, Any] = {"runs": len(overalls), "overall_per_run": overalls}
    if len(known) >= 2:
        out["sd"] = round_half_up(statistics.stdev(known))
        out["range"] = round_half_up(max(known) - min(known))
    return out


__all__ = ["combine", "spread"]
