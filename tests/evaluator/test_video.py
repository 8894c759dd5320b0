"""Probing, uniform sampling and the synthetic videos (real encode + decode with PyAV)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

av = pytest.importorskip("av")

from evaluator.synth import (  # noqa: E402
    card_image, frame_index_from_image, is_card, write_image_video, write_video)
from evaluator.video import (  # noqa: E402
    VideoError, VideoInfo, probe, uniform_frame_times, uniform_indices)


def decode_rgb(path, width=None, height=None) -> list[np.ndarray]:
    with av.open(str(path)) as container:
        return [f.reformat(width=width, height=height, format="rgb24").to_ndarray()
                for f in container.decode(video=0)]


# --- probe -----------------------------------------------------------------

@pytest.mark.parametrize("codec", ["libx264", "mpeg4"])
def test_probe_written_video(tmp_path, codec):
    path = write_video(tmp_path / "v.mp4", seconds=3, fps=8, size=(96, 64), codec=codec)
    info = probe(path)
    assert (info.frame_count, info.width, info.height) == (24, 96, 64)
    assert info.fps == pytest.approx(8)
    assert info.duration == pytest.approx(3.0, abs=1e-3)
    assert info.frame_times is None

    exact = probe(path, exact=True)
    assert exact.frame_count == 24
    assert exact.frame_times == pytest.approx([i / 8 for i in range(24)], abs=1e-3)


def test_probe_counts_frames_when_container_has_no_count(tmp_path):
    # Matroska stores no frame count: probe must demux to count packets.
    src = write_video(tmp_path / "v.mp4", seconds=2.5, fps=8)
    dst = tmp_path / "v.mkv"
    with av.open(src) as inp, av.open(str(dst), "w") as out:
        in_stream = inp.streams.video[0]
        out_stream = out.add_stream_from_template(in_stream)
        for packet in inp.demux(in_stream):
            if packet.size:
                packet.stream = out_stream
                out.mux(packet)
    with av.open(str(dst)) as check:
        assert check.streams.video[0].frames == 0  # the premise of this test
    info = probe(dst)
    assert info.frame_count == 20
    assert info.duration == pytest.approx(2.5, abs=0.01)
    assert probe(dst, exact=True).frame_count == 20


def test_probe_missing_file(tmp_path):
    missing = tmp_path / "nope.mp4"
    with pytest.raises(VideoError, match="nope.mp4"):
        probe(missing)


def test_probe_garbage_file(tmp_path):
    garbage = tmp_path / "garbage.mp4"
    garbage.write_bytes(np.random.default_rng(0).integers(0, 256, 4096, dtype=np.uint8).tobytes())
    with pytest.raises(VideoError, match="garbage.mp4"):
        probe(garbage)
    with pytest.raises(VideoError, match="garbage.mp4"):
        probe(garbage, exact=True)


def test_probe_empty_file(tmp_path):
    empty = tmp_path / "empty.mp4"
    empty.write_bytes(b"")
    with pytest.raises(VideoError, match="empty.mp4"):
        probe(empty)


# --- uniform_indices -------------------------------------------------------

@pytest.mark.parametrize("n,k,expected", [
    (10, 4, [0, 3, 6, 9]),      # first and last included, rounded down
    (100, 8, [0, 14, 28, 42, 56, 70, 84, 99]),
    (5, 5, [0, 1, 2, 3, 4]),    # k == n
    (3, 8, [0, 1, 2]),          # k > n: every frame once
    (10, 1, [0]),               # k == 1: linspace gives the first frame
    (1, 1, [0]),
    (1, 5, [0]),
    (0, 3, []),
    (2, 2, [0, 1]),
])
def test_uniform_indices(n, k, expected):
    assert uniform_indices(n, k) == expected


@pytest.mark.parametrize("n", [2, 7, 30, 97, 1000, 4321])
@pytest.mark.parametrize("k", [2, 3, 8, 16, 32])
def test_uniform_indices_matches_lmms_eval(n, k):
    picks = uniform_indices(n, k)
    assert picks == np.linspace(0, n - 1, min(k, n), dtype=int).tolist()
    assert picks[0] == 0 and picks[-1] == n - 1
    assert len(set(picks)) == len(picks) == min(k, n)


def test_uniform_indices_rejects_bad_k():
    with pytest.raises(ValueError):
        uniform_indices(10, 0)


# --- uniform_frame_times ---------------------------------------------------

def test_uniform_frame_times_whole_video_from_fps():
    info = VideoInfo("x.mp4", duration=10.0, fps=8.0, frame_count=80, width=96, height=64)
    times = uniform_frame_times(info, 8)
    assert times[0] == 0.0 and times[-1] == 9.875  # first and last frame
    assert times == sorted(times) and len(times) == 8


def test_uniform_frame_times_sub_range_includes_ends():
    info = VideoInfo("x.mp4", duration=10.0, fps=8.0, frame_count=80, width=96, height=64)
    assert uniform_frame_times(info, 5, 2.5, 5.0) == [2.5, 3.125, 3.75, 4.375, 5.0]
    # Range ends between frames: first/last frame inside the range.
    assert uniform_frame_times(info, 3, 2.51, 4.99) == [2.625, 3.75, 4.875]
    # More frames asked than the range holds: all of them.
    assert uniform_frame_times(info, 10, 1.0, 1.5) == [1.0, 1.125, 1.25, 1.375, 1.5]


def test_uniform_frame_times_accepts_rounded_times_as_range_ends():
    info = VideoInfo("x.mp4", duration=1.0, fps=3.0, frame_count=3, width=96, height=64)
    assert uniform_frame_times(info, 3) == [0.0, 0.333, 0.667]
    # 0.333 is just before frame 1 (1/3 s) and 0.667 just after frame 2 (2/3 s):
    # passing them back as range ends must still include those frames.
    assert uniform_frame_times(info, 5, 0.0, 0.333) == [0.0, 0.333]
    assert uniform_frame_times(info, 5, 0.667, 1.0) == [0.667]


def test_uniform_frame_times_uses_probed_frame_times():
    # Variable frame rate: the actual timestamps win over index / fps.
    times = (0.0, 0.1, 0.5, 0.55, 2.0)
    info = VideoInfo("x.mp4", duration=2.1, fps=2.5, frame_count=5, width=96, height=64,
                     frame_times=times)
    assert uniform_frame_times(info, 3) == [0.0, 0.5, 2.0]
    assert uniform_frame_times(info, 2, 0.4, 1.0) == [0.5, 0.55]


def test_uniform_frame_times_on_a_real_video(tmp_path):
    info = probe(write_video(tmp_path / "v.mp4", seconds=6, fps=8, scenes=3), exact=True)
    # Second of three scenes: frames 16..31, i.e. 2.0 s .. 3.875 s.
    assert uniform_frame_times(info, 4, 2.0, 3.875) == [2.0, 2.625, 3.25, 3.875]


def test_uniform_frame_times_empty_range():
    info = VideoInfo("x.mp4", duration=10.0, fps=8.0, frame_count=80, width=96, height=64)
    with pytest.raises(ValueError, match="no frame"):
        uniform_frame_times(info, 3, 1.01, 1.1)
    with pytest.raises(ValueError):
        uniform_frame_times(info, 3, 5.0, 4.0)


# --- synthetic videos ------------------------------------------------------

@pytest.mark.parametrize("codec", ["libx264", "mpeg4"])
def test_writes_are_byte_identical(tmp_path, codec):
    kwargs = dict(seconds=4, fps=8, seed=3, scenes=2, final_card=True, codec=codec)
    data = open(write_video(tmp_path / "a.mp4", **kwargs), "rb").read()
    # Repeat with other writes in between: encoder state or leftover memory
    # from earlier videos must not leak into the bytes (x264 mbtree did).
    for i in range(4):
        other = open(write_video(tmp_path / "c.mp4", **{**kwargs, "seed": 4 + i}), "rb").read()
        assert other != data
        assert open(write_video(tmp_path / "b.mp4", **kwargs), "rb").read() == data
    still_a = open(write_image_video(tmp_path / "s1.mp4", seed=3), "rb").read()
    still_b = open(write_image_video(tmp_path / "s2.mp4", seed=3), "rb").read()
    assert still_a == still_b


def test_writes_are_byte_identical_across_processes(tmp_path):
    # The demo suite is built in one process and checked in another.
    code = ("import sys; from evaluator.synth import write_video; "
            "write_video(sys.argv[1], seconds=3, seed=9, scenes=3, final_card=True)")
    other = tmp_path / "other.mp4"
    subprocess.run([sys.executable, "-c", code, str(other)], check=True,
                   cwd=Path(__file__).resolve().parents[2])
    here = write_video(tmp_path / "here.mp4", seconds=3, seed=9, scenes=3, final_card=True)
    assert open(here, "rb").read() == other.read_bytes()


@pytest.mark.parametrize("codec", ["libx264", "mpeg4"])
def test_frame_index_strip_survives_real_decode(tmp_path, codec):
    path = write_video(tmp_path / "v.mp4", seconds=40, fps=8, seed=5, scenes=4, codec=codec)
    frames = decode_rgb(path)
    assert [frame_index_from_image(f) for f in frames] == list(range(320))
    # Also after the frames are rescaled, as a model's processor would.
    for size in [(192, 128), (64, 48)]:
        frames = decode_rgb(path, *size)
        assert [frame_index_from_image(f) for f in frames] == list(range(320))


def test_scenes_change_background_at_equal_boundaries(tmp_path):
    frames = decode_rgb(write_video(tmp_path / "v.mp4", seconds=3, fps=8, seed=1, scenes=3))
    top = [f[2].mean(axis=0) for f in frames]  # row 2: always plain background
    changes = [i for i in range(1, 24) if np.abs(top[i] - top[i - 1]).max() > 20]
    assert changes == [8, 16]


def test_final_card_is_last_decoded_frame(tmp_path):
    path = write_video(tmp_path / "v.mp4", seconds=5, fps=8, seed=2, scenes=2, final_card=True, gop=4)
    frames = decode_rgb(path)
    assert len(frames) == 40
    assert is_card(frames[-1])
    assert not any(is_card(f) for f in frames[:-1])
    assert frame_index_from_image(frames[-2]) == 38
    # The card is the seed's card image (up to compression).
    assert np.abs(frames[-1].astype(int) - card_image(2)).mean() < 8


def test_no_card_without_final_card(tmp_path):
    frames = decode_rgb(write_video(tmp_path / "v.mp4", seconds=2, fps=8, seed=2))
    assert not any(is_card(f) for f in frames)
    assert frame_index_from_image(frames[-1]) == 15


def test_image_video_is_a_still_card(tmp_path):
    path = write_image_video(tmp_path / "q.mp4", seconds=2, fps=4, seed=7)
    info = probe(path)
    assert info.frame_count == 8 and info.duration == pytest.approx(2.0, abs=1e-3)
    frames = decode_rgb(path)
    assert all(is_card(f) for f in frames)
    assert np.abs(frames[0].astype(int) - card_image(7)).mean() < 8
    assert not np.array_equal(card_image(7), card_image(8))


def test_gop_sets_keyframe_interval(tmp_path):
    path = write_video(tmp_path / "v.mp4", seconds=3, fps=8, scenes=3, gop=5)
    with av.open(path) as container:
        keys = [f.key_frame for f in container.decode(video=0)]
    assert [i for i, k in enumerate(keys) if k] == [0, 5, 10, 15, 20]


def test_write_video_rejects_bad_arguments(tmp_path):
    with pytest.raises(ValueError):
        write_video(tmp_path / "v.mp4", seconds=0.01)
    with pytest.raises(ValueError):
        write_video(tmp_path / "v.mp4", seconds=1, size=(95, 64))
    with pytest.raises(ValueError):
        write_video(tmp_path / "v.mp4", seconds=1, scenes=0)
