"""The Worker: claims requests from the queue and runs each one (the lease in
worker/job.py, the evaluation in worker/run.py, publishing in worker/publish.py); and
its scheduling, polling forever (`serve`) or inside the site's process (`start_in_process`)."""

from __future__ import annotations

import logging
import os
import signal
import threading
import traceback
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.schedulers.blocking import BlockingScheduler

from evaluator.polling import IdlePolls
from evaluator.reference import reading_options
from submissions.errors import LeaseLost, StoreError, TransientStoreError
from submissions.queue import Queue
from submissions.requests import Reason, Request, Status
from worker.job import Job, default_worker_id
from worker.errors import JobStopped, PublishFailed
from worker.joblog import JobLog
from worker.publish import Publisher
from worker.run import Evaluator, classify

if TYPE_CHECKING:
    from space_config.settings import Settings
    from submissions.stores import Stores

log = logging.getLogger("evaluator.worker")

JOB_NAME = "evaluator-worker"  # the scheduler job's id (see `wake`)


class _SkippedPolls(logging.Filter):
    """Hide APScheduler's warning that a poll was skipped because the previous one is
    still running: with max_instances=1 that is the intended behaviour, not news."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not (JOB_NAME in message and "maximum number of running instances" in message)


logging.getLogger("apscheduler.scheduler").addFilter(_SkippedPolls())


class Worker:
    """Claims requests and runs them one at a time: the loop and one job here; each job
    evaluated by its `evaluator` (run.py) and made public by its `publisher` (publish.py)."""

    def __init__(self, stores: "Stores", settings: "Settings", worker_id: str | None = None):
        self.stores = stores
        self.settings = settings
        self.worker_id = worker_id or default_worker_id()
        self.queue = Queue(stores.requests)
        self.options = reading_options(settings.readings,
                                       grade_truncated_reasoning=settings.grade_truncated_reasoning)
        self.evaluator = Evaluator(stores, settings, self.options)
        self.publisher = Publisher(stores, settings, self.queue, self.worker_id)
        self._stopping = threading.Event()  # serve(): finish the current job, take no more
        self._busy = threading.Lock()  # held while draining the queue
        self.idle = IdlePolls(settings.worker.poll_seconds, settings.worker.poll_max_seconds)

    # -- the loop -------------------------------------------------------------------

    def run_once(self) -> Request | None:
        """Claim one request and run it; the request as it ended, or None if nothing
        was pending."""
        request = self.queue.claim(self.worker_id, self.settings.worker.lease_seconds)
        if request is None:
            return None
        return self._run(request)

    def run_claimed(self, id: str) -> Request:
        """Run a request that was claimed for this worker id elsewhere (a dispatcher);
        LeaseLost if it is not RUNNING for us."""
        return self._run(self.queue.check_owner(id, self.worker_id))

    def drain(self, wait_for_others: bool = False) -> int:
        """Run requests until the queue has none pending (or a shutdown was asked for);
        how many were run. With `wait_for_others` (`--once`), requests RUNNING on other
        workers are waited for too: until they end, or their lease runs out and this
        worker takes them over. A store that cannot be reached ends this round only.
        Without it, an idle worker looks only as often as `IdlePolls` says (evaluator/polling.py)."""
        with self._busy:
            if not wait_for_others and not self.idle.due():
                return 0
            try:
                head = self.stores.requests.head()  # before the look: a change after it shows next time
            except StoreError as e:
                log.warning("the queue is unreachable (%s); trying again at the next poll", e)
                return 0
            if not wait_for_others and self.idle.unchanged(head, self.queue.clock()):
                self.idle.empty(head, self.idle.lease_ends)  # one call, and a longer wait
                return 0
            count = self._drain(wait_for_others)
            if count:
                self.idle.busy()
            else:
                self.idle.empty(head, self._first_lease_end())
            return count

    def _drain(self, wait_for_others: bool) -> int:
        count = 0
        while not self._stopping.is_set():
            try:
                self.publisher.publish_pending()
                if self.run_once() is not None:
                    count += 1
                    continue
                pause = self._others_running() if wait_for_others else None
            except TransientStoreError as e:
                if not wait_for_others:
                    log.warning("the queue is unreachable (%s); trying again at the next poll", e)
                    break
                # --once means "until the queue is done", not "until the Hub says wait" (a 429)
                pause = max(e.retry_after or 0.0, self.settings.worker.poll_seconds)
                log.warning("the queue is unreachable (%s); trying again in %.0f s", e, pause)
            except StoreError as e:
                log.warning("the queue is unreachable (%s); trying again at the next poll", e)
                break
            if pause is None:
                break
            self._stopping.wait(pause)
        return count

    def _first_lease_end(self) -> datetime | None:
        """When the first lease of a request RUNNING elsewhere runs out (None: none is)."""
        try:
            ends = [r.lease_until for r in self.queue.live() if r.status == Status.RUNNING and r.lease_until]
        except StoreError:
            return None
        return min(ends, default=None)

    def _others_running(self) -> float | None:
        """Seconds to wait before looking again while other workers hold RUNNING requests
        (at most a poll interval, and no longer than the first lease still has) or may still be
        publishing a result they finished (until its publish grace ends), or None when neither."""
        running = [r for r in self.queue.live() if r.status == Status.RUNNING]
        now = self.queue.clock()
        if not running:  # a result its own worker may still be publishing: wait for it, or for its grace
            recent = self.publisher.unpublished()[1]
            ends = [r.finished_at + timedelta(seconds=self.settings.worker.publish_grace_seconds) for r in recent]
            return min(max(min((e - now).total_seconds() for e in ends), 0.1),
                       self.settings.worker.poll_seconds) if ends else None
        left = min(((r.lease_until - now).total_seconds() for r in running if r.lease_until), default=0.0)
        return min(max(left, 0.1), self.settings.worker.poll_seconds)

    def stop(self) -> None:
        """Ask `drain` to stop after the current job."""
        self._stopping.set()

    def serve(self) -> None:
        """Poll the queue every poll_seconds until SIGINT/SIGTERM. The first signal lets
        the current job finish and then exits; a second one exits at once (the job's
        lease then expires and another worker runs it again)."""
        scheduler = BlockingScheduler()
        _add_poll_job(scheduler, self)

        def on_signal(signum, frame):
            if self._stopping.is_set():
                log.warning("second signal: exiting now; the current job will be retried elsewhere")
                os._exit(128 + signum)
            log.info("signal %s: finishing the current job, then exiting", signum)
            self.stop()
            # not from inside the handler: the scheduler may hold its own locks right now
            threading.Thread(target=scheduler.shutdown, kwargs={"wait": False}, daemon=True).start()

        previous = {}
        if threading.current_thread() is threading.main_thread():  # only there can Python take signals
            previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
        log.info("worker %s polling every %g s", self.worker_id, self.settings.worker.poll_seconds)
        try:
            scheduler.start()
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)
        with self._busy:  # the job running in the scheduler's thread ends first
            pass
        log.info("worker %s stopped", self.worker_id)

    # -- one job ---------------------------------------------------------------------

    def _run(self, request: Request) -> Request:
        joblog = JobLog(request, self.worker_id)
        joblog.add(f"claimed {request.id}: {request.kind} '{request.model}' on suite {request.suite_id} "
                   f"(submitted {request.submitted_at.isoformat()} by {request.submitter})")
        job = Job(self, request, joblog)
        job.start()
        try:
            if self.settings.worker.hold_seconds > 0:
                joblog.add(f"holding {self.settings.worker.hold_seconds:g} s (failure drill: "
                           f"LEADERBOARD_WORKER_HOLD_SECONDS)")
                job.hold(self.settings.worker.hold_seconds)
            result = self.evaluator.evaluate(job)
            self.publisher.publish(job, result)
        except JobStopped as e:
            joblog.add(f"stopped, nothing published: {e}")
            joblog.flush(self.stores.private)
        except PublishFailed as e:
            # Leave it RUNNING and stop renewing: the lease runs out and the request is
            # retried (attempt + 1), like after a crash; nothing is marked FINISHED.
            joblog.add(f"publishing failed, the request will be retried after its lease expires: {e}")
            joblog.flush(self.stores.private)
        except Exception as e:  # noqa: BLE001 - every failure is recorded with a reason
            reason, message = classify(e)
            joblog.add(f"failed ({reason.value}): {type(e).__name__}: {e}\n{traceback.format_exc()}")
            job.close()  # no renew may race the failure below
            self._record_failure(job, reason, message)
        finally:
            job.close()
        try:
            return self.queue.get(request.id)
        except Exception:  # noqa: BLE001 - the job is over either way
            return job.request

    def _record_failure(self, job: Job, reason: Reason, message: str) -> None:
        job.log.add(f"FAILED {reason.value}: {message}")
        log_path = job.log.flush(self.stores.private)
        try:
            self.queue.fail(job.request.id, self.worker_id, reason, message, log_path)
        except LeaseLost as e:
            job.log.add(f"could not record the failure: {e}")
        except StoreError as e:  # the lease will run out and the request be retried
            log.error("could not record the failure of %s: %s", job.request.id, e)


# -- scheduling ---------------------------------------------------------------------------

def _add_poll_job(scheduler, worker: Worker) -> None:
    scheduler.add_job(worker.drain, "interval", seconds=worker.settings.worker.poll_seconds, id=JOB_NAME,
                      name=JOB_NAME, max_instances=1, coalesce=True, next_run_time=datetime.now(timezone.utc))


def start_in_process(stores: "Stores", settings: "Settings", worker_id: str | None = None) -> BackgroundScheduler:
    """The site's embedded worker: polls in a background thread of the site's process.
    `scheduler.worker` is the Worker; stop with `scheduler.shutdown()`."""
    worker = Worker(stores, settings, worker_id)
    scheduler = BackgroundScheduler(daemon=True)
    _add_poll_job(scheduler, worker)
    scheduler.worker = worker
    scheduler.start()
    return scheduler


def wake(scheduler) -> None:
    """Look at the queue now instead of at the next poll (the site calls it after a submission)."""
    worker = getattr(scheduler, "worker", None)
    if worker is not None:
        worker.idle.wake()
    job = scheduler.get_job(JOB_NAME)
    if job is not None:
        job.modify(next_run_time=datetime.now(timezone.utc))
