"""What a video is: probe() reads its metadata (PyAV) into a VideoInfo."""
from __future__ import annotations

import os
from dataclasses import dataclass

from evaluator.errors import VideoError

# Timestamps are reported rounded to milliseconds; range checks accept frames
# up to half a millisecond outside the range so that a timestamp we printed
# (e.g. 0.333 for a frame at 1/3 s) can be passed back as a range end.
TIME_DECIMALS = 3
TIME_TOLERANCE = 0.5e-3


@dataclass(frozen=True)
class VideoInfo:
    path: str
    duration: float  # seconds
    fps: float  # average frame rate
    frame_count: int  # number of frames (decoded or demuxed when exact / unknown)
    width: int
    height: int
    # Presentation time (s, relative to the stream start) of every frame;
    # only filled in by probe(..., exact=True).
    frame_times: tuple[float, ...] | None = None


def load_av():
    # Imported lazily: the website process imports this module but never
    # touches videos, and PyAV pulls in the FFmpeg libraries.
    import av

    return av


def probe(path, exact: bool = False) -> VideoInfo:
    """Read a video's metadata.

    exact=False trusts the container's frame count and only demuxes (cheap, no
    decoding) when the container does not store one (e.g. Matroska/WebM).
    exact=True decodes every frame, so frame_count is what a decoder really
    yields and frame_times holds each frame's presentation time; this costs a
    full decode of the video.
    """
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise VideoError(f"{path}: no such file")
    av = load_av()
    try:
        with av.open(path) as container:
            if not container.streams.video:
                raise VideoError(f"{path}: no video stream")
            stream = container.streams.video[0]
            ctx = stream.codec_context
            width, height = int(ctx.width), int(ctx.height)
            time_base = stream.time_base

            duration = None
            if stream.duration and time_base:
                duration = float(stream.duration * time_base)
            elif container.duration:
                duration = container.duration / av.time_base

            rate = stream.average_rate or stream.guessed_rate or stream.base_rate

            frame_count, frame_times = _count_frames(container, stream, exact)
    except (av.error.FFmpegError, OSError) as exc:
        raise VideoError(f"{path}: cannot read video ({exc})") from exc

    if frame_count <= 0:
        raise VideoError(f"{path}: no decodable video frames")
    if rate:
        fps = float(rate)
    elif duration:
        fps = frame_count / duration
    else:
        raise VideoError(f"{path}: neither frame rate nor duration is known")
    if duration is None:
        duration = frame_count / fps
    if frame_times is None and exact:
        # The decoder gave no timestamps (raw streams): assume a constant rate.
        frame_times = tuple(i / fps for i in range(frame_count))
    return VideoInfo(path, duration, fps, frame_count, width, height, frame_times)


def _count_frames(container, stream, exact: bool) -> tuple[int, tuple[float, ...] | None]:
    """(frame count, frame times from the stream start or None): decoded when exact, else demuxed
    if the container does not store the count."""
    frame_times = None
    if exact:
        stream.thread_type = "AUTO"  # decoding order/output is unaffected
        times = [frame.time for frame in container.decode(stream)]
        frame_count = len(times)
        if frame_count and None not in times:
            # Relative to the stream start so the first frame is ~0 s
            # even in containers (MPEG-TS) whose clock starts later.
            time_base = stream.time_base
            if stream.start_time is not None and time_base:
                origin = float(stream.start_time * time_base)
            else:
                origin = times[0]
            frame_times = tuple(t - origin for t in times)
    else:
        frame_count = int(stream.frames or 0)
        if frame_count <= 0:
            # Packets of zero size are the demuxer's end-of-stream flush.
            frame_count = sum(1 for p in container.demux(stream) if p.size)
    return frame_count, frame_times
