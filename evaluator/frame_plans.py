"""Frame plans for the call list: which frame times of which video a call shows.

Frames are spread uniformly over the video or a time range, first and last frame
included (as numpy.linspace over frame indices, the common harness convention):
Video-MMMU needs the last frame, where its quiz image sits.
"""

from __future__ import annotations

import math

from evaluator.records import FramePlan, VideoMeta
from evaluator.video import uniform_indices


def plan(meta: VideoMeta, count: int, start: float | None = None, end: float | None = None,
         label: str | None = None) -> FramePlan:
    first = 0 if start is None else min(meta.frame_count - 1, max(0, math.ceil(start * meta.fps - 1e-6)))
    stop = meta.frame_count if end is None else min(meta.frame_count, max(first + 1, math.ceil(end * meta.fps - 1e-6)))
    times = [round((first + i) / meta.fps, 3) for i in uniform_indices(stop - first, count)]
    return FramePlan(video=meta.id, times=times, start=start, end=end, label=label)
