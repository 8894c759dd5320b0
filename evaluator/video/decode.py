"""Decoding the frames shown at given times (PyAV + numpy).

decode_frames seeks to the keyframe before the times asked and decodes forward, only as
far as needed; it returns exactly the arrays of decode_sequential, the decode-everything
reference.
"""
from __future__ import annotations

import itertools
import math
import os
from collections.abc import Sequence

import numpy as np

from evaluator.errors import VideoError
from evaluator.video.info import TIME_TOLERANCE, load_av

# A time t shows the last frame whose presentation time is at or before t (a
# frame up to TIME_TOLERANCE after t counts: call lists round times to
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
    av = load_av()
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
    limits = sorted({t + TIME_TOLERANCE for t in times})
    where = {limit: i for i, limit in enumerate(limits)}
    return limits, [where[t + TIME_TOLERANCE] for t in times]


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
    av = load_av()
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
    av = load_av()
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
    av = load_av()
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
