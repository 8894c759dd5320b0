"""What a backend sends to the model, built without the model: chat messages, video
metadata, vLLM prompt dicts, vLLM engine and sampling arguments.

Pure functions over GenRequests (evaluator/runners/generation.py), so they are unit
tested on machines without vLLM or a GPU. Nothing here imports torch or vllm.

How a request is shown (its "mode"):
  "text"   no frames: the prompt alone (judges);
  "images" one image entry per frame, in order, then the prompt (any image-text model;
           the only way on a CPU without torchvision);
  "video"  one video entry (the frames as one clip, with their timing), then the prompt
           (models with native video input: Qwen2.5-VL's temporal M-RoPE, ...).
The pictures always come before the question text, so requests on the same video share
the longest possible prompt prefix (vLLM's prefix cache).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from evaluator.runners.generation import GenRequest

TEXT, IMAGES, VIDEO = "text", "images", "video"

# A chat renderer: messages (role/content dicts) -> the model's prompt text.
Render = Callable[[list[dict]], str]


def request_mode(request: GenRequest, video: bool) -> str:
    """How `request` is shown to a backend that does (video=True) or does not take video."""
    if not request.frames:
        return TEXT
    if request.as_video and video:
        return VIDEO
    return IMAGES


def chat_messages(request: GenRequest, mode: str) -> list[dict]:
    """The request as chat messages: an optional system turn, then one user turn.

    Text-only turns carry a plain string (every chat template takes one, text-only
    judges' templates take nothing else); multimodal turns a list of typed entries.
    """
    messages: list[dict] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    if mode == TEXT:
        messages.append({"role": "user", "content": request.prompt})
        return messages
    pictures = [{"type": "video"}] if mode == VIDEO else [{"type": "image"} for _ in request.frames]
    messages.append({"role": "user", "content": [*pictures, {"type": "text", "text": request.prompt}]})
    return messages


def chat_renderer(processor) -> Render:
    """A Render from a processor or tokenizer: its chat template with the generation
    prompt; for a model without a template, the last user text as is."""
    template = getattr(processor, "chat_template", None)
    if not template and hasattr(processor, "tokenizer"):
        template = getattr(processor.tokenizer, "chat_template", None)

    def render(messages: list[dict]) -> str:
        if template:
            return processor.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        content = messages[-1]["content"]
        if isinstance(content, str):
            return content
        raise ValueError("this model has no chat template, so its prompt cannot hold images or a video")

    render.has_template = bool(template)  # type: ignore[attr-defined]
    return render


def clip_metadata(frame_times: Sequence[float]) -> dict[str, Any]:
    """The timing of a clip of sampled frames, in the form transformers' and vLLM's video
    processors read (VideoMetadata fields).

    The clip is described as a video of its own, played at the rate the frames were
    sampled at: frame i is index i, so `fps` is the sampled rate, which is what
    Qwen2.5-VL turns into seconds per temporal patch (transformers reads
    metadata.sampled_fps = len(frames_indices) / total_num_frames * fps). Times are
    relative to the first frame; a CausalStep segment starts at 0 s like a clip would.
    """
    times = [float(t) for t in frame_times]
    n = len(times)
    span = times[-1] - times[0] if n > 1 else 0.0
    # One frame, or several at the same instant: no rate to measure; 1 fps is neutral.
    fps = (n - 1) / span if span > 0 else 1.0
    return {
        "fps": fps,
        "frames_indices": list(range(n)),
        "total_num_frames": n,
        "duration": n / fps,
        "video_backend": "pyav",
    }


def stack_frames(frames: Sequence[np.ndarray]) -> np.ndarray:
    """Frames as one (T, H, W, 3) uint8 array; every frame of a clip must share its size."""
    shapes = {tuple(f.shape) for f in frames}
    if len(shapes) != 1:
        raise ValueError(f"the frames of one video request have different sizes {sorted(shapes)}; "
                         "resize them to one size (ResizePolicy) before sending them as a video")
    return np.ascontiguousarray(np.stack(frames)).astype(np.uint8, copy=False)


def build_vllm_inputs(requests: Sequence[GenRequest], render: Render, video: bool = True) -> list[dict]:
    """One vLLM prompt dict per request, same order.

    {"prompt": <chat-templated text with the model's placeholders>,
     "multi_modal_data": {"video": [(frames (T,H,W,3) uint8, metadata)]} or {"image": [frames]},
     "mm_processor_kwargs": {"do_sample_frames": False}}   (video only)
    Text-only requests are {"prompt": text}. The video is the (array, metadata) tuple
    vLLM's parsers take (Qwen3-VL requires the metadata; Qwen2.5-VL uses its fps for the
    temporal positions): clip_metadata plus do_sample_frames False, as the frames are
    final and no processor may re-sample them.
    """
    inputs = []
    for request in requests:
        mode = request_mode(request, video)
        entry: dict[str, Any] = {"prompt": render(chat_messages(request, mode))}
        if mode == VIDEO:
            metadata = {**clip_metadata(request.frame_times), "do_sample_frames": False}
            entry["multi_modal_data"] = {"video": [(stack_frames(request.frames), metadata)]}
            entry["mm_processor_kwargs"] = {"do_sample_frames": False}
        elif mode == IMAGES:
            entry["multi_modal_data"] = {"image": [np.asarray(f, dtype=np.uint8) for f in request.frames]}
        inputs.append(entry)
    return inputs


def mm_counts(requests: Sequence[GenRequest], video: bool) -> dict[str, int]:
    """The most items per modality any one of `requests` needs (vLLM's limit_mm_per_prompt)."""
    counts = {"image": 0, "video": 0}
    for request in requests:
        mode = request_mode(request, video)
        if mode == VIDEO:
            counts["video"] = max(counts["video"], 1)
        elif mode == IMAGES:
            counts["image"] = max(counts["image"], len(request.frames))
    return counts


def default_mm_limits(requests: Sequence[GenRequest], video: bool, model_takes_video: bool) -> dict[str, int]:
    """limit_mm_per_prompt when none is given: exactly what these requests need.

    Small and exact, because vLLM reserves memory and encoder cache for the limit.
    A video-capable model in images mode gets "video": 0 so nothing is reserved for
    video; a model without video support gets no "video" key at all.
    """
    counts = mm_counts(requests, video)
    limits = {"image": max(1, counts["image"])}
    if model_takes_video:
        limits["video"] = 1 if video else 0
    return limits


def check_mm_limits(requests: Sequence[GenRequest], video: bool, limits: dict[str, int]) -> None:
    """Raise before generating when a request needs more items than the engine allows."""
    for i, request in enumerate(requests):
        mode = request_mode(request, video)
        needed = {VIDEO: ("video", 1), IMAGES: ("image", len(request.frames))}.get(mode)
        if needed and needed[1] > limits.get(needed[0], 0):
            raise ValueError(
                f"request {i} needs {needed[1]} {needed[0]} item(s) but the vLLM engine was created with "
                f"limit_mm_per_prompt={limits}; pass limit_mm_per_prompt covering every call of the suite"
            )


def sampling_kwargs(max_new_tokens: int, temperature: float = 0.0, seed: int | None = None) -> dict[str, Any]:
    """SamplingParams arguments: greedy (temperature 0) or plain temperature sampling
    (top-k and top-p off) with a seed, at most max_new_tokens tokens.

    Given explicitly, so a checkpoint's generation_config (temperature, repetition
    penalty, top-p) never changes what "greedy" or "temperature t" means.
    """
    kwargs: dict[str, Any] = {"temperature": float(temperature), "max_tokens": int(max_new_tokens),
                              "repetition_penalty": 1.0}
    if temperature > 0:
        kwargs.update(top_p=1.0, top_k=-1, seed=seed)
    return kwargs


def request_sampling(requests: list, default_max_new_tokens: int) -> list[dict[str, Any]]:
    """One SamplingParams argument dict per request (GenRequest.sampling)."""
    out = []
    for request in requests:
        temperature, max_new_tokens, seed = request.sampling(default_max_new_tokens)
        out.append(sampling_kwargs(max_new_tokens, temperature, seed))
    return out


def engine_kwargs(model: str, revision: str | None, *, tensor_parallel_size: int = 1,
                  max_model_len: int | None = None, limit_mm_per_prompt: dict[str, int] | None = None,
                  dtype: str = "auto", gpu_memory_utilization: float = 0.9, seed: int = 0,
                  trust_remote_code: bool = False, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Arguments of vllm.LLM(...) for one engine (one data-parallel replica).

    Prefix caching is asked for explicitly: the caller orders requests by video so the
    video prefix of a prompt is computed once per video.
    """
    kwargs: dict[str, Any] = {
        "model": model,
        "revision": revision,
        "tokenizer_revision": revision,
        "tensor_parallel_size": int(tensor_parallel_size),
        "dtype": dtype,
        "gpu_memory_utilization": gpu_memory_utilization,
        "seed": seed,
        "trust_remote_code": trust_remote_code,
        "enable_prefix_caching": True,
    }
    if max_model_len is not None:
        kwargs["max_model_len"] = int(max_model_len)
    if limit_mm_per_prompt:
        kwargs["limit_mm_per_prompt"] = dict(limit_mm_per_prompt)
    kwargs.update(extra or {})
    return kwargs


def shard_bounds(count: int, shards: int) -> list[tuple[int, int]]:
    """Split `count` ordered requests into `shards` contiguous runs, as even as possible.

    Contiguous, not round-robin: the requests come ordered by video, so each replica
    gets whole runs of one video and its prefix cache still hits.
    """
    shards = max(1, min(shards, count)) if count else 1
    base, extra = divmod(count, shards)
    bounds, start = [], 0
    for k in range(shards):
        end = start + base + (1 if k < extra else 0)
        bounds.append((start, end))
        start = end
    return bounds
