"""Frame sampling, seeking decode and the per-job frame store, on real files decoded by PyAV.

The ground truth for "the frame shown at time t" is an independent plain PyAV
decode of every frame: the last frame whose presentation time is at or before
t (+0.5 ms, the rounding of listed times), or the first frame. Every synthetic
frame carries its index in a strip (evaluator.synth), so the tests also check
WHICH frame came back, not only that two decoders agree.
"""
from __future__ import annotations

import itertools
import random
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

av = pytest.importorskip("av")

from evaluator import video  # noqa: E402
from evaluator.video import decode as decoding  # noqa: E402  (patched where decode_frames looks names up)
from evaluator.records import Call, FramePlan, VideoMeta  # noqa: E402
from evaluator.runners.frame_store import FrameStore, call_times  # noqa: E402
from evaluator.synth import frame_index_from_image, scene_frame, write_video  # noqa: E402
from evaluator.video import (  # noqa: E402
    ResizePolicy, VideoError, VideoInfo, decode_frames, decode_sequential, fps_frame_times, probe,
    resize_frames, uniform_frame_times)

SIZE = (96, 64)
TOLERANCE = 0.5e-3


# --- test videos -------------------------------------------------------------

def encode(path, pts: list[int], *, time_base=Fraction(1, 1000), codec="libx264", fmt=None,
           x264_params="mbtree=0", preset="veryfast", gop=None) -> str:
    """Frames scene_frame(0..n-1) at the given presentation timestamps (variable rates allowed)."""
    path = str(path)
    with av.open(path, "w", format=fmt) as container:
        stream = container.add_stream(codec, rate=8)
        stream.width, stream.height, stream.pix_fmt = *SIZE, "yuv420p"
        stream.time_base = stream.codec_context.time_base = time_base
        stream.codec_context.thread_count = 1
        if gop is not None:
            stream.codec_context.gop_size = gop
        if codec == "libx264":
            stream.options = {"preset": preset, "x264-params": x264_params}
        for i, p in enumerate(pts):
            frame = av.VideoFrame.from_ndarray(scene_frame(i, frame_count=len(pts), size=SIZE), format="rgb24")
            frame.pts, frame.time_base = p, time_base
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return path


def _vfr_pts() -> list[int]:
    # Irregular gaps from 20 ms to 400 ms (milliseconds), as phone recordings have.
    gaps = np.random.default_rng(1).integers(20, 400, 60)
    return [0] + np.cumsum(gaps).tolist()


BUILDERS = {
    # libx264 veryfast: B-frames (decode order differs from presentation order).
    "x264-gop12": lambda d: write_video(d / "gop12.mp4", seconds=10, gop=12, scenes=2),
    "x264-gop1": lambda d: write_video(d / "gop1.mp4", seconds=4, gop=1),
    "x264-gop250": lambda d: write_video(d / "gop250.mp4", seconds=70, gop=250),
    "mpeg4-gop12": lambda d: write_video(d / "mpeg4.mp4", seconds=10, gop=12, codec="mpeg4"),
    # Open GOPs: B-frames after a keyframe in decode order that are shown before it.
    "x264-open-gop": lambda d: encode(d / "open.mp4", [i * 125 for i in range(60)], preset="medium",
                                      x264_params="open-gop=1:keyint=12:min-keyint=12:scenecut=0:"
                                                  "b-adapt=0:bframes=3:b-pyramid=none"),
    "vfr": lambda d: encode(d / "vfr.mp4", _vfr_pts(), gop=12),
    "single-frame": lambda d: write_video(d / "single.mp4", seconds=0.125),
    "three-frames": lambda d: write_video(d / "three.mp4", seconds=0.375),
    "vp9-webm": lambda d: encode(d / "v.webm", [i * 125 for i in range(50)], codec="libvpx-vp9",
                                 fmt="webm", gop=12),
    # MPEG-TS seeks imprecisely: decode_frames may fall back to a sequential decode.
    "mpegts": lambda d: encode(d / "v.ts", [i * 125 for i in range(50)], fmt="mpegts",
                               x264_params="mbtree=0:keyint=12:scenecut=0"),
}
MAY_FALL_BACK = {"mpegts"}


@pytest.fixture(scope="module")
def videos(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("frames")
    return {name: build(folder) for name, build in BUILDERS.items()}


def reference(path) -> tuple[list[float], list[np.ndarray]]:
    """Every frame of a plain PyAV decode: (seconds from the stream start, RGB array)."""
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        origin = stream.start_time or 0
        pairs = [(float((f.pts - origin) * stream.time_base), f.to_ndarray(format="rgb24"))
                 for f in container.decode(stream)]
    return [t for t, _ in pairs], [a for _, a in pairs]


def shown_index(frame_times: list[float], t: float) -> int:
    shown = [i for i, ft in enumerate(frame_times) if ft <= t + TOLERANCE]
    return shown[-1] if shown else 0


def selections(info: VideoInfo) -> dict[str, list[float]]:
    """Named lists of times: uniform K, fps modes, ranges, on and between frames, odd times."""
    d, times = info.duration, list(info.frame_times)
    out = {f"uniform-{k}": uniform_frame_times(info, k) for k in (1, 2, 8, 32)}
    out["fps-1"] = fps_frame_times(info, 1.0)
    out["fps-30-above-native"] = fps_frame_times(info, 30.0)
    out["fps-2.5-capped"] = fps_frame_times(info, 2.5, max_frames=5, include_last=True)
    try:
        out["range-uniform-8"] = uniform_frame_times(info, 8, 0.3 * d, 0.6 * d)
        out["range-fps-2"] = fps_frame_times(info, 2.0, 0.2 * d, 0.7 * d)
    except ValueError:
        assert len(times) < 3  # only videos too short to have a frame in those ranges
    out["on-every-frame"] = times
    gaps = [b - a for a, b in itertools.pairwise(times)] or [0.1]
    out["between-frames"] = [t + 0.4 * g for t, g in zip(times, gaps)]
    rng = random.Random(7)
    odd = [-1.0, 0.0, d, d + 3.0] + [rng.uniform(0, d) for _ in range(12)]
    out["shuffled-with-duplicates"] = rng.sample(odd + odd[:5], len(odd) + 5)
    return out


# --- decode_frames == sequential reference == the frame shown ------------------

@pytest.mark.parametrize("name", list(BUILDERS))
def test_seeking_decode_equals_sequential_reference(videos, name, monkeypatch):
    path = videos[name]
    info = probe(path, exact=True)
    ref_times, ref_frames = reference(path)
    assert info.frame_times == pytest.approx(ref_times, abs=1e-6)
    assert [frame_index_from_image(f) for f in ref_frames] == list(range(len(ref_frames)))

    sequential = video.decode_sequential
    if name not in MAY_FALL_BACK:
        # decode_frames must really seek here, not quietly decode everything.
        def no_fallback(*args):
            raise AssertionError(f"{name}: decode_frames fell back to a sequential decode")
        monkeypatch.setattr(decoding, "decode_sequential", no_fallback)

    for label, times in selections(info).items():
        assert times, label
        expected = [shown_index(ref_times, t) for t in times]
        want = sequential(path, times)
        got = decode_frames(path, times)
        assert len(got) == len(want) == len(times), label
        for t, e, g, w in zip(times, expected, got, want):
            assert g.dtype == np.uint8 and g.shape == (SIZE[1], SIZE[0], 3), label
            assert np.array_equal(g, w), f"{name} {label}: t={t} differs from the sequential decode"
            assert np.array_equal(w, ref_frames[e]), f"{name} {label}: t={t} is not frame {e}"
            assert frame_index_from_image(g) == e, f"{name} {label}: t={t}"


def test_test_videos_have_what_they_claim(videos):
    def packets(name):
        with av.open(videos[name]) as c:
            return [(p.pts, p.is_keyframe) for p in c.demux(c.streams.video[0]) if p.size]

    def reordered(pkts):  # some packet is shown before one decoded earlier: B-frames
        return any(b[0] < a[0] for a, b in itertools.pairwise(pkts))

    assert reordered(packets("x264-gop12")) and reordered(packets("x264-gop250"))
    assert sum(k for _, k in packets("x264-gop250")) == 3  # keyframes at frames 0, 250, 500
    assert all(k for _, k in packets("x264-gop1"))
    gop = packets("x264-open-gop")
    keys = [i for i, (_, k) in enumerate(gop) if k]
    assert any(gop[i + 1][0] < gop[i][0] for i in keys[1:])  # leading frames after a keyframe
    gaps = np.diff(probe(videos["vfr"], exact=True).frame_times)
    assert gaps.min() < 0.05 and gaps.max() > 0.3
    assert probe(videos["single-frame"]).frame_count == 1


def test_uniform_k_larger_than_the_frame_count_gives_every_frame(videos):
    info = probe(videos["three-frames"], exact=True)
    times = uniform_frame_times(info, 8)
    assert len(times) == 3
    assert [frame_index_from_image(f) for f in decode_frames(videos["three-frames"], times)] == [0, 1, 2]
    single = decode_frames(videos["single-frame"], uniform_frame_times(probe(videos["single-frame"]), 32))
    assert len(single) == 1 and frame_index_from_image(single[0]) == 0


def test_last_frame_is_sampled(videos):
    # Video-MMMU's quiz image sits in the last frame.
    path = videos["x264-gop250"]
    info = probe(path)
    for k in (2, 8, 32):
        assert frame_index_from_image(decode_frames(path, uniform_frame_times(info, k))[-1]) == 559


# --- how much gets decoded ---------------------------------------------------

@pytest.fixture
def fed_packets(monkeypatch):
    """Records the pts of every packet decode_frames feeds to the decoder."""
    fed = []
    feed = decoding._feed

    def recording(stream, packet, *args):
        if packet.size:
            fed.append(packet.pts)
        return feed(stream, packet, *args)

    monkeypatch.setattr(decoding, "_feed", recording)
    return fed


def test_seeking_decodes_only_the_gops_needed(videos, fed_packets):
    path = videos["x264-gop250"]
    frames = decode_frames(path, [10 / 8, 504 / 8])  # frames 10 and 504, GOPs 0 and 2
    assert [frame_index_from_image(f) for f in frames] == [10, 504]
    assert len(fed_packets) == len(set(fed_packets))
    assert len(fed_packets) < 60  # of 560: the middle GOP is skipped, each GOP left early
    with av.open(path) as c:
        tb = c.streams.video[0].time_base
    assert not [p for p in fed_packets if 30 / 8 < p * tb < 500 / 8]


@pytest.mark.parametrize("name", ["x264-gop12", "x264-gop250", "x264-gop1", "x264-open-gop", "vp9-webm"])
def test_no_packet_is_decoded_twice(videos, fed_packets, name):
    info = probe(videos[name], exact=True)
    for times in (list(info.frame_times), fps_frame_times(info, 1.0), uniform_frame_times(info, 32)):
        fed_packets.clear()
        decode_frames(videos[name], times)
        assert len(fed_packets) == len(set(fed_packets)), name


# --- errors ------------------------------------------------------------------

def test_decode_errors_name_the_file(tmp_path, videos):
    with pytest.raises(VideoError, match="nope.mp4"):
        decode_frames(tmp_path / "nope.mp4", [0.0])
    garbage = tmp_path / "garbage.mp4"
    garbage.write_bytes(np.random.default_rng(0).integers(0, 256, 4096, dtype=np.uint8).tobytes())
    for decode in (decode_frames, decode_sequential):
        with pytest.raises(VideoError, match="garbage.mp4"):
            decode(garbage, [0.0])
    with pytest.raises(ValueError, match="finite"):
        decode_frames(videos["x264-gop12"], [float("nan")])
    assert decode_frames(videos["x264-gop12"], []) == []


# --- fps_frame_times ---------------------------------------------------------

def _info(frame_count=80, fps=8.0, frame_times=None, duration=None):
    return VideoInfo("x.mp4", duration=duration or frame_count / fps, fps=fps, frame_count=frame_count,
                     width=96, height=64, frame_times=frame_times)


def test_fps_frame_times_whole_video_and_ranges():
    info = _info()  # 10 s at 8 fps
    assert fps_frame_times(info, 1) == [float(s) for s in range(10)]
    assert fps_frame_times(info, 1, include_last=True) == [float(s) for s in range(10)] + [9.875]
    assert fps_frame_times(info, 2, 2.0, 4.0) == [2.0, 2.5, 3.0, 3.5, 4.0]
    # A range starting between frames: points map to frames inside the range only.
    assert fps_frame_times(info, 1, 2.01, 4.0) == [2.125, 3.0]  # points 2.01, 3.01
    # Above the native rate every frame appears once.
    assert fps_frame_times(info, 30, 1.0, 1.5) == [1.0, 1.125, 1.25, 1.375, 1.5]


def test_fps_frame_times_cap_keeps_first_and_last():
    info = _info(frame_count=800)  # 100 s
    times = fps_frame_times(info, 1, max_frames=8)
    assert len(times) == 8 and times[0] == 0.0 and times[-1] == 99.0
    capped = fps_frame_times(info, 1, max_frames=8, include_last=True)
    assert capped[-1] == 99.875


def test_fps_frame_times_variable_rate():
    info = _info(frame_count=5, fps=2.5, frame_times=(0.0, 0.1, 0.5, 0.55, 2.0), duration=2.1)
    # Points 0, 1, 2 show frames 0.0, 0.55 (last before 1.0) and 2.0.
    assert fps_frame_times(info, 1) == [0.0, 0.55, 2.0]


def test_fps_frame_times_rejects_bad_arguments():
    with pytest.raises(ValueError):
        fps_frame_times(_info(), 0)
    with pytest.raises(ValueError):
        fps_frame_times(_info(), 1, max_frames=0)
    with pytest.raises(ValueError, match="no frame"):
        fps_frame_times(_info(), 1, 1.01, 1.1)


# --- resizing ----------------------------------------------------------------

def test_resize_policy_sizes_and_description():
    assert ResizePolicy().size_for(640, 360) == (640, 360)
    assert ResizePolicy(max_side=448).size_for(640, 360) == (448, 252)
    assert ResizePolicy(max_side=448).size_for(320, 180) == (320, 180)  # never enlarged
    assert ResizePolicy(square=224).size_for(640, 360) == (224, 224)
    assert ResizePolicy().describe() == "native size"
    assert "448" in ResizePolicy(max_side=448).describe()
    assert "224x224" in ResizePolicy(square=224).describe()
    with pytest.raises(ValueError):
        ResizePolicy(max_side=448, square=224)
    with pytest.raises(ValueError):
        ResizePolicy(square=0)


def test_resize_frames_keeps_content(videos):
    frames = decode_frames(videos["x264-gop12"], [0.0, 5.0])
    assert resize_frames(frames, None) == frames
    for policy, shape in [(ResizePolicy(square=128), (128, 128, 3)), (ResizePolicy(max_side=64), (43, 64, 3))]:
        resized = resize_frames(frames, policy)
        assert [f.shape for f in resized] == [shape, shape]
        assert all(f.dtype == np.uint8 for f in resized)
        assert [frame_index_from_image(f) for f in resized] == [0, 40]


# --- FrameStore on the demo suite ----------------------------------------------

def _by_video(calls: list[Call]) -> list[Call]:
    """Calls grouped by their first video, as a runner orders them."""
    order = {}
    for call in calls:
        order.setdefault(call.frames[0].video, len(order))
    return sorted(calls, key=lambda c: order[c.frames[0].video])


def _calls_per_video(calls: list[Call]) -> Counter:
    return Counter(v for call in calls for v in {plan.video for plan in call.frames})


def test_frame_store_decodes_each_video_once(demo_suite):
    suite, key = demo_suite
    calls = [c for c in suite.calls + key.hidden_calls if c.frames]
    store = FrameStore(suite.path, suite.videos)
    store.prefetch(calls)
    for call in _by_video(calls):
        frames = store.call_frames(call)
        times = call_times(call)
        assert len(frames) == len(times)
        expected = [f for plan in call.frames
                    for f in decode_sequential(suite.path / suite.videos[plan.video].file, plan.times)]
        assert all(np.array_equal(a, b) for a, b in zip(frames, expected, strict=True)), call.id
    used = _calls_per_video(calls)
    assert set(store.decodes) == set(used)
    assert all(store.decodes[v] == 1 for v in used)
    assert store.uses == used
    assert sum(used.values()) > len(used)  # videos really are shared by several calls
    assert store.held_videos() == set()  # everything released at the end


def test_frame_store_releases_a_video_after_its_last_call(demo_suite):
    suite, _ = demo_suite
    per_video: dict[str, list[Call]] = {}
    for call in suite.calls:
        per_video.setdefault(call.frames[0].video, []).append(call)
    video_id, calls = next((v, cs) for v, cs in per_video.items()
                           if len(cs) >= 3 and all(p.video == v for c in cs for p in c.frames))
    other = next(c for c in suite.calls if all(p.video != video_id for p in c.frames))
    store = FrameStore(suite.path, suite.videos)
    store.prefetch(calls + [other])
    for call in calls[:-1]:
        store.call_frames(call)
        assert store.held_videos() == {video_id}
    store.call_frames(calls[-1])
    assert store.held_videos() == set()
    assert store.decodes[video_id] == 1 and store.uses[video_id] == len(calls)


def test_frame_store_per_plan_requests_in_any_order(demo_suite):
    # Runners may ask plan by plan (frames(plan)) and in any order: still one decode per
    # video, and a causal call showing two segments of one video counts as one use.
    suite, key = demo_suite
    calls = [c for c in suite.calls + key.hidden_calls if c.frames]
    assert any(len(c.frames) == 2 and c.frames[0].video == c.frames[1].video for c in calls)
    store = FrameStore(suite.path, suite.videos)
    store.prefetch(calls)
    for call in random.Random(3).sample(calls, len(calls)):
        for plan in call.frames:
            assert len(store.frames(plan)) == len(plan.times)
    used = _calls_per_video(calls)
    assert all(store.decodes[v] == 1 for v in used)
    assert store.uses == used
    assert store.held_videos() == set()


def test_frame_store_unregistered_plan_is_decoded_and_counted(demo_suite):
    suite, _ = demo_suite
    call = suite.calls[0]
    store = FrameStore(suite.path, suite.videos)
    frames = store.frames(call.frames[0])  # no prefetch
    assert len(frames) == len(call.frames[0].times)
    assert store.decodes[call.frames[0].video] == 1
    assert store.held_videos() == set()  # nothing registered needs it: not kept
    store.frames(call.frames[0])
    assert store.decodes[call.frames[0].video] == 2  # counted honestly


def test_frame_store_resize_policy_applied_and_recorded(demo_suite):
    suite, _ = demo_suite
    call = suite.calls[0]
    native = FrameStore(suite.path, suite.videos)
    assert native.settings()["resize"] == "native size"
    assert "PyAV" in native.settings()["decoder"]
    assert native.call_frames(call)[0].shape == (64, 96, 3)
    square = FrameStore(suite.path, suite.videos, resize=ResizePolicy(square=224))
    square.prefetch([call])
    frames = square.call_frames(call)
    assert {f.shape for f in frames} == {(224, 224, 3)}
    assert "224x224" in square.settings()["resize"]
    assert [frame_index_from_image(f) for f in frames] == [round(t * 8) for t in call_times(call)]


def test_frame_store_errors_name_the_video(demo_suite, tmp_path):
    suite, _ = demo_suite
    store = FrameStore(suite.path, suite.videos)
    ghost = Call(id="x/1", benchmark="expvid", item="1", kind="mcq", prompt="?", answer_format="choice",
                 frames=[FramePlan(video="no-such-video", times=[0.0])])
    with pytest.raises(VideoError, match="no-such-video"):
        store.prefetch([ghost])
    fileless = FrameStore(tmp_path, {"v": VideoMeta("v", 1.0, 8.0, 8, file=None)})
    with pytest.raises(VideoError, match="'v' has no file"):
        fileless.frames(FramePlan(video="v", times=[0.0]))
    missing = FrameStore(tmp_path, {"v": VideoMeta("v", 1.0, 8.0, 8, file="videos/v.mp4")})
    with pytest.raises(VideoError, match="v.mp4"):
        missing.frames(FramePlan(video="v", times=[0.0]))


def test_frame_store_release_frees_frames_of_calls_never_made(demo_suite):
    # A broken CausalStep chain: the calls after the break are never made.
    suite, _ = demo_suite
    chain = [c for c in suite.calls if c.benchmark == "causalstep"]
    video_id = chain[0].frames[0].video
    calls = [c for c in chain if all(p.video == video_id for p in c.frames)]
    assert len(calls) >= 3
    store = FrameStore(suite.path, suite.videos)
    store.prefetch(calls)
    store.call_frames(calls[0])
    assert store.held_videos() == {video_id}
    for call in calls[1:]:
        store.release(call)
    assert store.held_videos() == set()
    assert store.decodes[video_id] == 1 and store.uses[video_id] == 1
    # Releasing everything before any frame is asked for means no decode at all.
    unused = FrameStore(suite.path, suite.videos)
    unused.prefetch(calls)
    for call in calls:
        unused.release(call)
    assert unused.decodes == Counter() and unused.held_videos() == set()
