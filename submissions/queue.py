"""The request queue: a request's lifecycle (docs/architecture.md) over the requests store.

    PENDING -> RUNNING -> FINISHED | FAILED | CANCELLED

Every state change is a read followed by a compare-and-swap (`write_if`) of the one
request file, retried a bounded number of times when someone else wrote in between
(another worker, the Space adding a request, a maintainer; on the Hub *any* commit to
the repo counts, so conflicts are normal there and must never surface as failures).
Each retry re-reads and re-decides: a claim that lost its race sees the request
RUNNING for someone else and moves on; a renew that lost against a cancel sees
CANCELLED and raises LeaseLost.

A worker holds a RUNNING request through a lease (`lease_until`) it renews while it
works. Whoever next claims, or calls `expire_leases`, sends a request whose lease ran
out back to PENDING with `attempt + 1`, or to FAILED(timeout) once it has used up
`max_attempts`, so a killed worker never leaves a submission stuck.

Each request is one file, sharded by a hash of its id; old finished ones archived (submissions/request_files.py).
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Callable
from datetime import datetime, timedelta

from submissions.errors import ConflictError, InvalidTransition, LeaseLost, NotFoundError
from submissions.request_files import read_all, read_live, read_request, write_request
from submissions.requests import Event, Failure, Progress, Reason, Request, Status, utcnow
from submissions.stores.base import Store

# What a prediction file's submitter states about it (the Submit form's optional fields)
DECLARED_KEYS = ("params", "open", "frames", "thinking")

log = logging.getLogger(__name__)

Clock = Callable[[], datetime]
# A change decides, from the request as just read, the request to write, or None for
# "nothing to do" (the read copy is returned unchanged). It may raise to refuse.
Change = Callable[[Request], "Request | None"]
# Moved by every admission (see Queue.admit); in a folder, so `all()` never reads it as a request.
ADMISSION_LEDGER = "admission/ledger.json"


class Queue:
    """The requests store seen as a queue. Safe to use from many threads and processes
    at once: all coordination goes through the store's compare-and-swap."""

    def __init__(self, store: Store, clock: Clock = utcnow, conflict_retries: int = 25,
                 backoff_seconds: float = 0.02):
        self.store = store
        self.clock = clock
        self.conflict_retries = conflict_retries
        self.backoff_seconds = backoff_seconds

    # ---- reading -------------------------------------------------------------------

    def add(self, request: Request) -> Request:
        """Store a new request; create-only, so an id can never be overwritten. No rule is
        checked: submissions go through `admit`."""
        try:
            self.store.write_if(request.path, request.to_bytes(), None,
                                message=f"Add request {request.id} ({request.kind} {request.model})")
        except ConflictError:
            raise ConflictError(f"request {request.id} already exists in the {self.store.name} store") from None
        return request

    def admit(self, request: Request, check: Callable[[list[Request]], None]) -> Request:
        """Add `request` only if `check(requests)` (quotas, duplicates; it raises to refuse)
        passes on the queue exactly as it is when the request goes in.

        One compare-and-swap decides: the request is written together with the admission
        ledger (`ADMISSION_LEDGER`, a counter every admission moves), on condition that
        the ledger is still at the version read before the check. Two submitters checking
        at once therefore cannot both be admitted on the same view: the second one's write
        conflicts, and it checks again on a view that holds the first one's request.
        (Workers and maintainers never touch the ledger: what they change only frees
        slots, so a view older than theirs is the stricter one.)"""
        for attempt in range(self.conflict_retries):
            ledger = self.store.read(ADMISSION_LEDGER)  # before the view: the view is at least as new
            requests = self.all()
            mine = next((r for r in requests if r.id == request.id), None)
            if mine is not None:
                return mine  # an earlier try landed although its reply was lost
            check(requests)
            count = json.loads(ledger.data).get("admitted", 0) if ledger is not None else 0
            entry = json.dumps({"admitted": count + 1, "last": request.id, "at": self.clock().isoformat()}).encode()
            try:
                self.store.write_files({request.path: request.to_bytes(), ADMISSION_LEDGER: entry},
                                       {request.path: None, ADMISSION_LEDGER: ledger.version if ledger else None},
                                       message=f"Add request {request.id} ({request.kind} {request.model})")
                return request
            except ConflictError:
                self._backoff(attempt)
        raise ConflictError(f"could not add request {request.id} to the {self.store.name} store: other "
                            f"submissions kept arriving at the same moment {self.conflict_retries} times in a "
                            f"row; try again")

    def get(self, id: str) -> Request:
        found = read_request(self.store, id)[1]
        if found is None:
            raise NotFoundError(f"no submission with id {id!r} in the {self.store.name} store")
        return Request.from_bytes(found.data)

    def all(self) -> list[Request]:
        """Every request, archived ones too, oldest first (submissions/request_files.py: read_all)."""
        return read_all(self.store)

    def live(self) -> list[Request]:
        return read_live(self.store)  # those not archived (every PENDING and RUNNING one), oldest first

    # ---- the worker's side -----------------------------------------------------------

    def claim(self, worker_id: str, lease_seconds: float) -> Request | None:
        """Take the next PENDING request (highest priority, then oldest) for `worker_id`,
        or return None when nothing is pending."""
        requests = {r.id: r for r in self.live()}  # one snapshot serves the expiry pass and the choice
        requests.update((r.id, r) for r in self._expire(requests.values()))
        pending = [r for r in requests.values() if r.status == Status.PENDING]
        pending.sort(key=lambda r: (-r.priority, r.submitted_at, r.id))
        for candidate in pending:
            def take(r: Request) -> Request | None:
                if r.status != Status.PENDING:
                    return None  # someone else got it first (or a maintainer cancelled it)
                now = self.clock()
                r = self._moved(r, Status.RUNNING,
                                f"claimed by {worker_id} (attempt {r.attempt + 1} of {r.max_attempts})")
                r.worker_id = worker_id
                r.lease_until = now + timedelta(seconds=lease_seconds)
                r.started_at = now
                r.progress = Progress()  # an earlier attempt's progress says nothing about this one
                r.failure = None
                return r

            try:
                claimed, won = self._update_changed(candidate.id, take, f"Claim {candidate.id} by {worker_id}")
            except NotFoundError:
                continue  # deleted since we listed it
            except ConflictError as e:  # this one is too busy right now: the next one may not be
                log.warning("could not claim %s: %s", candidate.id, e)
                continue
            if won:
                return claimed
        return None

    def renew(self, id: str, worker_id: str, lease_seconds: float,
              progress: Progress | None = None) -> Request:
        """Extend the lease (and record progress). LeaseLost once the request is no
        longer RUNNING for this worker: expired and taken back, cancelled, finished."""
        def extend(r: Request) -> Request:
            self._check_owner(r, worker_id)
            r = r.model_copy(deep=True)
            r.lease_until = self.clock() + timedelta(seconds=lease_seconds)
            if progress is not None:
                r.progress = progress.model_copy()
            return r

        return self._update(id, extend, f"Renew lease of {id} ({worker_id})")

    def check_owner(self, id: str, worker_id: str) -> Request:
        """The request, if it is RUNNING for `worker_id`; LeaseLost otherwise. A read only:
        nothing is written (the next renew or finish decides for good)."""
        request = self.get(id)
        self._check_owner(request, worker_id)
        return request

    def finish(self, id: str, worker_id: str, result_path: str, code_version: str,
               log_path: str | None, progress: Progress | None = None) -> Request:
        """RUNNING -> FINISHED, with the final `progress` recorded in the same write."""
        def done(r: Request) -> Request | None:
            if r.status == Status.FINISHED and r.worker_id == worker_id:  # ours landed, its reply lost:
                return None  # nothing to do (a claim sets a new worker id, a rerun clears it)
            self._check_owner(r, worker_id)
            r = self._moved(r, Status.FINISHED, f"finished by {worker_id} (run {r.runs + 1}, code {code_version})")
            r.finished_at = self.clock()
            r.lease_until = None
            r.result_path = result_path
            r.code_version = code_version
            r.log_path = log_path
            r.runs += 1
            r.failure = None
            if progress is not None:
                r.progress = progress.model_copy()
            return r

        return self._update(id, done, f"Finish {id} ({worker_id})")

    def fail(self, id: str, worker_id: str, reason: Reason, message: str, log_path: str | None) -> Request:
        def failed(r: Request) -> Request:
            self._check_owner(r, worker_id)
            r = self._moved(r, Status.FAILED, f"failed on {worker_id}: {Reason(reason).value}")
            r.finished_at = self.clock()
            r.lease_until = None
            r.failure = Failure(reason=reason, message=message)
            r.log_path = log_path
            return r

        return self._update(id, failed, f"Fail {id} ({worker_id}): {Reason(reason).value}")

    def give_back(self, id: str, worker_id: str, why: str, failure_message: str,
                  log_path: str | None = None) -> Request:
        """RUNNING -> PENDING with `attempt + 1`, by the worker holding it that could not run
        it through no fault of the submission (a dispatcher whose job was refused, killed or
        crashed; `why` says which); FAILED(internal, `failure_message`) once that would reach
        max_attempts, as an expired lease would."""
        def back(r: Request) -> Request:
            self._check_owner(r, worker_id)
            r = self._attempt_used(r, f"{worker_id} gave it back: {why}", Reason.INTERNAL, lambda _: failure_message)
            if r.status == Status.FAILED:
                r.log_path = log_path or r.log_path
            return r

        return self._update(id, back, f"Give back {id} ({worker_id})")

    def expire_leases(self) -> list[Request]:
        """Send every RUNNING request whose lease ran out back to PENDING (attempt + 1),
        or to FAILED(timeout) once that would reach max_attempts. Returns the moved ones."""
        return self._expire(self.live())

    def _expire(self, requests) -> list[Request]:
        moved = []
        for stale in requests:
            if not self._lease_expired(stale):
                continue

            def expire(r: Request) -> Request | None:
                if not self._lease_expired(r):
                    return None  # renewed, finished or already expired by someone else meanwhile
                return self._attempt_used(r, f"lease of {r.worker_id} expired", Reason.TIMEOUT, lambda attempt: (
                    f"The evaluation worker stopped responding {attempt} times while running this "
                    f"submission (it was retried up to {r.max_attempts} attempts). This is usually a "
                    f"crash or a machine being reclaimed, not a problem with the submission; "
                    f"a maintainer can requeue it."))

            try:
                result, changed = self._update_changed(stale.id, expire, f"Expire lease of {stale.id}")
            except NotFoundError:
                continue
            except ConflictError as e:  # the next claim or expiry pass tries again
                log.warning("could not expire the lease of %s: %s", stale.id, e)
                continue
            if changed:
                moved.append(result)
        return moved

    # ---- maintainers ---------------------------------------------------------------------

    def requeue(self, id: str) -> Request:
        """FAILED or CANCELLED -> PENDING with a fresh set of attempts."""
        def again(r: Request) -> Request:
            if r.status not in (Status.FAILED, Status.CANCELLED):
                hint = " (use rerun to evaluate a FINISHED one again)" if r.status == Status.FINISHED else ""
                raise InvalidTransition(f"request {id} is {r.status.value}: only FAILED or CANCELLED requests "
                                        f"can be requeued{hint}")
            was = r.status.value + (f": {r.failure.reason.value}" if r.failure else "")
            r = self._moved(r, Status.PENDING, f"requeued by maintainer (was {was})")
            _reset_run(r)
            return r

        return self._update(id, again, f"Requeue {id}")

    def rerun(self, id: str, suite_id: str | None = None) -> Request:
        """FINISHED -> PENDING, e.g. after a scoring fix or a new suite version. The old
        result stays published (result_path, code_version, runs are kept) until the new
        run's finish() replaces it at the same path; `suite_id` evaluates against another
        suite. The versions being replaced are kept in metadata."""
        def again(r: Request) -> Request:
            if r.status != Status.FINISHED:
                raise InvalidTransition(f"request {id} is {r.status.value}: only FINISHED requests can be "
                                        f"rerun (use requeue for a FAILED or CANCELLED one)")
            note = f"rerun requested by maintainer (previous run: code {r.code_version or 'unknown'}"
            r = r.model_copy(deep=True)
            r.metadata["rerun_of_code_version"] = r.code_version or "unknown"
            r.metadata["rerun_of_suite_id"] = r.suite_id
            if suite_id and suite_id != r.suite_id:
                note += f", suite {r.suite_id} -> {suite_id}"
                r.suite_id = suite_id
            r = self._moved(r, Status.PENDING, note + ")")
            _reset_run(r)
            return r

        return self._update(id, again, f"Rerun {id}")

    def correct(self, id: str, declared: dict[str, str]) -> Request:
        """A prediction file's declared settings (DECLARED_KEYS) replaced by its submitter's
        (checked by submissions.submit.correct_declared): a FINISHED one is scored again (its
        row stays until replaced), a PENDING one just carries them. No request is added."""
        def change(r: Request) -> Request:
            if r.kind != "predictions" or r.status not in (Status.FINISHED, Status.PENDING):
                raise InvalidTransition(f"{id} is a {r.status.value} {r.kind} submission: only a prediction file's "
                                        f"settings can be corrected, while it waits or once it has finished")
            r = r.model_copy(deep=True)
            r.metadata = {k: v for k, v in r.metadata.items() if k not in DECLARED_KEYS} | declared
            note = f"settings corrected by the submitter: {sorted(declared.items()) or 'none stated'}"
            if r.status == Status.PENDING:
                r.history.append(Event(at=self.clock(), status=r.status, note=note))
                return r
            r = self._moved(r, Status.PENDING, note)
            _reset_run(r)
            return r

        return self._update(id, change, f"Correct the declared settings of {id}")

    def cancel(self, id: str, by: str = "maintainer") -> Request:
        """PENDING or RUNNING -> CANCELLED. A worker running it gets LeaseLost at its next
        renew or finish and drops the work."""
        def stop(r: Request) -> Request:
            if r.status not in (Status.PENDING, Status.RUNNING):
                raise InvalidTransition(f"request {id} is {r.status.value}: only PENDING or RUNNING requests "
                                        f"can be cancelled")
            running = f" while running on {r.worker_id}" if r.status == Status.RUNNING else ""
            r = self._moved(r, Status.CANCELLED, f"cancelled by {by}{running}")
            r.finished_at = self.clock()
            r.lease_until = None
            return r

        return self._update(id, stop, f"Cancel {id}")

    def set_priority(self, id: str, priority: int) -> Request:
        """Higher runs first among PENDING requests; kept across reruns and requeues."""
        def reorder(r: Request) -> Request | None:
            if r.priority == priority:
                return None
            r = r.model_copy(deep=True)
            r.history.append(Event(at=self.clock(), status=r.status,
                                   note=f"priority {r.priority} -> {priority} by maintainer"))
            r.priority = priority
            return r

        return self._update(id, reorder, f"Set priority of {id} to {priority}")

    # ---- the one place that writes ---------------------------------------------------------

    def _update(self, id: str, change: Change, message: str) -> Request:
        return self._update_changed(id, change, message)[0]

    def _update_changed(self, id: str, change: Change, message: str) -> tuple[Request, bool]:
        """Read, decide, compare-and-swap; on a conflict wait a little (jittered, so racing
        workers fall out of step) and decide again from a fresh read. Returns the request
        as it now is and whether this call changed it."""
        for attempt in range(self.conflict_retries):
            path, found = read_request(self.store, id)
            if found is None:
                raise NotFoundError(f"no submission with id {id!r} in the {self.store.name} store")
            current = Request.from_bytes(found.data)
            new = change(current)
            if new is None:
                return current, False
            try:
                write_request(self.store, path, found.version, new, message)  # archived: moved back if live work
                return new, True
            except ConflictError:
                self._backoff(attempt)
        raise ConflictError(f"gave up changing request {id} in the {self.store.name} store: it changed under "
                            f"us {self.conflict_retries} times in a row; try again")

    def _attempt_used(self, r: Request, why: str, reason: Reason, failure: Callable[[int], str]) -> Request:
        """The retry rule: a run that ended through no fault of the submission used one attempt;
        back to PENDING while attempts are left, else FAILED(`reason`, `failure(attempts used)`)."""
        attempt = r.attempt + 1
        if attempt >= r.max_attempts:
            r = self._moved(r, Status.FAILED, f"{why} (attempt {attempt} of {r.max_attempts}, no attempts left)")
            r.finished_at = self.clock()
            r.failure = Failure(reason=reason, message=failure(attempt))
        else:
            r = self._moved(r, Status.PENDING, f"{why} (attempt {attempt + 1} of {r.max_attempts} next)")
            r.worker_id = None
        r.attempt = attempt
        r.lease_until = None
        return r

    def _backoff(self, attempt: int) -> None:
        """After a conflict: wait a little, jittered so racing writers fall out of step."""
        time.sleep(random.uniform(0, self.backoff_seconds * 2 ** min(attempt, 6)))

    def _moved(self, r: Request, status: Status, note: str) -> Request:
        return r.moved(status, note, at=self.clock())  # timed by our clock: tests run on a fake one

    def _lease_expired(self, r: Request) -> bool:
        return r.status == Status.RUNNING and (r.lease_until is None or r.lease_until < self.clock())

    @staticmethod
    def _check_owner(r: Request, worker_id: str) -> None:
        if r.status != Status.RUNNING or r.worker_id != worker_id:
            now = f"{r.status.value}" + (f" on {r.worker_id}" if r.status == Status.RUNNING else "")
            raise LeaseLost(f"worker {worker_id} no longer holds request {r.id}: it is now {now}")


def _reset_run(r: Request) -> None:
    """Clear what belongs to one attempt; keep the published result's fields."""
    r.attempt = 0
    r.worker_id = None
    r.lease_until = None
    r.started_at = None
    r.finished_at = None
    r.progress = Progress()
    r.failure = None
