"""Holding a claimed request: the lease heartbeat, progress, the time limit and the
cooperative stop flag (`Job`). The claim itself and the loop around it are the
Worker's (worker/loop.py)."""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from typing import TypeVar

from submissions.errors import LeaseLost, StoreError, TransientStoreError
from submissions.requests import Progress, Reason, Request
from worker.errors import JobStopped
from worker.joblog import JobLog

log = logging.getLogger("evaluator.worker")

FRESH_SECONDS = 1.0  # a renew this recent proves we still own the request
# The most a job waits out the Hub's rate limits in one step (`Job.patiently`): several of its
# 5-minute windows, refused in a row while many workers share a token; longer means it is down.
RATE_LIMIT_PATIENCE = 1800.0
T = TypeVar("T")


def default_worker_id() -> str:
    return f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"


class Job:
    """A claimed request while it runs: the lease heartbeat, progress, the time limit
    and the cooperative stop flag that the work checks between steps."""

    def __init__(self, worker, request: Request, joblog: JobLog):
        # worker: the Worker (worker/loop.py) that claimed it; untyped here, as loop imports this module
        self.worker = worker
        self.request = request
        self.log = joblog
        settings = worker.settings.worker
        self.lease_seconds = settings.lease_seconds
        self.timeout_seconds = settings.job_timeout_seconds
        self.deadline = time.monotonic() + settings.job_timeout_seconds
        self.progress_state = Progress()
        self._progress_written = time.monotonic()  # the claim recorded progress 0
        self.renewed_at = time.monotonic()  # last time the store confirmed we own the request
        self.stop_reason: str | None = None
        self.publishing = False  # past this point the time limit no longer applies
        self.paired: dict | None = None  # per-video statistics for comparisons (evaluator.paired), private
        self.raw_outputs: bytes | None = None  # a model run's answers (evaluator/raw_outputs.py), staged with its result
        self._stop = threading.Event()  # set: the work must stop
        self._done = threading.Event()  # set: the heartbeat must end
        self._lock = threading.Lock()  # orders stop / timeout / publish decisions
        self._renew_lock = threading.Lock()  # one renew at a time from this worker
        self._thread = threading.Thread(target=self._heartbeat, name=f"lease-{request.id}", daemon=True)

    # the heartbeat thread

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        self._done.set()
        self._stop.set()  # wakes a hold that is still waiting
        self._thread.join(timeout=5)

    def _heartbeat(self) -> None:
        interval = self.lease_seconds / 3
        beat = interval
        while True:
            wait = max(0.0, min(beat, self.deadline - time.monotonic()))
            if self._done.wait(wait):
                return
            if self._over_time():
                self._enforce_timeout()
                return
            try:
                self.renew()
                beat = interval
            except LeaseLost as e:
                self._halt(f"lease lost: {e}")
                return
            except Exception as e:  # noqa: BLE001 - a store hiccup: the lease may still hold; try again
                log.warning("could not renew the lease of %s: %s", self.request.id, e)
                beat = _next_try(e, interval)
                if getattr(e, "retry_after", None) is not None:
                    continue  # the Hub asks the token to wait, for every repo: the log waits with it
            self.log.flush(self.worker.stores.private)  # what a kill would lose is one beat's lines

    def renew(self) -> None:
        with self._renew_lock:
            self.request = self.worker.queue.renew(self.request.id, self.worker.worker_id, self.lease_seconds,
                                                   self.progress_state)
            self.renewed_at = time.monotonic()

    # stopping

    def _halt(self, reason: str) -> bool:
        """Mark the job stopped (once); True if this call did it."""
        with self._lock:
            if self.stop_reason is not None or self.publishing:
                return False
            self.stop_reason = reason
            self._stop.set()
        self.log.add(f"stopping: {reason}")
        return True

    def _over_time(self) -> bool:
        return time.monotonic() >= self.deadline and not self.publishing

    def _enforce_timeout(self) -> None:
        """Fail the request now (from whichever thread notices first), even if the work
        itself is stuck in a long step and cannot look at the stop flag yet."""
        if self._halt(f"over the time limit of {self.timeout_seconds:g} s"):
            hours = self.timeout_seconds / 3600
            limit = f"{hours:g} h" if hours >= 1 else f"{self.timeout_seconds:g} s"
            self.worker._record_failure(self, Reason.TIMEOUT, (
                f"The evaluation took longer than the worker's time limit of {limit} and was stopped. "
                f"Nothing was published; a maintainer can requeue it with a longer limit."))

    def check(self) -> None:
        """Raise JobStopped if the work must stop; called between steps."""
        if self._over_time():
            self._enforce_timeout()
        if self._stop.is_set():
            raise JobStopped(self.stop_reason or "stopped")

    def hold(self, seconds: float) -> None:
        """Pause (failure drills), waking early if the job is stopped."""
        self._stop.wait(seconds)
        self.check()

    def patiently(self, what: str, call: Callable[[], T]) -> T:
        """`call()`, waiting out the Hub's rate limits (a refusal that says how long to wait)
        for up to RATE_LIMIT_PATIENCE seconds in all: the heartbeat keeps the lease meanwhile,
        so the wait costs no work, where failing would cost the submission its run. A stop
        (cancel, time limit) ends the wait with JobStopped; other errors are the caller's."""
        waited = 0.0
        while True:
            try:
                return call()
            except TransientStoreError as e:
                if e.retry_after is None or waited + e.retry_after > RATE_LIMIT_PATIENCE:
                    raise
                self.log.add(f"{what}: the Hub asks to wait {e.retry_after:.0f} s; waiting, the lease kept")
                waited += e.retry_after
                self.hold(e.retry_after)

    def progress(self, done: int, total: int, stage: str) -> None:
        """Record progress in the request (renewing the lease); raises JobStopped when
        the job must stop. This is the runners' progress_callback."""
        self.check()
        self.progress_state = Progress(done=done, total=total, stage=stage)
        # Each record is a store write (a commit on the Hub, whose commit quota is per hour):
        # write at most every progress_seconds; the heartbeat's renewals carry the rest.
        now = time.monotonic()
        if now - self._progress_written < self.worker.settings.worker.progress_seconds:
            return
        self._progress_written = now
        try:
            self.renew()
        except LeaseLost as e:
            self._halt(f"lease lost: {e}")
            raise JobStopped(self.stop_reason) from None
        except StoreError as e:  # progress is nice to have; the heartbeat keeps the lease
            log.warning("could not record progress of %s: %s", self.request.id, e)

    def begin_publish(self) -> None:
        """From here on the job completes: no time limit, and one last check that we
        still own the request (a cancel that came in means: publish nothing)."""
        with self._lock:
            if self._stop.is_set():
                raise JobStopped(self.stop_reason or "stopped")
            self.publishing = True
        if time.monotonic() - self.renewed_at < FRESH_SECONDS:
            return  # ownership was confirmed a moment ago (the last progress record)
        try:  # a read, not a renewal: on the Hub a renewal is a commit, and finish proves ownership anyway
            self.worker.queue.check_owner(self.request.id, self.worker.worker_id)
        except LeaseLost as e:
            raise JobStopped(f"lease lost: {e}") from None


def _next_try(error: Exception, interval: float) -> float:
    """Seconds to the next renewal after a failed one: as soon as the Hub lets us in again
    (its rate limit's reset), not a whole beat later while the lease runs down; at most a beat."""
    wait = getattr(error, "retry_after", None)
    return interval if wait is None else min(interval, max(wait, 1.0))
