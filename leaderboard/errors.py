"""Errors the site's own logic raises on purpose, each with a message a visitor can act on."""

from __future__ import annotations


class LeaderboardError(Exception):
    """Base class: an expected refusal with a user-facing message."""


class CompareRefused(LeaderboardError):
    """Two rows that cannot be compared (a paper's row, another suite or judge, no
    per-video data); the message says why and what would make it possible."""


class SnapshotNotFound(LeaderboardError):
    """No snapshot of that suite: it has no verified result. `suites` are those that have one."""

    def __init__(self, message: str, suites: list[str]):
        super().__init__(message)
        self.suites = suites


class DownloadRefused(LeaderboardError):
    """A raw-outputs download that is not the signed-in user's to have (or not there yet);
    the message never says whether someone else's submission exists."""


class OutputsNotStored(DownloadRefused):
    """The signed-in submitter's own run, finished before the worker kept raw outputs."""
