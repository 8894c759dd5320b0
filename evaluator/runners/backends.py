"""Generation backends: a model that answers a list of requests (prompt + frames).

    backend = load_backend("auto", "Qwen/Qwen2.5-VL-7B-Instruct", revision="<sha>")
    replies = backend.generate([GenRequest(prompt, frames, frame_times, as_video=True), ...])
    backend.settings      # {"model", "revision", "dtype", "max_new_tokens", "sampling", ...} for results

Two backends, one contract (same order in, same order out; greedy unless a request asks for
a temperature), one file each:
  TransformersBackend  runners/transformers_backend.py: batched generation with left padding,
                       on CPU or one GPU; frames as images, or as one video where the
                       processor takes video (needs torchvision: GPU workers).
  VllmBackend          runners/vllm_backend.py: vllm.LLM offline, one generate call per list
                       of requests, native video, prefix caching, tensor and data parallel.
The contract (GenRequest, Backend) is runners/generation.py; finding a model and its
processor (folder or Hub id, revision, cache) runners/hub.py; the errors evaluator/errors.py.
This module chooses and builds a backend, and names the backends' public parts in one
place. The same backends serve the LLM judges (text-only requests).

torch, transformers and vllm are imported only when a backend is built: the website
imports nothing heavy through this module.
"""

from __future__ import annotations

import importlib.util

from evaluator.errors import ModelNotFound
from evaluator.runners.generation import VIDEO_INPUTS, Backend, GenRequest
from evaluator.runners.hub import check_model, load_processor, resolve_revision
from evaluator.runners.transformers_backend import TransformersBackend
from evaluator.runners.vllm_backend import VllmBackend, replica_gpus
from evaluator.runners.vllm_inputs import build_vllm_inputs

__all__ = ["BACKEND_KINDS", "VIDEO_INPUTS", "Backend", "GenRequest", "ModelNotFound", "TransformersBackend",
           "VllmBackend", "build_vllm_inputs", "check_model", "load_backend", "load_processor", "replica_gpus",
           "resolve_revision", "vllm_usable"]

BACKEND_KINDS = ("auto", "transformers", "vllm")


def vllm_usable() -> bool:
    """vLLM installed and a CUDA device visible."""
    if importlib.util.find_spec("vllm") is None:
        return False
    import torch

    return torch.cuda.is_available()


# Options that only one kind uses: a shared configuration may carry both sets, and
# each backend drops the other's. Any other unknown option is an error (a typo).
_OTHER_KINDS_OPTIONS = {
    "transformers": {"tensor_parallel_size", "data_parallel_size", "max_model_len", "limit_mm_per_prompt",
                     "gpu_memory_utilization", "engine_kwargs"},
    "vllm": {"batch_size", "device"},
}


def load_backend(kind: str, model: str, revision: str | None = None, **options) -> Backend:
    """The backend of `kind` ("transformers", "vllm", or "auto": vLLM when it is
    installed and CUDA is available) for `model` at `revision`.

    Raises ModelNotFound when the model folder or hub id (at that revision) does not exist.
    """
    if kind not in BACKEND_KINDS:
        raise ValueError(f"backend must be one of {', '.join(BACKEND_KINDS)}, not {kind!r}")
    if kind == "auto":
        kind = "vllm" if vllm_usable() else "transformers"
    options = {k: v for k, v in options.items() if k not in _OTHER_KINDS_OPTIONS[kind]}
    if kind == "vllm":
        return VllmBackend(model, revision, **options)
    return TransformersBackend(model, revision, **options)
