"""The Hub as it really behaves, against the stand-in (tests/hub_standin.py): a repo that slows
down with its history, a commit whose reply is lost although it landed (the gateway's 504, a
reply held past the client's timeout; a dropped connection and a 500: tests/submissions/test_stores.py), a
rate limit whose window outlasts a lease's beat, and folders that may hold only so many entries.

Through the real stores, queue and worker: nothing is lost, nothing is done twice."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from evaluator.baselines import predictions
from evaluator.predictions import write_predictions
from evaluator.shards import flat_path, sharded
from results import aggregate
from results.aggregate import load_table
from space_config.settings import Quotas, get_settings
from submissions.errors import TransientStoreError
from submissions.queue import Queue
from submissions.requests import Request, Status, request_path, utcnow
from submissions.stores import RetryingStore, Stores
from submissions.stores import hub as hub_module
from submissions.stores import hub_limits
from submissions.submit import Identity, submit_predictions
from worker.loop import Worker
from worker.publish import staged_result_path

ROOT = Path(__file__).resolve().parents[2]
OWNER = "real"


@pytest.fixture
def hub(hub_standin, tmp_path, monkeypatch, demo_dir, demo_suite):
    """The stand-in with the demo suite published, settings for the Hub store, and the
    environment a child process needs to reach it."""
    suite, _ = demo_suite
    env = hub_standin.env() | {"LEADERBOARD_STORE": "hub", "LEADERBOARD_HUB_OWNER": OWNER,
                               "LEADERBOARD_HUB_PREFIX": hub_standin.prefix, "LEADERBOARD_BOOTSTRAP_SAMPLES": "20",
                               "HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    get_settings.cache_clear()
    stores = hub_standin.stores(OWNER, cache_dir=tmp_path / "cache")
    stores.suite.upload_folder(suite.id, demo_dir / "suite")
    stores.answers.upload_folder(suite.id, demo_dir / "answers")
    yield hub_standin, stores, suite, env
    get_settings.cache_clear()


def settings(**worker):
    base = get_settings()
    return dataclasses.replace(base, quotas=Quotas(per_user=1000, per_org=1000, pending_per_user=1000),
                               worker=dataclasses.replace(base.worker, **worker))


def repo(standin, store: str) -> str:
    return f"{OWNER}/{standin.prefix}-{store}"


def commits(standin, store: str) -> int:
    return len(standin.history(repo(standin, store)))


def submit(stores, suite, tmp_path: Path, seed: int) -> Request:
    """What the Submit tab does with an uploaded file (the site's own handler)."""
    path = tmp_path / f"preds-{seed}.jsonl"
    write_predictions(path, predictions("random", suite.calls, seed=seed))
    return submit_predictions(stores, settings(), Identity(f"user{seed}"), path, f"random seed {seed}",
                              suite_id=suite.id)


def timed_commit(store, path: str) -> float:
    started = time.monotonic()
    store.write(path, path.encode())
    return time.monotonic() - started


# -- a repo that slows down with its history ------------------------------------------------------------------

def test_a_repo_with_a_long_history_is_slow_until_the_squash_command_squashes_it(hub):
    standin, stores, _, env = hub
    history = commits(standin, "requests")
    standin.slow_after(history + 2, delay=0.5)
    assert timed_commit(stores.requests, "a.json") < 0.5 and timed_commit(stores.requests, "b.json") < 0.5
    assert timed_commit(stores.requests, "c.json") >= 0.5  # past the mark: every commit waits
    assert standin.counts["slow_commit"] == 1
    done = subprocess.run([sys.executable, "-m", "evaluator", "squash-history", "--store", "requests"], cwd=ROOT,
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert commits(standin, "requests") == 1  # the count starts again
    assert timed_commit(stores.requests, "d.json") < 0.5 and standin.counts["slow_commit"] == 1
    assert {"a.json", "b.json", "c.json", "d.json"} <= set(standin.files(repo(standin, "requests")))


def test_a_slow_repo_that_times_commits_out_loses_no_request(hub):
    """Past a low mark every commit to the requests repo waits, and one in three is answered
    504 without landing: submitters and workers racing on it still lose nothing and take
    nothing twice."""
    standin, stores, _, _ = hub
    standin.slow_after(commits(standin, "requests") + 1, delay=0.02, fail_every=3)
    queue = Queue(stores.requests, backoff_seconds=0.001)
    ids = [f"20261201T0000{i:02d}-slow{i:06d}" for i in range(16)]
    errors: list[BaseException] = []

    def run(what):
        try:
            what()
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    def add(part: list[str]) -> None:
        for id in part:  # a submitter told "try again" tries again
            again(lambda: queue.admit(Request(id=id, kind="predictions", submitter="s", suite_id="x", model=id,
                                              predictions_sha256=id), lambda requests: None))

    finished: list[str] = []

    def work(name: str) -> None:
        deadline = time.monotonic() + 120
        while len(finished) < len(ids) and time.monotonic() < deadline:
            claimed = again(lambda: queue.claim(name, lease_seconds=600))  # a worker polls again
            if claimed is not None:
                again(lambda: queue.finish(claimed.id, name, aggregate.result_path(claimed.id), "code", None))
                finished.append(claimed.id)

    threads = [threading.Thread(target=run, args=(lambda part=part: add(part),)) for part in (ids[:8], ids[8:])]
    threads += [threading.Thread(target=run, args=(lambda name=name: work(name),)) for name in ("A", "B")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=180)
    assert not errors, errors
    requests = {r.id: r for r in queue.all()}
    assert sorted(requests) == sorted(ids) and sorted(finished) == sorted(ids)  # each finished once, by one worker
    for r in requests.values():
        assert r.status == Status.FINISHED and r.runs == 1
        assert sum(e.status == Status.RUNNING for e in r.history) == 1, r.history
    assert standin.counts["slow_commit"] > 10 and standin.counts["gateway_timeout"] >= 3


def again(call, tries: int = 20):
    """`call()`, made again while the store says the failure may pass (as a submitter told to
    try again, or a worker at its next poll, would)."""
    for _ in range(tries - 1):
        try:
            return call()
        except TransientStoreError:
            time.sleep(0.05)
    return call()


# -- a commit whose reply is lost although it landed -----------------------------------------------------------

@contextmanager
def reply_timeout(seconds: float):
    """The client gives up on a reply after `seconds` inside our calls (hub_limits.REPLY_TIMEOUT)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(hub_limits, "REPLY_TIMEOUT", seconds)
        yield


@pytest.mark.parametrize("how", ["504", "slow"])
def test_a_lost_commit_reply_is_read_back_not_redone(hub, how):
    """The gateway's 504 after the commit landed, or a reply held past the client's timeout
    (huggingface_hub sets none; ours, inside our calls, is hub_limits.REPLY_TIMEOUT): our
    retry finds the write landed and does not make it again."""
    standin, stores, _, _ = hub
    standin.reply_hold = 4.0
    before = commits(standin, "requests")
    standin.lose_reply_next("commit", how=how)
    started = time.monotonic()
    with reply_timeout(1.0):
        version = stores.requests.write_if("new.json", b"mine", None)
    assert time.monotonic() - started < standin.reply_hold  # the call did not wait for the held reply
    assert commits(standin, "requests") == before + 1  # one commit: the work was not done twice
    assert version.split(":")[0] == standin.head(repo(standin, "requests"))
    assert standin.counts["lost_reply"] == 1


@pytest.mark.parametrize("step", ["Add request", "Claim", "(run 1)", "Finish", "and its table row"])
@pytest.mark.parametrize("how", ["slow", "504"])
def test_a_step_whose_commit_times_out_and_lands_is_done_once(hub, tmp_path, step, how):
    """Admission (the request with the admission ledger), the claim, the staged result (with
    the log), the finish and the public result (with its table row): whichever commit lands
    while its reply is lost, the submission is queued once, claimed once, finished once and
    published once."""
    standin, stores, suite, _ = hub
    standin.reply_hold = 4.0
    before = {name: commits(standin, name) for name in ("requests", "results")}
    standin.lose_reply_next("commit", how=how, message=step)
    with reply_timeout(1.0):
        request = submit(stores, suite, tmp_path, seed=1)
        ran = Worker(stores, settings(lease_seconds=600, progress_seconds=600), worker_id="A").run_once()
    assert standin.counts["lost_reply"] == 1  # the step's commit did lose its reply
    assert ran.id == request.id and ran.status == Status.FINISHED and ran.runs == 1 and ran.attempt == 0, ran.failure
    assert [r.id for r in Queue(stores.requests).all()] == [request.id]  # queued once
    assert [e.status for e in ran.history] == [Status.RUNNING, Status.FINISHED]  # claimed once, finished once
    assert commits(standin, "requests") - before["requests"] == 3  # the admission, the claim, the finish
    assert commits(standin, "results") - before["results"] == 1  # published once
    assert list(load_table(stores.results)["id"]) == [request.id]
    assert stores.results.read(aggregate.result_path(request.id)) is not None


# -- a rate limit that outlasts a lease's beat ----------------------------------------------------------------

# The Hub's figures scaled 1:43 so that a test takes seconds: its 300 s window is 7 s here, our
# client budget of 10 s is 0.25 s, RetryingStore's longest wait of 30 s is 0.7 s. The lease is
# harsher than the Hub's (30 min, a beat every 10 min: two beats per window): 12 s, a beat every
# 4 s, so a refusal spans two beats and only a heartbeat that comes back as soon as the window
# reopens keeps it.
WINDOW, BUDGET, MAX_DELAY, LEASE = 7.0, 0.25, 0.7, 12.0
QUOTA = 20  # API calls per window for the token: a job needs a few windows of it


def scaled(stores: Stores) -> Stores:
    """The same stores, with RetryingStore's longest wait scaled like the window."""
    return Stores(**{name: RetryingStore(store.inner, max_delay=MAX_DELAY, base_delay=0.05)
                     for name, store in stores.items()})


@contextmanager
def client_calls_timed(patch):
    """Yields the seconds of every call of ours into huggingface_hub (hub.py's `_hub` blocks)."""
    spans: list[float] = []
    bounded = hub_limits.bounded_client_waits

    @contextmanager
    def timed(seconds=None):
        started = time.monotonic()
        try:
            with bounded(seconds):
                yield
        finally:
            spans.append(time.monotonic() - started)

    patch.setattr(hub_module, "bounded_client_waits", timed)
    yield spans


def watch_lease(standin, id: str, stop: threading.Event, lapses: list[str]) -> None:
    """Read the stored request every 20 ms (straight from the stand-in: no quota) and note
    any moment it is RUNNING with its lease run out: then another worker could take it."""
    while not stop.is_set():
        data = standin.files(repo(standin, "requests")).get(request_path(id))
        stored = Request.from_bytes(data) if data else None
        if stored is not None and stored.status == Status.RUNNING and stored.lease_until < utcnow():
            lapses.append(f"lease of {stored.worker_id} ran out at {stored.lease_until}, seen at {utcnow()}")
        stop.wait(0.02)


def test_a_worker_keeps_its_lease_while_waiting_out_a_long_rate_limit(hub, tmp_path, monkeypatch):
    """Just after a claim, the token's API quota is spent for a whole window (others sharing
    the token used it). The job's next store call waits the window out instead of failing the
    submission; meanwhile the heartbeat's renewal is refused but comes back when the window
    reopens, well before the lease runs out, so another worker never finds the request free.
    No call of ours sits inside the client waiting out the window (hub_limits)."""
    standin, stores, suite, _ = hub
    monkeypatch.setattr(hub_limits, "CLIENT_WAIT_BUDGET", BUDGET)
    request = submit(stores, suite, tmp_path, seed=3)
    worker = Worker(scaled(stores), settings(lease_seconds=LEASE, hold_seconds=3.0, progress_seconds=600),
                    worker_id="A")
    stop, lapses, outcome = threading.Event(), [], []
    watcher = threading.Thread(target=watch_lease, args=(standin, request.id, stop, lapses))
    with client_calls_timed(monkeypatch) as spans:
        running = threading.Thread(target=lambda: outcome.append(worker.run_once()))
        running.start()
        deadline = time.monotonic() + 30
        while Queue(stores.requests).get(request.id).status != Status.RUNNING and time.monotonic() < deadline:
            time.sleep(0.05)
        watcher.start()
        time.sleep(2.0)  # the job holds (the drill) until 3 s after its claim, then meets the limit
        # a small quota: the job's own calls spend the next windows too, so the limit holds it
        # past the lease's end and only renewals at each window's reopening keep the lease
        standin.rate_limit(quota=QUOTA, window_seconds=WINDOW, spent=True)
        refused_at = time.monotonic()
        running.join(timeout=120)
        stop.set()
        watcher.join()
    ran = outcome[0]
    assert ran.status == Status.FINISHED and ran.worker_id == "A" and ran.attempt == 0, ran.failure
    assert [e.status for e in ran.history] == [Status.RUNNING, Status.FINISHED]  # nobody took it meanwhile
    assert not lapses, lapses[:3]
    assert standin.counts["rate_limited"] >= 2  # the job's call and the heartbeat's were both refused
    assert time.monotonic() - refused_at >= WINDOW - 1  # the job did wait the window out
    log = stores.private.read(ran.log_path).data.decode()
    assert "the Hub asks to wait" in log and "waiting, the lease kept" in log
    assert max(spans) < 3 * BUDGET + 1.0, sorted(spans)[-5:]  # not one of them waited out the window
    assert Queue(stores.requests).claim("B", LEASE) is None  # and afterwards nothing is left to take


# -- folders that may hold only so many entries ---------------------------------------------------------------

CAP, REQUESTS, LEGACY = 50, 200, 3


def folder_sizes(standin, store: str) -> dict[str, int]:
    """Entries (files and folders) of every folder of a repo."""
    entries: dict[str, set[str]] = {}
    for path in standin.files(repo(standin, store)):
        parts = path.split("/")
        for depth in range(len(parts)):
            entries.setdefault("/".join(parts[:depth]) or "/", set()).add(parts[depth])
    return {folder: len(names) for folder, names in entries.items()}


def queued(stores, suite, tmp_path: Path, count: int, legacy: int) -> list[Request]:
    """`count` prediction requests with their files, put in place in bulk (admission has its
    own tests); the first `legacy` ones where they were stored before sharding."""
    files, records, made = {}, {}, []
    for i in range(count):
        id = f"20261201T{i:06d}-cap{i:06d}"
        write_predictions(tmp_path / "preds.jsonl", predictions("random", suite.calls, seed=i))
        data = (tmp_path / "preds.jsonl").read_bytes()
        path = f"predictions/{id}.jsonl" if i < legacy else sharded("predictions", id, ".jsonl")
        request = Request(id=id, kind="predictions", submitter=f"user{i}", suite_id=suite.id, model=f"random {i}",
                          predictions_path=path, predictions_sha256=hashlib.sha256(data).hexdigest())
        files[path] = data
        records[f"{id}.json" if i < legacy else request_path(id)] = request.to_bytes()
        made.append(request)
    stores.private.write_files(files, message=f"{count} prediction files")
    stores.requests.write_files(records, message=f"{count} requests")
    return made


def test_hundreds_of_requests_scored_and_published_keep_every_folder_under_the_cap(hub, tmp_path):
    """With the stand-in's folder cap at 50, a few hundred requests are claimed, scored,
    staged, finished and published: every per-submission file goes to its shard folder (the
    requests, the public results, and the private predictions, logs, staged results, per-video
    statistics), no folder of any repo goes over the cap, and nothing is lost. A few requests
    stored the old way (flat) are read, and their files found, where they are."""
    standin, stores, suite, _ = hub
    standin.entry_cap = CAP
    made = queued(stores, suite, tmp_path, REQUESTS, LEGACY)
    worker = Worker(stores, settings(lease_seconds=600, progress_seconds=600), worker_id="W")
    assert worker.drain(wait_for_others=True) == REQUESTS
    requests = {r.id: r for r in Queue(stores.requests).all()}
    assert sorted(requests) == sorted(r.id for r in made)
    assert all(r.status == Status.FINISHED and r.runs == 1 for r in requests.values()), \
        [(r.id, r.failure) for r in requests.values() if r.status != Status.FINISHED][:3]
    assert sorted(load_table(stores.results)["id"]) == sorted(requests)
    for name in ("requests", "results", "private"):
        sizes = folder_sizes(standin, name)
        assert max(sizes.values()) <= CAP, (name, max(sizes.items(), key=lambda kv: kv[1]))
    private, results = standin.files(repo(standin, "private")), standin.files(repo(standin, "results"))
    for id in requests:
        assert aggregate.result_path(id) in results and staged_result_path(id) in private
        assert requests[id].log_path in private and requests[id].log_path.count("/") == 3  # logs/<h>/<h>/<id>.log


def flatten(store, path: str) -> str:
    """Move a sharded file to where it was stored before sharding; its flat path."""
    flat = flat_path(path)
    store.write(flat, store.read(path).data)
    store.delete(path)
    return flat


def test_files_stored_before_sharding_are_read_and_changed_where_they_are(hub, tmp_path):
    """A submission finished before sharding: its request, staged result, per-video statistics,
    log and public result at their flat paths. Its row is published again from the flat staged
    copy, its statistics are found, and a rerun appends to its flat log and replaces its flat
    public result: no second copy appears in a shard folder."""
    from evaluator.paired import paired_path
    from leaderboard.compare import load_paired

    standin, stores, suite, _ = hub
    worker = Worker(stores, settings(lease_seconds=600, progress_seconds=600, publish_grace_seconds=0),
                    worker_id="W")
    request, other = submit(stores, suite, tmp_path, seed=7), submit(stores, suite, tmp_path, seed=8)
    done = worker.run_once()
    assert done.id == request.id and worker.run_once().id == other.id
    old = done.model_copy(deep=True)
    old.result_path = flatten(stores.results, done.result_path)
    old.log_path = flatten(stores.private, done.log_path)
    for path in (staged_result_path(request.id), paired_path(request.id)):
        flatten(stores.private, path)
    stores.requests.write(f"{request.id}.json", old.to_bytes())
    stores.requests.delete(request_path(request.id))
    stores.results.delete(old.result_path)  # as if its worker died before publishing it
    aggregate.rebuild(stores.results)
    assert list(load_table(stores.results)["id"]) == [other.id]

    assert worker.publisher.publish_pending() == 1  # from the flat staged copy, to the flat public path
    assert sorted(load_table(stores.results)["id"]) == sorted([request.id, other.id])
    assert load_paired(stores.private, request.id) is not None
    Queue(stores.requests).rerun(request.id)
    again = worker.run_once()
    assert again.id == request.id and again.status == Status.FINISHED and again.runs == 2
    assert again.result_path == old.result_path and again.log_path == old.log_path  # where they were
    log = stores.private.read(old.log_path).data.decode()
    assert log.count("== attempt 1 of") == 2  # both runs in the one flat log
    results = [p for p in stores.results.list() if p.endswith(f"{request.id}.json")]
    assert results == [old.result_path]
    assert json.loads(stores.results.read(old.result_path).data)["submission"]["run"] == 2
