"""The model runner: answers a suite's calls with a model, for the worker to score.

    runner = get_runner(request, settings)           # evaluator.runners: runner_for below
    predictions = runner.run(request, suite, key.hidden_calls, progress_callback)
    runner.settings                                  # how the numbers were produced (result)

or, with a backend at hand (tests, scripts):

    runner = ModelRunner(load_backend("transformers", path), RunnerSettings(batch_calls=16))

One run, as each benchmark's reference protocol says (evaluator/reference.py, through
runners/reference_run.py):
  1. the calls: the suite's public calls plus the answer key's hidden calls (Video
     SimpleQA sub-questions, worker runs only). Where the request's frame budgets (its
     author's, or the paper's count for the model) differ from the suite's, the calls of
     that budget are re-drawn with that many uniform frames over the same range (a
     CausalStep call in context: that many per segment), and the prompt's frame count
     and times follow (schedule.replan);
  2. one FrameStore over all of them: each video decoded once, every frame time any
     call asks for in one pass, dropped once its last call has had them;
  3. the passes of schedule.plan_passes in the suite's benchmark order (a benchmark
     whose protocol asks for several runs: each call asked that many times side by side,
     each with its own seed; a stepwise chain walked once per run), each ordered by
     video, at most `batch_calls` calls / `batch_frames` frames per backend.generate,
     progress reported after each batch (the callback raises to stop the job; nothing
     here catches it). While the backend answers one batch, a pool of decode workers
     (one per core) gets the frames of the next `decode_ahead` batches ready, so the
     GPU does not wait for PyAV; a decode error reaches the run when its batch is due;
  4. one Prediction per call (per context label for CausalStep calls in context; a
     repeated run's carry its `run`): the records a prediction file would hold, scored
     by the worker the same way.

A call reaches the backend as a GenRequest: its frames (all its plans, in order) with
their times, marked as a video when there are several, a single image when there is
one, and its benchmark's temperature, token budget and seed. Frames are resized to the
paper's own size where it fixes one (ExpVid 224x224, ExAct 796x448), after the
runner-wide resize policy, and recorded.
`run(..., blind=True)`: the "no video" pass, every frame black (same size, count, times,
prompts, generation and runs; CausalStep's chain follows the blind answers).
`runner.cost`: the last run's cost.
"""

from __future__ import annotations

import gc
import importlib.util
import inspect
import os
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from evaluator.records import Call, Prediction
from evaluator.runners import costs, reference_run, schedule
from evaluator.errors import UNAVAILABLE_MESSAGE, RunnerUnavailable
from evaluator.runners.frame_store import call_times

BLIND_STAGE = "no video"  # progress stages of the blind pass read "no video: expvid"
BLANK_FRAMES = "black frames, same count, size and times"  # recorded with the blind scores

# A backend's own token budget, for requests that bring none (each benchmark's comes
# from its protocol.toml, runners/reference_run.py).
DEFAULT_MAX_NEW_TOKENS = 1024
DEFAULT_MAX_NEW_TOKENS_THINKING = 4096
DEFAULT_BATCH_CALLS = {"transformers": 64, "vllm": 1024}  # vLLM batches continuously inside one call
DEFAULT_BATCH_FRAMES = 8192  # frames held for one generate call (host memory)


@dataclass(frozen=True)
class RunnerSettings:
    """Runner-wide choices; the backend holds the model's own (dtype, max_new_tokens...)."""

    batch_calls: int = 64  # calls per backend.generate
    batch_frames: int | None = DEFAULT_BATCH_FRAMES  # frames per backend.generate; None: no limit
    benchmark_resize: bool = True  # the papers' own frame sizes (each protocol.toml's resolution)
    max_new_tokens: int | None = None  # the worker operator's cap for every benchmark; None: each protocol's
    # Batches whose frames are decoded while the backend answers an earlier one. Each
    # holds up to `batch_frames` frames in memory; 0: decode a batch just before it is
    # answered, on the runner's own thread (no overlap).
    decode_ahead: int = 1
    decode_workers: int | None = None  # decode threads; None: one per core this process may use

    def __post_init__(self) -> None:
        if self.batch_calls < 1:
            raise ValueError(f"batch_calls must be at least 1, not {self.batch_calls}")
        if self.batch_frames is not None and self.batch_frames < 1:
            raise ValueError(f"batch_frames must be at least 1, not {self.batch_frames}")
        if self.decode_ahead < 0:
            raise ValueError(f"decode_ahead must be 0 or more, not {self.decode_ahead}")
        if self.decode_workers is not None and self.decode_workers < 1:
            raise ValueError(f"decode_workers must be at least 1, not {self.decode_workers}")


class ModelRunner:
    """The Runner protocol (evaluator/runners/__init__.py) over any Backend."""

    def __init__(self, backend, settings: RunnerSettings | None = None, resize=None, thinking: bool | None = None):
        self.backend = backend
        self.options = settings or RunnerSettings()
        self.resize = resize  # runner-wide ResizePolicy; None keeps the native size
        self.thinking = thinking  # what the backend was told (enable_thinking); None: nothing
        self.name = getattr(backend, "name", type(backend).__name__)
        self.frame_store = None  # the last run's FrameStore: decode and use counts
        self.generations = 0  # requests sent to the backend in the last run
        self.meter = costs.Meter(backend)  # the last run's cost, per generation (costs.py)
        self.cost: dict[str, Any] | None = None  # the last run's summary (costs.summarize)
        self.settings: dict[str, Any] = self._describe()

    # -- the run ------------------------------------------------------------------------

    def run(self, request, suite, hidden_calls: Sequence[Call] = (), progress_callback=None,
            blind: bool = False) -> list[Prediction]:
        """The predictions for every call; `blind`: with every frame blanked (module docstring)."""
        from evaluator.runners.frame_store import FrameStore

        public, hidden = calls_asked(suite, request, hidden_calls)
        names = list(suite.manifest.get("benchmarks", {}))
        plans = self.generation_plans(names, request)
        passes = schedule.plan_passes(public, hidden, names)
        for step in passes:
            step.runs = plans[step.benchmark].runs if step.benchmark in plans else 1
        store = FrameStore(suite.path, suite.videos, self.resize)
        # every call once per walk of its pass (a stepwise chain is walked once per run);
        # unknown or file-less videos fail here, before any model time
        store.prefetch([c for step in passes for c in step.calls * (step.runs if step.mode == schedule.STEPWISE
                                                                      else 1)])
        self.frame_store, self.generations, self.meter = store, 0, costs.Meter(self.backend)
        _reserve_mm_limits(self.backend, [*public, *hidden])

        total, done = sum(len(step.calls) * step.runs for step in passes), 0
        report = progress_callback or (lambda done, total, stage: None)
        predictions: list[Prediction] = []
        pool = self._decode_pool()
        try:
            for index, step in enumerate(passes):
                stage_name = f"{BLIND_STAGE}: {step.stage}" if blind else step.stage
                report(done, total, stage_name)

                def on_batch(finished: int, stage: str = stage_name) -> None:
                    nonlocal done
                    done += finished
                    report(done, total, stage)

                then = self._first_batch(passes[index + 1]) if index + 1 < len(passes) else []
                asker = _Asker(self, store, plans.get(step.benchmark), pool, then, blind)
                predictions += schedule.run_pass(step, asker,
                                                  self.options.batch_calls,
                                                  on_batch, on_skip=lambda call: _give_back(store, call),
                                                  batch_frames=self.options.batch_frames)
        finally:
            if pool is not None:  # batches decoded ahead of a stop or an error are not waited for
                pool.shutdown(wait=True, cancel_futures=True)
        self.settings = self._describe(suite, request, passes, store, plans)
        self.cost = self.meter.summary()
        return predictions

    def generation_plans(self, names: list[str], request) -> dict:
        """How each benchmark's calls are asked (reference_run.Generating), the blind pass alike."""
        return reference_run.generation_plans(names, bool(getattr(request, "thinking", False)),
                                              self.options.max_new_tokens, self.options.benchmark_resize)

    def _first_batch(self, step: schedule.Pass) -> list[Call]:
        return schedule.first_batch(step, self.options.batch_calls, self.options.batch_frames)

    def _decode_pool(self) -> ThreadPoolExecutor | None:
        if self.options.decode_ahead == 0:
            return None
        workers = self.options.decode_workers or available_cores()
        return ThreadPoolExecutor(max_workers=workers, thread_name_prefix="frame-decode")

    # -- what is recorded ---------------------------------------------------------------

    def _describe(self, suite=None, request=None, passes=(), store=None, plans=None) -> dict[str, Any]:
        """Flat keys become table columns (runner.<key>); dicts are stored as JSON."""
        backend = dict(getattr(self.backend, "settings", {}) or {})
        settings: dict[str, Any] = {
            "backend": backend,
            "model": backend.get("model"),
            "revision": backend.get("revision"),
            "dtype": backend.get("dtype"),
            "max_new_tokens": self.options.max_new_tokens,  # the operator's cap; None: each protocol's
            "enable_thinking": self.thinking,  # what the chat template was told; None: not passed
            "batch_calls": self.options.batch_calls,
            "batch_frames": self.options.batch_frames,
            "resize": self.resize.describe() if self.resize is not None else "native size",
        }
        if suite is None:
            return settings
        return settings | {
            "frames": request.frames,  # a request from before frame budgets: one count for every call
            "thinking": bool(request.thinking),
            "frame_budgets": reference_run.frames_asked(suite, request),
            # per benchmark: temperature, token budget, runs and frame size, as asked
            "generation": {name: plan.describe() for name, plan in (plans or {}).items()},
            "passes": {step.stage: len(step.calls) * step.runs for step in passes},
            "generations": self.generations,
            "frame_decoder": store.settings(),
            "decodes": decode_summary(store),
        }

    def close(self) -> None:
        """Let go of the model (GPU memory) once the job is over."""
        closer = getattr(self.backend, "close", None)
        if callable(closer):
            closer()
        self.backend = None
        gc.collect()
        if importlib.util.find_spec("torch") is not None:
            import torch

            if torch.cuda.is_available():
                torch.cuda.empty_cache()


class _Asker:
    """schedule.Ask for one pass: each call's frames from the store (once, shared by its
    variants), then one backend.generate. With a decode pool, `prepare` has the workers
    get a batch's frames, a task per call, while the backend answers an earlier batch;
    once the pass's batches are all prepared, the workers go on to the videos of the next
    pass's first batch (`then`), so the backend does not wait for them at its start."""

    def __init__(self, runner: ModelRunner, store, plan: reference_run.Generating | None,
                 pool: ThreadPoolExecutor | None, then: Sequence[Call] = (), blind: bool = False):
        self.runner = runner
        self.blind = blind  # every frame shown black (the "no video" pass)
        self.store = store
        self.plan = plan  # this benchmark's generation and frame size; None: the backend's defaults
        self.pool = pool
        self.ahead = runner.options.decode_ahead if pool is not None else 0
        self.then = list(then)

    def prepared_all(self) -> None:
        """Every batch known so far is prepared (schedule._answered): decode what comes
        next. A failure is left for that batch to meet again, and raise, when it is due."""
        if self.pool is None or not self.then:
            return
        for video in dict.fromkeys(plan.video for call in self.then for plan in call.frames):
            self.pool.submit(self.store.warm, video)
        self.then = []  # once: CausalStep's later rounds only serve frames held since its first

    def __call__(self, queries: list[schedule.Query]) -> list[str]:
        return self.prepare(queries)()

    def prepare(self, queries: list[schedule.Query]) -> Callable[[], list[str]]:
        calls = list({q.call.id: q.call for q in queries}.values())
        if self.pool is None:
            return lambda: self._generate(queries, {c.id: self._frames(c) for c in calls})
        decoding = {c.id: self.pool.submit(self._frames, c) for c in calls}
        # result() raises a worker's error (a broken video) here, in the runner's thread
        return lambda: self._generate(queries, {cid: job.result() for cid, job in decoding.items()})

    def _frames(self, call: Call) -> list:
        frames = _resized(self.store.call_frames(call), self.plan.resize if self.plan else None)
        return blank_frames(frames) if self.blind else frames

    def _generate(self, queries: list[schedule.Query], shown: dict[str, list]) -> list[str]:
        from evaluator.runners.backends import GenRequest

        plan = self.plan
        sampled = plan is not None and plan.temperature > 0
        batch = [GenRequest(prompt=q.prompt, frames=shown[q.call.id], frame_times=call_times(q.call),
                            as_video=len(shown[q.call.id]) > 1,
                            temperature=plan.temperature if plan else 0.0,
                            max_new_tokens=plan.max_new_tokens if plan else None,
                            seed=reference_run.seed_for(q.call.id, q.run) if sampled else None)
                 for q in queries]
        self.runner.generations += len(batch)
        return self.runner.meter.generate(self.runner.backend, batch)


def blank_frames(frames: list) -> list:
    """Black frames of the same sizes, in the same number (the blind pass)."""
    import numpy as np

    return [np.zeros_like(np.asarray(frame)) for frame in frames]


def available_cores() -> int:
    """CPU cores this process may run on (its affinity where the OS says, e.g. in a container)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def calls_asked(suite, request, hidden: Sequence[Call] = ()) -> tuple[list[Call], list[Call]]:
    """The public and hidden calls as this request asks them: re-planned where its frame
    budgets differ from the suite's (runners/reference_run.py)."""
    return reference_run.replan_calls(list(suite.calls), list(hidden), suite.videos,
                                      reference_run.frames_asked(suite, request), reference_run.suite_budgets(suite))


def _resized(pictures: list, policy) -> list:
    if policy is None or not pictures:
        return pictures
    from evaluator.video import resize_frames

    return resize_frames(pictures, policy)


def _give_back(store, call: Call) -> None:
    """A call that will not be made (a broken CausalStep chain): let the store drop its
    frames once nothing else needs them, where the store can (FrameStore.release)."""
    release = getattr(store, "release", None)
    if callable(release):
        release(call)


def _reserve_mm_limits(backend, calls: Sequence[Call]) -> None:
    """A vLLM engine reserves memory for limit_mm_per_prompt when it starts, and the
    backend would size it from the first batch it sees; size it for the largest call
    of the whole run instead (one video, or as many images as its frames)."""
    if getattr(backend, "name", None) != "vllm" or getattr(backend, "limit_mm_per_prompt", True) is not None:
        return
    if getattr(backend, "_engine", None) is not None:
        return
    from evaluator.runners import vllm_inputs
    from evaluator.runners.backends import GenRequest

    most = max((sum(len(p.times) for p in call.frames) for call in calls), default=0)
    dot = [None] * most  # stand-ins: only the counts matter here
    samples = [GenRequest("", frames=dot, as_video=True), GenRequest("", frames=dot[:1])]
    backend.limit_mm_per_prompt = vllm_inputs.default_mm_limits(samples, backend.video, backend.model_takes_video)


def decode_summary(store) -> dict[str, Any]:
    """Decodes per video (each must be 1) beside the calls that used the videos."""
    decodes: Counter = store.decodes
    return {
        "videos": len(decodes),
        "decodes": sum(decodes.values()),
        "max_decodes_per_video": max(decodes.values(), default=0),
        "calls_using_videos": sum(store.uses.values()),
    }


# -- from a request to a runner ------------------------------------------------------------

def runner_for(request, settings) -> ModelRunner:
    """The ModelRunner for a model-ID request, its model loaded.

    Options come from the worker's settings (settings.worker), set by its operator:
    never from the request, whose metadata the submitter controls.
    Raises ModelNotFound (evaluator/errors.py) for a missing model or revision, and
    RunnerUnavailable when the backend asked for cannot run on this worker.
    """
    if importlib.util.find_spec("torch") is None or importlib.util.find_spec("transformers") is None:
        raise RunnerUnavailable(UNAVAILABLE_MESSAGE)
    from evaluator.runners.backends import (
        BACKEND_KINDS,
        TransformersBackend,
        VllmBackend,
        load_backend,
        vllm_usable,
    )

    worker = settings.worker
    kind = worker.backend
    if kind not in BACKEND_KINDS:
        raise RunnerUnavailable(f"unknown backend '{kind}' (known: {', '.join(BACKEND_KINDS)})")
    if kind == "vllm" and not vllm_usable():
        raise RunnerUnavailable("This worker is set to the vLLM backend, which it cannot run (vllm not "
                                "installed or no CUDA device); a maintainer can requeue the request on a GPU worker.")
    kind = ("vllm" if vllm_usable() else "transformers") if kind == "auto" else kind
    backend_class = VllmBackend if kind == "vllm" else TransformersBackend

    thinking = bool(request.thinking)
    options: dict[str, Any] = {
        "dtype": request.precision or "auto",
        "max_new_tokens": worker.max_new_tokens or (DEFAULT_MAX_NEW_TOKENS_THINKING if thinking
                                                     else DEFAULT_MAX_NEW_TOKENS),
        "batch_size": worker.batch_size,
        "tensor_parallel_size": worker.tensor_parallel_size,
        "data_parallel_size": worker.data_parallel_size,
    }
    told_thinking = None
    if "chat_template_kwargs" in inspect.signature(backend_class.__init__).parameters:
        options["chat_template_kwargs"] = {"enable_thinking": thinking}  # Qwen3-style templates read it
        told_thinking = thinking
    backend = load_backend(kind, request.model, request.revision, **options)
    runner_settings = RunnerSettings(
        batch_calls=worker.batch_calls or DEFAULT_BATCH_CALLS.get(kind, 64),
        batch_frames=worker.batch_frames,
        max_new_tokens=worker.max_new_tokens,
    )
    resize = None
    if worker.resize_max_side:
        from evaluator.video import ResizePolicy

        resize = ResizePolicy(max_side=worker.resize_max_side)
    return ModelRunner(backend, runner_settings, resize=resize, thinking=told_thinking)


__all__ = ["BLANK_FRAMES", "BLIND_STAGE", "ModelRunner", "RunnerSettings", "blank_frames", "calls_asked",
           "decode_summary", "runner_for"]
