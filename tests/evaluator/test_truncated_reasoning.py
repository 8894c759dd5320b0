"""A response that is only a reasoning trace cut off before its final answer has no
final answer: unparseable and counted apart (`no_final_answer`), unless the scoring
option grade_truncated_reasoning reads the trace."""

from evaluator.judges.normalized import NormalizedMatchJudge
from evaluator.predictions import as_responses
from evaluator.records import Prediction, ScoringOptions
from evaluator.scoring import score_responses


def _exact_responses(suite, text):
    return as_responses([Prediction(c.id, text) for c in suite.calls if c.benchmark == "exact"])


def test_cut_off_trace_is_unparseable_and_counted(synthetic):
    suite, key = synthetic
    n = sum(c.benchmark == "exact" for c in suite.calls)
    scores, counts = score_responses(suite, key, _exact_responses(suite, "<think>So the answer is 1. Let me"),
                                     NormalizedMatchJudge(), bootstrap_samples=10)
    assert scores["exact"]["overall"] == 0.0
    assert counts["exact"]["unparseable"] == n
    assert counts["exact"]["no_final_answer"] == n


def test_option_reads_the_trace(synthetic):
    suite, key = synthetic
    n = sum(c.benchmark == "exact" for c in suite.calls)
    judge = NormalizedMatchJudge()
    plain, _ = score_responses(suite, key, _exact_responses(suite, "1"), judge, bootstrap_samples=10)
    read, counts = score_responses(suite, key, _exact_responses(suite, "<think>So the answer is 1. Let me"),
                                   judge, ScoringOptions(grade_truncated_reasoning=True), bootstrap_samples=10)
    assert plain["exact"]["overall"] > 0
    assert read["exact"]["overall"] == plain["exact"]["overall"]
    assert counts["exact"]["unparseable"] == 0
    assert counts["exact"]["no_final_answer"] == n


def test_finished_responses_have_no_cut_off_count(synthetic):
    suite, key = synthetic
    _, counts = score_responses(suite, key, _exact_responses(suite, "<think>hmm</think>\nThe answer is 2."),
                                NormalizedMatchJudge(), bootstrap_samples=10)
    assert counts["exact"]["no_final_answer"] == 0
    assert counts["exact"]["unparseable"] == 0


def test_setting_reaches_scoring_options(monkeypatch):
    from space_config.settings import get_settings

    monkeypatch.setenv("LEADERBOARD_GRADE_TRUNCATED_REASONING", "1")
    get_settings.cache_clear()
    try:
        assert get_settings().grade_truncated_reasoning is True
    finally:
        monkeypatch.delenv("LEADERBOARD_GRADE_TRUNCATED_REASONING")
        get_settings.cache_clear()
    assert get_settings().grade_truncated_reasoning is False
