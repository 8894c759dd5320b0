"""Several runs of one benchmark made into one score, where its protocol asks for repeats
(Video SimpleQA: three runs at temperature 1.0; evaluator/reference.py).

    combined = combine([score_run1, score_run2, score_run3])    # BenchmarkScore's
    spread(combined)                                            # {"runs": 3, "overall_per_run": [...], ...}

The paper repeats each experiment and does not say how it combines the repeats; we
take the mean of the runs' scores, metric by metric (breakdowns too), rounded half-up
to 2 decimals, and keep each run's overall so its spread can be shown. Counts among the
metrics (`n_...`, `..._n`: items per hop, answers with a confidence) are the first run's,
never averaged into fractions.
The interval resamples videos once for all runs: each video's statistics of every run
side by side (`video_stats` blocks), the headline the mean of each run's own headline.
`counts` are the first run's, with every run's under `per_run`.
"""

from __future__ import annotations

import statistics
from fractions import Fraction
from typing import Any

import numpy as np

from evaluator.records import BenchmarkScore, round_half_up


def _is_count(key: str | None) -> bool:
    return key is not None and (key.startswith("n_") or key.endswith("_n"))


def _mean(values: list[Any], key: str | None = None) -> Any:
    """One metric over runs: numbers averaged (equal ones kept as they are; counts: the
    first run's), dicts key by key, anything else kept when equal."""
    first = values[0]
    if (all(v == first for v in values) or _is_count(key)) and not isinstance(first, dict):
        return first
    if all(isinstance(v, dict) for v in values):
        keys = list(dict.fromkeys(k for v in values for k in v))
        counting = _is_count(key)  # {"2": 3, ...} under n_by_hop: counts too
        return {k: _mean([v.get(k) for v in values], key if counting else str(k)) for k in keys}
    numbers = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if len(numbers) != len(values):
        return None  # a metric some run could not compute (None) has no mean
    return round_half_up(sum(Fraction(repr(float(v))) for v in numbers) / len(numbers))


def mean_over_runs(headline, runs: int):
    """A headline of column sums (B, k) -> (B,) for `runs` runs whose columns stand side by
    side: the mean of `headline` over each run's block. The bootstrap interval and the
    paired statistics (evaluator/paired.py, reducer "runs:<k>:<name>") both use it."""
    def overall(sums: np.ndarray) -> np.ndarray:
        width = sums.shape[-1] // runs
        return np.mean(np.stack([headline(sums[..., r * width:(r + 1) * width]) for r in range(runs)]), axis=0)
    return overall


def combine(scores: list[BenchmarkScore]) -> BenchmarkScore:
    """One BenchmarkScore from the same benchmark scored on each run (module docstring)."""
    if len(scores) == 1:
        return scores[0]
    first = scores[0]
    shapes = {s.video_stats.shape for s in scores}
    if len(shapes) != 1:
        raise ValueError(f"runs of one benchmark have per-video statistics of different shapes: {sorted(shapes)}")
    counts = dict(first.counts) | {"per_run": [dict(s.counts) for s in scores]}
    overalls = [s.metrics.get("overall") for s in scores]
    details = dict(first.details) | {"runs": len(scores), "overall_per_run": overalls}
    metrics = {k: _mean([s.metrics.get(k) for s in scores], k) for k in first.metrics}
    return BenchmarkScore(metrics=metrics, counts=counts,
                          video_stats=np.concatenate([s.video_stats.reshape(len(s.video_stats), -1)
                                                      for s in scores], axis=1),
                          overall_from=mean_over_runs(first.overall_from, len(scores)), details=details)


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


__all__ = ["combine", "mean_over_runs", "spread"]
