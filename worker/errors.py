"""Why a job stopped: the worker's own exceptions (worker/loop.py decides what each one
does to the request)."""

from __future__ import annotations

from submissions.requests import Reason


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
