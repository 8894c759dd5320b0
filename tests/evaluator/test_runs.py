"""Repeated runs made one score (evaluator/runs.py): Video SimpleQA's three runs, scored on
the demo suite by the real scorer, give the mean of the runs' scores metric by metric, one
interval over videos for all runs, their spread, and paired statistics that compare with a
one-run row on the same metric."""

from __future__ import annotations

import numpy as np
import pytest

from evaluator import paired, runs
from evaluator.benchmarks import videosimpleqa as vsqa
from evaluator.judges import get_judge
from evaluator.predictions import as_responses
from evaluator.records import Prediction
from evaluator.scoring import score_responses


def answers_of(suite, key, right: set[int], run: int | None) -> list[Prediction]:
    """Video SimpleQA answers: the gold for the items at `right` positions, an abstention elsewhere."""
    gold = {a.id: a.answer for a in key.answers[vsqa.NAME]}
    out = []
    for i, q in enumerate(suite.questions[vsqa.NAME]):
        if not q.question:
            continue
        text = f'{{"answer": "{gold[q.id]}", "confidence_score": 90}}' if i in right else \
            '{"answer": "I don\'t know", "confidence_score": 0}'
        out.append(Prediction(vsqa.call_id(q.id), text, run=run))
    return out


@pytest.fixture(scope="module")
def three_runs(demo_suite):
    suite, key = demo_suite
    n = len(suite.questions[vsqa.NAME])
    picks = [set(range(0, n, 2)), set(range(0, n, 3)), set(range(1, n, 4))]
    made = [p for run, right in enumerate(picks, 1) for p in answers_of(suite, key, right, run if run > 1 else None)]
    return suite, key, picks, made


def scored(suite, key, predictions, collected=None):
    return score_responses(suite, key, as_responses(predictions), get_judge("normalized-match"),
                           bootstrap_samples=200, paired=collected)


def test_three_runs_score_as_the_mean_of_each_runs_scores(three_runs):
    suite, key, picks, made = three_runs
    alone = [scored(suite, key, answers_of(suite, key, right, None))[0][vsqa.NAME] for right in picks]
    scores, counts = scored(suite, key, made)
    mine = scores[vsqa.NAME]
    for metric in ("overall", "correct", "not_attempted", "cga"):
        expected = round(sum(a[metric] for a in alone) / 3 + 1e-12, 2)
        assert mine[metric] == pytest.approx(expected, abs=0.006), metric
    assert len({a["overall"] for a in alone}) == 3  # the runs differ: a mean of equal runs would prove nothing
    low, high = mine["overall_ci95"]
    assert low <= mine["overall"] <= high
    done = counts[vsqa.NAME]
    assert done["runs"] == 3 and done["overall_per_run"] == [a["overall"] for a in alone]
    assert done["sd"] == pytest.approx(float(np.std([a["overall"] for a in alone], ddof=1)), abs=0.006)
    per_run = sum(1 for p in made if p.id.startswith("videosimpleqa/")) // 3
    assert done["answered"] == per_run and done["answered_per_run"] == [per_run] * 3  # the first run's, then each
    assert len(done["per_run"]) == 3 and done["items"] == done["per_run"][0]["items"]  # not tripled
    # a count among the metrics is the first run's (a mean of counts could be fractional)
    assert mine["calibration_n"] == alone[0]["calibration_n"] and isinstance(mine["calibration_n"], int)


def test_a_single_run_has_no_spread_and_scores_as_before(three_runs):
    suite, key, picks, _ = three_runs
    scores, counts = scored(suite, key, answers_of(suite, key, picks[0], None))
    assert "runs" not in counts[vsqa.NAME] and scores[vsqa.NAME]["overall"] is not None


def test_paired_statistics_of_three_runs_reduce_to_the_mean_and_compare_with_one_run(three_runs):
    from leaderboard.compare import DIFF, NOTE, SCORE_A, SCORE_B, compare_bucket

    suite, key, picks, made = three_runs
    merged, single = {}, {}
    scores, _ = scored(suite, key, made, merged)
    scored(suite, key, answers_of(suite, key, picks[0], None), single)
    three = paired.PairedStats(submission_id="a", suite_id=suite.id, judge_id="j", samples=200,
                               benchmarks=merged).bucket(vsqa.NAME, ["overall"])
    one = paired.PairedStats(submission_id="b", suite_id=suite.id, judge_id="j", samples=200,
                             benchmarks=single).bucket(vsqa.NAME, ["overall"])
    assert three.reducer == "runs:3:f_score" and three.matrix().shape[1] == 3 * one.matrix().shape[1]
    value = float(paired.reducer(three.reducer)(three.matrix().sum(0)[None])[0])
    assert value == pytest.approx(scores[vsqa.NAME]["overall"], abs=0.006)
    compared = compare_bucket(three, one, samples=200, seed=0)  # same metric, one run or the mean of three
    assert NOTE not in compared and "low" in compared
    assert compared[SCORE_A] == pytest.approx(scores[vsqa.NAME]["overall"], abs=0.006)
    assert compared[DIFF] == pytest.approx(compared[SCORE_A] - compared[SCORE_B], abs=0.011)


def test_runs_of_different_shapes_are_refused():
    from evaluator.records import BenchmarkScore

    one = BenchmarkScore({"overall": 1.0}, {}, np.zeros((2, 3)), lambda s: s[:, 0])
    other = BenchmarkScore({"overall": 2.0}, {}, np.zeros((3, 3)), lambda s: s[:, 0])
    with pytest.raises(ValueError, match="different shapes"):
        runs.combine([one, other])
