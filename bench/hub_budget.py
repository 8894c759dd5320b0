"""Hub call and commit budget of the queue and workers, measured in this run over the Hub
stand-in (tests/hub_standin.py: the real HfApi over HTTP, the Hub's 412 and 429).

50 prediction-file requests are submitted through the site's submit path, then 4 worker
processes (`python -m evaluator.worker`, Hub defaults) run them while the stand-in
enforces a commit quota of --commit-quota commits per repository per "hour", an hour being
compressed to --hour-seconds. After the queue is empty the workers stay up, idle, for
--idle-seconds. Printed:

- commits per job in each repo (requests, private, results), and the 429s met;
- API calls per worker-minute, busy (until the last request finished) and idle;
- whether every request finished exactly once;
- the fit for a 10-worker deployment against the Hub's published limits: the commit quota
  bounds jobs per hour by the requests repo's commits per job; 1,000 API calls per 5 minutes
  per token (free account) bounds idle polling (10 workers at the idle rate measured, and at
  the backed-off steady state of one head call per LEADERBOARD_POLL_MAX_SECONDS) and busy work
  (calls per job times the jobs per hour the commit quota allows).

Usage: python bench/hub_budget.py [--requests 50] [--workers 4] [--commit-quota 128]
                                  [--hour-seconds 60] [--idle-seconds 90]
Exit status 1 if a request did not finish exactly once or a figure is over its limit.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
os.environ["HF_HUB_DISABLE_XET"] = "1"  # before huggingface_hub is imported: plain HTTP to the stand-in
os.environ.pop("HF_HUB_OFFLINE", None)

from hub_standin import HubStandin  # noqa: E402

OWNER = "bench"
HUB_COMMITS_PER_HOUR = 128  # per repository; the Hub publishes no single number (huggingface/datasets#6257)
HUB_CALLS_PER_5_MIN = 1000  # per token, free account (the Hub's rate-limit docs)
DEPLOYMENT_WORKERS = 10


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--requests", type=int, default=50)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--commit-quota", type=int, default=HUB_COMMITS_PER_HOUR, help="commits per repo per hour")
    p.add_argument("--hour-seconds", type=float, default=60.0, help="how long the stand-in's hour lasts")
    p.add_argument("--idle-seconds", type=float, default=90.0)
    args = p.parse_args()

    from evaluator.baselines import predictions
    from evaluator.benchmarks.common import Secret
    from evaluator.demo import build_demo_suite
    from evaluator.predictions import write_predictions
    from evaluator.suite import load_suite
    from results.aggregate import load_table
    from space_config.settings import Quotas, get_settings
    from submissions.queue import Queue
    from submissions.requests import Status
    from submissions.submit import Identity, submit_predictions

    tmp = Path(tempfile.mkdtemp(prefix="hub-budget-"))
    build_demo_suite(tmp / "demo", Secret(b"bench: hub budget"))
    standin = HubStandin().start()
    env = {**os.environ, **standin.env(), "LEADERBOARD_STORE": "hub", "LEADERBOARD_HUB_OWNER": OWNER,
           "LEADERBOARD_HUB_PREFIX": standin.prefix, "LEADERBOARD_BOOTSTRAP_SAMPLES": "50",
           "HOME": str(tmp / "home"), "PYTHONPATH": str(ROOT)}
    os.environ.update(env)
    get_settings.cache_clear()
    settings = get_settings()
    settings = dataclasses.replace(settings, quotas=Quotas(per_user=10**6, per_org=10**6, pending_per_user=10**6))
    stores = standin.stores(OWNER, cache_dir=tmp / "site-cache")
    suite = load_suite(tmp / "demo" / "suite")
    suite_id = suite.id
    stores.suite.upload_folder(suite_id, tmp / "demo" / "suite")
    stores.answers.upload_folder(suite_id, tmp / "demo" / "answers")
    ids = set()
    for seed in range(args.requests):
        path = tmp / f"preds-{seed}.jsonl"
        write_predictions(path, predictions("random", suite.calls, seed=seed))
        ids.add(submit_predictions(stores, settings, Identity(f"user{seed % 7}"), path, f"seed {seed}",
                                   suite_id=suite_id).id)

    repos = ("requests", "private", "results")
    history = {name: len(standin.history(f"{OWNER}/{standin.prefix}-{name}")) for name in repos}
    standin.commit_quota(args.commit_quota, window_seconds=args.hour_seconds)
    calls_before = sum(standin.counts.values())
    start = time.monotonic()
    procs = [subprocess.Popen([sys.executable, "-m", "evaluator.worker", "--worker-id", f"w{n}"], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for n in range(args.workers)]
    try:
        while not _all_done(standin, ids):
            time.sleep(0.5)
        busy_seconds = time.monotonic() - start
        busy_calls = sum(standin.counts.values()) - calls_before
        time.sleep(args.idle_seconds)
        idle_calls = sum(standin.counts.values()) - calls_before - busy_calls
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        for proc in procs:
            proc.wait(timeout=120)

    requests = Queue(stores.requests).all()
    once = (len(requests) == len(ids) and all(r.status == Status.FINISHED and r.runs == 1 and
                                              sum(e.status == Status.RUNNING for e in r.history) == 1
                                              for r in requests)
            and sorted(load_table(stores.results)["id"]) == sorted(ids))
    per_job = {name: (len(standin.history(f"{OWNER}/{standin.prefix}-{name}")) - history[name]) / len(ids)
               for name in repos}
    busy_rate = busy_calls / (args.workers * busy_seconds / 60)
    idle_rate = idle_calls / (args.workers * args.idle_seconds / 60)
    calls_per_job = busy_calls / len(ids)
    poll_max = float(env.get("LEADERBOARD_POLL_MAX_SECONDS", "120"))
    jobs_per_hour = HUB_COMMITS_PER_HOUR / per_job["requests"]  # the most-committed repo bounds throughput
    idle_5min = DEPLOYMENT_WORKERS * idle_rate * 5
    steady_5min = DEPLOYMENT_WORKERS * (300 / poll_max)
    busy_5min = calls_per_job * jobs_per_hour / 12 + steady_5min

    print(f"requests: {len(ids)} on {args.workers} workers; commit quota {args.commit_quota} per repo per "
          f"{args.hour_seconds:g} s ('an hour'); run {busy_seconds:.1f} s busy + {args.idle_seconds:g} s idle")
    print("commits per job: " + ", ".join(f"{name} {value:.2f}" for name, value in per_job.items()))
    print(f"429s met: {standin.counts['rate_limited']}")
    print(f"API calls per worker-minute: busy {busy_rate:.1f}, idle {idle_rate:.1f} "
          f"(steady idle after backoff: {60 / poll_max:.2f}); calls per job {calls_per_job:.1f}")
    print(f"every request finished exactly once: {'yes' if once else 'NO'}")
    print(f"10-worker fit, commits: requests repo {per_job['requests']:.2f} commits/job -> at most "
          f"{jobs_per_hour:.0f} jobs/hour under {HUB_COMMITS_PER_HOUR}/hour per repo (plus ~6 renewals/hour per "
          f"long-running job at the Hub lease of 1800 s)")
    print(f"10-worker fit, API calls per 5 min per token (limit {HUB_CALLS_PER_5_MIN}): idle as measured "
          f"{idle_5min:.0f} ({idle_5min / HUB_CALLS_PER_5_MIN:.2f} of the limit), idle steady {steady_5min:.0f}, "
          f"busy at {jobs_per_hour:.0f} jobs/hour {busy_5min:.0f} ({busy_5min / HUB_CALLS_PER_5_MIN:.2f} of the limit)")
    standin.stop()
    fits = once and idle_5min <= HUB_CALLS_PER_5_MIN and busy_5min <= HUB_CALLS_PER_5_MIN
    return 0 if fits else 1


def _all_done(standin: HubStandin, ids: set[str]) -> bool:
    """Whether every request is FINISHED in the requests repo (read directly: no calls counted)."""
    import json

    from submissions.requests import request_path

    files = standin.files(f"{OWNER}/{standin.prefix}-requests")
    return all(json.loads(files.get(request_path(i), b'{"status": ""}'))["status"] in ("FINISHED", "FAILED")
               for i in ids)


if __name__ == "__main__":
    sys.exit(main())
