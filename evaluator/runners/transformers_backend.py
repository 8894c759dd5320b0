"""TransformersBackend: batched generation with transformers (greedy, or sampled where a
request asks for a temperature), on CPU or GPU.

AutoProcessor + AutoModelForImageTextToText (or a text-only AutoModelForCausalLM:
judges), batched generation with left padding. Frames go in as images, or as one video
where the processor takes video (needs torchvision: GPU workers). torch and
transformers are imported when a backend is built, not with this module.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from evaluator.runners import costs, hub, vllm_inputs as vi  # costs: what each generate measured (last_stats)
from evaluator.errors import ModelNotFound
from evaluator.runners.generation import SAMPLING_NOTE, VIDEO_INPUTS, GenRequest

log = logging.getLogger(__name__)


def _video_processor_kwargs(processor) -> dict[str, Any]:
    """Options of the processor's video processor that we set: Qwen-VL's per-frame pixel
    cap, as in the reference implementation (qwen-vl-utils) and transformers' next default."""
    valid = getattr(getattr(processor, "video_processor", None), "valid_kwargs", None)
    if "cap_pixels_per_frame" in getattr(valid, "__annotations__", {}):
        return {"cap_pixels_per_frame": True}
    return {}



class TransformersBackend:
    """Batched generation with transformers, on CPU or one GPU (or device="auto":
    accelerate spreads the model over the visible GPUs).

    video_input: "auto" sends multi-frame requests marked as_video as one video when the
    processor takes video (torchvision installed), else as images; "video" requires
    video support; "images" always sends frames as images.
    Requests are sorted by (mode, sampling, frames, prompt length) into batches of
    `batch_size` that share a mode and a sampling (temperature and token budget), padded
    on the left; replies come back in request order. A sampled batch draws from torch's
    generator seeded with its first request's seed (vLLM seeds each request). A batch
    that runs out of GPU memory is split in halves and retried, down to single requests.
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

        config = hub.check_model(self.model_id, revision, trust_remote_code)
        self.processor = hub.processor_or_not_found(self.model_id, revision, trust_remote_code)
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
            "default_max_new_tokens": max_new_tokens,  # for requests that bring no budget of their own
            "video_input": "video" if self.video else ("images" if self.multimodal else "text"),
            **({"video_processor_kwargs": self.video_kwargs} if self.video_kwargs else {}),
            "sampling": SAMPLING_NOTE,
            "model_class": type(self.model).__name__,
            "processor_class": type(self.processor).__name__,
        }

    def _video_mode(self, video_input: str) -> bool:
        takes_video = hub.takes_video(self.processor)
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
        kinds = [(modes[i], r.sampling(self.max_new_tokens)[:2]) for i, r in enumerate(requests)]
        # Similar requests together: less padding, same results (greedy, left padded).
        order = sorted(range(len(requests)), key=lambda i: (kinds[i], len(requests[i].frames),
                                                            len(requests[i].prompt)))
        replies, stats = [""] * len(requests), [costs.GenStats()] * len(requests)
        start = 0
        while start < len(order):
            kind = kinds[order[start]]
            batch = [i for i in order[start:start + self.batch_size] if kinds[i] == kind]
            for i, (reply, measured) in zip(batch, self._generate_batch([requests[i] for i in batch], kind[0])):
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
        temperature, max_new_tokens, seed = requests[0].sampling(self.max_new_tokens)  # the batch shares them
        with self.torch.inference_mode():
            out = self.model.generate(
                **inputs, max_new_tokens=max_new_tokens, pad_token_id=self.tokenizer.pad_token_id, streamer=clock,
                num_beams=1, repetition_penalty=None, **self._decoding(temperature, seed),
            )
        new_tokens = out[:, inputs["input_ids"].shape[1]:]
        texts = [text.strip() for text in self.tokenizer.batch_decode(new_tokens, skip_special_tokens=True)]
        return list(zip(texts, clock.stats(new_tokens, costs.stop_ids(self.model, self.tokenizer))))

    def _decoding(self, temperature: float, seed: int | None) -> dict[str, Any]:
        """generate() arguments: greedy, or plain temperature sampling (no top-k, no top-p),
        whatever the checkpoint's generation_config suggests."""
        if temperature <= 0:
            return {"do_sample": False, "temperature": None, "top_p": None, "top_k": None}
        self.torch.manual_seed(seed if seed is not None else 0)
        return {"do_sample": True, "temperature": temperature, "top_p": 1.0, "top_k": 0}

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

