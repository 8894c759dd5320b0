"""Runners answer a suite's call list for a model-ID submission (design §2).

A prediction-file submission needs no runner: its answers are the uploaded file.
A model-ID submission needs one that loads the model (transformers or vllm, on a
GPU) and produces the same records a prediction file holds:

    runner = get_runner(request, settings)          # RunnerUnavailable if none fits
    predictions = runner.run(request, suite, progress_callback)
    # -> scored by the worker exactly like a prediction file (evaluator/worker.py)

The runners themselves come with the next issue; until then `get_runner` says so
in words a submitter can act on, and the worker fails such a request with that
message (reason "internal": the missing piece is ours, not the submission's).
"""

from __future__ import annotations

from typing import Any, Callable, Protocol

from evaluator.errors import EvaluatorError
from evaluator.records import Prediction

# progress_callback(done, total, stage): `done` of `total` calls answered, `stage`
# says what is running ("expvid", "loading model"). It raises when the job must stop
# (cancelled, lease lost, over its time limit): a runner lets that exception pass.
ProgressCallback = Callable[[int, int, str], None]

UNAVAILABLE_MESSAGE = (
    "Model-ID evaluation needs the GPU runners, which are not installed on this worker yet; "
    "submit a prediction file instead, or ask the maintainers."
)


class RunnerUnavailable(EvaluatorError):
    """No runner on this worker can evaluate the request (not installed, no GPU, ...)."""


class Runner(Protocol):
    """What the worker needs from a runner.

    `name` and `settings` are recorded in the result ("transformers", {"frames": 32,
    "dtype": "bfloat16", "max_new_tokens": 512, ...}) so every number on the board
    says how it was produced.

    `run` answers every call of `suite.calls` (and, on a worker, the answer key's
    hidden calls when the worker passes them: Video SimpleQA sub-questions) for the
    model `request.model` at `request.revision`, and returns one Prediction per call
    (CausalStep in-context calls carry the label of the model's own previous answer,
    as in a prediction file). It calls `progress_callback` after each batch; that
    call raises to stop the run, and the runner must not swallow it. Out of memory
    surfaces as MemoryError or torch's OutOfMemoryError, which the worker reports as
    "out_of_memory".
    """

    name: str
    settings: dict[str, Any]

    def run(self, request, suite, progress_callback: ProgressCallback) -> list[Prediction]: ...


def get_runner(request, settings) -> Runner:
    """The runner for a model-ID request. None is installed yet."""
    raise RunnerUnavailable(UNAVAILABLE_MESSAGE)
