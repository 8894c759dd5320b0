"""Which frames to show a model: times sampled uniformly (lmms-eval's way) or at a rate."""
from __future__ import annotations

import numpy as np

from evaluator.video.info import TIME_DECIMALS, TIME_TOLERANCE, VideoInfo


def uniform_indices(frame_count: int, k: int) -> list[int]:
    """k frame indices spread uniformly over [0, frame_count - 1].

    Same as lmms-eval's ``np.linspace(0, n - 1, k, dtype=int)``: the first and
    last frame are included, positions are rounded down. k >= frame_count
    returns every index. k == 1 returns [0] (what linspace gives; we keep
    parity with lmms-eval rather than picking the middle frame).
    Duplicates, which cannot occur when k <= n, are removed defensively.
    """
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if frame_count < 0:
        raise ValueError(f"frame_count must be >= 0, got {frame_count}")
    if k >= frame_count:
        return list(range(frame_count))
    picks = np.linspace(0, frame_count - 1, k, dtype=int).tolist()
    return list(dict.fromkeys(picks))


def uniform_frame_times(
    info: VideoInfo, k: int, start: float | None = None, end: float | None = None
) -> list[float]:
    """Timestamps (s, 3 decimals) of k uniformly spread frames in [start, end].

    The frames considered are those whose time lies in the range (whole video
    by default); the first and last of them are always picked. Frame times
    come from info.frame_times (probe(exact=True)) or else index / fps.
    Raises ValueError if no frame lies in the range.
    """
    inside = _frames_in_range(info, start, end)[2]
    return [round(inside[i], TIME_DECIMALS) for i in uniform_indices(len(inside), k)]


def _frames_in_range(info: VideoInfo, start: float | None, end: float | None
                     ) -> tuple[float, float, list[float]]:
    """(lo, hi, times of the frames inside [lo, hi]); the whole video by default.

    Frame times come from info.frame_times (probe(exact=True)) or else index / fps.
    Raises ValueError if no frame lies in the range.
    """
    if info.frame_times is not None:
        times = list(info.frame_times)
    else:
        times = [i / info.fps for i in range(info.frame_count)]
    lo = 0.0 if start is None else float(start)
    hi = info.duration if end is None else float(end)
    if lo > hi:
        raise ValueError(f"{info.path}: empty range [{lo}, {hi}]")
    if end is None:
        hi = max(hi, times[-1]) if times else hi  # whole video: never drop the last frame
    inside = [t for t in times if lo - TIME_TOLERANCE <= t <= hi + TIME_TOLERANCE]
    if not inside:
        raise ValueError(f"{info.path}: no frame between {lo:.3f}s and {hi:.3f}s")
    return lo, hi, inside


def fps_frame_times(info: VideoInfo, fps: float, start: float | None = None, end: float | None = None,
                    max_frames: int | None = None, include_last: bool = False) -> list[float]:
    """Timestamps (s, 3 decimals) of the frames shown every 1/fps seconds in [start, end].

    Sample points are start, start + 1/fps, ... up to the range's last frame
    (the whole video by default); each takes the last frame of the range shown
    at that point (the
    first frame of the range for a point before it). A frame is listed once
    even when fps exceeds the video's rate. include_last adds the range's last
    frame (Video-MMMU's quiz image) when the points miss it. More than
    max_frames frames are thinned uniformly (uniform_indices: first and last
    kept), like harnesses that cap an fps budget.
    """
    if not fps > 0:
        raise ValueError(f"fps must be > 0, got {fps}")
    if max_frames is not None and max_frames < 1:
        raise ValueError(f"max_frames must be >= 1, got {max_frames}")
    lo, _, inside = _frames_in_range(info, start, end)
    picks: list[int] = []
    j = 0
    step = 0
    # Points stop at the range's last frame: a point past it (the video's end)
    # shows no new frame.
    while (point := lo + step / fps) <= inside[-1] + TIME_TOLERANCE:
        while j + 1 < len(inside) and inside[j + 1] <= point + TIME_TOLERANCE:
            j += 1
        if not picks or picks[-1] != j:
            picks.append(j)
        step += 1
    if include_last and picks[-1] != len(inside) - 1:
        picks.append(len(inside) - 1)
    if max_frames is not None and len(picks) > max_frames:
        picks = [picks[i] for i in uniform_indices(len(picks), max_frames)]
    return [round(inside[i], TIME_DECIMALS) for i in picks]
