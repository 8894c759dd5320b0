"""Frame decoding speed, and one decode per video per job.

1. Writes an 8-minute 640x360 H.264 video (30 fps, a keyframe every 250 frames,
   x264 ultrafast; synthetic scenes whose frames carry their index in a strip)
   to a temporary folder, takes 32 uniform frames (first and last included) and
   prints, measured in this run (best of --repeats, interleaved):
     sequential  decode_sequential: decode the stream from the start (the reference)
     seeking     decode_frames: seek to the keyframe before each frame, decode forward
     ratio       sequential / seeking  (target: at least 3x)
     decord      decord.VideoReader(num_threads=1).get_batch, what most harnesses use
                 (goal: seeking stays ahead of it), when decord is installed
   The two must return the same arrays, and the frames the strip says; whether decord
   returns the same frames is printed.
2. Runs a FrameStore over the demo suite's call list (public and worker-only
   calls, grouped by video as a runner asks) and prints, per video, the decodes
   (must be exactly 1) beside the number of calls that used it, and the totals.

Usage: python bench/video_speed.py [--repeats 3] [--minutes 8]
Exit status 1 if a target is missed (seeking behind decord included).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evaluator.demo import build_demo_suite  # noqa: E402
from evaluator.runners.frame_store import FrameStore  # noqa: E402
from evaluator.suite import load_answers  # noqa: E402
from evaluator.synth import STRIP_BITS, frame_index_from_image  # noqa: E402
from evaluator.video import (  # noqa: E402
    decode_frames, decode_sequential, probe, uniform_frame_times, uniform_indices)

WIDTH, HEIGHT, FPS, GOP, FRAMES = 640, 360, 30, 250, 32


def yuv_frames(count: int):
    """Synthetic yuv420p frames drawn straight in YUV (no RGB conversion: fast to encode).

    A scene colour changing every 10 s, a moving square, and the frame index
    in a bottom strip of STRIP_BITS black/white cells (synth.frame_index_from_image).
    """
    rng = np.random.default_rng(0)
    strip_top = HEIGHT - HEIGHT // 8
    edges = [round(j * WIDTH / STRIP_BITS) for j in range(STRIP_BITS + 1)]
    frame = np.empty((HEIGHT * 3 // 2, WIDTH), dtype=np.uint8)
    y, chroma = frame[:HEIGHT], frame[HEIGHT:]
    for i in range(count):
        if i % (10 * FPS) == 0:
            luma, u, v = rng.integers(60, 180), rng.integers(90, 166), rng.integers(90, 166)
            chroma[: HEIGHT // 4], chroma[HEIGHT // 4:] = u, v
        y[:] = luma
        x = (i * 4) % (WIDTH - 64)
        y[120:184, x:x + 64] = 255 - luma
        y[strip_top:] = 16
        for j in range(STRIP_BITS):
            if (i >> (STRIP_BITS - 1 - j)) & 1:
                y[strip_top:, edges[j]:edges[j + 1]] = 235
        # The strip's chroma is neutral so its cells decode as black and white.
        chroma[strip_top // 4: HEIGHT // 4], chroma[HEIGHT // 4 + strip_top // 4:] = 128, 128
        yield frame


def write_long_video(path: Path, minutes: float) -> Path:
    import av

    count = round(minutes * 60 * FPS)
    with av.open(str(path), "w", format="mp4") as container:
        stream = container.add_stream("libx264", rate=Fraction(FPS))
        stream.width, stream.height, stream.pix_fmt = WIDTH, HEIGHT, "yuv420p"
        stream.codec_context.gop_size = GOP
        stream.options = {"preset": "ultrafast", "x264-params": f"keyint={GOP}:min-keyint={GOP}:scenecut=0"}
        for i, data in enumerate(yuv_frames(count)):
            frame = av.VideoFrame.from_ndarray(data, format="yuv420p")
            frame.pts, frame.time_base = i, Fraction(1, FPS)
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return path


def timed(fn, *args):
    start = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - start, out


def decord_reader():
    """decord's frame reader, or None when decord is not installed (it ships wheels for
    x86-64 Linux only; requirements-dev.txt installs it there)."""
    try:
        import decord
    except ImportError:
        return None

    def read(path: Path, indices: list[int]) -> list[np.ndarray]:
        reader = decord.VideoReader(str(path), ctx=decord.cpu(0), num_threads=1)
        return list(reader.get_batch(indices).asnumpy())

    return read


def bench_decoding(folder: Path, minutes: float, repeats: int) -> tuple[float, bool | None]:
    """(sequential / seeking, seeking ahead of decord: None when decord is not installed)"""
    start = time.perf_counter()
    path = write_long_video(folder / "long.mp4", minutes)
    info = probe(path)
    print(f"video: {info.duration / 60:.1f} min, {info.width}x{info.height}, {info.fps:g} fps, "
          f"{info.frame_count} frames, keyframe every {GOP} frames, {path.stat().st_size / 1e6:.1f} MB "
          f"(written in {time.perf_counter() - start:.1f} s)")
    times = uniform_frame_times(info, FRAMES)
    indices = uniform_indices(info.frame_count, FRAMES)
    decord_read = decord_reader()
    best_seq = best_seek = best_decord = float("inf")
    for _ in range(repeats):  # interleaved, so all see the same machine load
        t_seq, reference = timed(decode_sequential, path, times)
        t_seek, frames = timed(decode_frames, path, times)
        best_seq, best_seek = min(best_seq, t_seq), min(best_seek, t_seek)
        assert len(frames) == len(reference) == FRAMES
        assert all(np.array_equal(a, b) for a, b in zip(frames, reference)), "seeking decode differs"
        if decord_read is not None:
            t_decord, by_decord = timed(decord_read, path, indices)
            best_decord = min(best_decord, t_decord)
    shown = [frame_index_from_image(f) for f in frames]
    assert shown == indices, f"wrong frames: {shown}"
    ratio = best_seq / best_seek
    print(f"{FRAMES} uniform frames (first and last included), best of {repeats}:")
    print(f"  sequential  {best_seq * 1000:8.1f} ms   decode_sequential (reference)")
    print(f"  seeking     {best_seek * 1000:8.1f} ms   decode_frames")
    print(f"  ratio       {ratio:8.2f} x   (target >= 3x)   same {FRAMES} frames: yes")
    if decord_read is None:
        print("  decord      not installed (pip install decord: wheels for x86-64 Linux only); not compared")
        return ratio, None
    same = all(np.array_equal(a, b) for a, b in zip(by_decord, frames))
    print(f"  decord      {best_decord * 1000:8.1f} ms   1 thread; seeking is {best_decord / best_seek:.2f}x "
          f"faster (goal: > 1x, stay ahead)   {'OK' if best_decord > best_seek else 'BEHIND'}   "
          f"same {FRAMES} frames: {'yes' if same else 'no'}")
    return ratio, best_decord > best_seek


def bench_frame_store(folder: Path) -> bool:
    suite = build_demo_suite(folder / "demo")
    key = load_answers(folder / "demo" / "answers", suite)
    calls = [c for c in suite.calls + key.hidden_calls if c.frames]
    first_seen: dict[str, int] = {}
    for call in calls:
        first_seen.setdefault(call.frames[0].video, len(first_seen))
    calls.sort(key=lambda c: first_seen[c.frames[0].video])  # grouped by video, as runners ask

    store = FrameStore(suite.path, suite.videos)
    store.prefetch(calls)
    start = time.perf_counter()
    frames = sum(len(store.call_frames(call)) for call in calls)
    elapsed = time.perf_counter() - start

    print(f"\nFrameStore over the demo suite: {len(calls)} calls ({len(key.hidden_calls)} worker-only), "
          f"{frames} frames served in {elapsed * 1000:.0f} ms")
    print(f"  {'video':<28} {'decodes':>7} {'calls':>6}")
    for video in sorted(store.uses):
        print(f"  {video:<28} {store.decodes[video]:>7} {store.uses[video]:>6}")
    decodes = Counter(store.decodes.values())
    once = decodes == Counter({1: len(store.uses)}) and set(store.decodes) == set(store.uses)
    print(f"  total: {len(store.uses)} videos, {sum(store.decodes.values())} decodes, "
          f"{sum(store.uses.values())} call uses; every video decoded exactly once: {'yes' if once else 'NO'}")
    print(f"  held after the job: {sorted(store.held_videos()) or 'nothing'}")
    return once


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--minutes", type=float, default=8.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ratio, ahead = bench_decoding(Path(tmp), args.minutes, args.repeats)
        once = bench_frame_store(Path(tmp))
    ok = ratio >= 3 and once and ahead is not False
    versus = {None: "not compared", True: "yes", False: "no"}[ahead]
    print(f"\n{'PASS' if ok else 'FAIL'}: ratio {ratio:.2f}x (>= 3x), one decode per video: {'yes' if once else 'no'}, "
          f"ahead of decord: {versus}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
