"""Archiving finished requests (submissions/archive.py, `python -m evaluator queue archive`):
requests that ended long ago move from the live shards to `archive/<yyyy-mm>/<h>/<h>/<id>.json`
in bounded steps, each one write that adds the archived copies and deletes the live ones.

Through the real queue, on a local store and on the Hub stand-in (tests/hub_standin.py, its
folder cap set low): nothing is lost or left in both places, a change made during the run is
kept, reading by id and every reader that needs history still find archived requests, a rerun
brings one back live, quotas and duplicate checks answer as before, and a second run moves
nothing."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest
from test_near_duplicates import blanked, lines_of, write
from test_submit import ALICE, make_settings, stores, suite_id  # noqa: F401 - fixtures

from evaluator.shards import flat_path
from results import aggregate
from evaluator.suite import load_suite
from submissions.archive import BATCH, archivable, archive_age, archive_requests, minimum_age
from submissions.errors import ConflictError, Refused, SubmissionError
from submissions.queue import Queue
from submissions.quotas import quota_usage
from submissions.request_files import archive_path, read_request
from submissions.requests import Failure, Reason, Request, Status, request_path, utcnow
from submissions.stores import LocalStore, RetryingStore
from submissions.submit import remaining_quota, submit_predictions

ROOT = Path(__file__).resolve().parents[2]
LEASE = 600.0
BOUND = timedelta(days=40)
CAP, COUNT = 50, 300


class Clock:
    def __init__(self, now):
        self.now = now

    def __call__(self):
        return self.now


def requests_store(kind: str, tmp_path: Path, request):
    """(requests store, the stand-in or None): a local folder, or a repo of the Hub stand-in."""
    if kind == "local":
        return RetryingStore(LocalStore(tmp_path / "requests", "requests")), None
    standin = request.getfixturevalue("hub_standin")
    return standin.stores("arch", cache_dir=tmp_path / "cache").requests, standin


def stored_paths(store, standin) -> set[str]:
    return set(standin.files(f"arch/{standin.prefix}-requests")) if standin else set(store.list())


def folder_sizes(paths) -> dict[str, int]:
    """Entries (files and folders) of every folder holding `paths`."""
    entries: dict[str, set[str]] = {}
    for path in paths:
        parts = path.split("/")
        for depth in range(len(parts)):
            entries.setdefault("/".join(parts[:depth]) or "/", set()).add(parts[depth])
    return {folder: len(names) for folder, names in entries.items()}


def make(i: int, at=None, **fields) -> Request:
    extra = {"submitted_at": at} if at is not None else {}
    return Request(kind="predictions", submitter=f"user{i % 7}", suite_id="demo-v1", model=f"model {i}",
                   predictions_sha256=f"{i:064x}", **extra, **fields)


def through_the_queue(queue: Queue, count: int, clock=None) -> list[str]:
    """`count` requests added, claimed and ended through `queue`: most FINISHED, every 10th
    FAILED, every 15th CANCELLED before it ran."""
    ids = [queue.add(make(i, at=clock() if clock else None)).id for i in range(count)]
    for i, id in enumerate(ids):
        if i % 15 == 14:
            queue.cancel(id)
    while (claimed := queue.claim("w", LEASE)) is not None:
        if int(claimed.model.split()[-1]) % 10 == 9:
            queue.fail(claimed.id, "w", Reason.TIMEOUT, "too slow", None)
        else:
            queue.finish(claimed.id, "w", f"{claimed.id}.json", "c1", None)
    return ids


def snapshot(queue: Queue) -> dict[str, dict]:
    return {r.id: r.model_dump(mode="json") for r in queue.all()}


# -- moving files: one step, all or nothing ---------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["local", "hub"])
def test_a_write_that_deletes_moves_files_in_one_step_or_not_at_all(kind, tmp_path, request):
    store, standin = requests_store(kind, tmp_path, request)
    version = store.write("live/a.json", b"A")
    commits = len(standin.history(f"arch/{standin.prefix}-requests")) if standin else 0
    with pytest.raises(ConflictError):  # a stale version: nothing is written, nothing deleted
        store.write_files({"archive/a.json": b"A"}, {"live/a.json": "0" * 64 if kind == "local" else
                                                     f"{'0' * 40}:{'0' * 40}:{'0' * 64}", "archive/a.json": None},
                          delete=["live/a.json"])
    assert store.read("live/a.json").data == b"A" and store.read("archive/a.json") is None
    store.write_files({"archive/a.json": b"A"}, {"live/a.json": version, "archive/a.json": None},
                      message="move a", delete=["live/a.json"])
    assert store.read("live/a.json") is None and store.read("archive/a.json").data == b"A"
    if standin:
        history = standin.history(f"arch/{standin.prefix}-requests")
        assert len(history) == commits + 1  # the add and the delete are one commit


def test_a_move_whose_reply_is_lost_is_read_back_not_redone(hub_standin, tmp_path):
    store = hub_standin.stores("arch", cache_dir=tmp_path / "cache").requests
    version = store.write("live/a.json", b"A")
    hub_standin.lose_reply_next("commit", how="500")
    store.write_files({"archive/a.json": b"A"}, {"live/a.json": version, "archive/a.json": None},
                      delete=["live/a.json"])
    assert store.read("live/a.json") is None and store.read("archive/a.json").data == b"A"


# -- hundreds of requests ----------------------------------------------------------------------------------------

def test_hundreds_of_requests_archived_keep_every_folder_under_the_cap_and_lose_nothing(hub_standin, tmp_path):
    """With the folder cap at 50, a few hundred requests that went through the queue (FINISHED,
    FAILED, CANCELLED; a few stored flat, as before sharding; two still waiting or running) are
    archived: in steps of BATCH, one commit each, every folder under the cap, every id read back
    by id and in the listing exactly as it was, the results untouched; a second run moves nothing."""
    local = Queue(RetryingStore(LocalStore(tmp_path / "local", "requests")))
    ids = through_the_queue(local, COUNT)  # through the queue on a local store: quicker than over HTTP
    for id in ids[:3]:  # stored the way requests were before sharding
        local.store.write(flat_path(request_path(id)), local.store.read(request_path(id)).data)
        local.store.delete(request_path(id))
    waiting = local.add(make(COUNT)).id
    running = local.add(make(COUNT + 1, priority=1)).id
    assert local.claim("w2", LEASE).id == running
    stores = hub_standin.stores("arch", cache_dir=tmp_path / "cache")
    hub_standin.entry_cap = CAP
    stores.requests.write_files({path: local.store.read(path).data for path in local.store.list()},
                                message="the requests, as the local queue left them")
    stores.results.write_files({aggregate.result_path(id): json.dumps({"id": id}).encode() for id in ids},
                               message="their results")
    queue = Queue(stores.requests)
    before, results = snapshot(queue), hub_standin.files(f"arch/{hub_standin.prefix}-results")
    assert before == snapshot(local) and len(before) == COUNT + 2
    repo = f"arch/{hub_standin.prefix}-requests"
    commits = len(hub_standin.history(repo))

    done = archive_requests(stores.requests, BOUND, utcnow() + BOUND + timedelta(days=1))
    assert sorted(done.moved) == sorted(ids) and not done.kept and not done.contended
    assert done.steps == -(-COUNT // BATCH) and len(hub_standin.history(repo)) == commits + done.steps
    files = set(hub_standin.files(repo))
    sizes = folder_sizes(files)
    assert max(sizes.values()) <= CAP, max(sizes.items(), key=lambda kv: kv[1])
    assert {archive_path(id) for id in ids} <= files
    assert not files & ({request_path(id) for id in ids} | {flat_path(request_path(id)) for id in ids})
    assert snapshot(queue) == before  # every request, as it was
    assert [r.id for r in queue.live()] == [waiting, running]  # the work: all a worker reads
    for id in ids[::7] + ids[:3]:
        assert queue.get(id).model_dump(mode="json") == before[id]
    assert hub_standin.files(f"arch/{hub_standin.prefix}-results") == results

    again = archive_requests(stores.requests, BOUND, utcnow() + BOUND + timedelta(days=1))
    assert again.moved == [] and again.steps == 0 and len(hub_standin.history(repo)) == commits + done.steps


# -- a run while workers and a maintainer write ------------------------------------------------------------------

class ChangedDuringTheRun:
    """The requests store as the archive run sees it: just before its first step is written, a
    maintainer reruns one request of that step and gives another a new priority."""

    def __init__(self, inner, maintainer: Queue):
        self.inner, self.maintainer, self.changed = inner, maintainer, []

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def write_files(self, files, expected=None, message="", delete=()):
        if delete and not self.changed:
            step = [self.maintainer.get(Path(path).stem) for path in delete]
            rerun = next(r.id for r in step if r.status == Status.FINISHED)
            moderated = next(r.id for r in step if r.id != rerun)
            self.maintainer.rerun(rerun)
            self.maintainer.set_priority(moderated, 5)
            self.changed = [rerun, moderated]
        return self.inner.write_files(files, expected, message, delete=delete)


def work(root_queue: Queue, worker: str, done: threading.Event, claims: list) -> None:
    """A worker: claim and finish until the run is over and nothing is left to claim."""
    queue = Queue(root_queue.store, backoff_seconds=0.005)
    while True:
        claimed = queue.claim(worker, LEASE)
        if claimed is None:
            if done.is_set() and not any(r.status == Status.PENDING for r in queue.live()):
                return
            time.sleep(0.01)
            continue
        claims.append(claimed.id)
        queue.finish(claimed.id, worker, f"{claimed.id}.json", "c2", None)


@pytest.mark.parametrize("kind", ["local", "hub"])
def test_a_run_while_workers_claim_and_a_maintainer_reruns_loses_nothing(kind, tmp_path, request):
    store, standin = requests_store(kind, tmp_path, request)
    old = Clock(utcnow() - timedelta(days=60))
    ended = through_the_queue(Queue(store, clock=old), 40, clock=old)
    before = snapshot(Queue(store))
    fresh = [Queue(store).add(make(100 + i)).id for i in range(20)]  # waiting while the run goes on
    run = ChangedDuringTheRun(store, Queue(store))
    finished, claims = threading.Event(), []
    workers = [threading.Thread(target=work, args=(Queue(store), f"w{n}", finished, claims)) for n in range(3)]
    for thread in workers:
        thread.start()
    try:
        done = archive_requests(run, BOUND, utcnow(), batch=10)
    finally:
        finished.set()
        for thread in workers:
            thread.join(timeout=120)
    rerun, moderated = run.changed
    assert sorted(done.moved) == sorted(set(ended) - {rerun, moderated}) and not done.contended
    queue = Queue(store)
    now = {r.id: r for r in queue.all()}
    assert sorted(now) == sorted(ended + fresh)  # every request, once
    assert sorted(claims) == sorted(fresh + [rerun])  # each claimed once, the rerun one again
    assert all(now[id].status == Status.FINISHED and now[id].runs == 1 for id in fresh)
    assert now[rerun].status == Status.FINISHED and now[rerun].runs == 2
    assert now[moderated].priority == 5 and now[moderated].status == Status(before[moderated]["status"])
    for id in set(ended) - {rerun, moderated}:
        assert now[id].model_dump(mode="json") == before[id]
    paths = stored_paths(store, standin)
    assert {request_path(id) for id in fresh + [rerun, moderated]} <= paths  # live
    assert {archive_path(id) for id in done.moved} <= paths  # archived
    assert not {archive_path(id) for id in fresh + [rerun, moderated]} & paths  # and nowhere twice
    assert not {request_path(id) for id in done.moved} & paths
    assert archive_requests(store, BOUND, utcnow()).moved == []  # the next run finds nothing old enough


# -- reading, and changing, archived requests --------------------------------------------------------------------

def test_an_archived_request_is_read_by_id_and_a_rerun_brings_it_back_live(tmp_path):
    store = RetryingStore(LocalStore(tmp_path / "requests", "requests"))
    old = Clock(utcnow() - timedelta(days=60))
    ids = through_the_queue(Queue(store, clock=old), 15, clock=old)  # 9: FAILED, 14: CANCELLED
    assert len(archive_requests(store, BOUND, utcnow()).moved) == 15
    queue = Queue(store)
    assert queue.live() == [] and sorted(r.id for r in queue.all()) == sorted(ids)
    assert read_request(store, ids[0])[0] == archive_path(ids[0])

    assert queue.rerun(ids[0]).status == Status.PENDING  # back in the live shards, where workers look
    assert read_request(store, ids[0])[0] == request_path(ids[0]) and store.read(archive_path(ids[0])) is None
    assert queue.requeue(ids[9]).status == Status.PENDING
    assert queue.set_priority(ids[14], 3).priority == 3  # still CANCELLED: changed where it is, in the archive
    assert read_request(store, ids[14])[0] == archive_path(ids[14])
    assert sorted(r.id for r in queue.live()) == sorted([ids[0], ids[9]])
    assert {queue.claim("w", LEASE).id, queue.claim("w", LEASE).id} == {ids[0], ids[9]}
    again = queue.finish(ids[0], "w", "r.json", "c3", None)
    assert again.runs == 2 and again.result_path == "r.json"


def test_a_request_moved_while_it_is_read_by_id_is_found(tmp_path):
    """Read by id looks live, then archived, then live again: a move either way between two
    looks is caught by the next one."""
    store = LocalStore(tmp_path / "requests", "requests")
    r = make(1, status=Status.FAILED, failure=Failure(reason=Reason.TIMEOUT, message="x"))
    live = store.write(r.path, r.to_bytes())

    class MovesBack:  # the archive is looked at just after the request went back live
        def __init__(self, inner):
            self.inner, self.name, self.reads = inner, inner.name, []

        def read(self, path):
            self.reads.append(path)
            if len(self.reads) == 1:  # live: archived just before we look
                self.inner.write_files({archive_path(r.id): r.to_bytes()}, {r.path: live}, delete=[r.path])
            if path == archive_path(r.id):  # archived: moved back just before we look
                found = self.inner.read(path)
                self.inner.write_files({r.path: found.data}, {path: found.version}, delete=[path])
            return self.inner.read(path)

    path, found = read_request(MovesBack(store), r.id)
    assert path == r.path and Request.from_bytes(found.data).id == r.id


# -- the readers that need history --------------------------------------------------------------------------------

def age(store, id: str, days: int) -> None:
    """Make a stored request as if it had been submitted, and had ended, `days` days earlier."""
    found = store.read(request_path(id))
    r = Request.from_bytes(found.data)
    shift = timedelta(days=days)
    r.submitted_at -= shift
    r.finished_at = r.finished_at - shift if r.finished_at else None
    for event in r.history:
        event.at -= shift
    store.write_if(request_path(id), r.to_bytes(), found.version)


def test_quotas_duplicates_and_near_duplicates_answer_as_before(stores, suite_id, tmp_path, demo_dir):
    settings = dataclasses.replace(make_settings(tmp_path, per_user=3, per_org=10, pending_per_user=10))
    suite = load_suite(demo_dir / "suite")
    a = lines_of(suite)
    old = submit_predictions(stores, settings, ALICE, write(tmp_path / "a.jsonl", a), "Vid-7B")
    recent = submit_predictions(stores, settings, ALICE, write(tmp_path / "b.jsonl", lines_of(suite, seed=1)), "Vid-8B")
    queue = Queue(stores.requests)
    for id in (old.id, recent.id):
        assert queue.claim("w", LEASE).id == id
        queue.finish(id, "w", f"{id}.json", "c1", None)
    age(stores.requests, old.id, 60)

    def answers():
        refusals = []
        for name, lines in (("again.jsonl", a), ("near.jsonl", blanked(a, suite.calls[0].id))):
            with pytest.raises(Refused) as refused:
                submit_predictions(stores, settings, ALICE, write(tmp_path / name, lines), "Vid-7B again")
            refusals.append((refused.value.reason, old.id in str(refused.value)))
        usage = quota_usage(queue.all(), ALICE.username, None, settings.quotas, utcnow())
        return refusals, {k: u.as_dict() for k, u in usage.items()}, remaining_quota(stores, settings, ALICE)

    before = answers()
    assert before[0] == [("duplicate", True), ("near_duplicate", True)] and before[2]["per_user"]["used"] == 1
    assert archive_requests(stores.requests, archive_age(settings), utcnow()).moved == [old.id]
    assert read_request(stores.requests, old.id)[0] == archive_path(old.id)
    assert answers() == before


# -- the bound and the command ------------------------------------------------------------------------------------

def test_the_bound_is_never_shorter_than_the_quota_window(tmp_path):
    settings = make_settings(tmp_path, window_days=20)
    assert minimum_age(settings) == timedelta(days=20)
    assert archive_age(settings) == timedelta(days=50)  # the window and a margin, by default
    assert archive_age(settings, 25) == timedelta(days=25)
    with pytest.raises(SubmissionError, match="shorter than the longest window"):
        archive_age(settings, 19)


def test_the_command_archives_what_ended_long_ago_and_keeps_unpublished_results_live(tmp_path):
    home = tmp_path / "home"
    store = RetryingStore(LocalStore(home / "requests", "requests"))
    old = Clock(utcnow() - timedelta(days=60))
    ids = through_the_queue(Queue(store, clock=old), 15, clock=old)  # no results table: none published
    ended = [id for i, id in enumerate(ids) if i in (9, 14)]  # FAILED and CANCELLED: nothing to publish
    env = {**os.environ, "LEADERBOARD_STORE": "local", "LEADERBOARD_HOME": str(home), "PYTHONPATH": str(ROOT)}

    def queue_archive(*args):
        return subprocess.run([sys.executable, "-m", "evaluator", "queue", "archive", *args], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=120)

    refused = queue_archive("--older-than-days", "3")
    assert refused.returncode == 2 and "shorter than the longest window" in refused.stderr
    dry = queue_archive("--dry-run")
    assert dry.returncode == 0 and "2 would move" in dry.stdout and "13 FINISHED" in dry.stdout
    assert sorted(archivable(store, archive_age(make_settings(tmp_path)), utcnow())[0]) == sorted(ids)  # no keep rule
    done = queue_archive("--batch", "1")
    assert done.returncode == 0, done.stderr
    assert "2 moved to the archive in 2 commits" in done.stdout and "13 FINISHED" in done.stdout
    assert {id for id in ids if store.read(archive_path(id))} == set(ended)
    assert "0 moved" in queue_archive().stdout
