"""Model-ID requests through the worker: claimed, answered by a real tiny VLM of each
family (tests/tiny_vlms.py) on the demo suite, scored, published as a table row with
the runner's settings, progress on the request along the way; and the ways such a job
fails: a missing model (download), out of memory, over its time limit, a backend the
worker cannot run."""

from __future__ import annotations

import dataclasses
import json
import time
from collections import defaultdict

import pytest
import torch
from tiny_vlms import build_tiny_gemma3, build_tiny_qwen25vl

from evaluator.predictions import parse_predictions
from evaluator.raw_outputs import outputs_path
from evaluator.result import Result
from evaluator.runners import model as model_module
from evaluator.runners.model import ModelRunner, RunnerSettings
from worker.loop import Worker
from results import aggregate
from results.aggregate import TABLE_PATH, is_result_file, load_table
from space_config.settings import get_settings
from submissions.queue import Queue
from submissions.requests import Reason, Request, Status, request_log_path
from submissions.stores import Stores
from submissions.submit import read_calls
from worker.suites import first_start

# What a worker's operator sets to keep a CPU run short: the transformers backend and
# 3 new tokens (runner options come from the worker's settings, never from a request).
QUICK = {"backend": "transformers", "max_new_tokens": 3}


class WatchedRequests:
    """The requests store, noting each request's status and progress at every write:
    what anyone reading the request saw during the job."""

    def __init__(self, inner):
        self.inner = inner
        self.seen: dict[str, list[tuple]] = defaultdict(list)

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def write_if(self, path, data, expected, message=""):
        version = self.inner.write_if(path, data, expected, message)
        request = Request.from_bytes(data)
        p = request.progress
        self.seen[request.id].append((request.status, p.done, p.total, p.stage))
        return version


@pytest.fixture
def deployment(tmp_path, monkeypatch):
    """A local deployment after its first start (demo suite published, baselines scored),
    with every progress step written to the request (no throttling)."""
    home = tmp_path / "home"
    monkeypatch.setenv("LEADERBOARD_HOME", str(home))
    monkeypatch.setenv("LEADERBOARD_STORE", "local")
    monkeypatch.setenv("LEADERBOARD_BOOTSTRAP_SAMPLES", "50")
    monkeypatch.setenv("LEADERBOARD_PROGRESS_SECONDS", "0")
    get_settings.cache_clear()
    local = Stores.local(home)
    suite_id = first_start(local)
    stores = dataclasses.replace(local, requests=WatchedRequests(local.requests))
    yield stores, suite_id
    get_settings.cache_clear()


def settings(**worker):
    base = get_settings()
    return dataclasses.replace(base, worker=dataclasses.replace(base.worker, **(QUICK | worker)))


def add_model_request(stores, suite_id: str, model: str, **fields) -> Request:
    """A maintainer's request for a local model folder, added to the queue directly
    (no hub validation: maintainers may evaluate local paths)."""
    return Queue(stores.requests).add(Request(kind="model", submitter="maintainer", suite_id=suite_id,
                                              model=model, **fields))


@pytest.fixture(scope="module", params=["qwen2.5-vl", "gemma3"])
def tiny_vlm(request, tmp_path_factory):
    build = build_tiny_qwen25vl if request.param == "qwen2.5-vl" else build_tiny_gemma3
    return request.param, build(tmp_path_factory.mktemp(request.param.replace(".", "")))


def result_files(stores) -> list[str]:
    """The names of the public result files (`<id>.json`, in their shard folders)."""
    return [p.rsplit("/", 1)[-1] for p in stores.results.list() if is_result_file(p)]


# -- the whole way, with a real model -------------------------------------------------------

def test_model_request_is_run_scored_and_published(deployment, tiny_vlm):
    stores, suite_id = deployment
    _, path = tiny_vlm
    request = add_model_request(stores, suite_id, str(path), frames=2, precision="float32")

    ran = Worker(stores, settings(), worker_id="gpu-1").run_once()

    assert ran.id == request.id and ran.status == Status.FINISHED, ran.failure
    result = Result.model_validate_json(stores.results.read(aggregate.result_path(request.id)).data)
    assert set(result.scores) == {"expvid", "causalstep", "exact", "videommmu", "videosimpleqa"}
    assert result.scores["videosimpleqa"]["subqa"]  # the hidden sub-questions were asked and scored
    runner = result.runner
    assert runner["name"] == "transformers" and runner["model"] == str(path) and runner["frames"] == 2
    assert runner["dtype"] == "float32" and runner["max_new_tokens"] == 3  # the operator's cap (settings())
    assert runner["generation"]["exact"] == {"temperature": 0.0, "max_new_tokens": 3, "runs": 1,
                                             "resolution": "796x448"}
    assert runner["decodes"]["max_decodes_per_video"] == 1
    assert runner["passes"]["videosimpleqa with sub-questions"] > result.counts["videosimpleqa"]["calls"]
    assert result.blind_scores is None and "blind_pass" not in runner  # LEADERBOARD_BLIND_PASS is off
    assert result.cost["calls"] == runner["generations"] and result.cost["device"] != ""

    row = load_table(stores.results).set_index("id").loc[request.id]
    assert row["runner"] == "transformers" and row["runner.model"] == str(path) and row["runner.frames"] == 2
    assert json.loads(row["runner.frame_budgets"])["videommmu_question_only"] == 1
    assert row["model"] == str(path) and row["precision"] == "float32"
    assert all(row[f"{name}.overall"] is not None for name in result.scores)

    seen = [s for s in stores.requests.seen[request.id] if s[0] == Status.RUNNING]
    stages = [stage for _, _, _, stage in seen]
    assert "loading model" in stages
    for stage in ("expvid", "causalstep", "videommmu question-only", "videosimpleqa with sub-questions"):
        assert stage in stages, stages
    answering = [(done, total) for _, done, total, stage in seen if stage not in ("", "loading model")
                 and not stage.startswith("scor")]
    assert answering and all(total == answering[0][1] for _, total in answering)
    assert [d for d, _ in answering] == sorted(d for d, _ in answering) and answering[-1][0] == answering[0][1]
    log = stores.private.read(request_log_path(request.id)).data.decode()
    assert "runner transformers answered" in log and "finished" in log
    # the model's answers to the public calls are kept for its submitter (evaluator/raw_outputs.py)
    calls = read_calls(stores.suite, suite_id)
    outputs = stores.private.read(outputs_path(request.id)).data
    parse_predictions(outputs, calls)  # a valid prediction file: public calls only
    assert {json.loads(line)["id"] for line in outputs.splitlines()} >= {i for i, c in calls.items() if not c.context}


# -- failures ----------------------------------------------------------------------------------

@pytest.mark.parametrize("model", ["missing-folder", "org/no-such-model"])
def test_missing_model_fails_as_download_naming_it(deployment, tmp_path, model):
    stores, suite_id = deployment
    name = str(tmp_path / model) if model == "missing-folder" else model  # a path, or a hub id (offline)
    request = add_model_request(stores, suite_id, name)
    ran = Worker(stores, settings()).run_once()
    assert ran.id == request.id and ran.status == Status.FAILED
    assert ran.failure.reason == Reason.DOWNLOAD and name in ran.failure.message
    assert result_files(stores) == [f for f in result_files(stores) if f.startswith("baseline-")]


@pytest.fixture
def tiny_qwen(tmp_path_factory):
    return build_tiny_qwen25vl(tmp_path_factory.mktemp("qwen-oom"))


@pytest.mark.parametrize("error", [torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2 GiB"),
                                   MemoryError()])
def test_out_of_memory_fails_as_out_of_memory(deployment, tiny_qwen, monkeypatch, error):
    stores, suite_id = deployment
    real_runner_for = model_module.runner_for
    batches = []

    def runner_for(request, worker_settings):
        runner = real_runner_for(request, worker_settings)  # the real model, loaded
        generate = runner.backend.generate

        def generate_until_full(requests):  # the second batch no longer fits
            batches.append(len(requests))
            if len(batches) > 1:
                raise error
            return generate(requests)

        runner.backend.generate = generate_until_full
        return runner

    monkeypatch.setattr(model_module, "runner_for", runner_for)
    request = add_model_request(stores, suite_id, str(tiny_qwen), frames=2)
    ran = Worker(stores, settings()).run_once()
    assert ran.id == request.id and ran.status == Status.FAILED
    assert ran.failure.reason == Reason.OUT_OF_MEMORY and "out of memory" in ran.failure.message
    assert len(batches) == 2 and f"{request.id}.json" not in result_files(stores)


class SlowBackend:
    """Answers every request with "A", half a second per batch."""

    name = "slow"
    settings = {"model": "slow", "greedy": True}

    def __init__(self):
        self.batches = 0

    def generate(self, requests):
        self.batches += 1
        time.sleep(0.5)
        return ["A"] * len(requests)


def test_job_over_its_time_limit_fails_as_timeout(deployment, monkeypatch):
    stores, suite_id = deployment
    backend = SlowBackend()
    monkeypatch.setattr(model_module, "runner_for",
                        lambda request, s: ModelRunner(backend, RunnerSettings(batch_calls=8)))
    request = add_model_request(stores, suite_id, "org/slow-model")
    ran = Worker(stores, settings(job_timeout_seconds=2.0, lease_seconds=3.0)).run_once()
    assert ran.id == request.id and ran.status == Status.FAILED and ran.failure.reason == Reason.TIMEOUT
    assert "time limit of 2 s" in ran.failure.message
    assert 1 <= backend.batches < 40  # stopped long before its ~40 batches were done
    assert f"{request.id}.json" not in result_files(stores)
    table = load_table(stores.results)
    assert request.id not in set(table["id"])


def test_a_backend_the_worker_cannot_run_fails_with_its_reason(deployment, tiny_qwen):
    stores, suite_id = deployment
    request = add_model_request(stores, suite_id, str(tiny_qwen), metadata={"backend": "transformers"})
    ran = Worker(stores, settings(backend="vllm")).run_once()  # no vllm and no GPU here
    assert ran.id == request.id and ran.status == Status.FAILED
    assert ran.failure.reason == Reason.INTERNAL and "vLLM" in ran.failure.message
    assert stores.results.read(TABLE_PATH) is not None  # the baselines' table, untouched
