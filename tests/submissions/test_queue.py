"""The request queue on a real LocalStore and on the Hub stand-in: claim order, leases, expiry and
retries, maintainers' moves, races between claimers (threads and processes), and the
maintainer CLI (in-process and in a real subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from submissions.errors import ConflictError, LeaseLost, NotFoundError
from submissions.queue import InvalidTransition, Queue
from submissions.requests import Progress, Reason, Request, Status, request_path

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)
LEASE = 60.0


class FakeClock:
    def __init__(self, now: datetime = T0 + timedelta(hours=1)):
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def local_store(root: Path):
    from submissions.stores.local import LocalStore

    root.mkdir(parents=True, exist_ok=True)
    return LocalStore(root, "requests")


def make_request(i: int, **kw) -> Request:
    fields = dict(id=f"req-{i:02d}", kind="predictions", submitter="alice", suite_id="demo-v1-abc",
                  model=f"model-{i}", submitted_at=T0 + timedelta(minutes=i), predictions_sha256=f"{i:064x}")
    fields.update(kw)
    return Request(**fields)


@pytest.fixture(params=["local", "hub"])
def store(request, tmp_path):
    """The requests store: a folder, or a Hub dataset repo on the stand-in (tests/hub_standin.py)
    through the real HfApi; every queue test below runs on both."""
    if request.param == "local":
        return local_store(tmp_path / "requests")
    return request.getfixturevalue("hub_standin").stores("q", cache_dir=tmp_path / "cache").requests


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def queue(store, clock):
    return Queue(store, clock=clock)


def notes(r: Request) -> list[str]:
    return [e.note for e in r.history]


# ---- claiming ---------------------------------------------------------------------------------

def test_claim_takes_highest_priority_then_oldest(queue):
    # added out of order on purpose: the order comes from the requests, not from the files
    for i, priority in ((3, 5), (0, 0), (2, 5), (1, 0)):
        queue.add(make_request(i, priority=priority))
    order = [queue.claim("w1", LEASE).id for _ in range(4)]
    assert order == ["req-02", "req-03", "req-00", "req-01"]
    assert queue.claim("w1", LEASE) is None


def test_claim_returns_none_when_nothing_is_pending(queue, clock):
    assert queue.claim("w1", LEASE) is None  # empty store
    queue.add(make_request(0))
    queue.claim("w1", LEASE)
    assert queue.claim("w2", LEASE) is None  # only a RUNNING one with a live lease


def test_claim_sets_the_lease_and_persists_it(queue, clock):
    queue.add(make_request(0))
    claimed = queue.claim("w1", LEASE)
    stored = queue.get("req-00")
    assert stored == claimed
    assert stored.status == Status.RUNNING and stored.worker_id == "w1"
    assert stored.lease_until == clock.now + timedelta(seconds=LEASE)
    assert stored.started_at == clock.now and stored.attempt == 0
    assert notes(stored) == ["claimed by w1 (attempt 1 of 3)"]
    assert stored.history[-1].at == clock.now  # history is timed by the queue's clock


class InterleavingStore:
    """Delegates to a real store; before the first write_if it lets `before_write` run,
    which is how a rival that read the same file writes first."""

    def __init__(self, inner, before_write):
        self.inner, self.before_write, self.writes = inner, before_write, 0

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def write_if(self, path, data, expected, message=""):
        self.writes += 1
        if self.writes == 1:
            self.before_write()
        return self.inner.write_if(path, data, expected, message)


def test_racing_claimers_each_get_a_different_request(store, clock):
    rival = Queue(store, clock=clock)
    for i in range(3):
        rival.add(make_request(i))
    # we read req-00 as PENDING; the rival claims it before our write lands
    ours = Queue(InterleavingStore(store, lambda: rival.claim("w2", LEASE)), clock=clock)
    mine = ours.claim("w1", LEASE)
    assert mine.id == "req-01" and mine.worker_id == "w1"
    first = rival.get("req-00")
    assert first.worker_id == "w2" and notes(first) == ["claimed by w2 (attempt 1 of 3)"]
    assert rival.claim("w3", LEASE).id == "req-02"
    assert rival.claim("w3", LEASE) is None


def test_claim_retries_after_a_conflict_on_an_unchanged_request(store, clock):
    # on the Hub any commit to the repo makes a write_if conflict: the claim must re-read and win
    queue = Queue(store, clock=clock)
    queue.add(make_request(0))
    queue.add(make_request(1))

    class ConflictOnce(InterleavingStore):
        def write_if(self, path, data, expected, message=""):
            self.writes += 1
            if self.writes == 1:
                raise ConflictError("someone committed elsewhere in the repo")
            return self.inner.write_if(path, data, expected, message)

    flaky = ConflictOnce(store, None)
    claimed = Queue(flaky, clock=clock).claim("w1", LEASE)
    assert claimed.id == "req-00" and flaky.writes == 2
    assert notes(queue.get("req-00")) == ["claimed by w1 (attempt 1 of 3)"]


def test_an_update_gives_up_after_bounded_conflicts(store, clock):
    Queue(store, clock=clock).add(make_request(0))

    class AlwaysConflict(InterleavingStore):
        def write_if(self, path, data, expected, message=""):
            self.writes += 1
            raise ConflictError("busy")

    busy = AlwaysConflict(store, None)
    with pytest.raises(ConflictError, match="req-00.*4 times"):
        Queue(busy, clock=clock, conflict_retries=4, backoff_seconds=0).cancel("req-00")
    assert busy.writes == 4
    assert Queue(store).get("req-00").status == Status.PENDING


def test_claim_moves_on_when_a_candidate_stays_contended(store, clock):
    queue = Queue(store, clock=clock)
    queue.add(make_request(0))
    queue.add(make_request(1))

    class HotFirst(InterleavingStore):
        def write_if(self, path, data, expected, message=""):
            if path == request_path("req-00"):
                raise ConflictError("busy")
            return self.inner.write_if(path, data, expected, message)

    claimed = Queue(HotFirst(store, None), clock=clock, conflict_retries=3, backoff_seconds=0).claim("w1", LEASE)
    assert claimed.id == "req-01"
    assert queue.get("req-00").status == Status.PENDING


def _claim_all(root: Path, worker: str, barrier: threading.Barrier, out: list) -> None:
    queue = Queue(local_store(root))  # its own store object, as another process would have
    barrier.wait()
    while (r := queue.claim(worker, LEASE)) is not None:
        out.append((r.id, worker))


def test_many_threads_claim_each_request_exactly_once(tmp_path):
    root = tmp_path / "requests"
    queue = Queue(local_store(root))
    for i in range(30):
        queue.add(make_request(i, submitted_at=T0 + timedelta(seconds=i)))
    claims: list = []
    barrier = threading.Barrier(8)
    threads = [threading.Thread(target=_claim_all, args=(root, f"w{n}", barrier, claims)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ids = [i for i, _ in claims]
    assert sorted(ids) == [f"req-{i:02d}" for i in range(30)]  # all claimed, none twice
    for request_id, worker in claims:  # the file agrees with who thinks they hold it
        stored = queue.get(request_id)
        assert stored.status == Status.RUNNING and stored.worker_id == worker
        assert sum(n.startswith("claimed by") for n in notes(stored)) == 1


CLAIMER = """
import sys
from pathlib import Path
from submissions.queue import Queue
from submissions.stores.local import LocalStore
queue = Queue(LocalStore(Path(sys.argv[1]), "requests"))
sys.stdin.readline()  # start together
while (r := queue.claim(sys.argv[2], 60)) is not None:
    print(r.id, flush=True)
"""


def test_many_processes_claim_each_request_exactly_once(tmp_path):
    root = tmp_path / "requests"
    queue = Queue(local_store(root))
    for i in range(30):
        queue.add(make_request(i, submitted_at=T0 + timedelta(seconds=i)))
    procs = [subprocess.Popen([sys.executable, "-c", CLAIMER, str(root), f"p{n}"], cwd=ROOT, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for n in range(4)]
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    outputs = [p.communicate(timeout=120) for p in procs]
    for p, (_, err) in zip(procs, outputs):
        assert p.returncode == 0, err
    claims = {f"p{n}": out.split() for n, (out, _) in enumerate(outputs)}
    ids = [i for got in claims.values() for i in got]
    assert sorted(ids) == [f"req-{i:02d}" for i in range(30)]
    for worker, got in claims.items():
        assert all(queue.get(i).worker_id == worker for i in got)


# ---- the worker's side: renew, finish, fail ------------------------------------------------------

def test_renew_extends_the_lease_and_records_progress(queue, clock):
    queue.add(make_request(0))
    queue.claim("w1", LEASE)
    clock.advance(45)
    renewed = queue.renew("req-00", "w1", LEASE, Progress(done=3, total=10, stage="scoring expvid"))
    stored = queue.get("req-00")
    assert stored == renewed
    assert stored.lease_until == clock.now + timedelta(seconds=LEASE)
    assert stored.progress == Progress(done=3, total=10, stage="scoring expvid")
    assert len(stored.history) == 1  # renewals are not history
    clock.advance(45)  # past the first lease, within the renewed one
    assert queue.expire_leases() == []
    assert queue.renew("req-00", "w1", LEASE).progress.done == 3  # no progress given: kept


def test_only_the_owner_can_renew_finish_or_fail(queue):
    queue.add(make_request(0))
    queue.claim("w1", LEASE)
    before = queue.get("req-00")
    with pytest.raises(LeaseLost, match="w2 no longer holds request req-00: it is now RUNNING on w1"):
        queue.renew("req-00", "w2", LEASE)
    with pytest.raises(LeaseLost):
        queue.finish("req-00", "w2", "req-00.json", "abc", None)
    with pytest.raises(LeaseLost):
        queue.fail("req-00", "w2", Reason.INTERNAL, "boom", None)
    assert queue.get("req-00") == before


def test_finish_records_the_run(queue, clock):
    queue.add(make_request(0))
    queue.claim("w1", LEASE)
    clock.advance(10)
    done = queue.finish("req-00", "w1", "req-00.json", "code-1", "logs/req-00.log")
    assert queue.get("req-00") == done
    assert done.status == Status.FINISHED and done.runs == 1 and done.finished_at == clock.now
    assert (done.result_path, done.code_version, done.log_path) == ("req-00.json", "code-1", "logs/req-00.log")
    assert done.lease_until is None
    assert notes(done)[-1] == "finished by w1 (run 1, code code-1)"
    with pytest.raises(LeaseLost, match="it is now FINISHED"):
        queue.renew("req-00", "w1", LEASE)


def test_fail_carries_a_reason_and_a_readable_message(queue):
    queue.add(make_request(0))
    queue.claim("w1", LEASE)
    failed = queue.fail("req-00", "w1", Reason.BAD_PREDICTIONS, "line 3: unknown call id 'x'", "logs/req-00.log")
    stored = queue.get("req-00")
    assert stored == failed and stored.status == Status.FAILED
    assert stored.failure.reason == Reason.BAD_PREDICTIONS
    assert stored.failure.message == "line 3: unknown call id 'x'"
    assert stored.log_path == "logs/req-00.log" and stored.lease_until is None
    assert notes(stored)[-1] == "failed on w1: bad_predictions"
    assert queue.claim("w1", LEASE) is None  # FAILED is not retried by itself


# ---- lease expiry ------------------------------------------------------------------------------

def test_expired_leases_go_back_to_pending_then_fail_after_max_attempts(queue, clock):
    queue.add(make_request(0))
    queue.claim("w1", LEASE)
    clock.advance(LEASE - 1)
    assert queue.expire_leases() == []  # still within the lease

    clock.advance(2)
    [back] = queue.expire_leases()
    assert back.status == Status.PENDING and back.attempt == 1 and back.worker_id is None
    assert back.lease_until is None
    assert notes(back)[-1] == "lease of w1 expired (attempt 2 of 3 next)"
    with pytest.raises(LeaseLost, match="it is now PENDING"):
        queue.renew("req-00", "w1", LEASE)  # the dead worker woke up: too late

    second = queue.claim("w2", LEASE)
    assert second.attempt == 1 and notes(second)[-1] == "claimed by w2 (attempt 2 of 3)"
    clock.advance(LEASE + 1)
    third = queue.claim("w3", LEASE)  # claim expires stale leases first, then takes it again
    assert third.id == "req-00" and third.attempt == 2 and third.worker_id == "w3"

    clock.advance(LEASE + 1)
    [failed] = queue.expire_leases()
    assert failed.status == Status.FAILED and failed.failure.reason == Reason.TIMEOUT
    assert "stopped responding 3 times" in failed.failure.message
    assert failed.attempt == 3 and failed.lease_until is None
    assert notes(queue.get("req-00")) == [
        "claimed by w1 (attempt 1 of 3)", "lease of w1 expired (attempt 2 of 3 next)",
        "claimed by w2 (attempt 2 of 3)", "lease of w2 expired (attempt 3 of 3 next)",
        "claimed by w3 (attempt 3 of 3)", "lease of w3 expired (attempt 3 of 3, no attempts left)"]
    assert queue.claim("w4", LEASE) is None and queue.expire_leases() == []


def test_max_attempts_comes_from_the_request(queue, clock):
    queue.add(make_request(0, max_attempts=1))
    queue.claim("w1", LEASE)
    clock.advance(LEASE + 1)
    assert queue.claim("w2", LEASE) is None
    assert queue.get("req-00").failure.reason == Reason.TIMEOUT


# ---- maintainers --------------------------------------------------------------------------------

def test_cancel_a_pending_request(queue):
    queue.add(make_request(0))
    cancelled = queue.cancel("req-00")
    assert queue.get("req-00").status == Status.CANCELLED == cancelled.status
    assert notes(cancelled) == ["cancelled by maintainer"]
    assert queue.claim("w1", LEASE) is None


def test_cancel_a_running_request_stops_its_worker(queue):
    queue.add(make_request(0))
    queue.claim("w1", LEASE)
    cancelled = queue.cancel("req-00")
    assert cancelled.status == Status.CANCELLED and cancelled.lease_until is None
    assert notes(cancelled)[-1] == "cancelled by maintainer while running on w1"
    with pytest.raises(LeaseLost, match="it is now CANCELLED"):
        queue.renew("req-00", "w1", LEASE, Progress(done=1, total=2))
    with pytest.raises(LeaseLost):
        queue.finish("req-00", "w1", "req-00.json", "code-1", None)
    assert queue.get("req-00").status == Status.CANCELLED
    with pytest.raises(InvalidTransition, match="req-00 is CANCELLED"):
        queue.cancel("req-00")


def _failed(queue: Queue) -> Request:
    queue.add(make_request(0))
    queue.claim("w1", LEASE)
    return queue.fail("req-00", "w1", Reason.OUT_OF_MEMORY, "ran out of GPU memory", None)


def test_requeue_a_failed_request(queue):
    _failed(queue)
    again = queue.requeue("req-00")
    assert again.status == Status.PENDING and again.attempt == 0 and again.failure is None
    assert again.worker_id is None and again.started_at is None and again.finished_at is None
    assert notes(again)[-1] == "requeued by maintainer (was FAILED: out_of_memory)"
    assert queue.claim("w2", LEASE).id == "req-00"


def test_requeue_a_cancelled_request_and_refuse_others(queue):
    queue.add(make_request(0))
    queue.cancel("req-00")
    assert queue.requeue("req-00").status == Status.PENDING
    with pytest.raises(InvalidTransition, match="req-00 is PENDING: only FAILED or CANCELLED"):
        queue.requeue("req-00")
    queue.claim("w1", LEASE)
    queue.finish("req-00", "w1", "req-00.json", "code-1", None)
    with pytest.raises(InvalidTransition, match="use rerun"):
        queue.requeue("req-00")


def test_rerun_keeps_the_old_result_until_the_new_run_replaces_it(queue):
    queue.add(make_request(0))
    queue.claim("w1", LEASE)
    queue.finish("req-00", "w1", "req-00.json", "code-1", None)

    again = queue.rerun("req-00")
    assert again.status == Status.PENDING and again.attempt == 0
    assert (again.result_path, again.code_version, again.runs) == ("req-00.json", "code-1", 1)  # still published
    assert again.metadata["rerun_of_code_version"] == "code-1"
    assert again.metadata["rerun_of_suite_id"] == "demo-v1-abc"
    assert notes(again)[-1] == "rerun requested by maintainer (previous run: code code-1)"

    queue.claim("w2", LEASE)
    done = queue.finish("req-00", "w2", "req-00.json", "code-2", None)
    assert (done.result_path, done.code_version, done.runs) == ("req-00.json", "code-2", 2)
    queue.add(make_request(1))
    with pytest.raises(InvalidTransition, match="req-01 is PENDING: only FINISHED requests can be rerun"):
        queue.rerun("req-01")


def test_rerun_against_a_new_suite(queue):
    queue.add(make_request(0))
    queue.claim("w1", LEASE)
    queue.finish("req-00", "w1", "req-00.json", "code-1", None)
    again = queue.rerun("req-00", suite_id="demo-v2-def")
    assert again.suite_id == "demo-v2-def" and again.metadata["rerun_of_suite_id"] == "demo-v1-abc"
    assert "suite demo-v1-abc -> demo-v2-def" in notes(again)[-1]
    assert queue.get("req-00").suite_id == "demo-v2-def"


def test_priority_moves_a_request_to_the_front(queue):
    for i in range(3):
        queue.add(make_request(i))
    changed = queue.set_priority("req-02", 3)
    assert changed.priority == 3 and notes(changed) == ["priority 0 -> 3 by maintainer"]
    assert queue.set_priority("req-02", 3).history == changed.history  # no change, no event
    assert [queue.claim("w1", LEASE).id for _ in range(3)] == ["req-02", "req-00", "req-01"]


def test_unknown_ids_are_named_in_the_error(queue):
    for call in (queue.get, queue.cancel, queue.requeue, queue.rerun, lambda i: queue.set_priority(i, 1),
                 lambda i: queue.renew(i, "w1", LEASE)):
        with pytest.raises(NotFoundError, match="no submission with id 'nope' in the requests store"):
            call("nope")
    with pytest.raises(NotFoundError, match="is not a submission id"):
        queue.get("../requests/x")


def test_add_never_overwrites(queue):
    queue.add(make_request(0))
    queue.claim("w1", LEASE)
    with pytest.raises(ConflictError, match="req-00 already exists"):
        queue.add(make_request(0))
    assert queue.get("req-00").status == Status.RUNNING


def test_all_lists_requests_oldest_first_and_skips_unreadable_files(queue, store, caplog):
    for i in (2, 0, 1):
        queue.add(make_request(i))
    store.write("broken.json", b"{not json")
    store.write("README.md", b"# requests")
    assert [r.id for r in queue.all()] == ["req-00", "req-01", "req-02"]
    assert "broken.json" in caplog.text


def test_requests_spread_over_shard_folders_and_older_top_level_ones_still_work(queue, store):
    """A Hub folder holds at most 10,000 entries: requests live in 16 x 16 folders by a hash
    of their id. A request stored at the top level before sharding is read and updated where
    it is."""
    for i in range(40):
        queue.add(make_request(i))
    paths = [p for p in store.list() if p.endswith(".json") and not p.startswith("admission/")]
    folders = {p.rsplit("/", 1)[0] for p in paths}
    assert all(p.count("/") == 2 for p in paths) and len(folders) > 20
    assert request_path("req-00") in paths
    legacy = make_request(99)
    store.write(f"{legacy.id}.json", legacy.to_bytes())  # as stored before sharding
    assert queue.get(legacy.id).status == Status.PENDING and legacy.id in {r.id for r in queue.all()}
    queue.cancel(legacy.id)
    assert queue.get(legacy.id).status == Status.CANCELLED
    assert store.read(request_path(legacy.id)) is None  # updated in place, not copied into a shard


# ---- the maintainer CLI ----------------------------------------------------------------------------

@pytest.fixture
def home(tmp_path, monkeypatch):
    """A LEADERBOARD_HOME with a few requests in its local requests store."""
    from space_config.settings import get_settings
    from submissions.stores import Stores

    home = tmp_path / "home"
    monkeypatch.setenv("LEADERBOARD_HOME", str(home))
    monkeypatch.setenv("LEADERBOARD_STORE", "local")
    get_settings.cache_clear()
    queue = Queue(Stores.local(home).requests)
    for i in range(3):
        queue.add(make_request(i, submitter=f"user{i}"))
    queue.claim("w1", LEASE)  # req-00 RUNNING (real clock: its lease is live)
    queue.fail(queue.claim("w1", LEASE).id, "w1", Reason.DOWNLOAD, "model repo not found", None)  # req-01
    yield home
    get_settings.cache_clear()


def _requests(home: Path) -> Queue:
    from submissions.stores import Stores

    return Queue(Stores.local(home).requests)


def test_cli_list_shows_a_table_and_filters(home, capsys):
    from cli.queue import main

    assert main(["queue", "list"]) == 0
    out = capsys.readouterr().out
    header, *rows = out.splitlines()
    assert header.split() == ["id", "status", "kind", "model", "submitter", "attempt", "progress", "priority",
                              "age", "failure"]
    assert rows[0].split()[:6] == ["req-00", "RUNNING", "predictions", "model-0", "user0", "1/3"]
    assert rows[1].split()[1] == "FAILED" and rows[1].split()[-1] == "download"
    assert "1 PENDING, 1 RUNNING, 1 FAILED" in out

    assert main(["queue", "list", "--status", "failed", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in listed] == ["req-01"]
    assert listed[0]["failure"] == {"reason": "download", "message": "model repo not found"}

    assert main(["queue", "list", "--status", "cancelled"]) == 0
    assert capsys.readouterr().out.strip() == "no CANCELLED requests"

    assert main(["queue", "show", "req-01"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert [e["note"] for e in shown["history"]] == ["claimed by w1 (attempt 1 of 3)", "failed on w1: download"]


def test_cli_changes_go_to_the_store(home, capsys):
    from cli.queue import main

    assert main(["queue", "priority", "req-02", "7"]) == 0
    assert "req-02: priority 7 (PENDING)" in capsys.readouterr().out
    assert main(["queue", "requeue", "req-01"]) == 0
    assert "req-01: requeued by maintainer (was FAILED: download); now PENDING" in capsys.readouterr().out
    assert main(["queue", "cancel", "req-00"]) == 0
    out = capsys.readouterr().out
    assert "cancelled by maintainer while running on w1" in out and "worker w1 drops the work" in out

    queue = _requests(home)
    assert [queue.get(i).status for i in ("req-00", "req-01", "req-02")] == \
        [Status.CANCELLED, Status.PENDING, Status.PENDING]
    assert queue.claim("w2", LEASE).id == "req-02"  # priority 7 first
    queue.finish("req-02", "w2", "req-02.json", "code-1", None)
    assert main(["queue", "rerun", "req-02"]) == 0
    out = capsys.readouterr().out
    assert "req-02: rerun requested by maintainer (previous run: code code-1); now PENDING" in out
    assert "(req-02.json, code code-1) stays published" in out
    assert queue.get("req-02").metadata["rerun_of_code_version"] == "code-1"


def test_cli_refusals_exit_2_with_a_reason(home, capsys):
    from cli.queue import main

    assert main(["queue", "cancel", "nope"]) == 2
    assert capsys.readouterr().err.strip() == "error: no submission with id 'nope' in the requests store"
    assert main(["queue", "rerun", "req-01"]) == 2
    assert "error: request req-01 is FAILED: only FINISHED requests can be rerun" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["queue", "list", "--status", "done"])
    assert exit_.value.code == 2 and "unknown status 'done'" in capsys.readouterr().err


def _run_cli(home: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, LEADERBOARD_HOME=str(home), LEADERBOARD_STORE="local")
    return subprocess.run([sys.executable, "-m", "submissions.cli", *args], check=False, cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def test_cli_in_a_real_process(home):
    done = _run_cli(home, "queue", "priority", "req-02", "4")
    assert done.returncode == 0, done.stderr
    done = _run_cli(home, "queue", "cancel", "req-02")
    assert done.returncode == 0 and "req-02: cancelled by maintainer; now CANCELLED" in done.stdout
    done = _run_cli(home, "queue", "requeue", "req-01")
    assert done.returncode == 0, done.stderr
    done = _run_cli(home, "queue", "list", "--status", "PENDING")
    assert done.returncode == 0, done.stderr
    assert [line.split()[0] for line in done.stdout.splitlines()[1:] if line.startswith("req-")] == ["req-01"]
    stored = _requests(home).get("req-02")
    assert stored.status == Status.CANCELLED and stored.priority == 4

    done = _run_cli(home, "queue", "requeue", "missing-id")
    assert done.returncode == 2
    assert done.stderr.strip() == "error: no submission with id 'missing-id' in the requests store"


def test_cli_table_marks_stale_leases_and_counts_attempts(queue, clock):
    from cli.queue import format_table

    queue.add(make_request(0))
    queue.add(make_request(1, max_attempts=1))
    queue.claim("w1", LEASE)
    queue.claim("w1", LEASE)
    clock.advance(LEASE + 1)
    table = format_table(queue.all(), clock.now)
    assert [line.split()[1:3] for line in table.splitlines()[1:]] == [["RUNNING", "(lease"], ["RUNNING", "(lease"]]
    queue.expire_leases()
    rows = [line.split() for line in format_table(queue.all(), clock.now).splitlines()[1:]]
    assert [(row[1], row[5], row[-1]) for row in rows] == [("PENDING", "2/3", "-"), ("FAILED", "1/1", "timeout")]
    assert rows[0][-2] == "1h"  # age: an hour and a minute since it was submitted
