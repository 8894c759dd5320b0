"""Remote LLM judges (evaluator/judges/remote.py) against a local OpenAI-compatible server
over real HTTP (tests/judge_server.py), driven by huggingface_hub's InferenceClient: verdicts,
malformed replies, 5xx retried, 429 with Retry-After, timeouts and refusals counted as
unscored, cache hits, token and cost accounting, the Inference Providers route, frames as
images, and one judge per judged benchmark through the scorer."""

from __future__ import annotations

import json
import time

import pandas as pd
import pytest
from judge_server import JudgeServer

from evaluator.judges import (
    CORRECT, INCORRECT, NOT_ATTEMPTED, UNPARSEABLE, UNSCORED,
    CachedJudge, JudgementCache, JudgeRequest, JudgeSet, NormalizedMatchJudge, get_judge,
)
from evaluator.predictions import as_responses
from evaluator.records import Prediction
from evaluator.scoring import make_result, score_responses

S, B = "simpleqa", "blank"


@pytest.fixture
def server(monkeypatch):
    # The suite runs with HF_HUB_OFFLINE=1 so nothing reaches the real Hub; these tests
    # reach only the local server, which offline mode would refuse as well.
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    with JudgeServer() as running:
        yield running


def openai_judge(server, **options):
    return get_judge("openai:grader-1", base_url=server.url + "/v1", api_key="sk-test", **options)


def test_verdicts_come_back_in_request_order_at_temperature_0(server):
    judge = openai_judge(server, concurrency=4)
    requests = [JudgeRequest(S, "Which river?", "Danube", "The Danube"), JudgeRequest(S, "Which river?", "Danube", "Rhine"),
                JudgeRequest(B, "Washed in ____.", "PBS", "PBS buffer"), JudgeRequest(B, "Washed in ____.", "PBS", "water"),
                JudgeRequest(S, "Which river?", "Danube", "Possibly the Danube")]
    assert [j.label for j in judge.judge(requests)] == [CORRECT, INCORRECT, CORRECT, INCORRECT, INCORRECT]
    assert {r["auth"] for r in server.requests} == {"Bearer sk-test"}
    assert {r["model"] for r in server.requests} == {"grader-1"} and {r["temperature"] for r in server.requests} == {0.0}
    assert {r["path"] for r in server.requests} == {"/v1/chat/completions"}
    assert judge.judge_id == "openai:grader-1" and judge.usage["models_answering"] == ["grader-1-2026-01-01"]


def test_malformed_replies_are_unparseable_and_kept(server):
    judge = openai_judge(server)
    [garbage, empty] = judge.judge([JudgeRequest(S, "q", "Paris", "Paris [[garbage]]"),
                                    JudgeRequest(S, "q", "Paris", "Paris [[empty]]")])
    assert (garbage.label, empty.label) == (UNPARSEABLE, UNPARSEABLE)
    assert garbage.raw == "I would rather discuss something else." and empty.raw == ""


def test_server_errors_are_retried_with_backoff_then_judged(server):
    waits = []
    judge = openai_judge(server, sleep=waits.append)
    [judgement] = judge.judge([JudgeRequest(S, "q", "Paris", "Paris [[500x2]]")])
    assert judgement.label == CORRECT
    assert [r["attempt"] for r in server.requests] == [1, 2, 3] and waits == [1.0, 2.0]
    assert judge.usage["retries"] == 2 and judge.usage["failures"] == 0 and judge.usage["requests"] == 3


def test_a_429_waits_as_long_as_its_retry_after_says(server):
    judge = openai_judge(server)  # the real sleep: the second try must come a second later
    [judgement] = judge.judge([JudgeRequest(S, "q", "Paris", "Paris [[429:1x1]]")])
    first, second = server.requests
    assert judgement.label == CORRECT and second["at"] - first["at"] >= 0.95


def test_timeouts_and_refusals_give_no_verdict_counted_as_unscored(server):
    judge = openai_judge(server, timeout=0.5, retries=1, sleep=lambda s: None)
    slow, refused = judge.judge([JudgeRequest(S, "q", "Paris", "Paris [[slow:2]]"),
                                 JudgeRequest(S, "q", "Rome", "Rome [[401]]")])
    assert (slow.label, refused.label) == (UNSCORED, UNSCORED)
    assert slow.raw.startswith("no verdict: ") and refused.raw == "no verdict: HTTP 401"
    assert judge.usage["failures"] == 2
    assert sum(1 for r in server.requests if "Rome" in json.dumps(r) or r["attempt"] == 1) >= 1
    assert sum(1 for r in server.requests) == 3  # the timeout tried twice, the 401 once: asking again would not help


def test_the_cache_answers_a_request_judged_before(server, tmp_path):
    cache = JudgementCache(tmp_path / "judge.sqlite")
    requests = [JudgeRequest(S, "q", "Paris", "Paris"), JudgeRequest(S, "q", "Paris", "Lyon")]
    first = CachedJudge(openai_judge(server), cache).judge(requests)
    again = CachedJudge(openai_judge(server), cache)  # a new worker, the same file
    assert again.judge(requests) == first and len(server.requests) == 2
    assert again.stats == {"cached": 2, "judged": 0}


def test_tokens_and_cost_are_counted(server):
    judge = openai_judge(server, price_in=2.0, price_out=10.0)
    judge.judge([JudgeRequest(S, "q", "Paris", "Paris"), JudgeRequest(S, "q", "Paris", "Lyon")])
    assert (judge.usage["prompt_tokens"], judge.usage["completion_tokens"]) == (200, 2)
    assert judge.cost_usd() == pytest.approx((200 * 2.0 + 2 * 10.0) / 1e6)


def test_inference_providers_go_through_the_hugging_face_router(server, monkeypatch):
    from huggingface_hub import constants
    from huggingface_hub.hf_api import InferenceProviderMapping
    from huggingface_hub.inference._providers import _common

    # the router, standing in: where huggingface_hub sends an HF token's provider calls
    monkeypatch.setattr(constants, "INFERENCE_PROXY_TEMPLATE", server.url + "/{provider}")
    monkeypatch.setitem(_common.HARDCODED_MODEL_INFERENCE_MAPPING, "together", {
        "Qwen/Qwen2.5-72B-Instruct": InferenceProviderMapping(
            provider="together", hf_model_id="Qwen/Qwen2.5-72B-Instruct", providerId="Qwen/Qwen2.5-72B-Instruct-Turbo",
            status="live", task="conversational")})
    judge = get_judge("hf:Qwen/Qwen2.5-72B-Instruct:together", api_key="hf_test")
    assert [j.label for j in judge.judge([JudgeRequest(S, "q", "Paris", "Paris")])] == [CORRECT]
    [sent] = server.requests
    assert (sent["path"], sent["auth"], sent["model"]) == ("/together/v1/chat/completions", "Bearer hf_test",
                                                           "Qwen/Qwen2.5-72B-Instruct-Turbo")
    assert judge.judge_id == "hf:Qwen/Qwen2.5-72B-Instruct:together"


def test_frames_reach_a_judge_that_sees_them(server, demo_suite):
    from evaluator.judge_frames import frames_for

    suite, _ = demo_suite
    video = next(v for v in suite.videos.values() if v.file)
    shown = frames_for(suite, 4)(video.id)
    assert len(shown) == 4 and all(url.startswith("data:image/jpeg;base64,") for url in shown)
    openai_judge(server).judge([JudgeRequest(S, "q", "Paris", "Paris", shown), JudgeRequest(S, "q", "Paris", "Lyon")])
    assert sorted(r["images"] for r in server.requests) == [0, 4]


def test_each_judged_benchmark_has_its_own_judge_through_the_scorer(server, demo_suite):
    """Video SimpleQA graded by the remote judge (with frames), ExpVid by the matcher; a
    file of hedged answers is INCORRECT both ways; the result names both judges."""
    from evaluator.judge_frames import frames_for

    suite, key = demo_suite
    gold = {a.id: a.answer for a in key.answers["videosimpleqa"]}
    hedged = [Prediction(f"videosimpleqa/{q.id}", json.dumps({"answer": f"Possibly {gold[q.id]}"}))
              for q in suite.questions["videosimpleqa"] if q.question]
    remote, matcher = openai_judge(server), NormalizedMatchJudge()
    judges = JudgeSet({"videosimpleqa": remote, "expvid": matcher}, default=matcher)
    for judge, frames in ((judges, frames_for(suite, 2)), (matcher, None)):
        scores, counts = score_responses(suite, key, as_responses(hedged), judge, bootstrap_samples=10,
                                         judge_frames=frames)
        assert scores["videosimpleqa"]["correct"] == 0.0 and scores["videosimpleqa"]["incorrect"] == 100.0
    assert server.requests and all(r["images"] == 2 for r in server.requests)
    result = make_result(suite, scores, counts, judges, None, {"id": "h", "model": "Hedger"},
                         judge_usage=judges.usage())
    assert result.judge["by_benchmark"] == {"expvid": {"id": "normalized-match@5", "kind": "normalized-match"},
                                            "videosimpleqa": {"id": "openai:grader-1", "kind": "llm"}}
    assert result.judge["kind"] == "mixed" and result.judge_usage["videosimpleqa"]["requests"] == len(hedged)

    # the row's cost columns: the judge's tokens (100 + 1 per request from the server), no price given
    from leaderboard.views import run_columns
    from results.aggregate import result_row

    row = result_row(result)
    assert row["cost.judge_tokens"] == 101 * len(hedged) and row["cost.judge_usd"] is None
    frame = pd.DataFrame([row])
    shown = {name: source() for name, source in run_columns.sources(frame).items()}
    assert shown[run_columns.JUDGE_TOKENS].iloc[0] == 101 * len(hedged)


def test_a_missing_endpoint_is_named():
    with pytest.raises(ValueError, match="LEADERBOARD_JUDGE_BASE_URL"):
        get_judge("openai:gpt-4o")
    assert NOT_ATTEMPTED  # (imported for the reader: the three grades and the two ways to have none)


def test_a_judge_that_refuses_every_request_leaves_the_answers_unscored_and_says_so(server, demo_suite):
    """A failing judge gives no verdict: each answer is counted apart (judge_unscored),
    scored as not correct, and the row's protocol card says how many."""
    from results.aggregate import result_row
    from results.protocol_status import card_markdown

    suite, key = demo_suite
    gold = {a.id: a.answer for a in key.answers["videosimpleqa"]}
    refused = [Prediction(f"videosimpleqa/{q.id}", json.dumps({"answer": f"{gold[q.id]} [[401]]"}))
               for q in suite.questions["videosimpleqa"] if q.question]
    judges = JudgeSet({"videosimpleqa": openai_judge(server), "expvid": NormalizedMatchJudge()},
                      default=NormalizedMatchJudge())
    scores, counts = score_responses(suite, key, as_responses(refused), judges, bootstrap_samples=10)
    assert counts["videosimpleqa"]["judge_unscored"] == len(refused) and scores["videosimpleqa"]["correct"] == 0.0
    result = make_result(suite, scores, counts, judges, None, {"id": "r", "model": "Refused"},
                         judge_usage=judges.usage())
    assert result.judge_usage["videosimpleqa"]["failures"] == len(refused)
    card = card_markdown(result_row(result))
    assert f"no verdict on {len(refused)} videosimpleqa answers (scored as not correct" in card
