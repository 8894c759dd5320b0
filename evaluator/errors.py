"""Every error the evaluator raises on purpose, each with a message a user can act on.

Messages name what is wrong and where (file, line, field) and never contain a
hidden answer: they are shown to submitters.
"""

from __future__ import annotations

from dataclasses import dataclass


class EvaluatorError(Exception):
    """Base class: an expected failure with a user-facing message."""


class SuiteError(EvaluatorError):
    """A suite or answer-key folder is missing, incomplete or inconsistent."""


class ImportReleaseError(EvaluatorError):
    """An official release does not have the layout its importer expects."""


class VideoError(Exception):
    """A video file is missing, unreadable or holds no decodable video (evaluator/video/).

    Not an EvaluatorError: a video the evaluator cannot read is a fault of the suite or the
    machine, not of a submission; the worker fails the request as internal, the traceback in
    its log."""


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a prediction file, at a 1-based line (0 = the file as a whole)."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message


class PredictionFileError(EvaluatorError):
    """A prediction file was refused. Carries every problem found (up to a limit)."""

    def __init__(self, path: str, problems: list[Problem], truncated: bool = False):
        self.path = path
        self.problems = problems
        self.truncated = truncated
        shown = "\n".join(f"  - {p}" for p in problems)
        more = "\n  - (more problems not shown)" if truncated else ""
        super().__init__(f"{path}: the prediction file was refused:\n{shown}{more}")
