"""Generation backends: a model that answers a list of requests (prompt + frames).

    backend = load_backend("auto", "Qwen/Qwen2.5-VL-7B-Instruct", revision="<sha>")
    replies = backend.generate([GenRequest(prompt, frames, frame_times, as_video=True), ...])
    backend.settings      # {"model", "revision", "dtype", "max_new_tokens", "greedy", ...} for results

Two backends, one contract (same order in, same order out, greedy decoding):
  TransformersBackend  AutoProcessor + AutoModelForImageTextToText (or a text-only
                       AutoModelForCausalLM: judges), batched generation with left padding,
                       on CPU or one GPU. Frames go in as images, or as one video where
                       the processor takes video (needs torchvision: GPU workers).
  VllmBackend          vllm.LLM offline, one generate call per list of requests, native
                       video (frames + timing metadata), prefix caching, tensor parallel
                       inside an engine, data parallel as one engine per GPU group.
The same backends serve the LLM judges (text-only requests).

torch, transformers and vllm are imported only when a backend is built: the website
imports nothing heavy through this module.
"""

from __future__ import annotations

import atexit
import importlib
import importlib.util
import logging
import multiprocessing
import os
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from evaluator.errors import EvaluatorError
from evaluator.runners import costs, vllm_inputs as vi  # costs: what each generate measured (last_stats)
from evaluator.runners.vllm_inputs import build_vllm_inputs

__all__ = ["Backend", "GenRequest", "ModelNotFound", "TransformersBackend", "VllmBackend", "build_vllm_inputs",
           "check_model", "load_backend", "load_processor", "resolve_revision", "vllm_usable"]

log = logging.getLogger(__name__)

BACKEND_KINDS = ("auto", "transformers", "vllm")
VIDEO_INPUTS = ("auto", "video", "images")


@dataclass
class GenRequest:
    """One generation: a prompt and the frames it shows (RGB uint8 HxWx3), in order.

    `frame_times` are the frames' times in seconds (their timing for a video input).
    `as_video` asks for the frames as one clip where the model takes video; otherwise,
    and always on a backend without video input, they are shown as separate images.
    No frames: a text-only request.
    """

    prompt: str
    frames: list[np.ndarray] = field(default_factory=list)
    frame_times: list[float] = field(default_factory=list)
    system: str | None = None
    as_video: bool = False


class Backend(Protocol):
    """Anything that answers GenRequests: one reply per request, in request order."""

    name: str
    settings: dict[str, Any]

    def generate(self, requests: list[GenRequest]) -> list[str]: ...


class ModelNotFound(EvaluatorError):
    """The model (local folder or hub id at that revision) does not exist or cannot be reached."""


# --- choosing and loading ----------------------------------------------------------

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


def _looks_like_path(model: str) -> bool:
    """A local path rather than a hub id ("org/name" or "name")."""
    if model.startswith(("/", ".", "~")) or model.count("/") > 1:
        return True
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    try:
        validate_repo_id(model)
    except HFValidationError:
        return True
    return False


def check_model(model: str, revision: str | None = None, trust_remote_code: bool = False):
    """The model's config; ModelNotFound (naming the model) when there is none to load."""
    from transformers import AutoConfig

    path = Path(model).expanduser()
    if path.exists():
        if not (path / "config.json").is_file():
            raise ModelNotFound(f"model folder {model} has no config.json: it is not a saved model")
    elif _looks_like_path(model):
        raise ModelNotFound(f"model path {model} does not exist")
    try:
        return AutoConfig.from_pretrained(str(path) if path.exists() else model, revision=revision,
                                          trust_remote_code=trust_remote_code)
    except OSError as e:  # missing repo, revision or file; offline and not cached
        where = f" at revision {revision}" if revision else ""
        raise ModelNotFound(f"model {model}{where} could not be loaded from the Hugging Face Hub: "
                            f"{_first_line(e)}") from e


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


_SHA = re.compile(r"^[0-9a-f]{40}$")


def resolve_revision(model: str, revision: str | None = None, timeout: float = 10.0) -> str | None:
    """The commit a hub model id resolves to (pins "main" or a tag to a sha).

    Online: the Hub's answer. Offline (HF_HUB_OFFLINE=1, or no network): the commit of
    the copy in the local Hugging Face cache. A local folder is not resolved. When
    nothing can be found the given revision is returned unchanged (None if none).
    """
    if Path(model).expanduser().exists() or _looks_like_path(model):
        return revision
    if revision and _SHA.match(revision):
        return revision
    from huggingface_hub import try_to_load_from_cache

    if not _hub_offline():
        try:
            from huggingface_hub import HfApi

            return HfApi().model_info(model, revision=revision, timeout=timeout).sha or revision
        except Exception as e:  # noqa: BLE001 - no network or no such repo: try the cache
            log.info("could not ask the Hub for %s@%s: %s", model, revision or "main", _first_line(e))
    cached = try_to_load_from_cache(model, "config.json", revision=revision)
    if isinstance(cached, str):  # .../snapshots/<sha>/config.json
        return Path(cached).parent.name
    return revision


def _hub_offline() -> bool:
    from huggingface_hub import constants

    # The environment too: huggingface_hub reads HF_HUB_OFFLINE once, when first imported.
    from_env = os.environ.get("HF_HUB_OFFLINE", "").upper() in {"1", "ON", "YES", "TRUE"}
    return bool(constants.HF_HUB_OFFLINE) or from_env


def load_processor(model: str, revision: str | None = None, trust_remote_code: bool = False):
    """The model's processor (a tokenizer for a text-only model).

    Without torchvision, transformers cannot build a video processor, and processors
    of video-capable families (Qwen2.5-VL, LLaVA-OneVision, ...) refuse to load. Then
    the same processor class is loaded without its video part: it takes frames as
    images, which is all a CPU machine without torchvision can do anyway.
    """
    from transformers import AutoProcessor

    try:
        return AutoProcessor.from_pretrained(model, revision=revision, trust_remote_code=trust_remote_code)
    except ImportError as e:
        if "torchvision" not in str(e).lower():
            raise
        log.info("%s: no torchvision, loading its processor for images only", model)
        return _images_only_processor(model, revision, trust_remote_code)


def _images_only_processor(model: str, revision: str | None, trust_remote_code: bool):
    """The model's processor class minus its video processor (see load_processor)."""
    from transformers.models.auto.processing_auto import processor_class_from_name

    name = _processor_class_name(model, revision)
    cls = processor_class_from_name(name) if name else None
    if cls is None:
        raise ImportError(f"{model}: its processor ({name or 'unknown'}) needs torchvision, which is not installed")

    class ImagesOnly(cls):
        # The processor's parts are the __init__ arguments named after a modality; leave
        # the video ones out, and from_pretrained neither loads nor requires them.
        @classmethod
        def get_attributes(klass):
            return [a for a in super().get_attributes() if "video" not in a]

    ImagesOnly.__name__ = ImagesOnly.__qualname__ = cls.__name__
    return ImagesOnly.from_pretrained(model, revision=revision, trust_remote_code=trust_remote_code)


def _processor_or_not_found(model: str, revision: str | None, trust_remote_code: bool):
    try:
        return load_processor(model, revision, trust_remote_code)
    except (OSError, ValueError) as e:
        # A config but no tokenizer files (an incomplete upload): transformers says
        # "Unrecognized processing class"; any other ValueError is not ours to rename.
        if isinstance(e, ValueError) and "Unrecognized processing class" not in str(e):
            raise
        raise ModelNotFound(f"model {model} has no processor or tokenizer that can be loaded: "
                            f"{_first_line(e)}") from e


def _processor_class_name(model: str, revision: str | None) -> str | None:
    import json

    from transformers.utils import cached_file

    for filename in ("processor_config.json", "preprocessor_config.json", "tokenizer_config.json"):
        found = cached_file(model, filename, revision=revision, _raise_exceptions_for_missing_entries=False)
        if found:
            name = json.loads(Path(found).read_text(encoding="utf-8")).get("processor_class")
            if name:
                return name
    return None


def _takes_video(processor) -> bool:
    return getattr(processor, "video_processor", None) is not None


def _video_processor_kwargs(processor) -> dict[str, Any]:
    """Options of the processor's video processor that we set: Qwen-VL's per-frame pixel
    cap, as in the reference implementation (qwen-vl-utils) and transformers' next default."""
    valid = getattr(getattr(processor, "video_processor", None), "valid_kwargs", None)
    if "cap_pixels_per_frame" in getattr(valid, "__annotations__", {}):
        return {"cap_pixels_per_frame": True}
    return {}


# --- transformers ------------------------------------------------------------------

class TransformersBackend:
    """Batched greedy generation with transformers, on CPU or one GPU (or device="auto":
    accelerate spreads the model over the visible GPUs).

    video_input: "auto" sends multi-frame requests marked as_video as one video when the
    processor takes video (torchvision installed), else as images; "video" requires
    video support; "images" always sends frames as images.
    Requests are sorted by (mode, frames, prompt length) into batches of `batch_size`,
    padded on the left; replies come back in request order. A batch that runs out of
    GPU memory is split in halves and retried, down to single requests.
    """

    name = "transformers"

    def __init__(self, model: str, revision: str | None = None, dtype: str = "auto", device: str | None = None,
                 batch_size: int = 8, max_new_tokens: int = 512, video_input: str = "auto",
                 trust_remote_code: bool = False):
        import torch

        if video_input not in VIDEO_INPUTS:
            raise ValueError(f"video_input must be one of {', '.join(VIDEO_INPUTS)}, not {video_input!r}")
        if batch_size < 1 or max_new_tokens < 1:
            raise ValueError(f"batch_size and max_new_tokens must be at least 1 ({batch_size}, {max_new_tokens})")
        self.torch = torch
        self.model_id, self.revision = str(model), revision
        self.batch_size, self.max_new_tokens = batch_size, max_new_tokens
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")

        config = check_model(self.model_id, revision, trust_remote_code)
        self.processor = _processor_or_not_found(self.model_id, revision, trust_remote_code)
        self.tokenizer = getattr(self.processor, "tokenizer", self.processor)
        # Decoder-only batching: pad on the left so every reply starts right after its prompt.
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.multimodal = hasattr(self.processor, "image_processor")
        self.video = self._video_mode(video_input)
        self.video_kwargs = _video_processor_kwargs(self.processor) if self.video else {}
        self.render = vi.chat_renderer(self.processor)

        self.model = self._load_model(config, dtype, trust_remote_code)
        self.dtype = self.model.dtype
        self.settings: dict[str, Any] = {
            "backend": self.name,
            "model": self.model_id,
            "revision": revision,
            "dtype": str(self.dtype).removeprefix("torch."),
            "device": self.device,
            "batch_size": batch_size,
            "max_new_tokens": max_new_tokens,
            "video_input": "video" if self.video else ("images" if self.multimodal else "text"),
            **({"video_processor_kwargs": self.video_kwargs} if self.video_kwargs else {}),
            "greedy": True,
            "model_class": type(self.model).__name__,
            "processor_class": type(self.processor).__name__,
        }

    def _video_mode(self, video_input: str) -> bool:
        takes_video = _takes_video(self.processor)
        if video_input == "video" and not takes_video:
            raise ValueError(f"{self.model_id}: video_input='video' but its processor takes no video here "
                             "(the family has no video input, or torchvision is not installed)")
        return takes_video and video_input != "images"

    def _load_model(self, config, dtype: str, trust_remote_code: bool):
        """AutoModelForImageTextToText, AutoModelForCausalLM for a text-only model, else
        the class named in the config's `architectures`."""
        import transformers
        from transformers import AutoModelForCausalLM, AutoModelForImageTextToText

        torch_dtype = self._torch_dtype(dtype)
        kwargs: dict[str, Any] = {"revision": self.revision, "dtype": torch_dtype,
                                  "trust_remote_code": trust_remote_code}
        if self.device == "auto":
            kwargs["device_map"] = "auto"
        for auto in (AutoModelForImageTextToText, AutoModelForCausalLM):
            if type(config) in auto._model_mapping:
                model = auto.from_pretrained(self.model_id, **kwargs)
                break
        else:
            names = [a for a in (config.architectures or []) if hasattr(transformers, a)]
            if not names:
                raise ModelNotFound(f"{self.model_id}: transformers has no generation model for its "
                                    f"architecture {config.architectures or config.model_type}")
            model = getattr(transformers, names[0]).from_pretrained(self.model_id, **kwargs)
        if self.device != "auto":
            model.to(self.device)
        return model.eval()

    def _torch_dtype(self, dtype: str):
        if dtype != "auto":
            value = getattr(self.torch, dtype, None)
            if not isinstance(value, self.torch.dtype):
                raise ValueError(f"dtype must be 'auto' or a torch dtype name like 'bfloat16', not {dtype!r}")
            return value
        # CPU: float32 (bfloat16 matmuls are slow or missing there). GPU: the checkpoint's own.
        return self.torch.float32 if self.device == "cpu" else "auto"

    # -- generation ------------------------------------------------------------------

    def generate(self, requests: list[GenRequest]) -> list[str]:
        modes = [vi.request_mode(r, self.video) for r in requests]
        if not self.multimodal and any(m != vi.TEXT for m in modes):
            raise ValueError(f"{self.model_id} is a text-only model; it cannot take frames")
        # Similar requests together: less padding, same results (greedy, left padded).
        order = sorted(range(len(requests)), key=lambda i: (modes[i], len(requests[i].frames),
                                                            len(requests[i].prompt)))
        replies, stats = [""] * len(requests), [costs.GenStats()] * len(requests)
        start = 0
        while start < len(order):
            mode = modes[order[start]]
            batch = [i for i in order[start:start + self.batch_size] if modes[i] == mode]
            for i, (reply, measured) in zip(batch, self._generate_batch([requests[i] for i in batch], mode)):
                replies[i], stats[i] = reply, measured
            start += len(batch)
        self.last_stats = stats
        return replies

    def _generate_batch(self, requests: list[GenRequest], mode: str) -> list[tuple[str, costs.GenStats]]:
        try:
            return self._forward(requests, mode)
        except self.torch.OutOfMemoryError:
            if len(requests) == 1:
                raise
            log.warning("%s: out of memory on a batch of %d, retrying in halves", self.model_id, len(requests))
            if self.torch.cuda.is_available():
                self.torch.cuda.empty_cache()
            half = len(requests) // 2
            return self._generate_batch(requests[:half], mode) + self._generate_batch(requests[half:], mode)

    def _forward(self, requests: list[GenRequest], mode: str) -> list[tuple[str, costs.GenStats]]:
        clock, inputs = costs.StepClock(), self._encode(requests, mode)  # the clock times each decoding step
        with self.torch.inference_mode():
            out = self.model.generate(
                **inputs, max_new_tokens=self.max_new_tokens, pad_token_id=self.tokenizer.pad_token_id, streamer=clock,
                # Greedy whatever the checkpoint's generation_config suggests.
                do_sample=False, num_beams=1, temperature=None, top_p=None, top_k=None, repetition_penalty=None,
            )
        new_tokens = out[:, inputs["input_ids"].shape[1]:]
        texts = [text.strip() for text in self.tokenizer.batch_decode(new_tokens, skip_special_tokens=True)]
        return list(zip(texts, clock.stats(new_tokens, costs.stop_ids(self.model, self.tokenizer))))

    def _encode(self, requests: list[GenRequest], mode: str):
        texts = [self.render(vi.chat_messages(r, mode)) for r in requests]
        # A chat template writes BOS itself where the model wants one.
        common = {"padding": True, "return_tensors": "pt", "add_special_tokens": not self.render.has_template}
        device = self.model.device if self.device == "auto" else self.device
        if not self.multimodal:
            return self.tokenizer(texts, **common).to(device)
        kwargs: dict[str, Any] = {"text": texts, **common}
        if mode == vi.IMAGES:
            from PIL import Image

            # PIL images: no guessing which axis holds the channels on odd-sized frames.
            kwargs["images"] = [[Image.fromarray(np.asarray(f, dtype=np.uint8)) for f in r.frames] for r in requests]
        elif mode == vi.VIDEO:
            kwargs["videos"] = [vi.stack_frames(r.frames) for r in requests]
            kwargs["video_metadata"] = [vi.clip_metadata(r.frame_times) for r in requests]
            kwargs["do_sample_frames"] = False  # the frames are final: no re-sampling
            kwargs.update(self.video_kwargs)
        return self.processor(**kwargs).to(device, dtype=self.dtype)


# --- vLLM ----------------------------------------------------------------------------

class VllmBackend:
    """Offline vLLM: the whole list of requests in one generate call (vLLM batches it).

    The engine is created on the first generate, so limit_mm_per_prompt can default to
    exactly what the requests need (pass it to cover a whole suite). Data parallel:
    `data_parallel_size` engines in their own processes, each on its own
    `tensor_parallel_size` GPUs, each given a contiguous run of the (video-ordered)
    requests (vLLM's own LLM(data_parallel_size=k) is not supported offline).
    """

    name = "vllm"

    def __init__(self, model: str, revision: str | None = None, tensor_parallel_size: int = 1,
                 data_parallel_size: int = 1, max_model_len: int | None = None, max_new_tokens: int = 512,
                 limit_mm_per_prompt: dict[str, int] | None = None, video_input: str = "auto",
                 dtype: str = "auto", gpu_memory_utilization: float = 0.9, trust_remote_code: bool = False,
                 engine_kwargs: dict[str, Any] | None = None, engine_module: str = "vllm"):
        if video_input not in VIDEO_INPUTS:
            raise ValueError(f"video_input must be one of {', '.join(VIDEO_INPUTS)}, not {video_input!r}")
        if tensor_parallel_size < 1 or data_parallel_size < 1:
            raise ValueError("tensor_parallel_size and data_parallel_size must be at least 1")
        self.model_id, self.revision = str(model), revision
        self.max_new_tokens = max_new_tokens
        self.tensor_parallel_size, self.data_parallel_size = tensor_parallel_size, data_parallel_size
        self.limit_mm_per_prompt = dict(limit_mm_per_prompt) if limit_mm_per_prompt else None
        self.engine_module = engine_module  # tests put a stand-in for vllm here
        self._engine_options = {
            "max_model_len": max_model_len, "dtype": dtype, "gpu_memory_utilization": gpu_memory_utilization,
            "trust_remote_code": trust_remote_code, "extra": dict(engine_kwargs or {}),
        }
        check_model(self.model_id, revision, trust_remote_code)
        # The processor renders the chat template (vLLM expands the placeholders) and
        # tells whether the model takes video.
        self.processor = _processor_or_not_found(self.model_id, revision, trust_remote_code)
        self.multimodal = hasattr(self.processor, "image_processor")
        self.model_takes_video = _takes_video(self.processor)
        if video_input == "video" and not self.model_takes_video:
            raise ValueError(f"{self.model_id}: video_input='video' but its processor takes no video")
        self.video = self.model_takes_video and video_input != "images"
        self.render = _single_bos(vi.chat_renderer(self.processor), getattr(self.processor, "tokenizer",
                                                                            self.processor))
        self._engine = None
        self.settings: dict[str, Any] = self._describe()

    def _describe(self) -> dict[str, Any]:
        return {
            "backend": self.name,
            "model": self.model_id,
            "revision": self.revision,
            "dtype": self._engine_options["dtype"],
            "max_new_tokens": self.max_new_tokens,
            "greedy": True,
            "video_input": "video" if self.video else ("images" if self.multimodal else "text"),
            "tensor_parallel_size": self.tensor_parallel_size,
            "data_parallel_size": self.data_parallel_size,
            "max_model_len": self._engine_options["max_model_len"],
            "limit_mm_per_prompt": self.limit_mm_per_prompt,
            "prefix_caching": True,
        }

    def generate(self, requests: list[GenRequest]) -> list[str]:
        if not requests:
            return []
        if not self.multimodal and any(r.frames for r in requests):
            raise ValueError(f"{self.model_id} is a text-only model; it cannot take frames")
        if self._engine is None:
            if self.limit_mm_per_prompt is None:
                # A text-only model (a judge) gets no limit: vLLM knows it takes no media.
                self.limit_mm_per_prompt = (vi.default_mm_limits(requests, self.video, self.model_takes_video)
                                            if self.multimodal else {})
            self._engine = self._start_engine()
            self.settings = self._describe()
        vi.check_mm_limits(requests, self.video, self.limit_mm_per_prompt)
        inputs = vi.build_vllm_inputs(requests, self.render, self.video)
        replies, self.last_stats = self._engine.generate(inputs, vi.sampling_kwargs(self.max_new_tokens))
        if len(replies) != len(requests):
            raise RuntimeError(f"vLLM returned {len(replies)} replies for {len(requests)} requests")
        return [r.strip() for r in replies]

    def engine_kwargs(self) -> dict[str, Any]:
        """vllm.LLM(...) arguments of one engine."""
        return vi.engine_kwargs(self.model_id, self.revision, tensor_parallel_size=self.tensor_parallel_size,
                                limit_mm_per_prompt=self.limit_mm_per_prompt, **self._engine_options)

    def _start_engine(self):
        if self.data_parallel_size == 1:
            return _Engine(self.engine_module, self.engine_kwargs())
        return _ReplicaPool(self.engine_module, self.engine_kwargs(), self.data_parallel_size,
                            self.tensor_parallel_size)

    def close(self) -> None:
        """Stop data-parallel replica processes (an in-process engine is left to the GC)."""
        if isinstance(self._engine, _ReplicaPool):
            self._engine.close()
        self._engine = None


def _single_bos(render: vi.Render, tokenizer) -> vi.Render:
    """vLLM tokenizes a text prompt with the tokenizer's special tokens; a chat template
    that already wrote BOS would then give two. Drop the template's one in that case."""
    bos = getattr(tokenizer, "bos_token", None)
    adds_bos = bool(bos) and tokenizer.bos_token_id in tokenizer("a")["input_ids"][:1]
    if not adds_bos:
        return render

    def render_once(messages: list[dict]) -> str:
        text = render(messages)
        return text[len(bos):] if text.startswith(bos) else text

    render_once.has_template = getattr(render, "has_template", True)  # type: ignore[attr-defined]
    return render_once


class _Engine:
    """One vllm.LLM in this process."""

    def __init__(self, module: str, kwargs: dict[str, Any]):
        vllm = importlib.import_module(module)
        self.sampling_params = vllm.SamplingParams
        with _memory_errors("starting the vLLM engine"):
            self.llm = vllm.LLM(**kwargs)

    def generate(self, inputs: list[dict], sampling: dict[str, Any]) -> tuple[list[str], list[costs.GenStats]]:
        with _memory_errors("generating"):
            outputs = self.llm.generate(inputs, self.sampling_params(**sampling), use_tqdm=False)
        return [o.outputs[0].text for o in outputs], [costs.vllm_stats(o) for o in outputs]


_MEMORY_WORDS = ("out of memory", "no available memory for the cache blocks", "not enough kv cache")


@contextmanager
def _memory_errors(doing: str):
    """Re-raise vLLM's ways of saying "out of GPU memory" (torch's OutOfMemoryError, or a
    ValueError/RuntimeError from the engine) as MemoryError, which the worker reports
    with the reason out_of_memory."""
    try:
        yield
    except MemoryError:
        raise
    except Exception as e:
        text = str(e).lower()
        if "OutOfMemory" in type(e).__name__ or any(w in text for w in _MEMORY_WORDS):
            raise MemoryError(f"vLLM ran out of GPU memory while {doing}: {_first_line(e)}") from e
        raise


def _visible_gpus() -> list[str]:
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible:
        return [g.strip() for g in visible.split(",") if g.strip()]
    import torch

    return [str(i) for i in range(torch.cuda.device_count())]


def replica_gpus(gpus: list[str], replicas: int, per_replica: int) -> list[list[str]]:
    """GPU ids of each data-parallel replica: consecutive groups of `per_replica`."""
    if len(gpus) < replicas * per_replica:
        raise ValueError(f"data_parallel_size={replicas} x tensor_parallel_size={per_replica} needs "
                         f"{replicas * per_replica} GPUs, {len(gpus)} visible ({','.join(gpus) or 'none'})")
    return [gpus[r * per_replica:(r + 1) * per_replica] for r in range(replicas)]


def _replica_main(conn, module: str, kwargs: dict[str, Any], gpus: list[str]) -> None:
    """A data-parallel replica: its own engine on its own GPUs, answering batches from the parent.

    Messages back are ("ready", None), ("ok", replies) or ("error", (exception type, message)).
    """
    os.environ["CUDA_VISIBLE_DEVICES"] = ",".join(gpus)  # before vllm/torch see the devices
    try:
        engine = _Engine(module, kwargs)
    except BaseException as e:  # noqa: BLE001 - reported to the parent, which raises it
        conn.send(("error", (type(e).__name__, str(e))))
        return
    conn.send(("ready", None))
    while True:
        try:
            message = conn.recv()
        except EOFError:  # the parent is gone
            return
        if message is None:
            return
        try:
            conn.send(("ok", engine.generate(*message)))
        except BaseException as e:  # noqa: BLE001
            conn.send(("error", (type(e).__name__, str(e))))


class _ReplicaPool:
    """`replicas` engines in spawned processes; generate splits the requests contiguously."""

    def __init__(self, module: str, kwargs: dict[str, Any], replicas: int, per_replica: int,
                 gpus: list[str] | None = None):
        context = multiprocessing.get_context("spawn")  # CUDA cannot be forked
        self.conns, self.processes = [], []
        for group in replica_gpus(gpus if gpus is not None else _visible_gpus(), replicas, per_replica):
            parent, child = context.Pipe()
            # Not daemonic: a vLLM engine starts processes of its own, which daemons may not.
            process = context.Process(target=_replica_main, args=(child, module, kwargs, group))
            process.start()
            self.conns.append(parent)
            self.processes.append(process)
        atexit.register(self.close)
        try:
            for rank, conn in enumerate(self.conns):
                self._receive(conn, rank)
        except BaseException:
            self.close()
            raise

    def generate(self, inputs: list[dict], sampling: dict[str, Any]) -> tuple[list[str], list[costs.GenStats]]:
        bounds = vi.shard_bounds(len(inputs), len(self.conns))
        for conn, (start, end) in zip(self.conns, bounds):
            conn.send((inputs[start:end], sampling))
        answers = [self._receive(conn, rank) for rank, conn in enumerate(self.conns[:len(bounds)])]
        return [t for texts, _ in answers for t in texts], [s for _, stats in answers for s in stats]

    @staticmethod
    def _receive(conn, rank: int):
        status, payload = conn.recv()
        if status == "error":
            kind, text = payload
            message = f"vLLM data-parallel replica {rank}: {kind}: {text}"
            # The worker reports out-of-memory by exception type (evaluator/worker.py: classify).
            memory = kind == "MemoryError" or "OutOfMemory" in kind
            raise MemoryError(message) if memory else RuntimeError(message)
        return payload

    def close(self) -> None:
        for conn in self.conns:
            try:
                conn.send(None)
            except (OSError, EOFError):
                pass
        for process in self.processes:
            process.join(timeout=30)
            if process.is_alive():
                process.terminate()
        self.conns, self.processes = [], []
