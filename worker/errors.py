"""The worker's own exceptions: why a job stopped (worker/loop.py decides what each one
does to the request), and a dispatcher that cannot start."""

from __future__ import annotations

from evaluator.errors import EvaluatorError
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


class DispatchError(EvaluatorError):
    """The Hugging Face Jobs dispatcher is not set up to run (a missing setting, a local store)."""
