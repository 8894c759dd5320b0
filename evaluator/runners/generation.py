"""What every generation backend takes and gives: GenRequest in, one reply per request out.

The contract both backends (runners/transformers_backend.py, runners/vllm_backend.py)
implement and vllm_inputs.py builds prompts from; no torch, no vllm here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

# What both backends record about decoding (their `settings["sampling"]`).
SAMPLING_NOTE = "greedy unless a request sets a temperature (then plain temperature sampling, seeded)"

# How a backend may show a request's frames: "auto" (one video where the model takes
# video and the request asks for it, else images), "video" (required), "images" (always).
VIDEO_INPUTS = ("auto", "video", "images")


@dataclass
class GenRequest:
    """One generation: a prompt and the frames it shows (RGB uint8 HxWx3), in order.

    `frame_times` are the frames' times in seconds (their timing for a video input).
    `as_video` asks for the frames as one clip where the model takes video; otherwise,
    and always on a backend without video input, they are shown as separate images.
    No frames: a text-only request.
    Generation: `temperature` 0 is greedy; above 0, plain temperature sampling (no top-k
    or top-p) drawn with `seed`; `max_new_tokens` None: the backend's own budget.
    """

    prompt: str
    frames: list[np.ndarray] = field(default_factory=list)
    frame_times: list[float] = field(default_factory=list)
    system: str | None = None
    as_video: bool = False
    temperature: float = 0.0
    max_new_tokens: int | None = None
    seed: int | None = None

    def sampling(self, default_max_new_tokens: int) -> tuple[float, int, int | None]:
        """(temperature, max new tokens, seed): what decides how this request is decoded."""
        greedy = self.temperature <= 0
        return (0.0 if greedy else float(self.temperature), int(self.max_new_tokens or default_max_new_tokens),
                None if greedy else self.seed)


class Backend(Protocol):
    """Anything that answers GenRequests: one reply per request, in request order."""

    name: str
    settings: dict[str, Any]

    def generate(self, requests: list[GenRequest]) -> list[str]: ...

