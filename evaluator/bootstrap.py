"""95% bootstrap intervals for each benchmark's headline, resampling videos.

Each benchmark reduces its items to one row of additive statistics per source
video (e.g. [correct, total]); a resample draws videos with replacement, which is
a multinomial weight per video, so all resamples are one matrix product.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable

import numpy as np

from evaluator.records import round_half_up

# Resample weight matrices kept: one per benchmark of two or three suites. The full-size
# suite's five take about 11 MB as counts.
WEIGHTS_KEPT = 16


@lru_cache(maxsize=WEIGHTS_KEPT)
def _resample_counts(videos: int, samples: int, seed: int) -> np.ndarray:
    """How often each video is drawn in each resample: (samples, videos), read-only.

    Drawing them is nearly all of an interval's cost (a binomial per video and
    resample) and they depend only on these three numbers, never on the predictions,
    so a worker scoring submission after submission on one suite draws them once.
    Kept as the smallest unsigned integer type that holds them: exact, and small."""
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(videos, np.full(videos, 1.0 / videos), size=samples)
    counts = counts.astype(np.min_scalar_type(videos))
    counts.flags.writeable = False
    return counts


def resampled_sums(counts: np.ndarray, stats: np.ndarray, draws: int) -> np.ndarray:
    """counts @ stats in float64: each resample's column sums (`draws`: the most a row of
    `counts` adds up to, the videos drawn per resample).

    Integer statistics (correct answers, items: all but ExpVid's Jaccard credit) are
    summed in integers by numpy's own loop. The numbers are those of the float64 product:
    every partial sum is an integer of at most draws x max|stat| < 2**53, exact in any
    order. What this saves is not the product but what follows it: a BLAS product large
    enough to be threaded leaves OpenBLAS's idle threads spinning for about 0.1 s after
    it, CPU time the scoring pays (a tenth to a sixth of it on two cores, bench/score_speed.py). Any other
    statistics go to BLAS in float64 as before: their sums depend on the order of adding (and
    their product's idle threads sleep at once: evaluator/__init__.py sets their wait)."""
    stats = np.asarray(stats)
    if stats.dtype.kind in "fiu" and stats.size:
        top = float(np.abs(stats).max()) * draws
        if top < 2**53 and np.array_equal(stats, np.trunc(stats)):  # finite, whole numbers
            exact = stats.astype(np.int32 if top < 2**31 else np.int64)
            return (counts @ exact).astype(np.float64)
    return counts.astype(np.float64) @ stats


def interval(video_stats: np.ndarray, overall_from: Callable[[np.ndarray], np.ndarray],
             samples: int = 1000, seed: int = 0, level: float = 0.95) -> list[float] | None:
    """[low, high] of the headline over `samples` video resamples; None with no videos."""
    n = len(video_stats)
    if n == 0 or samples <= 0:
        return None
    values = np.asarray(overall_from(resampled_sums(_resample_counts(n, samples, seed), video_stats, n)),
                        dtype=np.float64)
    values = values[np.isfinite(values)]
    if values.size == 0:
        return None
    tail = (1.0 - level) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return [round_half_up(float(low)), round_half_up(float(high))]


def paired_differences(stats_a: np.ndarray, from_a: Callable[[np.ndarray], np.ndarray],
                       stats_b: np.ndarray, from_b: Callable[[np.ndarray], np.ndarray],
                       samples: int = 1000, seed: int = 0, videos: int | None = None,
                       rows: np.ndarray | None = None) -> np.ndarray | None:
    """metric(A) - metric(B) in each of `samples` paired resamples: row i of both matrices
    is the same video, and each resample draws the same videos for both models, so what
    the two share (an easy or a hard video) cancels out.

    The draw is the one `interval` makes for `videos` videos and this seed (default: the
    matrices' rows). A bucket of a benchmark passes the benchmark's video count and, in
    `rows`, where its own videos are among them: its score in each resample comes from
    the very videos the benchmark's overall is drawn with. Resamples where either metric
    is undefined (a ratio over nothing drawn) are dropped; None when none is left."""
    if stats_a.shape[0] != stats_b.shape[0]:
        raise ValueError(f"paired resampling needs the same videos: {stats_a.shape[0]} rows against "
                         f"{stats_b.shape[0]}")
    n = len(stats_a)
    if n == 0 or samples <= 0:
        return None
    draws = n if videos is None else videos
    weights = _resample_counts(draws, samples, seed)
    weights = weights if rows is None else weights[:, rows]
    diff = (np.asarray(from_a(resampled_sums(weights, stats_a, draws)), dtype=np.float64)
            - np.asarray(from_b(resampled_sums(weights, stats_b, draws)), dtype=np.float64))
    diff = diff[np.isfinite(diff)]
    return diff if diff.size else None


def percentile_interval(differences: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """[low, high] (unrounded) of the resampled differences: their central `level` share."""
    tail = (1.0 - level) / 2 * 100
    low, high = np.percentile(differences, [tail, 100 - tail])
    return float(low), float(high)


def paired_difference(stats_a: np.ndarray, from_a: Callable[[np.ndarray], np.ndarray],
                      stats_b: np.ndarray, from_b: Callable[[np.ndarray], np.ndarray],
                      samples: int = 1000, seed: int = 0, level: float = 0.95,
                      videos: int | None = None, rows: np.ndarray | None = None) -> tuple[float, float] | None:
    """[low, high] (unrounded) of metric(A) - metric(B) over `samples` paired resamples
    (`paired_differences` says how they are drawn); None when no resample is left."""
    diff = paired_differences(stats_a, from_a, stats_b, from_b, samples, seed, videos, rows)
    return None if diff is None else percentile_interval(diff, level)


def two_sided_p(differences: np.ndarray) -> float:
    """The paired bootstrap's two-sided p-value of "A − B is 0": twice the smaller share
    of resamples on either side of 0, a resample at exactly 0 counting on both sides
    (two identical results get 1). One is added to each count and to the number of
    resamples, so p is never 0: R resamples cannot tell a p below 2 / (R + 1). p ≤ 0.05
    implies that the 95% percentile interval excludes 0."""
    diff = np.asarray(differences, dtype=np.float64)
    below, above = int((diff <= 0).sum()), int((diff >= 0).sum())
    return min(1.0, 2 * (min(below, above) + 1) / (diff.size + 1))
