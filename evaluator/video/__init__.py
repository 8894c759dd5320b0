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

One module per job: info (probe, VideoInfo), sampling (which frame times),
decode (the frames shown at those times), resize, remux (copy_video_only); their one
error, VideoError, is in evaluator/errors.py. Import the public names from here. To replace
a function for a test, patch it in the module that calls it (decode_frames falls back to
evaluator.video.decode.decode_sequential).
"""
from __future__ import annotations

from evaluator.errors import VideoError
from evaluator.video.decode import decode_frames, decode_sequential
from evaluator.video.info import VideoInfo, probe
from evaluator.video.remux import copy_video_only
from evaluator.video.resize import ResizePolicy, resize_frames
from evaluator.video.sampling import fps_frame_times, uniform_frame_times, uniform_indices

__all__ = ["VideoError", "VideoInfo", "probe", "uniform_indices", "uniform_frame_times",
           "fps_frame_times", "decode_frames", "decode_sequential", "ResizePolicy", "resize_frames",
           "copy_video_only"]
