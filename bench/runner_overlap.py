"""How long the GPU waits for frames: the model runner over a suite of the full-size shape.

The full-size suite (bench/score_speed.py's synthetic suite at scale 1) has 20,820 calls over
12,600 videos showing 270,972 distinct frames. This bench builds the same suite at --scale
(same benchmarks, same calls per video and frames per call) WITH real small video files,
and drives the real ModelRunner over it with a backend whose `generate` sleeps a fixed time
per call. Time is scaled down, proportions kept:

  1. a sequential run with a backend that answers at once measures this machine's decode
     time per distinct frame here (tiny frames decode far faster than real ones);
  2. the sleep per call is --generate-s (a real per-call generate time) times
     (decode per frame here / decode per frame of real videos), so generating and
     decoding keep the real ratio; real decode per frame: 10.7 and 28.6 ms, measured
     (the current decoder, real videos, this 2-core machine), both ends shown;
  3. for each, the runner in the old order (decode_ahead=0: each batch decoded, then
     answered) and overlapped (decode_ahead=1, decode workers = cores), --repeats times,
     interleaved; printed: medians of end-to-end time and of the idle share
     (1 - time inside generate / end-to-end), and the goal: idle under 10%.

--generate-s default 0.3 s a call: a 7-8B video model under vLLM on one H100, about 13
frames and a few hundred generated tokens per call (transformers with batches of 8 takes
longer, which makes waiting for frames matter less).

Usage: python bench/runner_overlap.py [--scale 0.02] [--repeats 3] [--generate-s 0.3] [--batch-calls 8] [--ahead 1]
Exit status 1 if the overlapped idle share misses the goal at either end.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evaluator.benchmarks import BENCHMARKS  # noqa: E402
from evaluator.benchmarks.common import Secret  # noqa: E402
from evaluator.demo import PAPER_SIZES  # noqa: E402
from evaluator.runners.model import ModelRunner, RunnerSettings, available_cores  # noqa: E402
from evaluator.suite import build_suite, load_answers  # noqa: E402
from submissions.requests import Request  # noqa: E402

GOAL = 0.10
REAL_DECODE_S_PER_FRAME = (0.0107, 0.0286)  # real videos, the current decoder, a 2-core machine


class SleepingBackend:
    """Answers every call with "A" after `per_call` seconds a call; keeps the time spent inside generate."""

    name = "sleeping"
    settings = {"model": "sleeping-bench-model"}

    def __init__(self, per_call: float):
        self.per_call = per_call
        self.busy = 0.0

    def generate(self, requests):
        start = time.perf_counter()
        time.sleep(self.per_call * len(requests))
        self.busy += time.perf_counter() - start
        return ["A"] * len(requests)


def build(folder: Path, scale: float):
    secret = Secret(b"bench/runner_overlap.py: a fixed secret")
    datasets = [module.demo(secret, size=max(1, round(PAPER_SIZES[name] * scale)))
                for name, module in BENCHMARKS.items()]
    suite = build_suite(folder, "overlap", f"x{scale:g}", datasets, None, secret, write_videos=True)
    return suite, load_answers(folder / "answers", suite)


def run_once(suite, key, per_call: float, ahead: int, batch_calls: int) -> tuple[float, float]:
    """(end-to-end seconds, idle share) of one run."""
    backend = SleepingBackend(per_call)
    runner = ModelRunner(backend, RunnerSettings(batch_calls=batch_calls, decode_ahead=ahead))
    request = Request(kind="model", submitter="bench", suite_id=suite.id, model="sleeping-bench-model")
    start = time.perf_counter()
    runner.run(request, suite, key.hidden_calls)
    elapsed = time.perf_counter() - start
    decodes = runner.settings["decodes"]
    assert decodes["max_decodes_per_video"] == 1 and decodes["videos"] == len(suite.videos), decodes
    assert not [t for t in threading.enumerate() if t.name.startswith("frame-decode")]
    return elapsed, 1 - backend.busy / elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=0.02)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--generate-s", type=float, default=0.3, help="real generate time per call (s)")
    parser.add_argument("--ahead", type=int, default=RunnerSettings().decode_ahead,
                        help="batches decoded ahead in the overlapped runs (RunnerSettings.decode_ahead)")
    parser.add_argument("--batch-calls", type=int, default=8,
                        help="calls per generate; scaled down with the suite so that a pass has as many "
                             "batches as at full size with 64")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        suite, key = build(Path(tmp), args.scale)
        built = time.perf_counter() - start
        calls = [*suite.calls, *key.hidden_calls]
        frames = len({(p.video, t) for c in calls for p in c.frames for t in p.times})
        print(f"suite at scale {args.scale:g}: {len(calls)} calls, {len(suite.videos)} videos, {frames} distinct "
              f"frames ({frames / len(calls):.1f} per call; full size: 13.0), videos written in {built:.1f} s; "
              f"{args.batch_calls} calls a batch; {available_cores()} cores for the decode workers")

        decode = statistics.median(run_once(suite, key, 0.0, 0, args.batch_calls)[0] for _ in range(args.repeats))
        per_frame = decode / frames
        print(f"decoding alone (backend answers at once, old order): {decode:.2f} s, {per_frame * 1000:.3f} ms "
              f"a frame here; real generate time {args.generate_s:g} s a call")

        ok = True
        for real in REAL_DECODE_S_PER_FRAME:
            per_call = args.generate_s * per_frame / real
            times: dict[int, list[tuple[float, float]]] = {0: [], args.ahead: []}
            for _ in range(args.repeats):
                for ahead in (0, args.ahead):  # interleaved: both see the same machine load
                    times[ahead].append(run_once(suite, key, per_call, ahead, args.batch_calls))
            (seq_t, seq_idle), (ovl_t, ovl_idle) = (
                (statistics.median(t for t, _ in times[a]), statistics.median(i for _, i in times[a]))
                for a in (0, args.ahead))
            ok &= ovl_idle < GOAL
            print(f"\nreal decode {real * 1000:.1f} ms a frame -> generate sleeps {per_call * 1000:.2f} ms a call "
                  f"here (generate/decode = {per_call * len(calls) / decode:.2f}), median of {args.repeats}:")
            print(f"  old order (decode, then generate)   {seq_t:7.2f} s   idle {seq_idle:6.1%}")
            print(f"  decoding ahead while generating     {ovl_t:7.2f} s   idle {ovl_idle:6.1%}   "
                  f"goal < {GOAL:.0%}   {'OK' if ovl_idle < GOAL else 'MISSED'}")
            print(f"  end to end                          {seq_t / ovl_t:7.2f}x faster")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
