"""Runners answer a suite's call list for a model-ID submission.

A prediction-file submission needs no runner: its answers are the uploaded file.
A model-ID submission needs one that loads the model (transformers or vllm, on a
GPU) and produces the same records a prediction file holds:

    runner = get_runner(request, settings)     # loads the model: ModelNotFound, RunnerUnavailable
    predictions = runner.run(request, suite, key.hidden_calls, progress_callback)
    # -> scored by the worker exactly like a prediction file (worker/run.py)

    runners/model.py       ModelRunner: the calls, the frame store, the passes, the settings
    runners/schedule.py    the passes over the calls, their order and batches, CausalStep's
                           chain answered round by round: how each benchmark's calls are asked
    runners/frame_store.py FrameStore: every video decoded once per job
    runners/backends.py    transformers and vllm behind one `generate(requests)` (load_backend);
                           transformers_backend.py, vllm_backend.py one file each, vllm_inputs.py
                           the vLLM prompt dicts, generation.py GenRequest, hub.py model lookup
    runners/costs.py       what a run cost: GPU-seconds, time to first token, tokens/s
    runners/blind.py       the "no video" pass (every frame black) and its scores

RunnerUnavailable (evaluator/errors.py) means no backend on this worker can run the request (vllm asked for
but not installed, ...): the worker fails it as "internal", with the runner's words,
because the missing piece is ours, not the submission's.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol, Sequence

from evaluator.records import Call, Prediction
from evaluator.errors import UNAVAILABLE_MESSAGE, RunnerUnavailable

# progress_callback(done, total, stage): `done` of `total` calls answered, `stage`
# says what is running ("expvid", "loading model"). It raises when the job must stop
# (cancelled, lease lost, over its time limit): a runner lets that exception pass.
ProgressCallback = Callable[[int, int, str], None]

__all__ = ["UNAVAILABLE_MESSAGE", "ProgressCallback", "Runner", "RunnerUnavailable", "get_runner"]


class Runner(Protocol):
    """What the worker needs from a runner.

    `name` and `settings` are recorded in the result ("transformers", {"frames": 32,
    "dtype": "bfloat16", "max_new_tokens": 512, ...}) so every number on the board
    says how it was produced.

    `run(request, suite, hidden_calls, progress_callback)` answers every call of
    `suite.calls` and of `hidden_calls` (the answer key's worker-only calls: Video
    SimpleQA sub-questions) for the model `request.model` at `request.revision`, and
    returns one Prediction per call (CausalStep in-context calls: one per label of the
    model's own previous answer, as in a prediction file). It calls
    `progress_callback` after each batch; that call raises to stop the run, and the
    runner must not swallow it. Out of memory surfaces as MemoryError or torch's
    OutOfMemoryError, which the worker reports as "out_of_memory"; a model or revision
    that does not exist as ModelNotFound ("download").

    `blind=True` is the "no video" pass: the same calls with every frame black (same
    count, size and times). After a run, `cost` holds what it cost (runners/costs.py).
    """

    name: str
    settings: dict[str, Any]

    def run(self, request, suite, hidden_calls: Sequence[Call],
            progress_callback: ProgressCallback, blind: bool = False) -> list[Prediction]: ...


def get_runner(request, settings) -> Runner:
    """A ModelRunner for a model-ID request, its model loaded (evaluator/runners/model.py:
    runner_for). Raises ModelNotFound (missing model or revision) or RunnerUnavailable."""
    try:
        from evaluator.runners.model import runner_for
    except ImportError as e:  # the site's lighter install: no torch / transformers
        raise RunnerUnavailable(UNAVAILABLE_MESSAGE) from e
    return runner_for(request, settings)
