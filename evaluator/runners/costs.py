"""What a model-ID run cost: GPU-seconds, time to first token and tokens per second.

Measured per generation (one request a backend answers) and summarised per run:

    gpu_seconds   the wall time of the backend.generate call that answered it, times
                  the GPUs the backend holds, shared equally among that call's requests
                  (a batch runs as one; nothing finer is observable from outside it)
    ttft_s        seconds from the start of the request's batch (encoding included) to
                  its first generated token. transformers: a streamer times each
                  decoding step of the batch (the first step is the prefill); vLLM: the
                  engine's own per-request metrics when it reports them, else unknown
    tokens        tokens generated (the end-of-sequence token included)
    tokens_per_s  decoding speed: (tokens - 1) / (time of its last token - time of its
                  first), unknown for a one-token answer

These depend on the hardware (the device name is recorded), the batch settings and
how busy the machine was: they say what a run cost, not how good a model is.
A backend may expose `last_stats` (GenStats per request of its last generate, same
order) and `gpus`; the runner's Meter reads them. Nothing here imports torch at module
level: the site reads the summaries.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import asdict, dataclass
from typing import Any, Sequence

COST_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class GenStats:
    """What a backend measured for one request (None: not measured)."""

    ttft_s: float | None = None
    tokens: int | None = None
    tokens_per_s: float | None = None


@dataclass(frozen=True)
class CallCost:
    """One generation's cost: its share of the batch's GPU time plus the backend's stats."""

    gpu_seconds: float
    ttft_s: float | None = None
    tokens: int | None = None
    tokens_per_s: float | None = None


# -- measuring ---------------------------------------------------------------------------

class StepClock:
    """A transformers streamer that only notes when each decoding step's tokens arrive.

    generate() hands it the prompt first, then one token per sequence per step; on a GPU
    the hand-over copies the tokens to the host, so the time noted is when the step
    really finished (streamers cannot be used with beam search; we decode greedily)."""

    def __init__(self, start: float | None = None):
        self.start = time.perf_counter() if start is None else start
        self.steps: list[float] = []
        self._prompt_seen = False

    def put(self, value) -> None:
        if not self._prompt_seen:  # the first put is the prompt itself
            self._prompt_seen = True
            return
        self.steps.append(time.perf_counter())

    def end(self) -> None:
        pass

    def stats(self, new_tokens, stop: set[int]) -> list[GenStats]:
        """GenStats of each row of the batch's generated block (see step_stats)."""
        return step_stats(self.start, self.steps, generated_counts(new_tokens, stop))


def stop_ids(model, tokenizer) -> set[int]:
    """Token ids that end a generated answer (the model's end-of-sequence ids and the
    tokenizer's): what follows one in a batch is padding, not generated text."""
    ids: set[int] = set()
    for value in (getattr(getattr(model, "generation_config", None), "eos_token_id", None),
                  getattr(tokenizer, "eos_token_id", None)):
        ids.update(value if isinstance(value, (list, tuple, set)) else [] if value is None else [value])
    return ids


def step_stats(start: float, steps: Sequence[float], tokens: Sequence[int]) -> list[GenStats]:
    """Per sequence of one batch: `steps` are the times of the batch's decoding steps,
    `tokens` each sequence's generated token count (it finished at step tokens - 1)."""
    out = []
    for n in tokens:
        if n < 1 or not steps:
            out.append(GenStats(None, n, None))
            continue
        first, last = steps[0], steps[min(n, len(steps)) - 1]
        rate = (n - 1) / (last - first) if n > 1 and last > first else None
        out.append(GenStats(first - start, n, rate))
    return out


def generated_counts(new_tokens, stop_ids: set[int]) -> list[int]:
    """Tokens each row of a generated block holds: up to and including its first stop
    token (end of sequence), the rest being padding; the whole row when there is none."""
    counts = []
    for row in new_tokens.tolist():
        stop = next((k for k, token in enumerate(row) if token in stop_ids), None)
        counts.append(len(row) if stop is None else stop + 1)
    return counts


def vllm_stats(output) -> GenStats:
    """GenStats of one vLLM RequestOutput: the token count always; times where the
    engine filled in its per-request metrics (older engines: RequestMetrics with
    wall-clock arrival/first/last token times; newer ones: first_token_latency and
    first/last token timestamps), else None."""
    completion = output.outputs[0] if getattr(output, "outputs", None) else None
    ids = getattr(completion, "token_ids", None)
    tokens = len(ids) if ids is not None else None
    m = getattr(output, "metrics", None)
    if m is None:
        return GenStats(None, tokens, None)
    ttft = _number(getattr(m, "first_token_latency", None))
    first = _number(getattr(m, "first_token_time", None))
    last = _number(getattr(m, "last_token_time", None))
    arrival = _number(getattr(m, "arrival_time", None))
    if ttft is None and first is not None and arrival is not None:
        ttft = first - arrival
    if first is None:  # the newer names (monotonic clock, same for both)
        first, last = _number(getattr(m, "first_token_ts", None)), _number(getattr(m, "last_token_ts", None))
    rate = None
    if tokens and tokens > 1 and first is not None and last is not None and last > first:
        rate = (tokens - 1) / (last - first)
    return GenStats(ttft if ttft is None or ttft >= 0 else None, tokens, rate)


def _number(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value else None


def apportion(wall_seconds: float, gpus: int, stats: Sequence[GenStats | None], count: int) -> list[CallCost]:
    """The CallCosts of one backend.generate call of `count` requests that took
    `wall_seconds` on `gpus` GPUs; `stats` what the backend measured (may be empty)."""
    share = wall_seconds * max(gpus, 1) / count if count else 0.0
    padded = list(stats) if len(stats) == count else [None] * count
    return [CallCost(share, *(asdict(s).values() if s is not None else (None, None, None))) for s in padded]


class Meter:
    """A run's cost so far: `generate(backend, requests)` times each backend.generate
    and keeps one CallCost per request; `summary()` is the run's cost record."""

    def __init__(self, backend):
        self.gpus = gpus_of(backend)
        self.calls: list[CallCost] = []
        self.wall_seconds = 0.0

    def generate(self, backend, requests: list) -> list[str]:
        began = time.perf_counter()
        replies = backend.generate(requests)
        wall = time.perf_counter() - began
        self.wall_seconds += wall
        self.calls += apportion(wall, self.gpus, getattr(backend, "last_stats", None) or [], len(requests))
        return replies

    def summary(self) -> dict[str, Any]:
        return summarize(self.calls, device_name(self.gpus), self.gpus, self.wall_seconds)


# -- summarising -------------------------------------------------------------------------

def _median_mean(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"median": None, "mean": None}
    return {"median": statistics.median(values), "mean": statistics.fmean(values)}


def summarize(costs: Sequence[CallCost], device: str, gpus: int, wall_seconds: float) -> dict[str, Any]:
    """The run's cost record (Result.cost): per-call medians and means, totals, and the
    hardware they were measured on."""
    gpu = [c.gpu_seconds for c in costs]
    ttft = [c.ttft_s for c in costs if c.ttft_s is not None]
    rate = [c.tokens_per_s for c in costs if c.tokens_per_s is not None]
    tokens = [c.tokens for c in costs if c.tokens is not None]
    return {
        "schema_version": COST_SCHEMA_VERSION,
        "device": device,
        "gpus": gpus,
        "calls": len(costs),
        "gpu_seconds_per_call": _median_mean(gpu),
        "ttft_s": _median_mean(ttft) | {"measured_calls": len(ttft)},
        "tokens_per_s": _median_mean(rate) | {"measured_calls": len(rate)},
        "gpu_seconds_total": sum(gpu),
        "generate_wall_seconds": wall_seconds,
        "tokens_total": sum(tokens) if tokens else None,
    }


def gpus_of(backend) -> int:
    """GPUs a backend holds: its `gpus`, else vLLM's tensor x data parallel size, else
    from its device (transformers: "cpu" none, "auto" every visible one, else one)."""
    if getattr(backend, "gpus", None) is not None:
        return int(backend.gpus)
    if getattr(backend, "tensor_parallel_size", None):
        return int(backend.tensor_parallel_size) * int(getattr(backend, "data_parallel_size", 1) or 1)
    device = str(getattr(backend, "device", "cuda"))
    if device == "cpu":
        return 0
    if device == "auto":
        import torch

        return torch.cuda.device_count()
    return 1


def device_name(gpus: int = 1) -> str:
    """The name of the GPUs a backend holds ("NVIDIA H100 80GB HBM3", "2 x ..." for
    several), or "cpu" for a backend on no GPU."""
    try:
        import torch
    except ImportError:
        return "cpu"
    if gpus < 1 or not torch.cuda.is_available():
        return "cpu"
    name = torch.cuda.get_device_name(0)
    return f"{gpus} x {name}" if gpus > 1 else name
