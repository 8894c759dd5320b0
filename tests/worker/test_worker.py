"""The worker: from a submitted prediction file to a row of the aggregated table, with
real stores (folders), real worker processes, SIGKILL, failing uploads, cancels."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path

import pandas as pd
import pytest

from worker import run as run_module  # the module whose get_runner the worker calls
from evaluator.baselines import predictions
from evaluator.judges import get_judge
from evaluator.predictions import write_predictions
from evaluator.records import ScoringOptions
from evaluator.result import Result
from evaluator.runners import UNAVAILABLE_MESSAGE
from evaluator.scoring import score_file
from worker.loop import Worker, start_in_process
from worker.publish import staged_result_path
from worker.run import INTERNAL_MESSAGE, Evaluator
from results import aggregate, disclosure
from results.aggregate import TABLE_PATH, is_result_file, load_table, rebuild
from space_config.settings import Quotas, get_settings
from submissions.errors import LeaseLost, TransientStoreError
from submissions.queue import Queue
from submissions.requests import Reason, Request, Status, request_log_path, utcnow
from submissions.stores import LocalStore, RetryingStore, Stores
from submissions.submit import Identity, submit_predictions

ROOT = Path(__file__).resolve().parents[2]


# -- setting up a deployment in a temporary folder ------------------------------------------

@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("LEADERBOARD_HOME", str(home))
    monkeypatch.setenv("LEADERBOARD_STORE", "local")
    monkeypatch.setenv("LEADERBOARD_BOOTSTRAP_SAMPLES", "200")
    get_settings.cache_clear()
    yield home
    get_settings.cache_clear()


def make_settings(**worker):
    """The settings from the environment, with room for many submissions from one user."""
    settings = get_settings()
    return dataclasses.replace(settings, quotas=Quotas(per_user=1000, per_org=1000, pending_per_user=1000),
                               worker=dataclasses.replace(settings.worker, **worker))


@pytest.fixture
def deployment(home, demo_dir, demo_suite):
    """Local stores under `home` with the demo suite published, as a site would have them."""
    suite, _ = demo_suite
    stores = Stores.local(home)
    stores.suite.upload_folder(suite.id, demo_dir / "suite")
    stores.answers.upload_folder(suite.id, demo_dir / "answers")
    return stores, suite


def submit(stores, settings, suite, tmp_path: Path, seed: int, user: str = "alice") -> Request:
    """Submit the random baseline (a different file per seed) like the Submit tab does."""
    path = tmp_path / f"preds-{seed}.jsonl"
    write_predictions(path, predictions("random", suite.calls, seed=seed))
    return submit_predictions(stores, settings, Identity(user), path, f"random seed {seed}", suite_id=suite.id)


def result_files(stores) -> list[str]:
    """The names of the public result files (`<id>.json`, in their shard folders)."""
    return [p.rsplit("/", 1)[-1] for p in stores.results.list() if is_result_file(p)]


def claims(request: Request) -> list[str]:
    return [e.note for e in request.history if e.status == Status.RUNNING]


def wait_for(condition, what: str, limit: float = 120.0, every: float = 0.1):
    """Poll until `condition()` is truthy (not a timing assertion: the limit only
    keeps a broken worker from hanging the suite)."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        value = condition()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"gave up waiting for {what} after {limit:g} s")


def worker_env(home: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"LEADERBOARD_HOME": str(home), "LEADERBOARD_STORE": "local", "LEADERBOARD_BOOTSTRAP_SAMPLES": "200",
                "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"})
    env.update(extra)
    return env


def start_worker(home: Path, worker_id: str, *args: str, **env: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "evaluator.worker", "--worker-id", worker_id, *args], cwd=ROOT,
                            env=worker_env(home, **env), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)


# -- (1) submit -> a row in the table ---------------------------------------------------------

def test_prediction_file_goes_from_submit_to_a_table_row(deployment, tmp_path, demo_suite):
    stores, suite = deployment
    settings = make_settings()
    request = submit(stores, settings, suite, tmp_path, seed=1)
    assert request.status == Status.PENDING

    ran = Worker(stores, settings, worker_id="w1").run_once()

    assert ran.id == request.id and ran.status == Status.FINISHED, ran.failure
    assert ran.runs == 1 and ran.worker_id == "w1" and ran.result_path == aggregate.result_path(request.id)
    assert ran.progress.total == len(suite.calls) and ran.progress.done == ran.progress.total
    # the result file, keyed by the submission id, says what was evaluated
    result = Result.model_validate_json(stores.results.read(aggregate.result_path(request.id)).data)
    assert result.submission["id"] == request.id and result.submission["submitter"] == "alice"
    assert result.submission["file_sha256"] == request.predictions_sha256
    # the numbers are the core's, exactly as scoring the whole file at once gives them
    _, key = demo_suite
    direct = score_file(suite, key, tmp_path / "preds-1.jsonl", get_judge("normalized-match"), ScoringOptions(),
                        max_bytes=1 << 30, bootstrap_samples=200)
    assert result.counts == direct.counts
    # published with its small breakdown buckets hidden (the demo's one 4-hop Video SimpleQA
    # item among them); the staged copy in the private store keeps every score
    assert result.min_bucket_items == settings.min_bucket_items == 10
    assert result.scores == disclosure.public(direct, settings.min_bucket_items).scores != direct.scores
    assert result.scores["videosimpleqa"]["by_hop"]["4"] is None
    assert result.scores["videosimpleqa"]["suppressed"]["by_hop"]["4"] == 1
    staged = Result.model_validate_json(stores.private.read(staged_result_path(request.id)).data)
    assert staged.scores == direct.scores and staged.min_bucket_items is None
    # one row in the table the site reads, with every benchmark's headline
    table = load_table(stores.results)
    assert list(table["id"]) == [request.id]
    for name, metrics in result.scores.items():
        assert table[f"{name}.overall"].iloc[0] == metrics["overall"]
    assert table["submitter"].iloc[0] == "alice" and table["model"].iloc[0] == "random seed 1"
    # the private log tells the story
    log = stores.private.read(request_log_path(request.id)).data.decode()
    assert ran.log_path == request_log_path(request.id)
    for stage in ("claimed", "downloaded", "scored expvid", "scored videosimpleqa", "updated leaderboard.parquet",
                  "finished"):
        assert stage in log
    # the table can be rebuilt from the result files alone, identically
    pd.testing.assert_frame_equal(rebuild(stores.results), table)
    assert Worker(stores, settings).run_once() is None  # nothing left


def test_embedded_worker_picks_up_a_submission(deployment, tmp_path):
    stores, suite = deployment
    settings = make_settings(poll_seconds=0.05)
    scheduler = start_in_process(stores, settings)
    try:
        request = submit(stores, settings, suite, tmp_path, seed=2)
        queue = Queue(stores.requests)
        done = wait_for(lambda: queue.get(request.id).status == Status.FINISHED and queue.get(request.id),
                        "the embedded worker to finish the request")
        assert done.worker_id == scheduler.worker.worker_id
    finally:
        scheduler.shutdown()
    assert list(load_table(stores.results)["id"]) == [request.id]


# -- (2) two worker processes, one queue --------------------------------------------------------

def test_two_worker_processes_run_each_request_exactly_once(deployment, tmp_path, home):
    stores, suite = deployment
    settings = make_settings()
    ids = {submit(stores, settings, suite, tmp_path, seed=s, user=f"user{s % 4}").id for s in range(20)}

    # A short pause per job (the failure-drill knob) keeps both processes busy at once.
    procs = [start_worker(home, name, "--once", LEADERBOARD_WORKER_HOLD_SECONDS="0.3") for name in ("A", "B")]
    with ThreadPoolExecutor(len(procs)) as pool:  # read both pipes at once: a full pipe would block its worker
        outputs = list(pool.map(lambda p: p.communicate(timeout=600)[0], procs))
    assert [p.returncode for p in procs] == [0, 0], outputs

    requests = Queue(stores.requests).all()
    assert {r.id for r in requests} == ids
    for r in requests:
        assert r.status == Status.FINISHED, (r.id, r.failure)
        assert r.runs == 1 and r.attempt == 0
        assert len(claims(r)) == 1, r.history  # claimed once, by one worker
    assert {r.worker_id for r in requests} == {"A", "B"}  # both took part
    assert sorted(result_files(stores)) == sorted(f"{i}.json" for i in ids)
    table = load_table(stores.results)
    assert sorted(table["id"]) == sorted(ids) and len(table) == 20


# -- (3) a worker killed mid-job ------------------------------------------------------------------

def test_killed_worker_job_finishes_on_another_worker(deployment, tmp_path, home):
    stores, suite = deployment
    request = submit(stores, make_settings(), suite, tmp_path, seed=3)
    queue = Queue(stores.requests)

    a = start_worker(home, "A", "--once", LEADERBOARD_WORKER_HOLD_SECONDS="30", LEADERBOARD_LEASE_SECONDS="2")
    try:
        wait_for(lambda: (r := queue.get(request.id)).status == Status.RUNNING and r.worker_id == "A",
                 "worker A to claim the request")
        os.kill(a.pid, signal.SIGKILL)
        a.wait(timeout=30)
    finally:
        a.kill()
    assert a.returncode == -signal.SIGKILL

    b = start_worker(home, "B", LEADERBOARD_LEASE_SECONDS="2", LEADERBOARD_POLL_SECONDS="0.2")
    try:
        done = wait_for(lambda: (r := queue.get(request.id)).status in (Status.FINISHED, Status.FAILED) and r,
                        "worker B to finish the request after A's lease expired")
        b.send_signal(signal.SIGTERM)  # a clean stop between jobs
        output = b.communicate(timeout=60)[0]
    finally:
        b.kill()
    assert b.returncode == 0, output

    assert done.status == Status.FINISHED, done.failure
    assert done.worker_id == "B" and done.attempt == 1 and done.runs == 1
    notes = [e.note for e in done.history]
    assert any("claimed by A" in n for n in notes) and any("lease of A expired" in n for n in notes)
    assert any("claimed by B" in n for n in notes)
    assert result_files(stores) == [f"{request.id}.json"]
    assert list(load_table(stores.results)["id"]) == [request.id]


class PublicState(threading.Thread):
    """Reads the public state over and over while a drill runs, as a reader would: the
    table first, then the result files and the requests. Records every row whose request
    is not FINISHED and every row without its result file (baselines have no request)."""

    def __init__(self, stores):
        super().__init__(daemon=True)
        self.stores = stores
        self.halt = threading.Event()
        self.polls = 0
        self.violations: list[str] = []

    def run(self):
        while not self.halt.is_set():
            table = load_table(self.stores.results)
            rows = [i for i, kind in zip(table["id"], table["kind"]) if kind in ("predictions", "model")]
            files = set(result_files(self.stores))
            requests = {r.id: r for r in Queue(self.stores.requests).all()}
            for row in rows:
                if requests[row].status != Status.FINISHED:
                    self.violations.append(f"row {row} while its request is {requests[row].status.value}")
                if f"{row}.json" not in files:
                    self.violations.append(f"row {row} without its result file")
            self.polls += 1
            time.sleep(0.005)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.halt.set()
        self.join(timeout=30)


def kill(process: subprocess.Popen) -> None:
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL


def test_crash_drill_a_killed_once_worker_is_finished_by_the_next(deployment, tmp_path, home):
    """SIGKILL a `--once` worker mid-job. Its log lines so far are kept; a second `--once`
    worker runs what is pending, waits for the killed job's lease to run out rather than
    exiting, takes it over and finishes it; no reader ever sees a half-published state."""
    stores, suite = deployment
    first, *others = [submit(stores, make_settings(), suite, tmp_path, seed=s) for s in (11, 12, 13)]
    queue = Queue(stores.requests)
    log_path = request_log_path(first.id)

    with PublicState(stores) as reader:
        a = start_worker(home, "A", "--once", LEADERBOARD_WORKER_HOLD_SECONDS="60", LEADERBOARD_LEASE_SECONDS="3")
        try:
            # the lines are in the store while the job runs: appended at every renewal
            wait_for(lambda: (found := stores.private.read(log_path)) and b"holding" in found.data,
                     "worker A's log of the job it holds")
            assert queue.get(first.id).status == Status.RUNNING and queue.get(first.id).worker_id == "A"
            kill(a)
        finally:
            a.kill()
        b = start_worker(home, "B", "--once", LEADERBOARD_LEASE_SECONDS="3", LEADERBOARD_POLL_SECONDS="0.2")
        output = b.communicate(timeout=300)[0]
    assert b.returncode == 0, output

    requests = {r.id: r for r in queue.all()}
    assert all(r.status == Status.FINISHED for r in requests.values()), [r.status for r in requests.values()]
    taken_over = requests[first.id]
    assert taken_over.worker_id == "B" and taken_over.attempt == 1 and taken_over.runs == 1
    assert sorted(load_table(stores.results)["id"]) == sorted(requests)
    log = stores.private.read(log_path).data.decode()
    assert "on worker A" in log and "holding 60 s" in log and "on worker B" in log
    assert reader.polls > 20 and not reader.violations, reader.violations[:5]


def test_crash_drill_a_worker_killed_before_publishing(deployment, tmp_path, home):
    """SIGKILL a worker after the request is FINISHED but before its result is public:
    nothing is half-shown, and the next `--once` worker publishes it from the staged copy."""
    stores, suite = deployment
    request = submit(stores, make_settings(), suite, tmp_path, seed=14)
    queue = Queue(stores.requests)

    with PublicState(stores) as reader:
        a = start_worker(home, "A", "--once", LEADERBOARD_WORKER_HOLD_PUBLISH_SECONDS="60")
        try:
            wait_for(lambda: (found := stores.private.read(request_log_path(request.id)))
                     and b"before publishing" in found.data, "worker A to finish and hold before publishing")
            kill(a)
        finally:
            a.kill()
        assert queue.get(request.id).status == Status.FINISHED
        assert result_files(stores) == [] and request.id not in set(load_table(stores.results)["id"])
        # B publishes it once A's publish grace is over (A died: it never will)
        b = start_worker(home, "B", "--once", LEADERBOARD_PUBLISH_GRACE_SECONDS="3")
        output = b.communicate(timeout=300)[0]
    assert b.returncode == 0, output
    assert list(load_table(stores.results)["id"]) == [request.id] and result_files(stores) == [f"{request.id}.json"]
    done = queue.get(request.id)
    assert done.worker_id == "A" and done.runs == 1  # B ran nothing: it only published
    assert reader.polls > 20 and not reader.violations, reader.violations[:5]


# -- (4) failing uploads while publishing ----------------------------------------------------------

class FlakyStore:
    """A results store whose writes of the chosen paths fail with a transient error,
    the first `times` times each (or always)."""

    def __init__(self, inner, paths, times: float):
        self.inner = inner
        self.name = inner.name
        self.paths = paths
        self.times = times
        self.failures: dict[str, int] = {}

    def _maybe_fail(self, path):
        if any(path == p or path.endswith(p) for p in self.paths):
            if self.failures.get(path, 0) < self.times:
                self.failures[path] = self.failures.get(path, 0) + 1
                raise TransientStoreError(f"HTTP 503 while uploading {path}")

    def write(self, path, data, message=""):
        self._maybe_fail(path)
        return self.inner.write(path, data, message)

    def write_if(self, path, data, expected, message=""):
        self._maybe_fail(path)
        return self.inner.write_if(path, data, expected, message)

    def write_files(self, files, expected=None, message=""):
        for path in files:
            self._maybe_fail(path)
        return self.inner.write_files(files, expected, message)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def with_results(stores, results) -> Stores:
    return dataclasses.replace(stores, results=results)


def test_failed_uploads_are_retried_and_nothing_is_duplicated(deployment, tmp_path, home):
    stores, suite = deployment
    request = submit(stores, make_settings(), suite, tmp_path, seed=4)
    flaky = FlakyStore(LocalStore(home / "results", "results"), [aggregate.result_path(request.id), TABLE_PATH], times=2)
    stores = with_results(stores, RetryingStore(flaky, attempts=5, base_delay=0.001))

    ran = Worker(stores, make_settings()).run_once()

    assert ran.status == Status.FINISHED and ran.runs == 1
    assert flaky.failures == {aggregate.result_path(request.id): 2, TABLE_PATH: 2}  # both uploads failed twice
    assert result_files(stores) == [f"{request.id}.json"]
    assert list(load_table(stores.results)["id"]) == [request.id]


@pytest.mark.parametrize("failing", ["result", "table"])
def test_publishing_that_keeps_failing_is_done_by_the_next_poll(deployment, tmp_path, home, failing):
    """Choice: the evaluation is done and the request FINISHED before anything is public
    (so no reader ever sees a row whose request is not FINISHED). If the public results
    store then refuses the result (after its retries), nothing is public yet; a poll of any
    worker after the publish grace (while its own worker may still be publishing, nobody
    else does) publishes it from the staged copy, once."""
    stores, suite = deployment
    request = submit(stores, make_settings(), suite, tmp_path, seed=5)
    paths = [f"{request.id}.json"] if failing == "result" else [TABLE_PATH]
    broken = with_results(stores, RetryingStore(FlakyStore(LocalStore(home / "results", "results"), paths,
                                                           times=float("inf")), attempts=3, base_delay=0.001))

    ran = Worker(broken, make_settings(), worker_id="w1").run_once()

    assert ran.status == Status.FINISHED and ran.worker_id == "w1" and ran.runs == 1
    assert result_files(stores) == [] and stores.results.read(TABLE_PATH) is None
    assert f"publishing {request.id} failed" in stores.private.read(request_log_path(request.id)).data.decode()
    assert Worker(broken, make_settings(publish_grace_seconds=0)).publisher.publish_pending() == 0  # still refused: still nothing public

    assert Worker(stores, make_settings(publish_grace_seconds=3600), worker_id="w2").publisher.publish_pending() == 0
    assert Worker(stores, make_settings(publish_grace_seconds=0), worker_id="w2").publisher.publish_pending() == 1
    assert result_files(stores) == [f"{request.id}.json"]
    assert list(load_table(stores.results)["id"]) == [request.id]
    assert Worker(stores, make_settings(publish_grace_seconds=0), worker_id="w3").publisher.publish_pending() == 0  # once


def test_a_result_that_cannot_be_staged_is_retried_later_not_finished(deployment, tmp_path, home):
    """If the result cannot even be kept privately, the request stays RUNNING and the
    worker stops renewing: it goes back to PENDING (attempt + 1) when the lease runs out,
    and a later attempt publishes it. Nothing is public until then."""
    stores, suite = deployment
    request = submit(stores, make_settings(), suite, tmp_path, seed=5)
    broken = dataclasses.replace(stores, private=RetryingStore(FlakyStore(
        LocalStore(home / "private", "private"), [staged_result_path(request.id)], times=float("inf")),
        attempts=3, base_delay=0.001))

    ran = Worker(broken, make_settings(), worker_id="w1").run_once()

    assert ran.status == Status.RUNNING and ran.worker_id == "w1" and ran.runs == 0
    assert result_files(stores) == [] and stores.results.read(TABLE_PATH) is None
    assert "publishing failed" in stores.private.read(request_log_path(request.id)).data.decode()

    # the lease runs out (a clock an hour ahead), the request is retried and published once
    later = Queue(stores.requests, clock=lambda: utcnow() + timedelta(hours=1))
    assert [r.id for r in later.expire_leases()] == [request.id]
    again = Worker(stores, make_settings(), worker_id="w2").run_once()
    assert again.status == Status.FINISHED and again.attempt == 1 and again.runs == 1
    assert result_files(stores) == [f"{request.id}.json"]
    assert list(load_table(stores.results)["id"]) == [request.id]
    log = stores.private.read(request_log_path(request.id)).data.decode()
    assert "attempt 1 of" in log and "attempt 2 of" in log  # both attempts' lines are kept


# -- (5) failures carry a reason and a readable message ------------------------------------------------

def test_corrupted_prediction_file_fails_with_line_numbers(deployment, tmp_path):
    stores, suite = deployment
    request = submit(stores, make_settings(), suite, tmp_path, seed=6)
    stored = stores.private.read(request.predictions_path).data.splitlines(keepends=True)
    stored[1] = b'{"id": "no-such-call", "response": "A"}\n'
    stored[2] = b"{broken\n"
    stores.private.write(request.predictions_path, b"".join(stored))

    ran = Worker(stores, make_settings()).run_once()

    assert ran.status == Status.FAILED and ran.failure.reason == Reason.BAD_PREDICTIONS
    assert "line 2: unknown call id 'no-such-call'" in ran.failure.message
    assert "line 3: not valid JSON" in ran.failure.message
    assert str(stores.private.root) not in ran.failure.message  # no server paths
    assert result_files(stores) == [] and stores.results.read(TABLE_PATH) is None


def test_model_id_request_for_a_model_that_cannot_be_had_fails_as_download(deployment):
    stores, suite = deployment
    request = Queue(stores.requests).add(Request(kind="model", submitter="bob", suite_id=suite.id,
                                                 model="org/video-model", revision="0" * 40))
    ran = Worker(stores, make_settings()).run_once()  # offline: the hub model cannot be fetched
    assert ran.id == request.id and ran.status == Status.FAILED
    assert ran.failure.reason == Reason.DOWNLOAD and "org/video-model" in ran.failure.message


def test_model_id_request_without_runners_installed_says_so(deployment, monkeypatch):
    from evaluator.runners import RunnerUnavailable

    def unavailable(request, settings):
        raise RunnerUnavailable(UNAVAILABLE_MESSAGE)

    monkeypatch.setattr(run_module, "get_runner", unavailable)
    stores, suite = deployment
    Queue(stores.requests).add(Request(kind="model", submitter="bob", suite_id=suite.id,
                                       model="org/video-model", revision="0" * 40))
    ran = Worker(stores, make_settings()).run_once()
    assert ran.failure.reason == Reason.INTERNAL and ran.failure.message == UNAVAILABLE_MESSAGE


def test_model_id_request_is_scored_through_a_runner(deployment, monkeypatch):
    """The runner interface as the next issue fills it: a fake runner answering like a
    model; the worker scores its predictions and records the runner."""
    stores, suite = deployment
    seen = []

    class FakeRunner:
        name = "fake"
        settings = {"frames": 8}

        def run(self, request, suite, hidden_calls, progress_callback):
            progress_callback(0, len(suite.calls), "answering")
            seen.append(request.model)
            return predictions("first-option", suite.calls)

    monkeypatch.setattr(run_module, "get_runner", lambda request, settings: FakeRunner())
    request = Queue(stores.requests).add(Request(kind="model", submitter="bob", suite_id=suite.id,
                                                 model="org/video-model", revision="0" * 40, precision="bfloat16"))
    ran = Worker(stores, make_settings()).run_once()
    assert ran.status == Status.FINISHED, ran.failure
    assert seen == ["org/video-model"]
    row = load_table(stores.results).set_index("id").loc[request.id]
    assert row["runner"] == "fake" and row["runner.frames"] == 8 and row["revision"] == "0" * 40
    assert row["precision"] == "bfloat16"


@pytest.mark.parametrize("error, reason", [(MemoryError(), Reason.OUT_OF_MEMORY),
                                           (RuntimeError("secret detail in /srv/worker"), Reason.INTERNAL)])
def test_unexpected_errors_keep_details_private(deployment, tmp_path, monkeypatch, error, reason):
    stores, suite = deployment
    request = submit(stores, make_settings(), suite, tmp_path, seed=7)

    def explode(*args, **kwargs):
        raise error

    monkeypatch.setattr(Evaluator, "_score", explode)
    ran = Worker(stores, make_settings()).run_once()
    assert ran.status == Status.FAILED and ran.failure.reason == reason
    if reason == Reason.INTERNAL:
        assert ran.failure.message == INTERNAL_MESSAGE
    public = stores.requests.read(request.path).data.decode()
    assert "secret detail" not in public and "Traceback" not in public
    log = stores.private.read(request_log_path(request.id)).data.decode()
    assert "Traceback" in log and type(error).__name__ in log


def test_missing_upload_fails_as_download(deployment, tmp_path):
    stores, suite = deployment
    request = submit(stores, make_settings(), suite, tmp_path, seed=8)
    stores.private.delete(request.predictions_path)
    ran = Worker(stores, make_settings()).run_once()
    assert ran.status == Status.FAILED and ran.failure.reason == Reason.DOWNLOAD
    assert "could not download your uploaded prediction file" in ran.failure.message


def test_job_over_its_time_limit_fails_as_timeout(deployment, tmp_path):
    stores, suite = deployment
    request = submit(stores, make_settings(), suite, tmp_path, seed=9)
    settings = make_settings(job_timeout_seconds=0.3, hold_seconds=60, lease_seconds=3)
    ran = Worker(stores, settings).run_once()  # the hold is cut short by the time limit
    assert ran.id == request.id and ran.status == Status.FAILED and ran.failure.reason == Reason.TIMEOUT
    assert "time limit of 0.3 s" in ran.failure.message
    assert result_files(stores) == []


# -- (6) cancelled while running ----------------------------------------------------------------

def test_cancel_while_running_stops_the_worker_and_publishes_nothing(deployment, tmp_path):
    stores, suite = deployment
    request = submit(stores, make_settings(), suite, tmp_path, seed=10)
    worker = Worker(stores, make_settings(hold_seconds=60, lease_seconds=0.6))
    queue = Queue(stores.requests)
    outcome = []
    thread = threading.Thread(target=lambda: outcome.append(worker.run_once()))
    thread.start()
    wait_for(lambda: queue.get(request.id).status == Status.RUNNING, "the worker to claim the request")

    queue.cancel(request.id)
    thread.join(timeout=60)  # the heartbeat's next renew sees the cancel and wakes the job
    assert not thread.is_alive()

    assert outcome[0].status == Status.CANCELLED and outcome[0].runs == 0
    assert result_files(stores) == [] and stores.results.read(TABLE_PATH) is None
    log = stores.private.read(request_log_path(request.id)).data.decode()
    assert "stopped, nothing published" in log


def test_cli_help():
    done = subprocess.run([sys.executable, "-m", "evaluator.worker", "--help"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and "--once" in done.stdout and "--worker-id" in done.stdout


def test_python_m_worker_is_the_same_command(tmp_path):
    # evaluator/worker.py is only the entry point users type; `python -m worker` runs the same main
    env = {**os.environ, "LEADERBOARD_HOME": str(tmp_path), "LEADERBOARD_STORE": "local"}
    runs = [subprocess.run([sys.executable, "-m", module, "--request", "r1"], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=120) for module in ("evaluator.worker", "worker")]
    assert [r.returncode for r in runs] == [1, 1]
    assert all("--request needs --worker-id" in r.stderr for r in runs)
    helps = [subprocess.run([sys.executable, "-m", module, "--help"], cwd=ROOT, capture_output=True, text=True,
                            timeout=120).stdout for module in ("evaluator.worker", "worker")]
    assert helps[0] == helps[1] and "--dispatch" in helps[0]


def test_a_request_claimed_elsewhere_runs_under_its_claim(deployment, tmp_path):
    # what a Hugging Face Job runs: `python -m evaluator.worker --request ID --worker-id <the claim's>`
    stores, suite = deployment
    request = submit(stores, make_settings(), suite, tmp_path, seed=1)
    Queue(stores.requests).claim("dispatch-1", 600)
    with pytest.raises(LeaseLost):
        Worker(stores, make_settings(), worker_id="someone-else").run_claimed(request.id)
    ran = Worker(stores, make_settings(), worker_id="dispatch-1").run_claimed(request.id)
    assert ran.status == Status.FINISHED and ran.worker_id == "dispatch-1" and len(claims(ran)) == 1


def test_a_job_whose_request_was_cancelled_before_it_started_leaves_quietly(deployment, home, tmp_path):
    # a dispatcher's job can start after a maintainer cancelled its request: nothing to run, no
    # traceback, exit 0 (the dispatcher records nothing against a request that is not its own)
    stores, suite = deployment
    request = submit(stores, make_settings(), suite, tmp_path, seed=1)
    Queue(stores.requests).claim("dispatch-1", 600)
    Queue(stores.requests).cancel(request.id)
    done = subprocess.run([sys.executable, "-m", "evaluator.worker", "--request", request.id, "--worker-id",
                           "dispatch-1"], cwd=ROOT, env=worker_env(home), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "nothing to run" in done.stderr and "CANCELLED" in done.stderr and "Traceback" not in done.stderr
    assert Queue(stores.requests).get(request.id).status == Status.CANCELLED


def test_a_worker_grades_each_judged_benchmark_with_its_own_judge(deployment, tmp_path, monkeypatch):
    """LEADERBOARD_JUDGE_VIDEOSIMPLEQA names a remote judge (a local OpenAI-compatible server
    over real HTTP) shown 2 frames of each video; ExpVid keeps the matcher. The result and
    the table row record both judges and what the remote one cost."""
    import huggingface_hub.constants
    from judge_server import JudgeServer

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)  # the local server only
    stores, suite = deployment
    with JudgeServer() as server:
        for name, value in {"LEADERBOARD_JUDGE_VIDEOSIMPLEQA": "openai:grader-1", "LEADERBOARD_JUDGE_FRAMES": "2",
                            "LEADERBOARD_JUDGE_BASE_URL": server.url + "/v1", "LEADERBOARD_JUDGE_API_KEY": "sk-w",
                            "LEADERBOARD_JUDGE_PRICE_IN": "1.0"}.items():
            monkeypatch.setenv(name, value)
        get_settings.cache_clear()
        settings = make_settings()
        request = submit(stores, settings, suite, tmp_path, seed=3)
        ran = Worker(stores, settings, worker_id="w1").run_once()
        asked = list(server.requests)
    assert ran.status == Status.FINISHED, ran.failure
    assert asked and {r["images"] for r in asked} == {2} and {r["auth"] for r in asked} == {"Bearer sk-w"}
    result = Result.model_validate_json(stores.results.read(aggregate.result_path(request.id)).data)
    assert result.judge["by_benchmark"]["videosimpleqa"]["id"] == "openai:grader-1"
    assert result.judge["by_benchmark"]["expvid"]["id"] == "normalized-match@5"
    usage = result.judge_usage["videosimpleqa"]
    assert usage["requests"] == len(asked) and usage["cost_usd"] == pytest.approx(usage["prompt_tokens"] / 1e6)
    row = load_table(stores.results).set_index("id").loc[request.id]
    assert row["cost.judge_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
