"""Video probing and uniform frame sampling (PyAV + numpy only).

Benchmarks sample a fixed number of frames per video; to be comparable with
published numbers we sample the way lmms-eval does: indices from
``numpy.linspace(0, n - 1, k)`` rounded down, so the first and the last frame
are always included.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

# Timestamps are reported rounded to milliseconds; range checks accept frames
# up to half a millisecond outside the range so that a timestamp we printed
# (e.g. 0.333 for a frame at 1/3 s) can be passed back as a range end.
_TIME_DECIMALS = 3
_TIME_TOLERANCE = 0.5e-3


class VideoError(Exception):
    """A video file is missing, unreadable or holds no decodable video."""


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


def _av():
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
    av = _av()
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

            frame_times = None
            if exact:
                stream.thread_type = "AUTO"  # decoding order/output is unaffected
                times = [frame.time for frame in container.decode(stream)]
                frame_count = len(times)
                if frame_count and None not in times:
                    # Relative to the stream start so the first frame is ~0 s
                    # even in containers (MPEG-TS) whose clock starts later.
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
    inside = [t for t in times if lo - _TIME_TOLERANCE <= t <= hi + _TIME_TOLERANCE]
    if not inside:
        raise ValueError(f"{info.path}: no frame between {lo:.3f}s and {hi:.3f}s")
    return [round(inside[i], _TIME_DECIMALS) for i in uniform_indices(len(inside), k)]


__all__ = ["VideoError", "VideoInfo", "probe", "uniform_indices", "uniform_frame_times"]


def copy_video_only(src, dst) -> None:
    """Copy a release's video into a suite: the video stream only, re-muxed into mp4.

    Drops audio (the benchmarks are vision-only: ExpVid's narration carries its
    answers) and every metadata tag (a title can name the answer, e.g. a Commons
    file's description). Streams mp4 cannot hold (VP8...) are re-encoded with libx264.
    """
    src, dst = os.fspath(src), os.fspath(dst)
    av = _av()
    try:
        _remux_video(av, src, dst)
    except (av.FFmpegError, ValueError):
        _transcode_video(av, src, dst)


def _remux_video(av, src: str, dst: str) -> None:
    with av.open(src) as inp, av.open(dst, "w", format="mp4") as out:
        if not inp.streams.video:
            raise VideoError(f"{src}: no video stream")
        vin = inp.streams.video[0]
        vout = out.add_stream_from_template(vin)
        vout.metadata.clear()
        for packet in inp.demux(vin):
            if packet.dts is None:  # the demuxer's final flush packet
                continue
            packet.stream = vout
            out.mux(packet)


def _transcode_video(av, src: str, dst: str) -> None:
    with av.open(src) as inp, av.open(dst, "w", format="mp4") as out:
        vin = inp.streams.video[0]
        rate = vin.average_rate or vin.guessed_rate or 25
        vout = out.add_stream("libx264", rate=rate)
        vout.width, vout.height = vin.codec_context.width // 2 * 2, vin.codec_context.height // 2 * 2
        vout.pix_fmt = "yuv420p"
        for frame in inp.decode(vin):
            frame = frame.reformat(width=vout.width, height=vout.height, format="yuv420p")
            frame.pts, frame.time_base = None, None
            for packet in vout.encode(frame):
                out.mux(packet)
        for packet in vout.encode(None):
            out.mux(packet)
