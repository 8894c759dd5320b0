"""The video frames a judge may see: the Video SimpleQA paper's grader gets the frames the
answering model saw. For a judge that takes images (a remote LLM judge), the worker passes
`frames_for(suite, count)` to scoring; Video SimpleQA's scorer attaches each item's frames
to its judge requests.

    frames = frames_for(suite, 8)        # video id -> ("data:image/jpeg;base64,...", ...)
    frames("a1b2c3d4e5f6")               # decoded once per video, then held

Frames are spread uniformly over the whole video (first and last included), scaled so
the longer side is at most 512 px, and sent as JPEG (quality 85).
"""

from __future__ import annotations

import base64
import io
from functools import lru_cache
from typing import Callable

MAX_SIDE = 512


def frames_for(suite, count: int) -> Callable[[str], tuple[str, ...]]:
    """video id -> the data URLs of `count` uniform frames of that video of the suite."""
    from evaluator import frame_plans
    from evaluator.video import ResizePolicy, decode_frames, resize_frames

    @lru_cache(maxsize=256)
    def of(video: str) -> tuple[str, ...]:
        meta = suite.videos.get(video)
        if meta is None or meta.file is None or count < 1:
            return ()
        times = frame_plans.plan(meta, count).times
        pictures = resize_frames(decode_frames(suite.path / meta.file, times), ResizePolicy(max_side=MAX_SIDE))
        return tuple(_data_url(p) for p in pictures)
    return of


def _data_url(frame) -> str:
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(frame).save(buffer, format="JPEG", quality=85)
    return "data:image/jpeg;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


__all__ = ["frames_for"]
