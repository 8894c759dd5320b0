"""The queue, worker processes and the site's submit path over the Hub stand-in
(tests/hub_standin.py): the real HfApi over HTTP, with the Hub's commit quota enforced.

The budget is checked by counting: commits per job in each repo, calls per idle poll."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evaluator.baselines import predictions
from evaluator.predictions import write_predictions
from worker.loop import Worker
from results.aggregate import load_table
from space_config.settings import Quotas, get_settings
from submissions.queue import Queue
from submissions.requests import Status
from submissions.submit import Identity, submit_predictions

ROOT = Path(__file__).resolve().parents[2]
OWNER = "org"


@pytest.fixture
def hub(hub_standin, tmp_path, monkeypatch, demo_dir, demo_suite):
    """The stand-in with the demo suite published, settings for the Hub store, and the
    environment a child process needs to reach it."""
    suite, _ = demo_suite
    env = hub_standin.env() | {"LEADERBOARD_STORE": "hub", "LEADERBOARD_HUB_OWNER": OWNER,
                               "LEADERBOARD_HUB_PREFIX": hub_standin.prefix, "LEADERBOARD_BOOTSTRAP_SAMPLES": "50",
                               "HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    get_settings.cache_clear()
    stores = hub_standin.stores(OWNER, cache_dir=tmp_path / "site-cache")
    stores.suite.upload_folder(suite.id, demo_dir / "suite")
    stores.answers.upload_folder(suite.id, demo_dir / "answers")
    yield hub_standin, stores, suite, env
    get_settings.cache_clear()


def site_settings(**worker):
    settings = get_settings()
    return dataclasses.replace(settings, quotas=Quotas(per_user=1000, per_org=1000, pending_per_user=1000),
                               worker=dataclasses.replace(settings.worker, **worker))


def submit(stores, suite, tmp_path: Path, seed: int):
    """What the Submit tab does with an uploaded file (the site's own handler)."""
    path = tmp_path / f"preds-{seed}.jsonl"
    write_predictions(path, predictions("random", suite.calls, seed=seed))
    return submit_predictions(stores, site_settings(), Identity(f"user{seed % 3}"), path, f"random seed {seed}",
                              suite_id=suite.id)


def commits(standin, store: str) -> int:
    return len(standin.history(f"{OWNER}/{standin.prefix}-{store}"))


def test_worker_processes_over_the_hub_run_each_request_once_within_a_commit_quota(hub, tmp_path):
    standin, stores, suite, env = hub
    jobs = 8
    ids = {submit(stores, suite, tmp_path, seed).id for seed in range(jobs)}
    before = {name: commits(standin, name) for name in ("requests", "results", "private")}
    # an hour compressed to 3 s: far fewer commits per window than the run needs, so the
    # workers meet 429s and must wait them out (Retry-After) without failing a job
    standin.commit_quota(6, window_seconds=3)

    # Output to files, not pipes: a worker whose unread pipe fills up blocks while holding
    # its lease, and the other --once workers then wait for it forever.
    logs = [tmp_path / f"worker-{name}.log" for name in ("A", "B", "C")]
    procs = []
    for name, log in zip(("A", "B", "C"), logs):
        with open(log, "w") as out:
            procs.append(subprocess.Popen([sys.executable, "-m", "evaluator.worker", "--once", "--worker-id", name],
                                          cwd=ROOT, env={**os.environ, **env}, stdout=out, stderr=subprocess.STDOUT))
    for p in procs:
        p.wait(timeout=600)
    outputs = [log.read_text() for log in logs]
    assert [p.returncode for p in procs] == [0, 0, 0], [o[-3000:] for o in outputs]

    requests = Queue(stores.requests).all()
    assert {r.id for r in requests} == ids
    for r in requests:
        assert r.status == Status.FINISHED and r.runs == 1 and r.attempt == 0, (r.id, r.failure)
        assert sum(e.status == Status.RUNNING for e in r.history) == 1  # claimed once
        assert r.progress.done == r.progress.total > 0  # the final progress came with the finish
    assert sorted(load_table(stores.results)["id"]) == sorted(ids)
    assert standin.counts["rate_limited"] > 0  # the quota was met, and honoured
    # the budget: claim + finish in the requests repo, one commit each for the staged
    # result (with the log) and the final log lines in private, one public result + table
    assert commits(standin, "requests") - before["requests"] == 2 * jobs
    # one per job: another worker publishes a row only after its own worker's publish grace
    assert commits(standin, "results") - before["results"] == jobs
    assert commits(standin, "private") - before["private"] == 2 * jobs


def test_an_idle_worker_polls_with_one_head_call_and_backs_off(hub):
    standin, stores, suite, _ = hub
    worker = Worker(stores, site_settings(poll_seconds=5, poll_max_seconds=40), worker_id="idle")
    now = [0.0]
    worker.idle.clock = lambda: now[0]
    assert worker.drain() == 0  # the first look is a full one
    looks, waits = [], []
    for _ in range(5):
        waits.append(worker.idle.next_at - now[0])
        now[0] = worker.idle.next_at
        calls = sum(standin.counts.values())
        assert worker.drain() == 0
        looks.append(sum(standin.counts.values()) - calls)
    assert looks == [1] * 5  # the head commit, nothing else
    assert waits == [5, 10, 20, 40, 40]
    now[0] += 1
    assert worker.drain() == 0 and sum(standin.counts.values()) - calls - 1 == 0  # not due: no call at all


def test_an_idle_worker_looks_again_when_the_queue_moves(hub, tmp_path):
    standin, stores, suite, _ = hub
    worker = Worker(stores, site_settings(poll_seconds=5, poll_max_seconds=40), worker_id="idle")
    now = [0.0]
    worker.idle.clock = lambda: now[0]
    assert worker.drain() == 0
    request = submit(stores, suite, tmp_path, seed=0)
    now[0] = worker.idle.next_at
    assert worker.drain() == 1  # the head moved: a full look, and the new request ran
    assert Queue(stores.requests).get(request.id).status == Status.FINISHED
