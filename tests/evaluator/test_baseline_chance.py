"""The `random` baseline scores at chance, within its bootstrap interval, on a
large synthetic suite (half the papers' sizes, about 7,800 items).

Chance is the expected score of uniform random answering: analytic where it is a
closed form (ExAct: 1/5), and otherwise the mean over other seeds of the same
random policy, which estimates the expectation far more tightly than one run's
interval is wide.

Six checks each against a 95% interval would fail about one time in four on a
fair policy, by chance alone (the secret behind a suite's option orders decides
which items the random draws hit). So each check uses the interval widened to a
family-wise 95% (Bonferroni over the six: z = 2.64 instead of 1.96).
"""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
import pytest

from evaluator.baselines import predictions
from evaluator.judges.normalized import NormalizedMatchJudge
from evaluator.predictions import as_responses
from evaluator.scoring import score_responses

BENCHMARKS = ["expvid", "causalstep", "exact", "videommmu", "videosimpleqa"]
CHECKS = len(BENCHMARKS) + 1
Z_FAMILY = float(NormalDist().inv_cdf(1 - 0.05 / CHECKS / 2))


def widened(ci95):
    """The 95% interval stretched about its middle to the family-wise level."""
    low, high = ci95
    middle, half = (low + high) / 2, (high - low) / 2 * Z_FAMILY / 1.96
    return middle - half, middle + half


@pytest.fixture(scope="module")
def runs(synthetic):
    suite, key = synthetic
    judge = NormalizedMatchJudge()

    def run(seed, samples):
        responses = as_responses(predictions("random", suite.calls, seed=seed))
        return score_responses(suite, key, responses, judge, bootstrap_samples=samples)[0]

    return run(0, 1000), [run(seed, 0) for seed in range(1, 9)]


@pytest.mark.parametrize("bench", BENCHMARKS)
def test_random_within_interval_of_chance(runs, bench):
    first, others = runs
    low, high = widened(first[bench]["overall_ci95"])
    chance = float(np.mean([o[bench]["overall"] for o in others]))
    assert low <= chance <= high, (bench, chance, low, high)
    assert high - low < 15, "the interval on a large suite should be narrow"


def test_exact_random_is_one_in_five(runs):
    first, others = runs
    low, high = widened(first["exact"]["overall_ci95"])
    assert low <= 20.0 <= high
    assert abs(np.mean([o["exact"]["overall"] for o in others]) - 20.0) < 1.0
