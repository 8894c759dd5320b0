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


class UnknownJudgeError(EvaluatorError, ValueError):
    """A judge name that is not in the judges' registry (evaluator/judges/)."""

    def __init__(self, name: str, known: list[str]):
        self.name = name
        self.known = known
        names = ", ".join(repr(k) for k in known)
        super().__init__(
            f"unknown judge {name!r}. Known judges: {names}; "
            "or 'llm:<hub-model-id-or-local-path>' for an LLM judge on that model "
            "(for example 'llm:microsoft/Phi-3-mini-4k-instruct')."
        )


# The model runners' errors (evaluator/runners/), which the worker turns into a request's failure reason.
UNAVAILABLE_MESSAGE = (
    "This worker cannot evaluate model IDs: the model runners need torch and transformers (or vllm), "
    "which are not installed here; submit a prediction file instead, or ask the maintainers."
)


class RunnerUnavailable(EvaluatorError):
    """No backend on this worker can run the request (vllm asked for but not installed, no torch,
    no GPU, ...): the worker fails it as "internal", with these words, because the missing piece is
    ours, not the submission's."""


class ModelNotFound(EvaluatorError):
    """The model (local folder or hub id at that revision) does not exist or cannot be reached: the
    request fails as "download"."""


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
