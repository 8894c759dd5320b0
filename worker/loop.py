"""The evaluation worker: takes submissions from the queue, scores them, publishes
the results (design §2, §8).

    python -m evaluator.worker            # poll the queue every LEADERBOARD_POLL_SECONDS, forever
    python -m evaluator.worker --once     # work until nothing is pending or running, then exit
    python -m evaluator.worker --dispatch hf-jobs   # run each request as a Hugging Face Job (evaluator/dispatch.py)

One job, as `Worker.run_once` runs it:

    claim      the next PENDING request (priority, then oldest), holding a lease
    heartbeat  a thread renews the lease every lease/3 s; it stops the job when the lease
               is lost (cancelled, or expired and taken by another worker) and fails it
               with reason "timeout" once it runs past LEADERBOARD_JOB_TIMEOUT
    fetch      the suite and its answer key (suite and answers stores), the uploaded
               prediction file (private store)
    run        model-ID requests only: load the model (evaluator.runners.get_runner) and
               answer every call, the answer key's hidden calls included, recording
               progress after each batch (and a blind pass: runners/blind.py); the model is released before scoring
    score      benchmark by benchmark, recording progress (calls done / total)
    publish    the result staged in the private store (with a model run's raw outputs,
               outputs/<id>.jsonl: evaluator/raw_outputs.py), then FINISHED, then the public
               result file <id>.json and its row in the one aggregated table
               (leaderboard.parquet) and the suite's open exports in one step
               (leaderboard/exports.py); see `Worker._publish` for why in
               this order. The log (private: logs/<id>.log) is appended as the job
               runs, at every lease renewal, so a killed job keeps its lines.
    fail       FAILED with a reason code and a message the submitter can read:
               bad_predictions (the file's problems, by line), download (also a model or
               revision that cannot be found), out_of_memory,
               timeout, internal (anything unexpected: a generic message; the traceback
               goes to the private log only)

A worker that dies mid-job (killed, machine reclaimed) simply stops renewing: when its
lease runs out the next claim sends the request back to PENDING (attempt + 1) and
another worker runs it from the start. If staging the result or finishing fails even
after the store's retries, the worker does the same on purpose: it leaves the request
RUNNING and stops renewing, so the submission is retried later rather than failed for
our fault. If only the last step (making it public) fails, the request is FINISHED
and the next worker's `publish_pending` publishes it.

Failure drills: LEADERBOARD_WORKER_HOLD_SECONDS > 0 makes the worker pause after each
claim (lease still renewed), which gives a test or an operator a job to kill;
LEADERBOARD_WORKER_HOLD_PUBLISH_SECONDS pauses between FINISHED and publishing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import signal
import socket
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Callable
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.schedulers.blocking import BlockingScheduler

from evaluator import CODE_VERSION, raw_outputs
from evaluator.errors import PredictionFileError, Problem, SuiteError
from evaluator.polling import IdlePolls
from evaluator.predictions import as_responses, parse_predictions
from evaluator.protocol import model_card
from evaluator.records import ScoringOptions
from evaluator.runners import RunnerUnavailable, blind, get_runner
from evaluator.runners.backends import ModelNotFound
from evaluator.scoring import make_result, score_responses
from evaluator.suite import AnswerKey, Suite, load_answers, load_suite
from leaderboard import aggregate
from submissions.errors import ConflictError, LeaseLost, NotFoundError, StoreError, TransientStoreError
from submissions.queue import Queue
from submissions.requests import Progress, Reason, Request, Status

if TYPE_CHECKING:
    from evaluator.result import Result
    from space_config.settings import Settings
    from submissions.stores import Stores

log = logging.getLogger("evaluator.worker")

JOB_NAME = "evaluator-worker"  # the scheduler job's id (see `wake`)
LOG_RETRIES = 10  # appending to a log is a compare-and-swap too
FRESH_SECONDS = 1.0  # a renew this recent proves we still own the request


class _SkippedPolls(logging.Filter):
    """Hide APScheduler's warning that a poll was skipped because the previous one is
    still running: with max_instances=1 that is the intended behaviour, not news."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not (JOB_NAME in message and "maximum number of running instances" in message)


logging.getLogger("apscheduler.scheduler").addFilter(_SkippedPolls())

INTERNAL_MESSAGE = ("The worker hit an internal error while evaluating this submission. This is not a "
                    "problem with your submission: the maintainers have the details in its private log "
                    "and can requeue it.")


# -- why a job stopped ---------------------------------------------------------------

class JobStopped(Exception):
    """The job must stop and publish nothing: the lease is lost (cancelled, or taken
    over after it expired) or the job ran out of time (already recorded as FAILED)."""


class JobFailed(Exception):
    """A failure whose reason and submitter-facing message are already decided."""

    def __init__(self, reason: Reason, message: str):
        self.reason = reason
        super().__init__(message)


class PublishFailed(Exception):
    """A store refused the result (after its own retries): retry the job later."""


def classify(error: BaseException) -> tuple[Reason, str]:
    """The reason code and the submitter-facing message for an exception."""
    if isinstance(error, JobFailed):
        return error.reason, str(error)
    if isinstance(error, PredictionFileError):
        return Reason.BAD_PREDICTIONS, str(error)
    if isinstance(error, ModelNotFound):
        # Its message names the model (and revision) the worker could not find.
        return Reason.DOWNLOAD, (f"The worker could not load the model: {str(error).rstrip('.')}. Check that the model exists "
                                 f"at that revision and is public, then submit it again.")
    if isinstance(error, RunnerUnavailable):
        # The missing piece is ours, not the submission's: "internal", with the runner's own words.
        return Reason.INTERNAL, str(error)
    if isinstance(error, MemoryError) or type(error).__name__ == "OutOfMemoryError":  # torch.cuda's
        return Reason.OUT_OF_MEMORY, ("The evaluation ran out of memory on the worker. Try fewer frames or "
                                      "a smaller precision, or ask the maintainers for a larger machine.")
    return Reason.INTERNAL, INTERNAL_MESSAGE


# -- the per-submission log ------------------------------------------------------------

class JobLog:
    """Timestamped lines for the private log `logs/<id>.log`; also sent to the
    process log. Each attempt appends its lines to what earlier attempts wrote, as it
    runs (the heartbeat flushes at every lease renewal), so a killed attempt keeps them."""

    def __init__(self, request: Request, worker_id: str):
        self.path = f"logs/{request.id}.log"
        self._lock = threading.Lock()
        self._flushing = threading.Lock()  # the heartbeat and the job both flush: one at a time
        self._lines: list[str] = []
        self._flushed = 0
        self.add(f"== attempt {request.attempt + 1} of {request.max_attempts} on worker {worker_id} "
                 f"(code {CODE_VERSION}) ==")

    def add(self, message: str) -> None:
        stamp = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
        with self._lock:
            self._lines.append(f"{stamp} {message}")
        log.info(message)

    def flush(self, store) -> str | None:
        """Append the lines not yet written; the log's path, or None if the store
        refused (the log is a help, never a reason to lose a result)."""
        try:
            return self.flush_with(store, {})
        except Exception as e:  # noqa: BLE001 - see the docstring
            log.warning("could not write the log %s: %s", self.path, e)
            return None

    def flush_with(self, store, files: dict[str, bytes], message: str = "") -> str:
        """Append the lines not yet written and write `files` in the same step (one
        commit on the Hub); StoreError if the store refused."""
        with self._flushing:
            with self._lock:
                fresh = self._lines[self._flushed:]
                end = len(self._lines)
            if not fresh and not files:
                return self.path
            text = "".join(f"{line}\n" for line in fresh).encode()
            for _ in range(LOG_RETRIES):
                found = store.read(self.path)
                try:
                    store.write_files({**files, self.path: (found.data if found else b"") + text},
                                      {self.path: found.version if found else None},
                                      message=message or f"Log of {self.path}")
                    break
                except ConflictError:
                    continue  # someone appended meanwhile (an earlier attempt's worker): re-read
            else:
                raise StoreError(f"{self.path} kept changing while appending to it")
            with self._lock:
                self._flushed = max(self._flushed, end)
            return self.path


# -- one claimed request ---------------------------------------------------------------

class Job:
    """A claimed request while it runs: the lease heartbeat, progress, the time limit
    and the cooperative stop flag that the work checks between steps."""

    def __init__(self, worker: "Worker", request: Request, joblog: JobLog):
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
        while True:
            wait = max(0.0, min(interval, self.deadline - time.monotonic()))
            if self._done.wait(wait):
                return
            if self._over_time():
                self._enforce_timeout()
                return
            try:
                self.renew()
            except LeaseLost as e:
                self._halt(f"lease lost: {e}")
                return
            except Exception as e:  # noqa: BLE001 - a store hiccup: the lease may still hold; try again
                log.warning("could not renew the lease of %s: %s", self.request.id, e)
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


# -- the worker --------------------------------------------------------------------------

def default_worker_id() -> str:
    return f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"


class Worker:
    def __init__(self, stores: "Stores", settings: "Settings", worker_id: str | None = None):
        self.stores = stores
        self.settings = settings
        self.worker_id = worker_id or default_worker_id()
        self.queue = Queue(stores.requests)
        self.options = ScoringOptions(causalstep_restart=settings.causalstep_restart,
                                      causalstep_points=settings.causalstep_points,
                                      grade_truncated_reasoning=settings.grade_truncated_reasoning)
        self._judge = None
        self._suites: dict[tuple[str, str], tuple[Suite, AnswerKey]] = {}
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
                self.publish_pending()
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
            ends = [r.lease_until for r in self.queue.all() if r.status == Status.RUNNING and r.lease_until]
        except StoreError:
            return None
        return min(ends, default=None)

    def _others_running(self) -> float | None:
        """Seconds to wait before looking again while other workers hold RUNNING requests
        (at most a poll interval, and no longer than the first lease still has), or None
        when none is running."""
        running = [r for r in self.queue.all() if r.status == Status.RUNNING]
        if not running:
            return None
        now = self.queue.clock()
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
            result = self._evaluate(job)
            self._publish(job, result)
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

    # -- evaluate ----------------------------------------------------------------------

    def _evaluate(self, job: Job) -> "Result":
        request = job.request
        if request.kind == "model":
            return self._evaluate_model(job)
        suite, key = self._fetch_suite(job)
        data = self._fetch_predictions(job)
        responses = self._validate(request, suite, data)
        job.log.add(f"prediction file valid: {len(responses.by_id) + len(responses.by_context)} predictions")
        scores, counts = self._score(job, suite, key, responses, worker_run=False)
        submission = self._submission(request) | {"file_sha256": hashlib.sha256(data).hexdigest()}
        return make_result(suite, scores, counts, self.judge, self.options, submission)

    def _evaluate_model(self, job: Job) -> "Result":
        """Load the model, answer every call (hidden ones too: a worker run), score."""
        request = job.request
        suite, key = self._fetch_suite(job)  # before the model: a missing suite costs no GPU time
        job.progress(0, len(suite.calls) + len(key.hidden_calls), "loading model")
        revision = f" at revision {request.revision}" if request.revision else ""
        job.log.add(f"loading {request.model}{revision}")
        runner = get_runner(request, self.settings)  # ModelNotFound, RunnerUnavailable
        try:
            job.check()
            answers = blind.answer(runner, request, suite, key.hidden_calls, job, self.settings.worker.blind_pass)
        finally:
            close = getattr(runner, "close", None)
            if callable(close):
                close()  # the GPU memory goes back before scoring (an LLM judge may need it)
        decodes = answers.settings.get("decodes", {})
        job.log.add(f"runner {runner.name} answered {len(answers.predictions)} calls "
                    f"({answers.settings.get('generations', '?')} generations); videos decoded: "
                    f"{decodes.get('decodes', '?')} decodes of {decodes.get('videos', '?')} videos")
        job.raw_outputs = raw_outputs.encode(answers.predictions, suite.calls_by_id())  # public calls only
        scores, counts = self._score(job, suite, key, as_responses(answers.predictions), worker_run=True)
        card = model_card(suite, request, runner.name, answers.settings, self.judge, self.options)
        job.log.add(f"protocol {card.hash}: " + (f"differs from the suite's reference in {', '.join(card.deviations)}"
                                                  if card.deviations else "the suite's reference protocol"))
        extra = blind.blocks(answers, suite, key, self.judge, self.options, self.settings.bootstrap_samples, job)
        return make_result(suite, scores, counts, self.judge, self.options, self._submission(request),
                           runner={"name": runner.name, **answers.settings}, protocol=card, **extra)

    @property
    def judge(self):
        """Built once per worker (an LLM judge loads a model); LLM judgements cached on disk."""
        if self._judge is None:
            from evaluator.judges import CachedJudge, JudgementCache, get_judge

            judge = get_judge(self.settings.judge)
            if judge.kind == "llm":
                judge = CachedJudge(judge, JudgementCache(self.settings.judge_cache))
            self._judge = judge
        return self._judge

    def _fetch_suite(self, job: Job) -> tuple[Suite, AnswerKey]:
        suite_id = job.request.suite_id
        try:
            public = self.stores.suite.local_folder(suite_id)
            private = self.stores.answers.local_folder(suite_id)
            # the suite id carries a hash of its public content; the answer key's own hash
            # tells a corrected key apart, so a cached copy is never stale
            answers_sha = json.loads((private / "answers.json").read_text()).get("answers_sha256", "")
            cache_key = (suite_id, answers_sha)
            if cache_key not in self._suites:
                suite = load_suite(public)
                self._suites[cache_key] = (suite, load_answers(private, suite))
        except (StoreError, NotFoundError, SuiteError, OSError, ValueError) as e:
            job.log.add(f"fetching suite {suite_id} failed: {type(e).__name__}: {e}")
            raise JobFailed(Reason.DOWNLOAD, (
                f"The worker could not load the evaluation data of suite {suite_id}. This is not a problem "
                f"with your submission; a maintainer can requeue it once the suite is available.")) from e
        suite, key = self._suites[cache_key]
        job.log.add(f"suite {suite.id}: {len(suite.calls)} calls, {len(suite.manifest['benchmarks'])} benchmarks")
        return suite, key

    def _fetch_predictions(self, job: Job) -> bytes:
        request = job.request
        try:
            if not request.predictions_path:
                raise NotFoundError("the request names no prediction file")
            found = self.stores.private.read(request.predictions_path)
            if found is None:
                raise NotFoundError(f"{request.predictions_path} is not in the {self.stores.private.name} store")
        except (StoreError, NotFoundError) as e:
            job.log.add(f"downloading the prediction file failed: {type(e).__name__}: {e}")
            raise JobFailed(Reason.DOWNLOAD, (
                "The worker could not download your uploaded prediction file. Please submit it again, "
                "or ask the maintainers to requeue this submission.")) from e
        job.log.add(f"downloaded {request.predictions_path} ({len(found.data)} bytes)")
        job.check()
        return found.data

    def _validate(self, request: Request, suite: Suite, data: bytes):
        name = request.metadata.get("file_name") or "your prediction file"
        limit = self.settings.max_prediction_bytes
        if len(data) > limit:
            raise PredictionFileError(name, [Problem(0, f"the file is {len(data) / 1e6:.1f} MB; the limit is "
                                                        f"{limit / 1e6:.1f} MB")])
        responses = parse_predictions(data, suite.calls_by_id(), name)  # PredictionFileError, by line
        sha = hashlib.sha256(data).hexdigest()
        if request.predictions_sha256 and sha != request.predictions_sha256:
            raise JobFailed(Reason.INTERNAL, (
                "The stored prediction file is not the one you submitted (its checksum changed), so it was "
                "not scored. Please submit it again, or ask the maintainers."))
        return responses

    def _score(self, job: Job, suite: Suite, key: AnswerKey, responses, worker_run: bool):
        """The core's score_responses, recording progress (and honouring a stop,
        which job.progress raises) after each benchmark."""
        benchmarks = suite.manifest["benchmarks"]
        per_benchmark = {name: info["calls"] + (info.get("worker_calls", 0) if worker_run else 0)
                         for name, info in benchmarks.items()}
        total = sum(per_benchmark.values())
        done = 0
        job.progress(0, total, "scoring")

        def scored(name: str, counts: dict) -> None:
            nonlocal done
            done += per_benchmark[name]
            state = "attempted" if counts["attempted"] else "not attempted"
            job.log.add(f"scored {name}: {state} ({counts['answered']} of {counts['calls']} calls answered)")
            job.progress(done, total, f"scored {name}")

        job.paired = {}
        return score_responses(suite, key, responses, self.judge, self.options, worker_run=worker_run,
                               bootstrap_samples=self.settings.bootstrap_samples, on_benchmark=scored,
                               paired=job.paired)

    @staticmethod
    def _submission(request: Request) -> dict:
        """What the result says about the submission: enough to rebuild its table row
        without the request."""
        sub = {"id": request.id, "kind": request.kind, "model": request.model, "submitter": request.submitter,
               "run": request.runs + 1, "submitted_at": request.submitted_at.isoformat(), "revision": request.revision,
               "precision": request.precision, "frames": request.frames, "thinking": request.thinking,
               "metadata": dict(request.metadata)}
        if request.predictions_sha256:
            sub["predictions_sha256"] = request.predictions_sha256
        return sub

    # -- publish ------------------------------------------------------------------------

    def _publish(self, job: Job, result: "Result") -> None:
        """Stage, finish, publish, in this order, so that the public table never shows a
        row whose request is not FINISHED:

        1. the result goes to the private store (`results/<id>.json`), where any worker
           can find it again;
        2. the request becomes FINISHED: a compare-and-swap that also proves we still own
           it, so a cancel that came in first wins and nothing is published;
        3. the result file and its table row go public in one step (`aggregate.publish`).

        A crash or a store failure between 2 and 3 leaves a FINISHED request whose row is
        not in the table yet: `publish_pending`, which every worker runs before it claims,
        publishes it from the staged copy."""
        request = job.request
        job.begin_publish()
        staged = staged_result_path(request.id)
        job.log.add(f"staging the result as {staged} in the {self.stores.private.name} store")
        files = {staged: result.model_dump_json(indent=2).encode()}
        if job.paired is not None:  # kept private beside the staged result: per-video data rebuilds answers
            from evaluator import paired

            files[paired.paired_path(request.id)] = paired.record(
                result, job.paired, self.settings.bootstrap_samples).model_dump_json().encode()
        if job.raw_outputs is not None:  # a model run's answers, for its submitter
            files[raw_outputs.outputs_path(request.id)] = job.raw_outputs
        try:  # the result, per-video statistics, raw outputs and the log so far in one step: one commit on the Hub
            log_path = job.log.flush_with(self.stores.private, files,
                                          message=f"Result of {request.id} (run {result.submission.get('run')})")
        except StoreError as e:
            raise PublishFailed(f"{type(e).__name__}: {e}") from e
        try:
            job.request = self.queue.finish(request.id, self.worker_id, aggregate.result_path(request.id),
                                            CODE_VERSION, log_path, job.progress_state)
        except LeaseLost as e:
            raise JobStopped(f"lease lost while finishing: {e}") from None
        except StoreError as e:
            raise PublishFailed(f"could not mark the request FINISHED: {e}") from e
        if self.settings.worker.hold_publish_seconds > 0:  # failure drill: a worker to kill right here
            job.log.add(f"holding {self.settings.worker.hold_publish_seconds:g} s before publishing (failure drill)")
            job.log.flush(self.stores.private)
            time.sleep(self.settings.worker.hold_publish_seconds)
        self._make_public(result, job.request, job.log.add)
        job.log.add("finished")
        job.log.flush(self.stores.private)

    def _make_public(self, result: "Result", request: Request, note: Callable[[str], None]) -> bool:
        try:
            # the public copy hides small breakdown buckets; the staged one keeps them
            path = aggregate.publish(self.stores.results, result, request, self.settings.min_bucket_items)
        except StoreError as e:
            note(f"publishing {request.id} failed ({type(e).__name__}: {e}); the next poll of any worker "
                 f"publishes it from the staged copy")
            return False
        note(f"published {path} and updated {aggregate.TABLE_PATH} with its row, in one step")
        return True

    def publish_pending(self) -> int:
        """Publish the results of FINISHED requests whose row is not in the table (their
        worker died, or a store failed, between finishing and publishing), from the staged
        copies. Returns how many were published."""
        finished = [r for r in self.queue.all() if r.status == Status.FINISHED and r.runs > 0]
        if not finished:
            return 0
        runs = aggregate.published_runs(self.stores.results)
        published = 0
        for request in finished:
            if request.id in runs and (runs[request.id] is None or runs[request.id] >= request.runs):
                continue
            try:
                published += self._publish_staged(request)
            except Exception:  # noqa: BLE001 - one bad copy must not stop the others
                log.exception("could not publish the staged result of %s", request.id)
        return published

    def _publish_staged(self, request: Request) -> bool:
        from evaluator.result import Result

        found = self.stores.private.read(staged_result_path(request.id))
        result = Result.model_validate_json(found.data) if found is not None else None
        if result is None or result.submission.get("run") != request.runs:
            log.warning("%s is FINISHED (run %d) but has no staged result of that run to publish",
                        request.id, request.runs)
            return False
        return self._make_public(result, request, lambda line: log.info("%s: %s", request.id, line))


def staged_result_path(submission_id: str) -> str:
    """Where a result waits in the private store until it is public (and stays, as a copy)."""
    return f"results/{submission_id}.json"


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


# -- command line ---------------------------------------------------------------------------

def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m evaluator.worker",
        description="Run the evaluation worker: claim submissions from the queue, score them and publish "
                    "the results. Stores, lease, poll interval and time limit come from the LEADERBOARD_* "
                    "environment variables (space_config/settings.py).")
    p.add_argument("--once", action="store_true",
                   help="work until no request is pending or running (a request another worker runs is waited "
                        "for, or taken over once its lease expires), then exit (default: poll forever)")
    p.add_argument("--worker-id", help="name shown on the requests it runs (default: <host>-<pid>-<random>)")
    p.add_argument("--request", metavar="ID",
                   help="run this one request, already claimed (RUNNING) for --worker-id, then exit: what a "
                        "Hugging Face Job started by a dispatcher runs; exit status 0 if it FINISHED")
    p.add_argument("--dispatch", choices=["hf-jobs"],
                   help="run no evaluation here: claim requests and run each one as a Hugging Face Job "
                        "(evaluator/dispatch.py; LEADERBOARD_JOBS_* settings); with --once, until nothing is "
                        "pending and its jobs have ended")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    from space_config.settings import get_settings
    from submissions.stores import open_stores

    if args.dispatch:
        from evaluator.dispatch import run_dispatcher

        return run_dispatcher(args.dispatch, args.once, args.worker_id)
    settings = get_settings()
    worker = Worker(open_stores(settings), settings, args.worker_id)
    if args.request:
        if not args.worker_id:
            raise SystemExit("--request needs --worker-id: the worker the request was claimed for")
        ended = worker.run_claimed(args.request)
        log.info("request %s ended %s", ended.id, ended.status.value)
        return 0 if ended.status == Status.FINISHED else 1
    if args.once:
        count = worker.drain(wait_for_others=True)
        log.info("worker %s: queue empty after %d request(s)", worker.worker_id, count)
    else:
        worker.serve()
    return 0


def _exit(code: int) -> None:
    """Leave without the interpreter's teardown. pyarrow (26 here) sometimes aborts in its
    C++ teardown at exit ("terminate called without an active exception": SIGABRT after
    the work is done), which would turn a finished --once run into a failure. Everything
    is written and flushed first."""
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    _exit(main())
