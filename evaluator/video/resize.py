"""Resizing frames by a recorded ResizePolicy (PIL bicubic)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ResizePolicy:
    """How frames are resized before a model sees them (recorded in results).

    None set: native size. max_side: scale down so the longer side is at
    most max_side, aspect kept, never enlarged. square: resize to square x
    square, aspect not kept (ExpVid's 224x224 protocol). size: resize to
    (width, height), aspect not kept (ExAct's 796x448). PIL bicubic.
    """

    max_side: int | None = None
    square: int | None = None
    size: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        if sum(v is not None for v in (self.max_side, self.square, self.size)) > 1:
            raise ValueError("ResizePolicy: give one of max_side, square or size")
        values = [("max_side", self.max_side), ("square", self.square)]
        if self.size is not None:
            if len(self.size) != 2:
                raise ValueError(f"ResizePolicy: size must be (width, height), got {self.size!r}")
            values += [("size", v) for v in self.size]
        for name, value in values:
            if value is not None and (not isinstance(value, int) or value < 1):
                raise ValueError(f"ResizePolicy: {name} must be a positive integer, got {value!r}")

    def size_for(self, width: int, height: int) -> tuple[int, int]:
        """(width, height) of a frame of the given size after resizing."""
        if self.square is not None:
            return self.square, self.square
        if self.size is not None:
            return self.size
        if self.max_side is not None and max(width, height) > self.max_side:
            scale = self.max_side / max(width, height)
            return max(1, round(width * scale)), max(1, round(height * scale))
        return width, height

    def describe(self) -> str:
        if self.square is not None:
            return f"square {self.square}x{self.square} (PIL bicubic, aspect not kept)"
        if self.size is not None:
            return f"{self.size[0]}x{self.size[1]} (PIL bicubic, aspect not kept)"
        if self.max_side is not None:
            return f"longer side at most {self.max_side} px (PIL bicubic, aspect kept, never enlarged)"
        return "native size"


def resize_frames(frames: Sequence[np.ndarray], policy: ResizePolicy | None) -> list[np.ndarray]:
    """Frames resized by `policy`; frames already at the target size (and policy None) are kept as they are."""
    if policy is None:
        return list(frames)
    from PIL import Image  # lazily: the website never resizes frames

    out = []
    for frame in frames:
        height, width = frame.shape[:2]
        size = policy.size_for(width, height)
        if size == (width, height):
            out.append(frame)
        else:
            out.append(np.asarray(Image.fromarray(frame).resize(size, Image.Resampling.BICUBIC)))
    return out
