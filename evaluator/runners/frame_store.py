"""The per-job frame store: each video of a job decoded once, its frames shared by every call.

A runner registers the whole job's calls first, then asks for frames call by call
(grouped by video, so few videos are held at once):

    store = FrameStore(suite.path, suite.videos, resize=ResizePolicy(max_side=448))
    store.prefetch(suite.calls + hidden_calls)
    for call in calls:
        frames = store.call_frames(call)    # concat of its plans' frames, in order
        times = call_times(call)            # the matching timestamps (s)

The first request for a video decodes every frame time registered for it in one
`decode_frames` pass (seeking to the keyframes before them); the frames stay in
memory until every registered plan of that video has been served (or released:
`release(call)` for a call that will not be made), then they are dropped (a
paper-size ExpVid level-3 video has 128 frames). `decodes` and `uses`
count per video how often it was decoded and how many calls used it: a job should
show exactly one decode per video.

Calls may be served from several threads at once (the runner's decode workers get the
next batch ready while the model answers the current one): a video is decoded outside
the store's lock, by the first thread that needs it, while the others wait for it.
"""

from __future__ import annotations

import threading
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from evaluator.records import Call, FramePlan, VideoMeta
from evaluator.video import ResizePolicy, VideoError, decode_frames, resize_frames

_ANONYMOUS = None  # the consumer of a plan that was never registered


def _plan_key(plan: FramePlan) -> tuple[str, tuple[float, ...]]:
    # Plans that show the same frames of the same video are interchangeable.
    return plan.video, tuple(plan.times)


def call_times(call: Call) -> list[float]:
    """A call's frame times (s) in the order its frames are shown: its plans' times, concatenated."""
    return [t for plan in call.frames for t in plan.times]


class FrameStore:
    """Frames of one job's calls, each video decoded once (see the module docstring)."""

    def __init__(self, suite_path: Path, videos: dict[str, VideoMeta], resize: ResizePolicy | None = None):
        self.suite_path = Path(suite_path)
        self.videos = videos
        self.resize = resize
        self.decodes: Counter[str] = Counter()  # video id -> decode passes
        self.uses: Counter[str] = Counter()  # video id -> calls that used its frames
        self._lock = threading.RLock()
        self._times: dict[str, set[float]] = defaultdict(set)  # registered frame times per video
        self._pending: Counter[str] = Counter()  # registered plans not yet served, per video
        self._slots: dict[tuple, list[str]] = defaultdict(list)  # plan key -> ids of calls still to serve
        self._frames: dict[str, dict[float, np.ndarray]] = {}  # decoded frames held, per video
        self._users: set[tuple[str, str]] = set()  # (video, call id) pairs already counted in uses
        self._decoding: dict[str, threading.Event] = {}  # videos being decoded now, set when done

    # -- registering -------------------------------------------------------

    def prefetch(self, calls: Sequence[Call]) -> None:
        """Register every frame time of every call (nothing is decoded yet).

        Unknown videos fail here, before any model time is spent.
        """
        with self._lock:
            for call in calls:
                for plan in call.frames:
                    self._path(plan.video)  # fail early on a video the suite lacks
                    self._times[plan.video].update(plan.times)
                    self._pending[plan.video] += 1
                    self._slots[_plan_key(plan)].append(call.id)

    # -- serving -----------------------------------------------------------

    def frames(self, plan: FramePlan) -> list[np.ndarray]:
        """The frames of one plan (RGB uint8 arrays, resized by the store's policy).

        Arrays are shared between calls showing the same frames: do not modify them in place.
        """
        return self._serve(plan, call_id=_ANONYMOUS)

    def call_frames(self, call: Call) -> list[np.ndarray]:
        """A call's frames: the frames of its plans, concatenated in order."""
        return [frame for plan in call.frames for frame in self._serve(plan, call_id=call.id)]

    def warm(self, video: str) -> None:
        """Decode a video's registered frames now and hold them, unless held already or
        no registered call needs them any more (a runner warms the next pass's first
        videos while the backend answers this pass)."""
        self._held(video, (), needed_only=True)

    def release(self, call: Call) -> None:
        """A registered call that will not be made (a broken CausalStep chain): its frames
        are no longer needed, so a video nobody else needs is freed (or never decoded)."""
        with self._lock:
            for plan in call.frames:
                slots = self._slots.get(_plan_key(plan))
                if not slots or call.id not in slots:
                    continue  # not registered, or already served
                slots.remove(call.id)
                self._pending[plan.video] -= 1
                self._free_if_unneeded(plan.video)

    def held_videos(self) -> set[str]:
        """Videos whose frames are in memory now."""
        with self._lock:
            return set(self._frames)

    def settings(self) -> dict:
        """How frames were produced, for results."""
        import av

        return {
            "decoder": f"PyAV {av.__version__} (libavcodec {'.'.join(map(str, av.library_versions['libavcodec']))}): "
                       "seek to the keyframe before each frame, decode forward; each video decoded once per job",
            "frame_rule": "the frame shown at each planned time: the last frame at or before it",
            "resize": (self.resize or ResizePolicy()).describe(),
        }

    # -- internals ---------------------------------------------------------

    def _serve(self, plan: FramePlan, call_id: str | None) -> list[np.ndarray]:
        held = self._held(plan.video, plan.times)
        with self._lock:
            registered, call_id = self._take_slot(plan, call_id)
            out = [held[t] for t in plan.times]
            self._count_use(plan.video, call_id)
            if registered:
                self._pending[plan.video] -= 1
            self._free_if_unneeded(plan.video)
            return out

    def _held(self, video: str, times: Sequence[float], needed_only: bool = False) -> dict[float, np.ndarray] | None:
        """The video's decoded frames, holding `times`: decoded here unless held already or
        being decoded by another thread (then waited for), so each video is decoded once.
        `needed_only`: None instead of a decode that no registered call needs."""
        while True:
            with self._lock:
                held = self._frames.get(video)
                if held is not None and all(t in held for t in times):
                    return held
                if needed_only and self._pending[video] <= 0:
                    return None
                busy = self._decoding.get(video)
                if busy is None:
                    busy = self._decoding[video] = threading.Event()
                    wanted = sorted(self._times.get(video, set()) | set(times))
                    break
            busy.wait()  # another thread decodes it; look again (it may have failed)
        try:
            return self._decode(video, wanted)
        finally:
            with self._lock:
                del self._decoding[video]
            busy.set()

    def _free_if_unneeded(self, video: str) -> None:
        if self._pending[video] <= 0:
            # No registered plan still needs this video: free its frames.
            self._frames.pop(video, None)
            self._times.pop(video, None)

    def _take_slot(self, plan: FramePlan, call_id: str | None) -> tuple[bool, str | None]:
        """Mark one registered plan with this key served; (was one registered, the call it belonged to)."""
        slots = self._slots.get(_plan_key(plan))
        if not slots:
            return False, call_id
        if call_id is not None and call_id in slots:
            slots.remove(call_id)
            return True, call_id
        # Served through frames(plan): attribute it to a call registered with these frames.
        return True, slots.pop(0)

    def _count_use(self, video: str, call_id: str | None) -> None:
        if call_id is None:
            self.uses[video] += 1
        elif (video, call_id) not in self._users:
            self._users.add((video, call_id))
            self.uses[video] += 1

    def _decode(self, video: str, times: list[float]) -> dict[float, np.ndarray]:
        """Decode these times of `video` in one pass (the lock is not held) and hold them."""
        frames = resize_frames(decode_frames(self._path(video), times), self.resize)
        held = dict(zip(times, frames, strict=True))
        with self._lock:
            self.decodes[video] += 1
            if self._pending[video] > 0:  # not when every call needing it was released meanwhile
                self._frames[video] = held
        return held

    def _path(self, video: str) -> Path:
        meta = self.videos.get(video)
        if meta is None:
            raise VideoError(f"video {video!r} is not in the suite at {self.suite_path}")
        if meta.file is None:
            raise VideoError(f"video {video!r} has no file in the suite at {self.suite_path} "
                             "(a file-less synthetic suite cannot be run by a model)")
        return self.suite_path / meta.file


__all__ = ["FrameStore", "call_times"]
