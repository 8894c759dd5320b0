"""Bootstrap intervals: the resample weights are drawn once per (videos, samples, seed)
and reused, with exactly the numbers of drawing them every time."""

from __future__ import annotations

import numpy as np
import pytest

from evaluator import benchmarks, bootstrap
from evaluator.baselines import predictions
from evaluator.judges.normalized import NormalizedMatchJudge
from evaluator.predictions import as_responses
from evaluator.records import ScoringContext, round_half_up


def drawn_every_time(video_stats, overall_from, samples=1000, seed=0, level=0.95):
    """The interval as it was computed before the weights were kept: drawn on each call."""
    n = len(video_stats)
    rng = np.random.default_rng(seed)
    weights = rng.multinomial(n, np.full(n, 1.0 / n), size=samples).astype(np.float64)
    values = np.asarray(overall_from(weights @ video_stats), dtype=np.float64)
    values = values[np.isfinite(values)]
    tail = (1.0 - level) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return [round_half_up(float(low)), round_half_up(float(high))]


@pytest.fixture(scope="module")
def scored(demo_suite):
    """Each benchmark's per-video statistics and headline function for the demo suite's random baseline."""
    suite, key = demo_suite
    responses = as_responses(predictions("random", suite.calls + key.hidden_calls, seed=3))
    ctx = ScoringContext(judge=NormalizedMatchJudge(), worker_run=True)
    return {name: benchmarks.get(name).score(suite.questions[name], key.answers[name], responses, ctx)
            for name in suite.manifest["benchmarks"]}


@pytest.mark.parametrize("seed", [0, 7])
def test_every_benchmark_interval_is_the_one_drawn_every_time(scored, seed):
    for name, result in scored.items():
        expected = drawn_every_time(result.video_stats, result.overall_from, seed=seed)
        for _ in range(2):  # drawn, then reused
            assert bootstrap.interval(result.video_stats, result.overall_from, seed=seed) == expected, name


def test_reused_weights_give_the_same_numbers_for_other_statistics():
    """Weights kept for one benchmark's statistics serve another with as many videos."""
    rng = np.random.default_rng(42)
    ratio = lambda sums: 100 * sums[:, 0] / sums[:, 1]  # noqa: E731
    for _ in range(3):
        total = rng.integers(1, 9, size=300).astype(np.float64)
        stats = np.column_stack([rng.random(300) * total, total])  # fractional credit too
        assert bootstrap.interval(stats, ratio, samples=500, seed=1) == drawn_every_time(stats, ratio, 500, 1)


def test_kept_weights_cannot_be_changed_by_a_caller():
    counts = bootstrap._resample_counts(50, 20, 0)
    with pytest.raises(ValueError):
        counts[0, 0] = 1
    assert counts.sum(axis=1).tolist() == [50] * 20  # each resample draws every video slot once


WATCH_NUMPY = """
import importlib.abc, os, sys
seen = []
class Watch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "numpy" and not seen:
            seen.append(os.environ.get("OPENBLAS_THREAD_TIMEOUT"))
sys.meta_path.insert(0, Watch())
import {entry}
import numpy
print(seen[0])
"""


@pytest.mark.parametrize("entry", ["app", "evaluator.worker", "worker.__main__", "evaluator.__main__", "cli.evaluator"])
def test_entry_points_set_openblas_wait_before_numpy_loads(entry):
    """OpenBLAS reads its idle threads' wait once, as numpy loads it: each way a scoring
    process starts sets it first (else its threads spin ~0.1 s of CPU after each interval)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
    out = subprocess.run([sys.executable, "-c", WATCH_NUMPY.format(entry=entry)], env=env, text=True,
                         capture_output=True, cwd=Path(__file__).resolve().parents[2], timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split()[-1] == "4", f"{entry} loads numpy before evaluator/__init__.py sets the wait"
