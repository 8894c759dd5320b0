"""Speed of the submission pipeline, measured in this run.

(a) latency   submit -> FINISHED of a demo-suite prediction file in the embedded default
              (local stores, the site's in-process worker polling every --poll seconds),
              median of --runs different files; and, on the same files, the floor: scoring
              the file directly with evaluator.scoring.score_file. Printed: both, and
              their ratio (what queueing, storing and publishing add). A second series
              wakes the worker right after submitting, as the site does.
(b) table     loading the leaderboard from the one aggregated parquet file vs reading
              and parsing --results result files one by one into the same DataFrame
              (the HF leaderboard template's way). Printed: both, and the ratio
              (target: at least 10x). Over the Hub each file is one more download, so
              the real gap is larger than measured here on local folders.

Usage: python bench/pipeline_speed.py [--runs 10] [--results 1000] [--poll 0.05]
Exit status 1 if the table ratio is under 10x.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pandas as pd  # noqa: E402

from evaluator.baselines import predictions  # noqa: E402
from evaluator.demo import build_demo_suite  # noqa: E402
from evaluator.judges import get_judge  # noqa: E402
from evaluator.predictions import write_predictions  # noqa: E402
from evaluator.reference import reading_options  # noqa: E402
from evaluator.result import Result  # noqa: E402
from evaluator.scoring import score_file  # noqa: E402
from evaluator.suite import load_answers  # noqa: E402
from worker.loop import start_in_process, wake  # noqa: E402
from results.aggregate import build_table, load_table, read_results, rebuild, result_path  # noqa: E402
from space_config.settings import Quotas, get_settings  # noqa: E402
from submissions.queue import Queue  # noqa: E402
from submissions.requests import Status  # noqa: E402
from submissions.stores import LocalStore, Stores  # noqa: E402
from submissions.submit import Identity, submit_predictions  # noqa: E402

TARGET = 10.0


def median_of(times: list[float]) -> float:
    return statistics.median(times)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


# -- (a) submit -> FINISHED ----------------------------------------------------------------------

def latency(tmp: Path, runs: int, poll: float) -> None:
    os.environ["LEADERBOARD_HOME"] = str(tmp / "home")
    os.environ["LEADERBOARD_STORE"] = "local"
    get_settings.cache_clear()
    settings = get_settings()
    settings = dataclasses.replace(
        settings, quotas=Quotas(per_user=10_000, per_org=10_000, pending_per_user=10_000),
        worker=dataclasses.replace(settings.worker, poll_seconds=poll))

    suite = build_demo_suite(tmp / "demo")
    key = load_answers(tmp / "demo" / "answers", suite)
    stores = Stores.local(settings.home)
    stores.suite.upload_folder(suite.id, tmp / "demo" / "suite")
    stores.answers.upload_folder(suite.id, tmp / "demo" / "answers")
    files = []
    for seed in range(2 * runs):  # different files: the same file twice would be refused as a duplicate
        path = tmp / f"preds-{seed}.jsonl"
        write_predictions(path, predictions("random", suite.calls, seed=seed))
        files.append(path)

    queue = Queue(stores.requests)
    scheduler = start_in_process(stores, settings)
    try:
        def one(path: Path, nudge: bool) -> float:
            start = time.perf_counter()
            request = submit_predictions(stores, settings, Identity("bench"), path, path.stem, suite_id=suite.id)
            if nudge:
                wake(scheduler)
            while (status := queue.get(request.id).status) not in (Status.FINISHED, Status.FAILED):
                time.sleep(0.002)
            if status != Status.FINISHED:
                raise SystemExit(f"request {request.id} failed: {queue.get(request.id).failure}")
            return time.perf_counter() - start

        polled = [one(p, nudge=False) for p in files[:runs]]
        woken = [one(p, nudge=True) for p in files[runs:]]
    finally:
        scheduler.shutdown()

    judge = get_judge(settings.judge)
    options = reading_options(settings.readings,
                              grade_truncated_reasoning=settings.grade_truncated_reasoning)
    floor = []
    for path in files[:runs]:
        start = time.perf_counter()
        score_file(suite, key, path, judge, options, settings.max_prediction_bytes,
                   bootstrap_samples=settings.bootstrap_samples)
        floor.append(time.perf_counter() - start)

    print(f"(a) submit -> FINISHED, demo suite ({len(suite.calls)} calls), embedded worker polling every "
          f"{poll:g} s, median of {runs}")
    print(f"    score_file directly (floor)        {ms(median_of(floor))}")
    print(f"    submit -> FINISHED, polled         {ms(median_of(polled))}   "
          f"ratio {median_of(polled) / median_of(floor):6.1f}x the floor")
    print(f"    submit -> FINISHED, woken at once  {ms(median_of(woken))}   "
          f"ratio {median_of(woken) / median_of(floor):6.1f}x the floor")


# -- (b) one parquet vs 1,000 files ---------------------------------------------------------------------

def vary(result: Result, i: int, rng: random.Random) -> Result:
    copy = result.model_copy(deep=True)
    copy.submission = {**copy.submission, "id": f"bench-{i:05d}", "model": f"model {i}", "submitter": f"user{i % 37}"}
    for metrics in copy.scores.values():
        for name, value in metrics.items():
            if isinstance(value, float):
                metrics[name] = round(min(100.0, max(0.0, value + rng.uniform(-20, 20))), 2)
    return copy


def table(tmp: Path, count: int, repeats: int = 5) -> float:
    base = read_results(Stores.local(tmp / "home").results)[0]  # a real demo result from (a)
    store = LocalStore(tmp / "table-bench", "results")
    rng = random.Random(0)
    for i in range(count):
        result = vary(base, i, rng)
        store.write(result_path(result.submission["id"]), result.model_dump_json(indent=2).encode())
    rebuild(store)

    def scan() -> pd.DataFrame:
        return build_table(read_results(store))  # list, then read and parse every file

    aggregated_times, scan_times = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        aggregated = load_table(store)
        aggregated_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        scanned = scan()
        scan_times.append(time.perf_counter() - start)
    pd.testing.assert_frame_equal(aggregated, scanned, check_dtype=False)  # the same table either way

    fast, slow = median_of(aggregated_times), median_of(scan_times)
    ratio = slow / fast
    print(f"(b) leaderboard of {count} results ({aggregated.shape[1]} columns), median of {repeats}")
    print(f"    load_table (one parquet file)       {ms(fast)}")
    print(f"    {count} result files one by one      {ms(slow)}")
    print(f"    ratio {ratio:6.1f}x  (target >= {TARGET:g}x)  {'OK' if ratio >= TARGET else 'TOO SLOW'}")
    return ratio


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--results", type=int, default=1000)
    p.add_argument("--poll", type=float, default=0.05)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        latency(Path(tmp), args.runs, args.poll)
        ratio = table(Path(tmp), args.results)
    return 0 if ratio >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
