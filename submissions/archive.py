"""Archiving finished requests (`python -m evaluator queue archive`): requests that ended long
ago move from the live shards, `<h>/<h>/<id>.json`, to `archive/<yyyy-mm>/<h>/<h>/<id>.json`
(submissions/request_files.py: archive_path), so that what reads only the live work (a
worker's claim scan, lease expiry, publish check) reads fewer files, and no folder fills up.

- What moves: a live request in a final status (FINISHED, FAILED, CANCELLED) whose submission
  and last change are both older than the bound, unless `keep` keeps it (the command keeps a
  FINISHED one whose result is not in the table yet: a worker still has to publish it).
- The bound is never shorter than `minimum_age`: the longest window over which anything reads
  recent requests (the quota window counts submissions by their time, so an archived request is
  always outside it). The default adds DEFAULT_MARGIN.
- How: BATCH requests per step, each step one `write_files` (one commit on the Hub) that adds
  the archived copies and deletes the live ones, on condition that every live file is still at
  the version read and no archived copy appeared meanwhile. A request changed since it was read
  (a rerun, a correction, a moderator's cancel or priority) makes the step conflict and nothing
  of it is written: the store is read again and the step decided again, so no change is lost.
- Run it again and it moves nothing: what it moved is no longer live.

    done = archive_requests(stores.requests, archive_age(settings), utcnow(), keep=unpublished)
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from space_config.settings import Settings
from submissions.errors import ConflictError, NotFoundError, SubmissionError
from submissions.request_files import FINAL, SHARD_GLOB, archive_path
from submissions.requests import Request
from submissions.stores.base import Store

log = logging.getLogger(__name__)

BATCH = 50  # requests per step: an add and a delete each, 100 operations (the Hub advises under 100 files a commit)
DEFAULT_MARGIN = timedelta(days=30)  # kept live beyond the longest window: recent history stays cheap to change
CONFLICT_RETRIES = 10  # a step that keeps conflicting is left for the next run


@dataclass
class Archived:
    """What one run did: the ids moved, those kept live by `keep`, those that kept changing
    under it (left live for the next run), and the steps (commits) it took."""

    moved: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    contended: list[str] = field(default_factory=list)
    steps: int = 0


@dataclass(frozen=True)
class _Candidate:
    request: Request
    path: str  # where it lives now
    data: bytes  # its bytes as read, copied as they are
    version: str  # the version they were read at
    leftover: str | None  # the version of a copy already at its archive path (a move cut short), else None


def minimum_age(settings: Settings) -> timedelta:
    """The longest window over which the live queue alone must answer for recent requests: the
    quota window, a job's time limit with a lease (a request stays RUNNING through it), the grace
    before another worker publishes a finished result."""
    worker = settings.worker
    return max(timedelta(days=settings.quotas.window_days),
               timedelta(seconds=worker.job_timeout_seconds + worker.lease_seconds),
               timedelta(seconds=worker.publish_grace_seconds))


def archive_age(settings: Settings, days: float | None = None) -> timedelta:
    """How old a finished request must be to move: `days`, or by default `minimum_age` plus
    DEFAULT_MARGIN; SubmissionError for `days` under `minimum_age`."""
    least = minimum_age(settings)
    if days is None:
        return least + DEFAULT_MARGIN
    if timedelta(days=days) < least:
        raise SubmissionError(f"--older-than-days {days:g} is shorter than the longest window that reads recent "
                              f"requests ({_days(least)} days: the quota window is {settings.quotas.window_days}); "
                              f"archiving sooner would change what they count")
    return timedelta(days=days)


def last_change(request: Request) -> datetime:
    """When `request` last changed: the latest of its submission, its end and its history."""
    times = [request.submitted_at, request.finished_at, *(event.at for event in request.history[-1:])]
    return max(t if t.tzinfo else t.replace(tzinfo=timezone.utc) for t in times if t is not None)


def archivable(store: Store, older_than: timedelta, now: datetime,
               keep: Callable[[Request], bool] | None = None) -> tuple[list[str], list[str]]:
    """(the ids a run would move now, those `keep` keeps live), reading the store once."""
    kept: dict[str, None] = {}
    found = _candidates(store, now - older_than, set(), keep, kept)
    return [c.request.id for c in found], list(kept)


def archive_requests(store: Store, older_than: timedelta, now: datetime, *, batch: int = BATCH,
                     keep: Callable[[Request], bool] | None = None,
                     on_step: Callable[[list[str]], None] | None = None, backoff_seconds: float = 0.05) -> Archived:
    """Move every live request in a final status last changed before `now - older_than` to the
    archive, `batch` per step (`on_step(ids)` after each); see the module's docstring."""
    if batch < 1:
        raise ValueError(f"a step moves at least one request, not {batch}")
    done, kept, skip = Archived(), {}, set()
    cutoff, conflicts = now - older_than, 0
    todo = _candidates(store, cutoff, skip, keep, kept)
    while todo:
        step, rest = todo[:batch], todo[batch:]
        ids = [c.request.id for c in step]
        try:
            _move(store, step)
        except ConflictError as e:  # one of them changed since it was read: read again, decide again
            conflicts += 1
            if conflicts > CONFLICT_RETRIES:
                log.warning("left %d requests live: they kept changing while being archived (%s)", len(ids), e)
                done.contended += ids
                skip.update(ids)
                conflicts, todo = 0, rest
                continue
            time.sleep(random.uniform(0, backoff_seconds * 2 ** min(conflicts, 6)))
            todo = _candidates(store, cutoff, skip, keep, kept)
            continue
        conflicts, todo = 0, rest
        done.moved += ids
        done.steps += 1
        skip.update(ids)
        if on_step is not None:
            on_step(ids)
    done.kept = [id for id in kept if id not in skip]
    return done


def _move(store: Store, step: list[_Candidate]) -> None:
    """One step: the archived copies added and the live files deleted together, each live file
    expected at the version read and each archive path as it was (absent, or a leftover copy)."""
    files = {archive_path(c.request.id): c.data for c in step}
    expected = {c.path: c.version for c in step} | {archive_path(c.request.id): c.leftover for c in step}
    first, last = step[0].request.id, step[-1].request.id
    span = f"{first} ... {last}" if len(step) > 1 else first
    store.write_files(files, expected, message=f"Archive {len(step)} finished requests ({span})",
                      delete=[c.path for c in step])


def _candidates(store: Store, cutoff: datetime, skip: set[str], keep: Callable[[Request], bool] | None,
                kept: dict[str, None]) -> list[_Candidate]:
    """The live requests to move, oldest first, read from one snapshot of the store."""
    try:
        folder = store.local_folder("")
    except NotFoundError:
        return []  # nothing was ever stored
    found = []
    for file in sorted([*folder.glob(SHARD_GLOB), *folder.glob("*.json")]):
        try:
            data = file.read_bytes()
            request = Request.from_bytes(data)
        except (FileNotFoundError, ValueError):
            continue  # gone since listed, or unreadable: read_all warns about those
        if request.id in skip or request.status not in FINAL or last_change(request) >= cutoff:
            continue
        if keep is not None and keep(request):
            kept[request.id] = None
            continue
        found.append(_Candidate(request, file.relative_to(folder).as_posix(), data, store.version_of(data, folder),
                                _leftover(store, folder, request.id)))
    return sorted(found, key=lambda c: (c.request.submitted_at, c.request.id))


def _leftover(store: Store, folder: Path, id: str) -> str | None:
    try:
        return store.version_of((folder / archive_path(id)).read_bytes(), folder)
    except FileNotFoundError:
        return None


def _days(span: timedelta) -> str:
    return f"{span.total_seconds() / 86400:g}"


__all__ = ["BATCH", "DEFAULT_MARGIN", "Archived", "archivable", "archive_age", "archive_requests", "last_change",
           "minimum_age"]
