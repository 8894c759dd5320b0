"""The Hugging Face Jobs dispatcher: scale out without running worker Spaces.

    python -m evaluator.worker --dispatch hf-jobs          # forever (SIGINT/SIGTERM: stop claiming, exit)
    python -m evaluator.worker --dispatch hf-jobs --once   # until nothing is pending and its jobs ended

The dispatcher runs on any small machine (no GPU). For each request it

    claims      the next PENDING request under a fresh worker id (`<dispatcher>-<6 hex>`);
    launches    a Job (`HfApi.run_job`) in LEADERBOARD_JOBS_IMAGE on a flavor chosen from the
                model's size (`choose_flavor`), running
                `python -m evaluator.worker --request ID --worker-id <that id>`: the job's worker
                runs the request under the dispatcher's claim. HF_TOKEN goes as a secret; the
                store names and the worker's LEADERBOARD_* settings as the job's environment;
                the job's Hub timeout is LEADERBOARD_JOB_TIMEOUT + LEADERBOARD_JOBS_TIMEOUT_GRACE;
    records     the job id and stage in the request's progress (one commit per job);
    follows     every LEADERBOARD_JOBS_POLL_SECONDS: the job's stage (`inspect_job`), its new
                log lines into the dispatcher's own log (`fetch_job_logs`), and the request:
                - still RUNNING for the job: the lease is renewed by the dispatcher only when
                  the job's worker has not renewed it (while the job waits for hardware or
                  pulls its image), so a healthy job costs no extra commit;
                - CANCELLED by a maintainer, or taken back after its lease ran out: `cancel_job`;
                - past the job's time limit, counted from when it started running (not from
                  the wait for hardware), while it still runs: `cancel_job`, FAILED(timeout);
                - still waiting for hardware after LEADERBOARD_JOBS_HARDWARE_WAIT: `cancel_job`,
                  and the request goes back to the queue, saying which wait ran out;
    gives back  a request whose job the Hub refused to start (attempt + 1, FAILED internal once
                its attempts are used up) and claims nothing for a while (doubling up to 10 min);
    ends        when the job reaches a final stage: its output (the last MAX_LOG_LINES lines) is
                appended to the request's private log (`logs/<h>/<h>/<id>.log`); a request the job left
                RUNNING goes back to the queue if the job was killed or crashed (FAILED once its
                attempts are used up), or is FAILED at once if it ran out of memory or time or
                was stopped on the Hub (`job_failure`), with a reason code and a message the
                submitter can read (never the job's output, which stays in the private log).

A dispatcher that dies leaves its jobs running: each job's worker renews its own lease and
finishes its request. A job still waiting for hardware then stops being renewed, its lease
runs out and the queue hands the request to the next claim as usual; the orphaned job, once
it starts, finds the request no longer its own and exits.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import threading
import time
import uuid
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from submissions.errors import ConflictError, LeaseLost, NotFoundError, StoreError
from submissions.queue import Queue
from submissions.requests import Progress, Reason, Request, Status, request_log_path
from submissions.stores.sharded import read_sharded
from worker.dispatch_rules import (NOT_STARTED, JobEnd, choose_flavor, job_command, job_env, job_failure,
                                   job_secrets, job_timeout_message, outcome_line)
from worker.errors import DispatchError
from worker.joblog import LOG_RETRIES  # appending to a log as the job's worker does

if TYPE_CHECKING:
    from space_config.settings import Settings
    from submissions.stores import Stores

log = logging.getLogger("evaluator.dispatch")

TERMINAL = ("COMPLETED", "CANCELED", "ERROR", "DELETED")
STAGE_PREFIX = "hf job"  # progress.stage written by the dispatcher (the job's worker writes its own after)
MAX_LOG_LINES = 5000  # of a job's output copied into the private log
MAX_BACKOFF_SECONDS = 600.0

def _stage(info) -> str:
    stage = info.status.stage
    return str(getattr(stage, "value", stage))


# -- one job --------------------------------------------------------------------------

@dataclass
class Dispatched:
    """A request the dispatcher claimed and the Job running it."""

    request_id: str
    worker_id: str
    job_id: str
    flavor: str
    timeout_seconds: float  # the job's Hub timeout, counted from when it runs
    launched: float  # monotonic: when the job was asked for
    stage: str = "SCHEDULING"
    running_since: float | None = None  # monotonic: when the dispatcher first saw it RUNNING
    log_fetch: Future | None = None  # the fetch of its new log lines under way, on the log threads
    no_hardware: bool = False  # cancelled for waiting too long for its machine: the request goes back
    lines_shown: int = 0
    cancelled: str = ""  # why the dispatcher cancelled the job ("" if it did not)


class Dispatcher:
    def __init__(self, stores: "Stores", settings: "Settings", api=None, dispatcher_id: str | None = None,
                 clock=time.monotonic):
        self._clock = clock  # monotonic seconds (a test moves it on)
        jobs = settings.jobs
        if settings.store != "hub":
            raise DispatchError("--dispatch hf-jobs needs LEADERBOARD_STORE=hub: a job on Hugging Face reaches "
                                "the queue and the stores through the Hub only")
        if not jobs.image:
            raise DispatchError("--dispatch hf-jobs needs LEADERBOARD_JOBS_IMAGE: the worker image each job runs, "
                                "e.g. hf.co/spaces/<owner>/<worker Space>")
        if not jobs.namespace:
            raise DispatchError("--dispatch hf-jobs needs LEADERBOARD_JOBS_NAMESPACE (or LEADERBOARD_HUB_OWNER): "
                                "the user or organisation the jobs run under")
        if api is None:
            from huggingface_hub import HfApi

            api = HfApi(token=settings.hf_token)
        self.stores = stores
        self.settings = settings
        self.jobs = jobs
        self.api = api
        self.queue = Queue(stores.requests)
        self.dispatcher_id = dispatcher_id or f"jobs-{socket.gethostname()}-{os.getpid()}"
        self.running: dict[str, Dispatched] = {}
        self._stopping = threading.Event()
        # A running job's log stream stays open until the client gives up (about 5 s without a
        # byte): each job's new lines are fetched on threads of their own, so a round of
        # following never waits on any stream, however many jobs run.
        self._log_threads = ThreadPoolExecutor(max_workers=max(1, self.jobs.max_running),
                                               thread_name_prefix="job-logs")
        self._queue_empty = False  # the last claim found nothing pending
        self._backoff = 0.0  # after a refused job: seconds without claims, doubling
        self._claim_after = 0.0  # monotonic

    # -- the loop ---------------------------------------------------------------------

    def step(self) -> None:
        """One round: follow every job, then start jobs while slots are free."""
        for dispatched in list(self.running.values()):
            try:
                self._follow(dispatched)
            except Exception as e:  # noqa: BLE001 - a Hub hiccup: the next round looks again
                log.warning("could not follow job %s of %s: %s: %s", dispatched.job_id, dispatched.request_id,
                            type(e).__name__, e)
        self._queue_empty = False
        if self._clock() < self._claim_after:
            return  # backing off after a refused job
        while len(self.running) < self.jobs.max_running and not self._stopping.is_set():
            try:
                if not self._launch_next():
                    break
            except StoreError as e:
                log.warning("the queue is unreachable (%s); trying again at the next poll", e)
                break

    def drain(self) -> None:
        """Dispatch until nothing is pending and every job this dispatcher started has ended."""
        while not self._stopping.is_set():
            self.step()
            if not self.running and self._queue_empty:
                return
            self._stopping.wait(self.jobs.poll_seconds)

    def serve(self) -> None:
        """Dispatch every poll until SIGINT/SIGTERM; running jobs are left to finish on their own."""
        def on_signal(signum, frame):
            log.info("signal %s: no more claims; %d running job(s) finish on their own", signum, len(self.running))
            self._stopping.set()

        previous = {}
        if threading.current_thread() is threading.main_thread():
            previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
        log.info("dispatcher %s: up to %d jobs in %s, image %s", self.dispatcher_id, self.jobs.max_running,
                 self.jobs.namespace, self.jobs.image)
        try:
            while not self._stopping.is_set():
                self.step()
                self._stopping.wait(self.jobs.poll_seconds)
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)

    def stop(self) -> None:
        self._stopping.set()

    # -- launching --------------------------------------------------------------------

    def _launch_next(self) -> bool:
        """Claim one request and start its job; False when nothing was pending."""
        worker_id = f"{self.dispatcher_id}-{uuid.uuid4().hex[:6]}"
        lease = self.settings.worker.lease_seconds
        request = self.queue.claim(worker_id, lease)
        if request is None:
            self._queue_empty = True
            return False
        flavor = choose_flavor(request, self.jobs)
        timeout = self.settings.worker.job_timeout_seconds + self.jobs.timeout_grace_seconds
        try:
            info = self.api.run_job(
                image=self.jobs.image, command=job_command(request.id, worker_id), env=job_env(self.settings, flavor),
                secrets=job_secrets(self.settings),
                flavor=flavor, timeout=int(timeout), name=f"leaderboard-{request.id}",
                labels={"leaderboard-request": request.id, "leaderboard-worker": worker_id},
                namespace=self.jobs.namespace)
        except Exception as e:  # noqa: BLE001 - a refused job, a Hub outage: retried later, never our submitter's fault
            self._not_started(request, worker_id, flavor, e)
            return False
        dispatched = Dispatched(request.id, worker_id, info.id, flavor, timeout, self._clock(), _stage(info))
        self.running[request.id] = dispatched
        self._backoff = 0.0
        log.info("request %s (%s '%s', attempt %d): job %s on %s, %s", request.id, request.kind, request.model,
                 request.attempt + 1, info.id, flavor, info.url)
        try:  # the job id where the submitter and maintainers look: one commit per job
            self.queue.renew(request.id, worker_id, lease, Progress(stage=self._stage_line(dispatched)))
        except (LeaseLost, StoreError) as e:  # the next round sees what happened
            log.warning("could not record job %s in %s: %s", info.id, request.id, e)
        return True

    def _not_started(self, request: Request, worker_id: str, flavor: str, error: Exception) -> None:
        """The Hub refused the job: give the request back (attempt + 1; FAILED internal once
        its attempts are used up) and claim nothing more for a while (doubling, up to
        MAX_BACKOFF_SECONDS): a wrong image, flavor or token would otherwise burn the queue."""
        why = f"{type(error).__name__}: {error}"
        log.error("could not start a job for %s on %s: %s", request.id, flavor, why)
        self._append_log(request.id, [f"dispatcher {self.dispatcher_id}: could not start a Hugging Face Job on "
                                      f"{flavor} for worker {worker_id}: {why}"])
        self._settle(request.id, worker_id, JobEnd(Reason.INTERNAL, NOT_STARTED, "its Hugging Face Job could not be "
                                                   "started"), None)
        self._backoff = min(max(self._backoff * 2, self.jobs.poll_seconds), MAX_BACKOFF_SECONDS)
        self._claim_after = self._clock() + self._backoff
        log.error("no claims for %.0f s", self._backoff)

    # -- following --------------------------------------------------------------------

    def _follow(self, d: Dispatched) -> None:
        info = self.api.inspect_job(job_id=d.job_id, namespace=self.jobs.namespace)
        stage = _stage(info)
        if stage != d.stage:
            log.info("request %s: job %s %s -> %s", d.request_id, d.job_id, d.stage, stage)
            d.stage = stage
        now = self._clock()
        if d.running_since is None and stage not in ("SCHEDULING", *TERMINAL):
            d.running_since = now  # its time limit counts from here, not from the wait for hardware
        if stage not in TERMINAL and (d.log_fetch is None or d.log_fetch.done()):
            d.log_fetch = self._log_threads.submit(self._show_logs, d)
        try:  # after the stage: a job that ended has written its request
            request = self.queue.get(d.request_id)
        except NotFoundError:  # deleted by a maintainer: nobody waits for it
            request = None
        ours = request is not None and request.status == Status.RUNNING and request.worker_id == d.worker_id
        if stage in TERMINAL:
            self._ended(d, info, request if ours else None)
            return
        if d.cancelled:
            return  # asked already; waiting for the job to stop
        over_time = d.running_since is not None and now > d.running_since + d.timeout_seconds + self.jobs.poll_seconds
        if ours and d.running_since is None and now > d.launched + self.jobs.hardware_wait_seconds:
            # given back once the job has ended (then no second job can run it meanwhile)
            self._cancel(d, f"waited {self.jobs.hardware_wait_seconds:g} s for a {d.flavor} machine without starting")
            d.no_hardware = True
            return
        if not ours:
            if request is not None and request.status in (Status.FINISHED, Status.FAILED) and not over_time:
                return  # the job's worker ended it (and may still be publishing): the job exits by itself
            self._cancel(d, "the request is gone" if request is None else f"the request is {request.status.value}"
                         + (f" on {request.worker_id}" if request.status == Status.RUNNING else ""))
            return
        if over_time:
            self._cancel(d, f"over the time limit of {d.timeout_seconds:g} s")
            message = job_timeout_message(d.timeout_seconds)
            path = self._append_log(d.request_id, [f"dispatcher: job {d.job_id} ran past its time limit; "
                                                   f"cancelled", f"FAILED timeout: {message}"])
            self._settle(d.request_id, d.worker_id, JobEnd(Reason.TIMEOUT, message), path)
            return
        self._keep_lease(d, request)

    def _keep_lease(self, d: Dispatched, request: Request) -> None:
        """Renew the lease only if the job's worker has not (it renews every third of a
        lease once it runs): while the job waits for hardware, the dispatcher holds it."""
        lease = self.settings.worker.lease_seconds
        left = (request.lease_until - self.queue.clock()).total_seconds() if request.lease_until else 0.0
        if left >= lease / 2:
            return
        mine = not request.progress.stage or request.progress.stage.startswith(STAGE_PREFIX)
        try:
            self.queue.renew(d.request_id, d.worker_id, lease, Progress(stage=self._stage_line(d)) if mine else None)
        except LeaseLost as e:
            log.info("request %s: %s", d.request_id, e)  # the next round cancels the job

    def _cancel(self, d: Dispatched, why: str) -> None:
        log.info("request %s: cancelling job %s (%s)", d.request_id, d.job_id, why)
        self.api.cancel_job(job_id=d.job_id, namespace=self.jobs.namespace)
        d.cancelled = why  # only once asked: a failed call is tried again next round

    def _show_logs(self, d: Dispatched) -> None:
        """The job's new log lines into the dispatcher's log (on a log thread)."""
        try:
            lines = self._job_output(d)
        except Exception as e:  # noqa: BLE001 - a help for whoever reads the log; the next round tries again
            log.info("could not fetch the log of job %s: %s: %s", d.job_id, type(e).__name__, e)
            return
        self._log_new(d, lines)

    def _log_new(self, d: Dispatched, lines: list[str]) -> None:
        for line in lines[d.lines_shown:]:
            log.info("[%s %s] %s", d.request_id, d.job_id[:8], line)
        d.lines_shown = max(d.lines_shown, len(lines))

    def _job_output(self, d: Dispatched) -> list[str]:
        return [line.rstrip("\n") for line in
                self.api.fetch_job_logs(job_id=d.job_id, namespace=self.jobs.namespace, follow=False)]

    def _ended(self, d: Dispatched, info, request: Request | None) -> None:
        """The job reached a final stage: keep its output; `request`, if it left it RUNNING, goes back or fails."""
        stage, message = d.stage, info.status.message or ""
        if d.log_fetch is not None:  # an ended job's stream closes: the last fetch ends soon
            wait([d.log_fetch], timeout=30)
        try:
            output = self._job_output(d)
        except Exception as e:  # noqa: BLE001 - the output is a help; the request's state matters more
            output = [f"(the job's output could not be fetched: {type(e).__name__}: {e})"]
        self._log_new(d, output)  # its last lines into the dispatcher's own log too
        kept = output[-MAX_LOG_LINES:]
        ended = (f"dispatcher {self.dispatcher_id}: job {d.job_id} ({d.flavor}, worker {d.worker_id}) ended {stage}"
                 + (f": {message}" if message else "") + (f"; cancelled: {d.cancelled}" if d.cancelled else ""))
        lines = [ended, f"-- the job's output ({len(kept)} of {len(output)} lines) --",
                 *(f"| {line}" for line in kept), "-- end of the job's output --"]
        end = self._end(d, info, request) if request is not None else None
        outcome = outcome_line(end, request.attempt + 1, request.max_attempts) if end is not None else ""
        path = self._append_log(d.request_id, [*lines, outcome] if outcome else lines)
        if end is not None:
            self._settle(d.request_id, d.worker_id, end, path)
        log.info("request %s: job %s ended %s%s", d.request_id, d.job_id, stage, f"; {outcome}" if outcome else "")
        del self.running[d.request_id]

    def _end(self, d: Dispatched, info, request: Request) -> JobEnd:
        """What the request the ended job left RUNNING becomes (worker/dispatch_rules.py)."""
        if d.no_hardware:  # not the submitter's fault: back to the queue, saying which wait ran out
            return JobEnd(Reason.INTERNAL, NOT_STARTED, f"its Hugging Face Job {d.cancelled}")
        return job_failure(d.stage, info.status.message, info.durations.total_secs if info.durations else None,
                           d.timeout_seconds, request.attempt + 1, request.max_attempts)

    # -- writing ----------------------------------------------------------------------

    def _stage_line(self, d: Dispatched) -> str:
        return f"{STAGE_PREFIX} {d.job_id} on {d.flavor}: {d.stage}"

    def _settle(self, request_id: str, worker_id: str, end: JobEnd, log_path: str | None) -> None:
        """Give the request back (the queue fails it once no attempt is left) or fail it now."""
        try:
            if end.retry:
                self.queue.give_back(request_id, worker_id, end.retry, end.message, log_path)
            else:
                self.queue.fail(request_id, worker_id, end.reason, end.message, log_path)
        except LeaseLost as e:
            log.info("request %s: not settled: %s", request_id, e)
        except StoreError as e:  # its lease runs out and the queue retries it
            log.error("could not record the end of %s: %s", request_id, e)

    def _append_log(self, request_id: str, lines: list[str]) -> str | None:
        """Append timestamped lines to the request's private log in one write; its path,
        or None if the store refused (the log never decides a request's fate)."""
        path = request_log_path(request_id)
        stamp = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
        text = "".join(f"{stamp} {line}\n" for line in lines).encode()
        store = self.stores.private
        try:
            for _ in range(LOG_RETRIES):
                path, found = read_sharded(store, path)  # a log from before sharding is appended to where it is
                try:
                    store.write_files({path: (found.data if found else b"") + text},
                                      {path: found.version if found else None}, message=f"Job log of {request_id}")
                    return path
                except ConflictError:
                    continue  # the job's worker appended meanwhile: re-read
        except StoreError as e:
            log.warning("could not write the log %s: %s", path, e)
            return None
        log.warning("could not write the log %s: it kept changing", path)
        return None


def run_dispatcher(kind: str, once: bool, dispatcher_id: str | None = None) -> int:
    """`python -m evaluator.worker --dispatch KIND [--once]`; the exit status."""
    from space_config.settings import get_settings
    from submissions.stores import open_stores

    if kind != "hf-jobs":
        raise SystemExit(f"error: --dispatch {kind!r}: the only dispatcher is 'hf-jobs'")
    settings = get_settings()
    try:
        dispatcher = Dispatcher(open_stores(settings), settings, dispatcher_id=dispatcher_id)
    except DispatchError as e:
        raise SystemExit(f"error: {e}") from None
    if once:
        dispatcher.drain()
    else:
        dispatcher.serve()
    return 0
