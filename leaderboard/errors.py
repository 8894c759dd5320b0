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


class HubResultsError(LeaderboardError, ValueError):
    """A result that cannot go on a model's Hub page (leaderboard/eval_results.py), or a Hub answer
    that stopped it; the message says why and what to do."""


class ReportedDataError(ValueError):
    """A papers' table (a benchmark folder's reported.json) or the model identities file does not
    have the expected shape; the message names the file and the field. Not a LeaderboardError: it
    is a maintainer's slip, found when the site starts, never a visitor's."""
