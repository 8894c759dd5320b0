"""Submitting a prediction file on the full-size suite: validate + enqueue, in the site process.

Builds the papers' full-size synthetic suite (about 17k public calls), publishes it to a
local suite store and submits --runs different prediction files with submit_predictions,
each twice in turn (interleaved, so both see the same machine load):
  uncached   the parsed call lists forgotten first, so calls.jsonl is parsed again (the old path)
  cached     the call list parsed once per suite version and reused (what the site does)
Prints the medians, their ratio, and the goal: cached under 0.15 s.

Usage: python bench/submit_speed.py [--runs 5] [--scale 1.0]
Exit status 1 if the cached median misses the goal.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evaluator.baselines import predictions  # noqa: E402
from evaluator.demo import synthetic_suite  # noqa: E402
from evaluator.predictions import write_predictions  # noqa: E402
from space_config.settings import Quotas, get_settings  # noqa: E402
from submissions.stores import Stores  # noqa: E402
from submissions.submit import Identity, clear_call_lists, read_calls, submit_predictions  # noqa: E402

GOAL_S = 0.15


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--scale", type=float, default=1.0)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        suite = synthetic_suite(tmp / "syn", scale=args.scale)
        stores = Stores.local(tmp / "home")
        stores.suite.upload_folder(suite.id, tmp / "syn" / "suite")
        settings = dataclasses.replace(get_settings(), home=tmp / "home",
                                       quotas=Quotas(per_user=10**6, per_org=10**6, pending_per_user=10**6))
        # A different file each time: the same file twice would be refused as a duplicate.
        files = []
        for seed in range(2 * args.runs):
            path = tmp / f"preds-{seed}.jsonl"
            write_predictions(path, predictions("random", suite.calls, seed=seed))
            files.append(path)

        def submit(path: Path) -> float:
            start = time.perf_counter()
            submit_predictions(stores, settings, Identity("bench"), path, path.stem, suite_id=suite.id)
            return time.perf_counter() - start

        uncached, cached = [], []
        for i in range(args.runs):
            clear_call_lists()
            uncached.append(submit(files[2 * i]))
            read_calls(stores.suite, suite.id)  # what an earlier submission or upload check left parsed
            cached.append(submit(files[2 * i + 1]))
        size = (tmp / "syn" / "suite" / "calls.jsonl").stat().st_size

    slow, fast = statistics.median(uncached), statistics.median(cached)
    ok = fast < GOAL_S
    print(f"suite: {len(suite.calls)} public calls (calls.jsonl {size / 1e6:.1f} MB); prediction files of "
          f"{len(suite.calls)} lines; median of {args.runs}")
    print(f"  validate + enqueue, call list parsed again   {slow * 1000:8.1f} ms   (the old path)")
    print(f"  validate + enqueue, call list reused         {fast * 1000:8.1f} ms   "
          f"goal < {GOAL_S * 1000:.0f} ms   {'OK' if ok else 'TOO SLOW'}")
    print(f"  ratio                                        {slow / fast:8.1f}x faster")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
