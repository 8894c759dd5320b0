"""The runners' errors: what the worker turns into a request's failure reason.

RunnerUnavailable: no backend on this worker can run the request (vllm asked for but
not installed, no torch, ...); the worker fails it as "internal", with these words,
because the missing piece is ours, not the submission's.
ModelNotFound: the model or revision does not exist or cannot be reached ("download").
"""

from __future__ import annotations

from evaluator.errors import EvaluatorError

UNAVAILABLE_MESSAGE = (
    "This worker cannot evaluate model IDs: the model runners need torch and transformers (or vllm), "
    "which are not installed here; submit a prediction file instead, or ask the maintainers."
)


class RunnerUnavailable(EvaluatorError):
    """No runner on this worker can evaluate the request (not installed, no GPU, ...)."""


class ModelNotFound(EvaluatorError):
    """The model (local folder or hub id at that revision) does not exist or cannot be reached."""
