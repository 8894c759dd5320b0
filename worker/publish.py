"""Publishing a finished job: stage the result privately, mark the request FINISHED,
then make the result file and its table row public in one step (`Publisher`, which the
Worker holds); and publishing results whose worker died in between (`publish_pending`)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from evaluator import CODE_VERSION, raw_outputs
from results import aggregate
from submissions.errors import LeaseLost, StoreError
from submissions.queue import Queue
from evaluator.shards import sharded
from submissions.requests import Request, Status
from submissions.stores.sharded import read_sharded
from worker.job import Job
from worker.errors import JobStopped, PublishFailed

if TYPE_CHECKING:
    from evaluator.result import Result
    from space_config.settings import Settings
    from submissions.stores import Stores

log = logging.getLogger("evaluator.worker")


class Publisher:
    """Makes a worker's results public, in the order that keeps the table and the queue in
    step; `worker_id` proves the lease when the request is marked FINISHED."""

    def __init__(self, stores: "Stores", settings: "Settings", queue: Queue, worker_id: str):
        self.stores = stores
        self.settings = settings
        self.queue = queue
        self.worker_id = worker_id

    def publish(self, job: Job, result: "Result") -> None:
        """Stage, finish, publish, in this order, so that the public table never shows a
        row whose request is not FINISHED:

        1. the result goes to the private store (`staged_result_path`), where any worker
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
            log_path = job.patiently("staging the result", lambda: job.log.flush_with(
                self.stores.private, files, message=f"Result of {request.id} (run {result.submission.get('run')})"))
        except StoreError as e:
            raise PublishFailed(f"{type(e).__name__}: {e}") from e
        try:
            job.request = job.patiently("finishing", lambda: self.queue.finish(
                request.id, self.worker_id, request.result_path or aggregate.result_path(request.id), CODE_VERSION,
                log_path, job.progress_state))
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

    def unpublished(self) -> tuple[list[Request], list[Request]]:
        """FINISHED requests whose row is not in the table: (those finished over
        publish_grace_seconds ago, whose worker died or failed to publish; those its own worker
        may still be publishing). Archived ones are not looked at: only published ones are archived."""
        finished = [r for r in self.queue.live() if r.status == Status.FINISHED and r.runs > 0]
        if not finished:
            return [], []
        runs = aggregate.published_runs(self.stores.results)
        missing = [r for r in finished if not published(r, runs)]
        now, grace = self.queue.clock(), self.settings.worker.publish_grace_seconds
        recent = [r for r in missing if r.finished_at is not None and (now - r.finished_at).total_seconds() < grace]
        return [r for r in missing if r not in recent], recent

    def publish_pending(self) -> int:
        """Publish the results of FINISHED requests whose row is not in the table (their
        worker died, or a store failed, between finishing and publishing), from the staged
        copies, once their own worker has had publish_grace_seconds to do it. Returns how
        many were published."""
        published = 0
        for request in self.unpublished()[0]:
            try:
                published += self._publish_staged(request)
            except Exception:  # noqa: BLE001 - one bad copy must not stop the others
                log.exception("could not publish the staged result of %s", request.id)
        return published

    def _publish_staged(self, request: Request) -> bool:
        from evaluator.result import Result

        found = read_sharded(self.stores.private, staged_result_path(request.id))[1]
        result = Result.model_validate_json(found.data) if found is not None else None
        if result is None or result.submission.get("run") != request.runs:
            log.warning("%s is FINISHED (run %d) but has no staged result of that run to publish",
                        request.id, request.runs)
            return False
        return self._make_public(result, request, lambda line: log.info("%s: %s", request.id, line))


def published(request: Request, runs: Mapping[str, int | None]) -> bool:
    """Whether the table holds `request`'s latest run (`runs`: results.aggregate.published_runs)."""
    return request.id in runs and (runs[request.id] is None or runs[request.id] >= request.runs)


def staged_result_path(submission_id: str) -> str:
    """Where a result waits in the private store until it is public (and stays, as a copy):
    `results/<h>/<h>/<id>.json` (evaluator/shards.py; one staged before sharding is read at `results/<id>.json`)."""
    return sharded("results", submission_id, ".json")
