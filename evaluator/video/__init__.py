"""Video probing, frame sampling, frame decoding and resizing (PyAV + numpy; PIL to resize).

Benchmarks sample a fixed number of frames per video; to be comparable with
published numbers we sample the way lmms-eval does: indices from
``numpy.linspace(0, n - 1, k)`` rounded down, so the first and the last frame
are always included (uniform_frame_times). fps_frame_times samples at a rate
instead, capped at a frame budget.

decode_frames returns the frames shown at given times by seeking to the
keyframe before them and decoding forward, only as far as needed; it returns
exactly the arrays of decode_sequential, the decode-everything reference.
resize_frames applies a recorded ResizePolicy.
"""
from __future__ import annotations

import itertools
import math
import os
from collections.abc import Sequence
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
    inside = _frames_in_range(info, start, end)[2]
    return [round(inside[i], _TIME_DECIMALS) for i in uniform_indices(len(inside), k)]


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
    inside = [t for t in times if lo - _TIME_TOLERANCE <= t <= hi + _TIME_TOLERANCE]
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
    while (point := lo + step / fps) <= inside[-1] + _TIME_TOLERANCE:
        while j + 1 < len(inside) and inside[j + 1] <= point + _TIME_TOLERANCE:
            j += 1
        if not picks or picks[-1] != j:
            picks.append(j)
        step += 1
    if include_last and picks[-1] != len(inside) - 1:
        picks.append(len(inside) - 1)
    if max_frames is not None and len(picks) > max_frames:
        picks = [picks[i] for i in uniform_indices(len(picks), max_frames)]
    return [round(inside[i], _TIME_DECIMALS) for i in picks]




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


# --- decoding the frames shown at given times --------------------------------
#
# A time t shows the last frame whose presentation time is at or before t (a
# frame up to _TIME_TOLERANCE after t counts: call lists round times to
# milliseconds, so a frame at 1/30 s is listed as 0.033 s); a time before the
# first frame shows the first frame. Times are seconds from the stream start,
# as probe(exact=True) reports them. Both decoders below follow this rule, so
# decode_frames (seeking) returns byte-identical arrays to decode_sequential
# (the reference), which the tests check on real files.

# RGB conversion used by both decoders (same swscale path, so identical bytes).
_RGB = "rgb24"
# A backward seek may land on a keyframe shown after the target (a demuxer may
# seek by decoding time, which precedes presentation time with B-frames, e.g.
# targets among an open GOP's leading frames; MPEG-TS seeks only roughly); we
# then seek again, earlier. A few retries suffice on sane files.
_SEEK_RETRIES = 16


class _CannotSeek(Exception):
    """This file cannot be decoded by seeking (no timestamps, no index...): decode it sequentially."""


def _open_video(path: str, frame_threads: bool = True):
    """(container, its first video stream), with VideoError for what is not a readable video.
    `frame_threads`: let FFmpeg decode on several threads (else one)."""
    if not os.path.isfile(path):
        raise VideoError(f"{path}: no such file")
    av = _av()
    try:
        container = av.open(path)
    except (av.error.FFmpegError, OSError) as exc:
        raise VideoError(f"{path}: cannot read video ({exc})") from exc
    if not container.streams.video:
        container.close()
        raise VideoError(f"{path}: no video stream")
    stream = container.streams.video[0]
    # Slice and frame threads give bit-exact output in FFmpeg, so either way the frames are the same.
    if frame_threads:
        stream.thread_type = "AUTO"
    else:
        stream.codec_context.thread_count = 1
    return container, stream


class _Clock:
    """Converts a stream's timestamps (pts, in time_base ticks) to seconds from the stream start."""

    def __init__(self, stream, fallback_origin: int | None = None):
        self.time_base = stream.time_base
        self.origin = stream.start_time if stream.start_time is not None else fallback_origin
        rate = stream.average_rate or stream.guessed_rate or stream.base_rate
        self.fps = float(rate) if rate else None

    def seconds(self, pts: int) -> float:
        # Integer arithmetic, one correctly rounded division: exact like Fraction, faster.
        return (pts - self.origin) * self.time_base.numerator / self.time_base.denominator

    def ticks(self, seconds: float) -> int:
        """The largest pts whose time is at or before `seconds` (a seek offset)."""
        return self.origin + math.floor(seconds / self.time_base)


class _Picker:
    """Assigns frames, offered in presentation order, to sorted time limits.

    limits[i] = requested time + tolerance. A limit is settled by the first
    frame that comes after it: the frame before that one is the frame shown.
    Only picked frames are converted to RGB, each once.
    """

    def __init__(self, limits: list[float]):
        from av.video.reformatter import VideoReformatter

        self.limits = limits
        # One reformatter for the whole decode keeps its swscale context (cheaper than frame.to_ndarray).
        self._reformatter = VideoReformatter()
        self.picked: list[np.ndarray | None] = [None] * len(limits)
        self.next = 0  # the first limit not yet settled
        self._prev = None  # the last frame offered, and its RGB array once made
        self._prev_rgb = None

    @property
    def done(self) -> bool:
        return self.next >= len(self.limits)

    def offer(self, frame, seconds: float) -> None:
        rgb = None
        while self.next < len(self.limits) and seconds > self.limits[self.next]:
            if self._prev is None:  # the time lies before the first frame: show the first frame
                rgb = rgb if rgb is not None else self._rgb(frame)
                self.picked[self.next] = rgb
            else:
                self.picked[self.next] = self._previous_rgb()
            self.next += 1
        self._prev, self._prev_rgb = frame, rgb

    def restart(self) -> None:
        """Forget the previous frame: the next frame offered follows a seek."""
        self._prev, self._prev_rgb = None, None

    def finish(self, path: str) -> None:
        """End of stream: every limit still open shows the last frame."""
        if self.done:
            return
        if self._prev is None:
            raise VideoError(f"{path}: no decodable video frames")
        while not self.done:
            self.picked[self.next] = self._previous_rgb()
            self.next += 1

    def _previous_rgb(self) -> np.ndarray:
        if self._prev_rgb is None:
            self._prev_rgb = self._rgb(self._prev)
        return self._prev_rgb

    def _rgb(self, frame) -> np.ndarray:
        return self._reformatter.reformat(frame, format=_RGB).to_ndarray()


def _check_times(times: Sequence[float]) -> list[float]:
    times = [float(t) for t in times]
    bad = [t for t in times if not math.isfinite(t)]
    if bad:
        raise ValueError(f"frame times must be finite numbers, got {bad[0]}")
    return times


def _sorted_limits(times: list[float]) -> tuple[list[float], list[int]]:
    """The distinct limits in ascending order, and for each requested time its limit's index."""
    limits = sorted({t + _TIME_TOLERANCE for t in times})
    where = {limit: i for i, limit in enumerate(limits)}
    return limits, [where[t + _TIME_TOLERANCE] for t in times]


def decode_sequential(path, times: Sequence[float]) -> list[np.ndarray]:
    """The reference decoder: decode from the first frame on, keep the frames shown at `times`.

    Returns one RGB uint8 array (height, width, 3) per requested time, in the
    order asked (duplicates allowed: equal picks share one array). Stops once
    every time is settled, which for a sampler that includes the last frame
    means decoding the whole video.
    """
    path = os.fspath(path)
    times = _check_times(times)
    if not times:
        return []
    limits, slots = _sorted_limits(times)
    picker = _Picker(limits)
    container, stream = _open_video(path)
    av = _av()
    try:
        with container:
            clock = None
            for index, frame in enumerate(container.decode(stream)):
                if clock is None:
                    clock = _Clock(stream, fallback_origin=frame.pts)
                picker.offer(frame, _frame_seconds(clock, frame, index, path))
                if picker.done:
                    break
            picker.finish(path)
    except av.error.FFmpegError as exc:
        raise VideoError(f"{path}: cannot decode video ({exc})") from exc
    return [picker.picked[i] for i in slots]


def _frame_seconds(clock: _Clock, frame, index: int, path: str) -> float:
    if frame.pts is not None and clock.origin is not None:
        return clock.seconds(frame.pts)
    if clock.fps:  # raw streams carry no timestamps: assume a constant rate, as probe() does
        return index / clock.fps
    raise VideoError(f"{path}: frames carry no timestamps and the frame rate is unknown")


def decode_frames(path, times: Sequence[float]) -> list[np.ndarray]:
    """The frames shown at `times`, decoded by seeking: same arrays as decode_sequential.

    For each time, seek to the keyframe at or before it and decode forward; times
    that share a keyframe are served by one pass through that GOP (never
    decoded twice), and a pass goes on into the next GOP instead of seeking
    when that GOP is already being decoded. Files that cannot be decoded this
    way (no timestamps, no seek support) are decoded sequentially.
    Returns one RGB uint8 array per requested time, in the order asked.
    """
    path = os.fspath(path)
    times = _check_times(times)
    if not times:
        return []
    limits, slots = _sorted_limits(times)
    av = _av()
    try:
        picked = _decode_by_seeking(path, limits)
    except _CannotSeek:
        return decode_sequential(path, times)
    except av.error.FFmpegError as exc:
        raise VideoError(f"{path}: cannot decode video ({exc})") from exc
    return [picked[i] for i in slots]


def _decode_by_seeking(path: str, limits: list[float]) -> list[np.ndarray]:
    # One decoding thread: every seek flushes the decoder, and with frame threads each flush
    # waits for all of them (measured on the 8-minute video of bench/video_speed.py: 1.6x
    # slower with them). A runner decodes several videos at once instead (runners/model.py).
    container, stream = _open_video(path, frame_threads=False)
    with container:
        if stream.start_time is None:
            raise _CannotSeek
        clock = _Clock(stream)
        # Keyframes are looked up on a second handle of the file, so that the
        # decoding handle never seeks unless it jumps to a new GOP.
        lookup, lookup_stream = _open_video(path)
        with lookup:
            keys = [_keyframe_at_or_before(lookup, lookup_stream, clock, limit) for limit in limits]
        if any(later[0] < earlier[0] for earlier, later in itertools.pairwise(keys)):
            raise _CannotSeek  # keyframes out of order: a broken index
        picker = _Picker(limits)
        _decode_groups(container, stream, clock, keys, picker)
        picker.finish(path)
        return picker.picked


def _keyframe_at_or_before(container, stream, clock: _Clock, limit: float) -> tuple[int, int]:
    """(pts of the keyframe to start decoding from for `limit`, the seek offset that lands on it).

    That keyframe is the last one at or before the limit; for a limit before
    the first frame it is the first keyframe. A seek that lands after the limit
    or on no keyframe is retried from earlier, down to the stream start.
    """
    offset = max(clock.ticks(limit), clock.origin)
    step = max(1, clock.ticks(1.0) - clock.origin)  # one second, doubled on each blind retry
    landed = None  # pts of the last landing after the limit
    for _ in range(_SEEK_RETRIES):
        packet = _seek_keyframe(container, stream, offset)
        if packet is not None and clock.seconds(packet.pts) <= limit:
            return packet.pts, offset
        if offset <= clock.origin:  # sought from the stream start and still after the limit
            if packet is not None and packet.pts == clock.origin:
                return packet.pts, offset  # the very first frame: the limit precedes it
            raise _CannotSeek  # an imprecise seek (MPEG-TS): no keyframe found at or before the limit
        if packet is not None and packet.pts != landed:
            landed = packet.pts  # precise demuxers: just before this keyframe is the previous one
            offset = min(offset, packet.pts if packet.dts is None else packet.dts) - 1
        else:
            offset, step = offset - step, step * 2  # imprecise demuxers: step back blindly
        offset = max(offset, clock.origin)
    raise _CannotSeek


def _seek_keyframe(container, stream, offset: int):
    """Seek the handle to the keyframe at or before `offset`; the keyframe packet, or None."""
    av = _av()
    try:
        container.seek(offset, stream=stream, backward=True, any_frame=False)
    except av.error.FFmpegError:
        return None
    return _next_keyframe(container.demux(stream))


def _next_keyframe(packets):
    for packet in packets:
        if packet.is_keyframe and packet.size:
            if packet.pts is None:
                raise _CannotSeek
            return packet
    return None


def _decode_groups(container, stream, clock: _Clock, keys: list[tuple[int, int]], picker: _Picker) -> None:
    """Decode forward from each needed keyframe until every limit is settled (or the stream ends)."""
    packets = None
    run_first_key = run_last_key = None  # keyframes fed since the last seek
    skip_before = None  # after a seek, frames before the landing keyframe (open-GOP leading frames) are unusable
    while not picker.done:
        key_pts, offset = keys[picker.next]
        in_run = packets is not None and run_first_key <= key_pts <= run_last_key
        if not in_run:
            container.seek(offset, stream=stream, backward=True, any_frame=False)
            packets = container.demux(stream)
            packet = _next_keyframe(packets)
            if packet is None or packet.pts != key_pts:
                raise _CannotSeek  # the seek did not land where the lookup did
            picker.restart()
            run_first_key = run_last_key = skip_before = key_pts
            _feed(stream, packet, clock, picker, skip_before)
        # Feed this GOP until its limits are settled; the pass may run into the next GOPs.
        group_end = picker.next
        while group_end + 1 < len(keys) and keys[group_end + 1][0] == key_pts:
            group_end += 1
        while picker.next <= group_end:
            packet = next(packets, None)
            if packet is None:
                return  # end of stream: the caller settles what is left with the last frame
            if packet.is_keyframe and packet.pts is not None:
                run_last_key = packet.pts
            _feed(stream, packet, clock, picker, skip_before)


def _feed(stream, packet, clock: _Clock, picker: _Picker, skip_before: int) -> None:
    for frame in stream.decode(packet):
        if frame.pts is None:
            raise _CannotSeek
        if frame.pts < skip_before:
            continue
        picker.offer(frame, clock.seconds(frame.pts))


# --- resizing ----------------------------------------------------------------

@dataclass(frozen=True)
class ResizePolicy:
    """How frames are resized before a model sees them (recorded in results).

    Neither set: native size. max_side: scale down so the longer side is at
    most max_side, aspect kept, never enlarged. square: resize to square x
    square, aspect not kept (ExpVid's 224x224 protocol). PIL bicubic.
    """

    max_side: int | None = None
    square: int | None = None

    def __post_init__(self) -> None:
        if self.max_side is not None and self.square is not None:
            raise ValueError("ResizePolicy: give max_side or square, not both")
        for name in ("max_side", "square"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value < 1):
                raise ValueError(f"ResizePolicy: {name} must be a positive integer, got {value!r}")

    def size_for(self, width: int, height: int) -> tuple[int, int]:
        """(width, height) of a frame of the given size after resizing."""
        if self.square is not None:
            return self.square, self.square
        if self.max_side is not None and max(width, height) > self.max_side:
            scale = self.max_side / max(width, height)
            return max(1, round(width * scale)), max(1, round(height * scale))
        return width, height

    def describe(self) -> str:
        if self.square is not None:
            return f"square {self.square}x{self.square} (PIL bicubic, aspect not kept)"
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


__all__ = ["VideoError", "VideoInfo", "probe", "uniform_indices", "uniform_frame_times",
           "fps_frame_times", "decode_frames", "decode_sequential", "ResizePolicy", "resize_frames",
           "copy_video_only"]
