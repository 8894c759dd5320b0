"""Copying a release's video into a suite: its video stream only, no audio, no metadata."""
from __future__ import annotations

import os

from evaluator.errors import VideoError
from evaluator.video.info import load_av


def copy_video_only(src, dst) -> None:
    """Copy a release's video into a suite: the video stream only, re-muxed into mp4.

    Drops audio (the benchmarks are vision-only: ExpVid's narration carries its
    answers) and every metadata tag (a title can name the answer, e.g. a Commons
    file's description). Streams mp4 cannot hold (VP8...) are re-encoded with libx264.
    """
    src, dst = os.fspath(src), os.fspath(dst)
    av = load_av()
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
