"""The model runner on the demo suite (real video files, real PyAV decoding): the call
schedule (runners/schedule.py; CausalStep's stepwise chain against the branch table and the
replay scorer), request order, frames, decode counts, progress, and real forward passes of
two tiny VLM families (tests/tiny_vlms.py) through the transformers backend."""

from __future__ import annotations

from types import SimpleNamespace

import dataclasses
import hashlib
import importlib.util
import re
import sys
import threading
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pytest
from tiny_vlms import build_tiny_gemma3, build_tiny_qwen25vl

from evaluator import frame_plans
from evaluator.answers import extract_choice
from evaluator.benchmarks import causalstep, videommmu, videosimpleqa
from evaluator.judges.normalized import NormalizedMatchJudge
from evaluator.predictions import as_responses, parse_predictions, write_predictions
from evaluator.prompts import frame_times_text
from evaluator.records import Call, ScoringContext, ScoringOptions
from evaluator.runners import schedule
from evaluator.runners.model import ModelRunner, RunnerSettings, calls_asked
from evaluator.scoring import score_responses
from evaluator.video import decode_sequential
from submissions.requests import Request

TAG = re.compile(r"\n\[call (\S+)\]$")


# -- a deterministic model that often knows the answer ---------------------------------

def gold_labels(key) -> dict[str, str]:
    """CausalStep call id -> gold label (every kind of call of a segment)."""
    gold = {}
    for a in key.answers[causalstep.NAME]:
        for i, label in enumerate(a.desc, 1):
            gold[causalstep.call_id(a.id, i, causalstep.DESC)] = label
        for i, label in enumerate(a.causal, 1):
            if label is not None:
                for kind in (causalstep.ISOLATED, causalstep.AFTER_DESC, causalstep.AFTER_CAUSAL):
                    gold[causalstep.call_id(a.id, i, kind)] = label
    return gold


def answerer(seed: int, gold: dict[str, str], right: float = 0.6, unreadable: float = 0.1):
    """answer(call, prompt): a pure function of (seed, call, prompt). Right with
    probability `right`, an unreadable reply with probability `unreadable` (the chain
    breaks there), else a seeded option; other formats get a fixed short reply."""

    def answer(call: Call, prompt: str) -> str:
        h = int(hashlib.sha256(f"{seed}\0{call.id}\0{prompt}".encode()).hexdigest()[:12], 16) / 16 ** 12
        if call.answer_format != "choice" or not call.labels:
            return '{"answer": "water", "confidence_score": 50}' if call.answer_format == "short" else "1"
        if h < unreadable:
            return "no idea"
        if call.id in gold and h < unreadable + right:
            return f"The answer is {gold[call.id]}"
        return f"({call.labels[int(h * 1e6) % len(call.labels)]})"

    return answer


def asker(answer):
    """An Ask over queries that records every batch it was given."""
    batches: list[list[schedule.Query]] = []

    def ask(queries):
        batches.append(list(queries))
        return [answer(q.call, q.prompt) for q in queries]

    ask.batches = batches
    return ask


def as_set(predictions):
    return sorted((p.id, p.context or "", p.response) for p in predictions)


def scoring_context():
    return ScoringContext(judge=NormalizedMatchJudge(), options=ScoringOptions(), worker_run=True)


# -- CausalStep: the stepwise executor ---------------------------------------------------

@pytest.mark.parametrize("seed, right, unreadable", [(0, 0.6, 0.1), (1, 0.9, 0.0), (2, 0.3, 0.3), (3, 0.0, 1.0)])
@pytest.mark.parametrize("batch_calls", [1, 7, 10_000])
def test_stepwise_chain_matches_the_branch_table_and_the_replay_scorer(demo_suite, seed, right, unreadable,
                                                                        batch_calls):
    suite, key = demo_suite
    calls = [c for c in suite.calls if c.benchmark == causalstep.NAME]
    answer = answerer(seed, gold_labels(key), right, unreadable)

    ours = schedule.run_stepwise(calls, asker(answer), batch_calls)
    reference = causalstep.branch_table(calls, answer)

    assert as_set(ours) == as_set(reference)
    questions, answers = suite.questions[causalstep.NAME], key.answers[causalstep.NAME]
    mine = causalstep.score(questions, answers, as_responses(ours), scoring_context())
    theirs = causalstep.score(questions, answers, as_responses(reference), scoring_context())
    assert mine.metrics == theirs.metrics and mine.details == theirs.details
    if unreadable == 1.0:  # nothing readable: no call in context is ever made
        assert all(p.context is None for p in ours) and mine.metrics["overall"] == 0
    if right == 0.9:  # long chains: in-context calls down to the last segment were made
        assert max(int(p.id.split("/s")[1].split("/")[0]) for p in ours if p.context) == \
            max(len(q.segments) for q in questions)


def test_stepwise_issues_each_call_only_after_its_previous_answer(demo_suite):
    suite, key = demo_suite
    calls = [c for c in suite.calls if c.benchmark == causalstep.NAME]
    ask = asker(answerer(5, gold_labels(key), right=0.8, unreadable=0.05))
    predictions = schedule.run_stepwise(calls, ask, batch_calls=10_000)

    asked_in: dict[str, int] = {}  # call id -> the batch it was asked in
    replies: dict[str, list[str]] = defaultdict(list)
    for n, batch in enumerate(ask.batches):
        for query in batch:
            assert asked_in.setdefault(query.call.id, n) == n  # all variants of a call in one batch
    for p in predictions:
        replies[p.id].append(p.response)
    for n, batch in enumerate(ask.batches):
        for query in batch:
            if query.call.context is None:
                assert n == 0  # nothing to wait for
                continue
            deps = [d for d in query.call.context.after if d in asked_in]
            assert deps and all(asked_in[d] < n for d in deps)
            # the context is one of the model's OWN previous answers, its option text in the prompt
            own = {extract_choice(r, ours.labels, ours.options)
                   for d in deps for ours in [next(c for c in calls if c.id == d)] for r in replies[d]}
            assert query.context in own
            assert query.call.context.choices[query.context] in query.prompt
            assert query.call.context.placeholder not in query.prompt
    # a wavefront: step k of every video in one batch, so as many batches as the longest video's steps
    assert len(ask.batches) == max(len(q.segments) for q in suite.questions[causalstep.NAME])


def test_stepwise_within_a_batch_is_ordered_by_video(demo_suite):
    suite, key = demo_suite
    calls = [c for c in suite.calls if c.benchmark == causalstep.NAME]
    ask = asker(answerer(6, gold_labels(key), right=1.0, unreadable=0.0))
    schedule.run_stepwise(calls, ask, batch_calls=10_000)
    for batch in ask.batches:
        assert_grouped_by_video([q.call for q in batch])


# -- planning, chunks, frame re-planning -------------------------------------------------------

def test_passes_follow_the_suite_order_with_their_protocol_stages(demo_suite):
    suite, key = demo_suite
    passes = schedule.plan_passes(suite.calls, key.hidden_calls, list(suite.manifest["benchmarks"]))
    assert [(p.stage, p.mode) for p in passes] == [
        ("expvid", "independent"), ("causalstep", "stepwise"), ("exact", "independent"),
        ("videommmu", "independent"), ("videommmu question-only", "independent"),
        ("videosimpleqa with sub-questions", "independent")]
    assert sorted(c.id for p in passes for c in p.calls) == sorted(c.id for c in [*suite.calls, *key.hidden_calls])
    question_only = next(p for p in passes if p.stage == "videommmu question-only")
    assert question_only.calls and all(c.kind == "question-only" for c in question_only.calls)
    assert len(question_only.calls) == sum(1 for q in suite.questions[videommmu.NAME] if q.question_only_video)
    simpleqa = passes[-1].calls
    assert {c.id for c in key.hidden_calls} <= {c.id for c in simpleqa}


def test_chunks_bound_calls_and_frames_and_keep_a_calls_variants_together(demo_suite):
    suite, _ = demo_suite
    calls = suite.calls[:40]
    groups = [[schedule.Query(c, c.prompt)] * (1 + k % 3) for k, c in enumerate(calls)]
    frames_of = {c.id: sum(len(p.times) for p in c.frames) for c in calls}
    batches = list(schedule.chunks(groups, batch_calls=5, batch_frames=64))
    assert [g for b in batches for g in b] == groups  # order kept, nothing lost
    for batch in batches:
        assert len(batch) <= 5
        assert len(batch) == 1 or sum(frames_of[g[0].call.id] for g in batch) <= 64
    with pytest.raises(ValueError, match="batch_calls"):
        list(schedule.chunks(groups, batch_calls=0))


def test_frames_override_replans_every_call_and_its_prompt(demo_suite):
    suite, key = demo_suite
    public, hidden = calls_asked(suite, SimpleNamespace(frames=4, frame_budgets={}), key.hidden_calls)
    before = {c.id: c for c in [*suite.calls, *key.hidden_calls]}
    assert len(public) == len(suite.calls) and len(hidden) == len(key.hidden_calls)
    for call in [*public, *hidden]:
        old = before[call.id]
        assert [(p.video, p.start, p.end, p.label) for p in call.frames] == \
            [(p.video, p.start, p.end, p.label) for p in old.frames]
        if call.kind == "question-only":  # the problem's picture alone, by protocol
            assert call == old
            continue
        for new_plan, old_plan in zip(call.frames, old.frames):
            every = frame_plans.plan(suite.videos[old_plan.video], 10**6, old_plan.start, old_plan.end).times
            assert new_plan.times == [every[i] for i in np.linspace(0, len(every) - 1, 4, dtype=int)]
            if old.benchmark != "expvid":  # ExpVid's prompts name no frames
                assert re.search(r"\b4 frames", call.prompt) and frame_times_text(new_plan.times) in call.prompt
                assert frame_times_text(old_plan.times) not in call.prompt
        # only the lines about the frames changed
        assert [line for line in call.prompt.splitlines() if "frames" not in line] == \
            [line for line in old.prompt.splitlines() if "frames" not in line]
    assert all(c.prompt == before[c.id].prompt for c in public if c.benchmark == "expvid")


def test_replan_gives_two_segments_with_equal_old_counts_their_own_new_counts(demo_suite):
    """A call in context names two segments' frames, both "8 frames" before: each segment's
    text gets its own new count and times, in order."""
    suite, _ = demo_suite
    call = next(c for c in suite.calls if c.kind == causalstep.AFTER_CAUSAL)
    previous, current = call.frames
    assert len(previous.times) == len(current.times)

    def plan(meta, count, start, end, label):  # a planner giving the two segments different counts
        old = previous if label == causalstep.PREVIOUS else current
        return dataclasses.replace(old, times=old.times[:2] if label == causalstep.PREVIOUS else old.times[:3])

    new = schedule.replan(call, 3, suite.videos, plan)
    first = new.prompt.index(f"2 frames (at {frame_times_text(previous.times[:2])})")
    second = new.prompt.index(f"3 frames (at {frame_times_text(current.times[:3])})")
    assert first < second and [len(p.times) for p in new.frames] == [2, 3]


# -- the runner with a fake backend on real videos ------------------------------------------

class FakeBackend:
    """A deterministic model that records every request; the call each request answers is
    read from a tag the test appended to every prompt."""

    name = "fake"
    settings = {"model": "fake-model", "revision": "abc", "max_new_tokens": 5, "greedy": True}

    def __init__(self, calls: list[Call], answer):
        self.calls = {c.id: c for c in calls}
        self.answer = answer
        self.batches: list[list] = []

    def generate(self, requests):
        self.batches.append(list(requests))
        return [self.answer(self.call_of(r), r.prompt) for r in requests]

    def call_of(self, request) -> Call:
        return self.calls[TAG.search(request.prompt).group(1)]

    def requests(self):
        return [(self.call_of(r), r) for batch in self.batches for r in batch]


def tagged(suite, key):
    """The suite and hidden calls with each prompt ending in its call id (prompts of
    different calls can be equal: ExpVid asks the same question about several clips)."""

    def tag(call: Call) -> Call:
        return dataclasses.replace(call, prompt=f"{call.prompt}\n[call {call.id}]")

    return dataclasses.replace(suite, calls=[tag(c) for c in suite.calls]), [tag(c) for c in key.hidden_calls]


def request_for(suite, **fields) -> Request:
    return Request(kind="model", submitter="tester", suite_id=suite.id, model="fake-model", **fields)


@pytest.fixture(scope="module")
def fake_run(demo_suite):
    """One full run of the fake model over the demo suite (frames decoded for real)."""
    suite, key = demo_suite
    suite, hidden = tagged(suite, key)
    answer = answerer(11, gold_labels(key), right=0.7, unreadable=0.1)
    backend = FakeBackend([*suite.calls, *hidden], answer)
    runner = ModelRunner(backend, RunnerSettings(batch_calls=16))
    progress = []
    predictions = runner.run(request_for(suite), suite, hidden, lambda *a: progress.append(a))
    return suite, hidden, key, answer, backend, runner, predictions, progress


def assert_grouped_by_video(calls):
    """Each video's calls form one contiguous run."""
    videos = [c.frames[0].video for c in calls]
    runs = [v for k, v in enumerate(videos) if k == 0 or videos[k - 1] != v]
    assert len(runs) == len(set(runs)), f"a video comes back after another: {runs}"


def test_requests_are_ordered_by_benchmark_then_video(fake_run):
    suite, hidden, _, _, backend, _, _, _ = fake_run
    made = [call for call, _ in backend.requests()]
    stages = [("videommmu question-only" if c.kind == "question-only" else c.benchmark) for c in made]
    order = [s for k, s in enumerate(stages) if k == 0 or stages[k - 1] != s]
    assert order == ["expvid", "causalstep", "exact", "videommmu", "videommmu question-only", "videosimpleqa"]
    for stage in ("expvid", "exact", "videommmu", "videommmu question-only", "videosimpleqa"):
        assert_grouped_by_video([c for c, s in zip(made, stages) if s == stage])
    # a video's sub-questions come right beside its multi-hop question (one prefix)
    simpleqa = [c for c in made if c.benchmark == videosimpleqa.NAME]
    assert any(c.kind.startswith("hop") for c in simpleqa) and any(c.kind == "multi-hop" for c in simpleqa)
    for batch in backend.batches:
        calls = [backend.call_of(r) for r in batch]
        assert len({c.id for c in calls}) <= 16  # batch_calls
        if calls[0].benchmark == causalstep.NAME:
            assert_grouped_by_video(calls)


def test_every_call_is_answered_once_and_in_context_calls_once_per_own_label(fake_run, tmp_path):
    suite, hidden, _, answer, _, _, predictions, _ = fake_run
    keys = Counter((p.id, p.context, p.run) for p in predictions)
    assert max(keys.values()) == 1
    plain = [c for c in [*suite.calls, *hidden] if c.context is None]
    assert {p.id for p in predictions if p.context is None and p.run is None} == {c.id for c in plain}
    # Video SimpleQA's protocol asks for three runs: runs 2 and 3 answer its calls again, nothing else
    repeated = {c.id for c in plain if c.benchmark == videosimpleqa.NAME}
    for run in (2, 3):
        assert {p.id for p in predictions if p.run == run} == repeated
    stepwise = [c for c in suite.calls if c.benchmark == causalstep.NAME]
    expected = causalstep.branch_table(stepwise, answer)  # the protocol's own definition
    assert as_set(p for p in predictions if p.id.startswith("causalstep/")) == as_set(expected)
    assert any(p.context for p in predictions)  # some chains went on
    # they are the records of a prediction file: valid against the call list (+ hidden calls)
    path = tmp_path / "predictions.jsonl"
    write_predictions(path, predictions)
    calls = {c.id: c for c in [*suite.calls, *hidden]}
    parsed = parse_predictions(path.read_bytes(), calls)
    assert len(parsed.by_id) + len(parsed.by_context) + sum(len(r.by_id) for r in parsed.runs.values()) \
        == len(predictions)


def test_sub_questions_are_asked_alone_with_the_main_questions_frames(fake_run):
    _, hidden, _, _, backend, _, _, _ = fake_run
    made = {call.id: request for call, request in backend.requests()}
    assert hidden
    for call in hidden:
        request = made[call.id]
        main = made.get(videosimpleqa.call_id(call.item))
        assert request.prompt == call.prompt  # never conditioned on an earlier answer
        if main is not None:
            assert request.frame_times == main.frame_times
            assert all(np.array_equal(a, b) for a, b in zip(request.frames, main.frames))
            assert len(request.frames) == len(main.frames) > 1


def test_question_only_calls_show_the_still_picture_alone(fake_run):
    suite, _, _, _, backend, _, _, _ = fake_run
    asked = [(c, r) for c, r in backend.requests() if c.kind == "question-only"]
    assert len(asked) == sum(1 for c in suite.calls if c.kind == "question-only") > 0
    for call, request in asked:
        plan = call.frames[0]
        assert plan.video.endswith("-question-only")
        assert len(request.frames) == 1 and not request.as_video
        expected = decode_sequential(suite.path / suite.videos[plan.video].file, plan.times)
        assert np.array_equal(request.frames[0], expected[0])


def test_frames_reach_the_backend_as_decoded_with_their_times(fake_run):
    suite, _, _, _, backend, _, _, _ = fake_run
    checked = 0
    for call, request in backend.requests():
        assert request.frame_times == [t for p in call.frames for t in p.times]
        assert request.as_video == (len(request.frames) > 1)
        if call.benchmark == "expvid":
            assert all(f.shape == (224, 224, 3) for f in request.frames)  # the paper's resize
        elif call.benchmark == "exact":
            assert all(f.shape == (448, 796, 3) for f in request.frames)  # the paper's 796x448
        elif checked < 12 and len(call.frames) == 2:  # CausalStep in context: both segments, in order
            reference = [f for p in call.frames
                         for f in decode_sequential(suite.path / suite.videos[p.video].file, p.times)]
            assert all(np.array_equal(a, b) for a, b in zip(request.frames, reference))
            checked += 1
        else:
            assert request.frames[0].shape == (64, 96, 3)  # native size
    assert checked


def test_each_benchmark_is_generated_as_its_protocol_says(fake_run):
    """Temperature, token budget and runs come from each benchmark's protocol.toml; sampled
    calls carry a seed of their own per run, greedy ones none."""
    _, _, _, _, backend, _, _, _ = fake_run
    asked: dict[str, set] = {}
    seeds: dict[str, list] = {}
    for call, request in backend.requests():
        asked.setdefault(call.benchmark, set()).add((request.temperature, request.max_new_tokens))
        seeds.setdefault(call.id, []).append(request.seed)
    assert asked == {"expvid": {(0.1, 8192)}, "causalstep": {(0.0, 1024)}, "exact": {(0.0, 1024)},
                     "videommmu": {(0.0, 1024)}, "videosimpleqa": {(1.0, 1024)}}
    for call_id, drawn in seeds.items():
        if call_id.startswith("videosimpleqa/"):
            assert len(drawn) == 3 and len(set(drawn)) == 3 and None not in drawn  # three runs, three seeds
        elif call_id.startswith("expvid/"):
            assert len(drawn) == 1 and drawn[0] is not None  # sampled at 0.1, one run
        elif not call_id.startswith("causalstep/"):
            assert drawn == [None]  # greedy


def test_each_video_is_decoded_once(fake_run):
    suite, hidden, _, _, backend, runner, _, _ = fake_run
    store = runner.frame_store
    made = {call.id: call for call, _ in backend.requests()}
    users = Counter(v for call in made.values() for v in {p.video for p in call.frames})
    assert set(store.decodes) == set(users) == set(suite.videos)
    assert all(store.decodes[v] == 1 for v in suite.videos)
    assert all(store.uses[v] == users[v] for v in users)
    assert runner.settings["decodes"]["max_decodes_per_video"] == 1
    assert runner.settings["decodes"]["videos"] == len(suite.videos)


def test_progress_is_reported_after_each_batch(fake_run):
    suite, hidden, _, _, backend, _, _, progress = fake_run
    simpleqa = sum(1 for c in [*suite.calls, *hidden] if c.benchmark == videosimpleqa.NAME)
    total = len(suite.calls) + len(hidden) + 2 * simpleqa  # Video SimpleQA: three runs
    assert all(t == total for _, t, _ in progress)
    done = [d for d, _, _ in progress]
    assert done == sorted(done) and done[0] == 0 and done[-1] == total
    assert len({d for d in done}) >= len(backend.batches)
    assert {s for _, _, s in progress} >= {"expvid", "causalstep", "videommmu question-only"}


def test_settings_record_how_the_answers_were_made(fake_run):
    suite, hidden, _, _, backend, runner, predictions, _ = fake_run
    s = runner.settings
    assert s["backend"] == FakeBackend.settings and s["model"] == "fake-model" and s["revision"] == "abc"
    assert s["max_new_tokens"] is None and s["batch_calls"] == 16  # no operator cap: each protocol's
    assert s["frames"] is None and s["frame_budgets"] == suite.manifest["frame_budgets"]
    assert s["resize"] == "native size"
    assert s["generation"]["videosimpleqa"] == {"temperature": 1.0, "max_new_tokens": 1024, "runs": 3,
                                                "resolution": "native size"}
    assert s["generation"]["exact"]["resolution"] == "796x448"
    assert s["generation"]["expvid"]["resolution"] == "224x224"
    assert s["generations"] == len(predictions) == sum(len(b) for b in backend.batches)
    simpleqa = sum(1 for c in [*suite.calls, *hidden] if c.benchmark == videosimpleqa.NAME)
    assert sum(s["passes"].values()) == len(suite.calls) + len(hidden) + 2 * simpleqa  # three runs
    assert "PyAV" in s["frame_decoder"]["decoder"]


def test_a_progress_callback_that_raises_stops_the_run(demo_suite):
    suite, key = demo_suite
    suite, hidden = tagged(suite, key)
    backend = FakeBackend([*suite.calls, *hidden], answerer(3, {}))

    class Stop(Exception):
        pass

    def progress(done, total, stage):
        if done > 0:
            raise Stop

    with pytest.raises(Stop):
        ModelRunner(backend, RunnerSettings(batch_calls=8)).run(request_for(suite), suite, hidden, progress)
    assert len(backend.batches) == 1  # nothing was asked after the stop


def test_a_frame_count_override_reaches_the_backend(demo_suite):
    suite, key = demo_suite
    suite, hidden = tagged(suite, key)
    backend = FakeBackend([*suite.calls, *hidden], answerer(4, {}))
    runner = ModelRunner(backend, RunnerSettings(batch_calls=64))
    runner.run(request_for(suite, frames=4), suite, hidden)
    for call, request in backend.requests():  # `call` as published; `request` as asked
        if call.kind == "question-only":
            assert len(request.frames) == 1
            continue
        # every demo range holds at least 4 frames; a call in context shows two ranges
        assert len(request.frames) == len(request.frame_times) == 4 * len(call.frames)
        if call.benchmark != "expvid":
            assert re.search(r"\b4 frames", request.prompt) and not re.search(r"\b4 frames", call.prompt)
    assert runner.settings["frames"] == 4
    assert set(runner.settings["frame_budgets"].values()) == {4, 1}
    assert runner.settings["frame_budgets"]["videommmu_question_only"] == 1
    assert runner.settings["decodes"]["max_decodes_per_video"] == 1


def test_a_frame_budget_re_plans_only_the_calls_of_its_benchmark(demo_suite):
    """A model author's Video-MMMU budget (12 frames, inside the paper's 10-64) changes the
    lecture calls only: the question-only picture and every other benchmark are as published."""
    suite, key = demo_suite
    suite, hidden = tagged(suite, key)
    backend = FakeBackend([*suite.calls, *hidden], answerer(4, {}))
    runner = ModelRunner(backend, RunnerSettings(batch_calls=64))
    runner.run(request_for(suite, frame_budgets={"videommmu": 12}), suite, hidden)
    changed = 0
    for call, request in backend.requests():
        shown = sum(len(p.times) for p in call.frames)
        if call.benchmark == "videommmu" and call.kind != "question-only":
            assert len(request.frames) == 12 != shown and re.search(r"\b12 frames", request.prompt)
            changed += 1
        else:
            assert len(request.frames) == shown
            assert request.prompt == call.prompt or call.context is not None  # (in context: placeholder filled)
    assert changed and runner.settings["frame_budgets"]["videommmu"] == 12
    assert runner.settings["frame_budgets"]["videosimpleqa"] == suite.manifest["frame_budgets"]["videosimpleqa"]


# -- frames decoded while the backend answers ------------------------------------------------

def test_each_batch_is_prepared_ahead_of_the_answer_before_it():
    """The pipeline order: batch k+ahead is prepared before batch k is answered."""
    events = []

    class Preparing:
        ahead = 2

        def __call__(self, queries):
            raise AssertionError("an ask that prepares is only answered through prepare")

        def prepare(self, queries):
            k = queries[0].prompt
            events.append(f"prepare {k}")
            return lambda: events.append(f"answer {k}") or [k] * len(queries)

    call = Call("c", "expvid", "i", "mcq", "p", "choice")
    groups = [[schedule.Query(call, str(k))] for k in range(5)]
    answered = list(schedule._answered(schedule.chunks(groups, 1), Preparing()))
    assert [responses for _, _, responses in answered] == [[str(k)] for k in range(5)]
    assert events == ["prepare 0", "prepare 1", "prepare 2", "answer 0", "prepare 3", "answer 1",
                      "prepare 4", "answer 2", "answer 3", "answer 4"]


def test_each_pass_starts_with_the_batch_decoded_for_it_during_the_pass_before(fake_run):
    """schedule.first_batch, whose videos are decoded ahead, is the batch each pass starts with."""
    suite, hidden, _, _, backend, _, _, _ = fake_run
    passes = schedule.plan_passes(suite.calls, hidden, list(suite.manifest["benchmarks"]))
    pass_of = {call.id: k for k, step in enumerate(passes) for call in step.calls}
    starts, last = [], None
    for batch in backend.batches:
        ids = list(dict.fromkeys(backend.call_of(r).id for r in batch))
        if pass_of[ids[0]] != last:
            starts.append(ids)
            last = pass_of[ids[0]]
    assert len(starts) == len(passes)
    assert starts == [[c.id for c in schedule.first_batch(step, 16)] for step in passes]


def run_with(suite, hidden, answer, **settings):
    backend = FakeBackend([*suite.calls, *hidden], answer)
    runner = ModelRunner(backend, RunnerSettings(batch_calls=16, **settings))
    return runner, backend, runner.run(request_for(suite), suite, hidden)


@pytest.mark.parametrize("ahead, workers", [(1, 1), (1, 4), (2, 3)])
def test_decoding_ahead_changes_nothing_the_backend_sees(demo_suite, ahead, workers):
    """Same requests (prompts, frames, batches) and predictions as decoding each batch
    just before it is answered; still one decode per video."""
    suite, key = demo_suite
    suite, hidden = tagged(suite, key)
    answer = answerer(5, gold_labels(key), right=0.6, unreadable=0.15)  # chains break too
    _, before, expected = run_with(suite, hidden, answer, decode_ahead=0)
    runner, after, predictions = run_with(suite, hidden, answer, decode_ahead=ahead, decode_workers=workers)
    assert predictions == expected
    assert [[r.prompt for r in b] for b in after.batches] == [[r.prompt for r in b] for b in before.batches]
    for old, new in zip(before.requests(), after.requests()):
        assert old[1].frame_times == new[1].frame_times and old[1].as_video == new[1].as_video
        assert all(np.array_equal(a, b) for a, b in zip(old[1].frames, new[1].frames))
    assert runner.settings["decodes"]["max_decodes_per_video"] == 1
    assert runner.settings["decodes"]["videos"] == len(suite.videos)
    assert not runner.frame_store.held_videos()


@pytest.mark.parametrize("ahead", [0, 1])
def test_frames_are_decoded_on_the_decode_workers_only_when_ahead(demo_suite, monkeypatch, ahead):
    from evaluator.runners import frame_store

    suite, key = demo_suite
    suite, hidden = tagged(suite, key)
    threads = []
    decode = frame_store.decode_frames

    def recording(path, times):
        threads.append(threading.current_thread().name)
        return decode(path, times)

    monkeypatch.setattr(frame_store, "decode_frames", recording)
    run_with(suite, hidden, answerer(6, {}), decode_ahead=ahead, decode_workers=2)
    assert len(threads) == len(suite.videos)
    on_workers = {name.startswith("frame-decode") for name in threads}
    assert on_workers == {bool(ahead)}


def test_a_decode_error_on_a_worker_is_the_runs_error(demo_suite, monkeypatch):
    from evaluator.runners import frame_store
    from evaluator.video import VideoError

    suite, key = demo_suite
    suite, hidden = tagged(suite, key)
    broken = sorted({c.frames[0].video for c in suite.calls if c.benchmark == "exact"})[1]
    decode = frame_store.decode_frames

    def failing(path, times):
        if path.name == Path(suite.videos[broken].file).name:
            raise VideoError(f"{path}: corrupt")
        return decode(path, times)

    monkeypatch.setattr(frame_store, "decode_frames", failing)
    backend = FakeBackend([*suite.calls, *hidden], answerer(7, {}))
    with pytest.raises(VideoError, match="corrupt"):
        ModelRunner(backend, RunnerSettings(batch_calls=16, decode_ahead=2)).run(request_for(suite), suite, hidden)
    asked = {backend.call_of(r).frames[0].video for batch in backend.batches for r in batch}
    assert broken not in asked  # its batch never reached the backend
    assert not [t for t in threading.enumerate() if t.name.startswith("frame-decode")]  # the pool is gone


# -- real tiny models ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tiny_vlms(tmp_path_factory):
    """Both tiny families, built once: family -> saved folder."""
    return {"qwen2.5-vl": build_tiny_qwen25vl(tmp_path_factory.mktemp("qwen25vl")),
            "gemma3": build_tiny_gemma3(tmp_path_factory.mktemp("gemma3"))}


@pytest.fixture(params=["qwen2.5-vl", "gemma3"])
def tiny_vlm(request, tiny_vlms):
    return request.param, tiny_vlms[request.param]


def test_tiny_vlms_answer_the_demo_suite_and_score(tiny_vlm, demo_suite, tmp_path):
    """Real forward passes: every call answered by a tiny random model, as a valid
    prediction file that every benchmark scores. Frames per call overridden to 2 to
    keep the CPU time small; the full budgets go through the same code above."""
    from evaluator.runners.backends import load_backend

    family, path = tiny_vlm
    suite, key = demo_suite
    backend = load_backend("transformers", str(path), None, max_new_tokens=3, batch_size=8)
    runner = ModelRunner(backend, RunnerSettings(batch_calls=32, max_new_tokens=3))  # CPU: keep it short
    progress = []
    predictions = runner.run(request_for(suite, frames=2), suite, key.hidden_calls, lambda *a: progress.append(a))

    path_out = tmp_path / "predictions.jsonl"
    write_predictions(path_out, predictions)
    calls = {c.id: c for c in [*suite.calls, *key.hidden_calls]}
    responses = parse_predictions(path_out.read_bytes(), calls)
    answered = set(responses.by_id) | {cid for cid, _ in responses.by_context}
    assert {c.id for c in suite.calls if c.context is None} <= answered
    assert {c.id for c in key.hidden_calls} <= answered
    scores, counts = score_responses(suite, key, responses, NormalizedMatchJudge(), worker_run=True,
                                     bootstrap_samples=20)
    assert set(scores) == set(suite.manifest["benchmarks"])
    assert all(counts[name]["attempted"] for name in scores)
    simpleqa = sum(1 for c in [*suite.calls, *key.hidden_calls] if c.benchmark == "videosimpleqa")
    assert progress[-1][0] == progress[-1][1] == len(suite.calls) + len(key.hidden_calls) + 2 * simpleqa
    assert runner.settings["backend"]["model"] == str(path)
    assert runner.settings["generation"]["exact"]["temperature"] == 0.0  # greedy, as ExAct's protocol says
    assert runner.settings["decodes"]["max_decodes_per_video"] == 1
    # Qwen2.5-VL's processor takes a clip as video where torchvision is installed (GPU workers); Gemma 3 takes pictures
    takes_video = family == "qwen2.5-vl" and importlib.util.find_spec("torchvision") is not None
    assert runner.settings["backend"]["video_input"] == ("video" if takes_video else "images")


# -- the vLLM backend under the runner (a stand-in engine: vllm is not installed here) -------

def fake_vllm_module():
    """A module with vllm's LLM / SamplingParams shape that records what it is given."""
    import types

    module = types.ModuleType("fake_vllm_for_runner")
    module.created, module.generated = [], []

    class SamplingParams:
        def __init__(self, **kwargs):
            self.kwargs = kwargs

    class LLM:
        def __init__(self, **kwargs):
            module.created.append(kwargs)

        def generate(self, inputs, sampling_params, use_tqdm=True):
            assert len(sampling_params) == len(inputs)  # one SamplingParams per request
            module.generated.append((inputs, [s.kwargs for s in sampling_params]))
            reply = types.SimpleNamespace(text=" A ")
            return [types.SimpleNamespace(outputs=[reply]) for _ in inputs]

    module.SamplingParams, module.LLM = SamplingParams, LLM
    return module


@pytest.mark.parametrize("native_video", [True, False])
def test_vllm_runs_one_generate_per_benchmark_with_limits_for_the_largest_call(
        demo_suite, tiny_vlms, monkeypatch, native_video):
    from evaluator.runners import backends, hub

    path = tiny_vlms["qwen2.5-vl"]
    suite, key = demo_suite
    # CausalStep first: its calls show at most 16 frames, ExpVid's up to 48. The engine
    # starts on the first batch and must already allow the largest call of the run.
    order = ["causalstep", "expvid", "exact", "videommmu", "videosimpleqa"]
    suite = dataclasses.replace(suite, manifest={**suite.manifest,
                                                 "benchmarks": {b: suite.manifest["benchmarks"][b] for b in order}})
    fake = fake_vllm_module()
    monkeypatch.setitem(sys.modules, "fake_vllm_for_runner", fake)
    monkeypatch.setattr(hub, "takes_video", lambda processor: native_video)  # True as on a GPU worker
    backend = backends.VllmBackend(str(path), max_new_tokens=7, engine_module="fake_vllm_for_runner")
    runner = ModelRunner(backend, RunnerSettings(batch_calls=10_000, batch_frames=None))
    predictions = runner.run(request_for(suite), suite, key.hidden_calls)

    [engine] = fake.created  # one engine for the whole run
    most = max(sum(len(p.times) for p in c.frames) for c in [*suite.calls, *key.hidden_calls])
    assert most == 48
    assert engine["limit_mm_per_prompt"] == ({"image": 1, "video": 1} if native_video else {"image": most})
    assert engine["enable_prefix_caching"] is True
    # one generate per benchmark (and per protocol stage); CausalStep one per step of its chain
    sizes = [len(inputs) for inputs, _ in fake.generated]
    steps = max(len(q.segments) for q in suite.questions[causalstep.NAME])
    passes = runner.settings["passes"]
    assert next(iter(passes)) == "causalstep" and sum(sizes[:steps]) == passes["causalstep"]
    assert sizes[steps:] == list(passes.values())[1:]
    sampled = [s for _, each in fake.generated for s in each]
    # each benchmark's protocol: greedy, ExpVid 0.1 and Video SimpleQA 1.0, each sampled request seeded
    assert {(s["temperature"], s["max_tokens"]) for s in sampled} == {(0.0, 1024), (0.1, 8192), (1.0, 1024)}
    assert all((s.get("seed") is not None) == (s["temperature"] > 0) for s in sampled)
    shown = [i for inputs, _ in fake.generated for i in inputs]
    for entry in shown:
        media = entry["multi_modal_data"]
        if native_video and "video" in media:
            [(clip, metadata)] = media["video"]
            assert clip.ndim == 4 and clip.shape[0] == metadata["total_num_frames"] > 1
        else:
            assert "image" in media and len(media["image"]) <= most
    assert len(predictions) == len(shown) and runner.settings["backend"]["backend"] == "vllm"
