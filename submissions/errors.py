"""Every error the submission pipeline raises on purpose, each with a message its
reader can act on. Messages reach submitters: they never contain an answer."""

from __future__ import annotations


class SubmissionError(Exception):
    """Base class: an expected failure with a user-facing message."""


class StoreError(SubmissionError):
    """A store could not be read or written."""


class TransientStoreError(StoreError):
    """A store call failed for a reason that may pass (network, 5xx, 429): retry it.
    `retry_after`: seconds the server asked us to wait first (its Retry-After), if it did."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


class SubmissionUnconfirmed(StoreError):
    """A submission's request may or may not have been stored: the store stopped answering."""


class ConflictError(StoreError):
    """A compare-and-swap lost: someone wrote since the version we read. Re-read and retry."""


class NotFoundError(SubmissionError):
    """No such submission, file or repository."""


class Refused(SubmissionError):
    """A submission was refused before it was queued (validation, quota, duplicate).

    `reason` is a short machine code ("validation", "quota", "duplicate",
    "bad_predictions"); the message says what to do about it.
    """

    def __init__(self, reason: str, message: str):
        self.reason = reason
        super().__init__(message)


class LeaseLost(SubmissionError):
    """A worker no longer holds the request it works on (lease expired, cancelled)."""


class InvalidTransition(SubmissionError):
    """A maintainer asked for a move the request's current status does not allow."""
