"""Errors of the published results, each with a message a reader can act on."""

from __future__ import annotations


class ResultsError(Exception):
    """Base class: an expected refusal about the published results."""


class ExportError(ResultsError, ValueError):
    """A suite id that cannot name an export file, or a file that is not a snapshot."""
