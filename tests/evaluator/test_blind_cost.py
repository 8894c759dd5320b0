"""The blind ("no video") pass and the cost of a model-ID run.

Blind pass: the same run with every frame black. Proven on what a backend receives:
a recording backend on the demo suite's real videos (every request, both passes), and
a real tiny VLM whose processor is spied on (the very pictures it turns into pixels).
CausalStep's chain in the blind pass follows the blind answers. Then the worker with
LEADERBOARD_BLIND_PASS=1 publishes the no-video scores and the cost beside the real
scores, and the leaderboard's optional columns show them.

Cost: the transformers backend's step clock (time to first token, tokens per second)
on a real tiny model, the vLLM per-request metrics, the GPU-seconds apportioning.
"""

from __future__ import annotations

import dataclasses
import sys
import types
from collections import Counter

import numpy as np
import pytest
import torch
from test_runner import FakeBackend, answerer, gold_labels, request_for, tagged
from tiny_vlms import build_tiny_gemma3

from evaluator.answers import extract_choice
from evaluator.benchmarks import causalstep
from evaluator.records import Call
from evaluator.runners import costs
from evaluator.runners.model import BLIND_STAGE, ModelRunner, RunnerSettings

# -- what a backend receives in each pass --------------------------------------------------------


def request_key(call: Call, request):
    """Everything about a request except its pixels."""
    return (call.id, request.prompt, tuple(np.asarray(f).shape for f in request.frames),
            tuple(request.frame_times), request.as_video)


@pytest.fixture(scope="module")
def both_passes(demo_suite):
    """The demo suite answered twice by the same deterministic model (its answers do not
    depend on the pixels), once with the video and once blind."""
    suite, key = demo_suite
    suite, hidden = tagged(suite, key)
    answer = answerer(5, gold_labels(key), right=0.6, unreadable=0.1)
    out = {}
    for blind in (False, True):
        backend = FakeBackend([*suite.calls, *hidden], answer)
        runner = ModelRunner(backend, RunnerSettings(batch_calls=16))
        progress = []
        predictions = runner.run(request_for(suite), suite, hidden, lambda *a: progress.append(a), blind=blind)
        out[blind] = backend, runner, predictions, progress
    return suite, hidden, out


def test_the_blind_pass_shows_only_black_frames(both_passes):
    _, _, out = both_passes
    backend, _, _, _ = out[True]
    frames = [f for _, r in backend.requests() for f in r.frames]
    assert len(frames) > 1000  # every benchmark's calls, many frames each
    assert all(np.asarray(f).dtype == np.uint8 and not np.asarray(f).any() for f in frames)
    # the real pass had real pictures, so the check above is about the blind pass
    real, _, _, _ = out[False]
    assert sum(np.asarray(f).any() for _, r in real.requests() for f in r.frames) > 0.9 * len(frames)


def test_the_blind_pass_makes_the_same_requests_with_as_many_frames(both_passes):
    suite, hidden, out = both_passes
    real = Counter(request_key(c, r) for c, r in out[False][0].requests())
    blind = Counter(request_key(c, r) for c, r in out[True][0].requests())
    assert blind == real  # same calls, prompts, frame counts, sizes, times, video/images
    asked = {key[0] for key in real}
    assert {c.id for c in [*suite.calls, *hidden] if c.context is None} <= asked


def test_the_blind_pass_reports_its_own_progress_stages(both_passes):
    suite, hidden, out = both_passes
    _, _, _, progress = out[True]
    stages = {stage for _, _, stage in progress}
    assert stages and all(s.startswith(f"{BLIND_STAGE}: ") for s in stages)
    assert f"{BLIND_STAGE}: causalstep" in stages
    simpleqa = sum(1 for c in [*suite.calls, *hidden] if c.benchmark == "videosimpleqa")
    assert progress[-1][0] == progress[-1][1] == len(suite.calls) + len(hidden) + 2 * simpleqa  # its 3 runs too


class PixelAwareBackend(FakeBackend):
    """Answers every CausalStep choice with the gold label when it sees a picture and
    with another option when all its frames are black: the two passes' chains differ."""

    def __init__(self, calls, gold):
        super().__init__(calls, None)
        self.gold = gold

    def generate(self, requests):
        self.batches.append(list(requests))
        replies = []
        for r in requests:
            call = self.call_of(r)
            if call.answer_format != "choice" or not call.labels:
                replies.append("1")
                continue
            seen = any(np.asarray(f).any() for f in r.frames)
            gold = self.gold.get(call.id, call.labels[0])
            other = next(label for label in call.labels if label != gold)
            replies.append(f"({gold if seen else other})")
        return replies


def test_causalsteps_blind_chain_follows_the_blind_answers(demo_suite):
    suite, key = demo_suite
    suite, hidden = tagged(suite, key)
    gold = gold_labels(key)
    runs = {}
    for blind in (False, True):
        backend = PixelAwareBackend([*suite.calls, *hidden], gold)
        runs[blind] = ModelRunner(backend, RunnerSettings(batch_calls=16)).run(request_for(suite), suite, hidden,
                                                                               blind=blind)
    calls = {c.id: c for c in suite.calls if c.benchmark == causalstep.NAME}

    def contexts(predictions):
        """(call, context label) of every in-context prediction, checked against the
        labels the same pass chose at the calls it depends on."""
        chosen: dict[str, set[str]] = {}
        for p in predictions:
            if p.id in calls:
                picked = extract_choice(p.response, calls[p.id].labels, calls[p.id].options)
                chosen.setdefault(p.id, set()).add(picked)
        out = set()
        for p in predictions:
            if p.id in calls and calls[p.id].context is not None:
                own = set().union(*(chosen.get(dep, set()) for dep in calls[p.id].context.after))
                assert p.context in own, f"{p.id} was asked with {p.context}, which its pass never answered"
                out.add((p.id, p.context))
        return out

    real, blind = contexts(runs[False]), contexts(runs[True])
    assert real and blind and real != blind
    # blind answers are never the gold label here: no blind context is the real one
    assert not real & blind


# -- a real tiny model: the pixels its processor receives, and what the run cost ----------------------

class ProcessorSpy:
    """Stands in for the backend's processor: records the pictures of every call, then
    lets the real processor turn them into the model's inputs."""

    def __init__(self, inner):
        self.inner = inner
        self.pictures: list[list[np.ndarray]] = []

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def __call__(self, **kwargs):
        for request_images in kwargs.get("images") or []:
            self.pictures.append([np.asarray(image) for image in request_images])
        for video in kwargs.get("videos") or []:
            self.pictures.append(list(np.asarray(video)))
        return self.inner(**kwargs)


@pytest.fixture(scope="module")
def tiny_runs(demo_suite, tmp_path_factory):
    """The tiny Gemma 3 over the demo suite (2 frames a call), with and without video."""
    from evaluator.runners.backends import load_backend

    path = build_tiny_gemma3(tmp_path_factory.mktemp("gemma3"))
    suite, key = demo_suite
    out = {}
    for blind in (False, True):
        backend = load_backend("transformers", str(path), None, max_new_tokens=3, batch_size=8)
        spy = backend.processor = ProcessorSpy(backend.processor)
        runner = ModelRunner(backend, RunnerSettings(batch_calls=32, max_new_tokens=3))  # CPU: keep it short
        predictions = runner.run(request_for(suite, frames=2), suite, key.hidden_calls, blind=blind)
        out[blind] = spy, runner, predictions
    return out


def test_every_picture_the_tiny_model_receives_in_the_blind_pass_is_black(tiny_runs):
    real, _, _ = tiny_runs[False]
    blind, runner, _ = tiny_runs[True]
    assert len(blind.pictures) == runner.generations  # every generation went through the spy
    counts = lambda spy: sorted((len(p), tuple(x.shape for x in p)) for p in spy.pictures)  # noqa: E731
    assert counts(blind) == counts(real)  # as many frames per request, of the same sizes
    assert all(not frame.any() for pictures in blind.pictures for frame in pictures)
    assert any(frame.any() for pictures in real.pictures for frame in pictures)


def test_the_tiny_models_run_records_its_cost(tiny_runs):
    _, runner, predictions = tiny_runs[False]
    cost = runner.cost
    assert cost["schema_version"] == costs.COST_SCHEMA_VERSION
    gpus = 1 if torch.cuda.is_available() else 0  # the backend's device: cuda when there is one
    assert cost["gpus"] == gpus and cost["device"] == costs.device_name(gpus)  # "cpu", or the card's name
    assert cost["calls"] == runner.generations == len(runner.meter.calls) >= len(predictions)
    # time to first token: every generation; timed from its own batch's start, so within
    # the runner's generate call that held it (32 calls, whose wall time is shared out)
    assert cost["ttft_s"]["measured_calls"] == cost["calls"]
    assert all(0 < c.ttft_s <= c.gpu_seconds * 32 for c in runner.meter.calls)
    assert all(1 <= c.tokens <= 3 for c in runner.meter.calls)  # max_new_tokens=3
    rated = [c for c in runner.meter.calls if c.tokens > 1]
    assert rated and all(c.tokens_per_s > 0 for c in rated)
    assert cost["tokens_per_s"]["measured_calls"] == len(rated)
    assert cost["tokens_total"] == sum(c.tokens for c in runner.meter.calls)
    # the batches' wall time, shared out: the shares add up to the time spent in generate
    assert cost["gpu_seconds_total"] == pytest.approx(cost["generate_wall_seconds"] * max(gpus, 1), rel=1e-9)
    assert cost["gpu_seconds_per_call"]["mean"] == pytest.approx(cost["gpu_seconds_total"] / cost["calls"])


# -- the measuring pieces -------------------------------------------------------------------------------

def test_step_stats_time_each_sequence_to_its_own_last_token():
    start, steps = 10.0, [10.5, 10.6, 10.7, 10.9]
    one, two, four, none = costs.step_stats(start, steps, [1, 2, 4, 0])
    assert one == costs.GenStats(0.5, 1, None)  # a one-token answer has no decoding speed
    assert two.ttft_s == 0.5 and two.tokens_per_s == pytest.approx(1 / 0.1)
    assert four.tokens_per_s == pytest.approx(3 / 0.4)
    assert none == costs.GenStats(None, 0, None)


def test_generated_counts_stop_at_the_first_end_token():
    import torch

    block = torch.tensor([[5, 6, 2, 0, 0], [5, 6, 7, 8, 9], [2, 0, 0, 0, 0]])
    assert costs.generated_counts(block, {2, 0}) == [3, 5, 1]


def test_apportion_shares_a_batch_among_its_calls_and_gpus():
    shares = costs.apportion(2.0, 4, [costs.GenStats(0.1, 3, 20.0), costs.GenStats()], 2)
    assert [c.gpu_seconds for c in shares] == [4.0, 4.0]
    assert shares[0] == costs.CallCost(4.0, 0.1, 3, 20.0)
    assert costs.apportion(1.0, 0, [], 4)[0] == costs.CallCost(0.25)  # no stats: time only


def vllm_output(tokens: int, metrics=None):
    completion = types.SimpleNamespace(text=" A ", token_ids=list(range(tokens)))
    return types.SimpleNamespace(outputs=[completion], metrics=metrics)


def test_vllm_stats_read_the_engines_metrics_when_it_has_them():
    old = types.SimpleNamespace(arrival_time=100.0, first_token_time=100.25, last_token_time=101.25)
    assert costs.vllm_stats(vllm_output(5, old)) == costs.GenStats(0.25, 5, 4.0)
    new = types.SimpleNamespace(first_token_latency=0.5, first_token_ts=7.0, last_token_ts=7.5, arrival_time=1e9)
    assert costs.vllm_stats(vllm_output(3, new)) == costs.GenStats(0.5, 3, 4.0)
    assert costs.vllm_stats(vllm_output(4)) == costs.GenStats(None, 4, None)  # no metrics: count only


def test_the_vllm_backend_hands_the_engines_stats_to_the_runner(demo_suite, tmp_path_factory, monkeypatch):
    from evaluator.runners import backends

    path = build_tiny_gemma3(tmp_path_factory.mktemp("gemma3-vllm"))
    module = types.ModuleType("fake_vllm_with_metrics")

    class LLM:
        def __init__(self, **kwargs):
            pass

        def generate(self, inputs, sampling_params, use_tqdm=True):
            timing = types.SimpleNamespace(arrival_time=1.0, first_token_time=1.5, last_token_time=2.0)
            return [vllm_output(3, timing) for _ in inputs]

    module.LLM, module.SamplingParams = LLM, lambda **kwargs: kwargs
    monkeypatch.setitem(sys.modules, module.__name__, module)
    backend = backends.VllmBackend(str(path), max_new_tokens=3, engine_module=module.__name__)
    suite, key = demo_suite
    exact = dataclasses.replace(suite, calls=[c for c in suite.calls if c.benchmark == "exact"])
    runner = ModelRunner(backend, RunnerSettings(batch_calls=100))
    runner.run(request_for(exact), exact, [])
    assert runner.cost["gpus"] == 1 and runner.cost["calls"] == len(exact.calls)
    assert runner.cost["ttft_s"]["median"] == 0.5 and runner.cost["tokens_per_s"]["median"] == 4.0
