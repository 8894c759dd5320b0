"""The worker's command line: `python -m evaluator.worker` (the name the maintainers and
the Hugging Face Jobs use; evaluator/worker.py runs this) or `python -m worker`."""

from __future__ import annotations

import argparse
import logging
import os
import sys

from submissions.errors import LeaseLost
from submissions.requests import Status
from worker.loop import Worker

log = logging.getLogger("evaluator.worker")


DESCRIPTION = """\
Run the evaluation worker: claim submissions from the queue, evaluate them and publish the
results; it polls the queue until stopped (Ctrl-C lets the current request finish first).

Stores, lease, poll interval and time limit come from the LEADERBOARD_* environment
variables, the same as the site's."""
EPILOG = """\
Examples:
  python -m evaluator.worker                      poll the queue until stopped
  python -m evaluator.worker --once               evaluate what is queued, then exit
  python -m evaluator.worker --dispatch hf-jobs   run each request as a Hugging Face Job"""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m evaluator.worker", description=DESCRIPTION, epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--once", action="store_true",
                   help="work until no request is pending or running (a request another worker runs is waited "
                        "for, or taken over once its lease expires), then exit; default: poll until stopped")
    p.add_argument("--worker-id", help="name shown on the requests it runs; default: <host>-<pid>-<random>")
    p.add_argument("--request", metavar="ID",
                   help="run this one request, already claimed (RUNNING) for --worker-id, then exit with status 0 "
                        "if it FINISHED: what a Hugging Face Job started by a dispatcher runs; default: take "
                        "requests from the queue")
    p.add_argument("--dispatch", choices=["hf-jobs"],
                   help="run no evaluation here: claim requests and run each one as a Hugging Face Job (settings: "
                        "LEADERBOARD_JOBS_*); with --once, until nothing is pending and its jobs have ended; "
                        "default: evaluate here")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    from space_config.settings import get_settings
    from submissions.stores import open_stores

    if args.dispatch:
        from worker.dispatch import run_dispatcher

        return run_dispatcher(args.dispatch, args.once, args.worker_id)
    settings = get_settings()
    worker = Worker(open_stores(settings), settings, args.worker_id)
    if args.request:
        if not args.worker_id:
            raise SystemExit("--request needs --worker-id: the worker the request was claimed for")
        try:
            ended = worker.run_claimed(args.request)
        except LeaseLost as e:  # cancelled or taken over before this job started: nothing to do
            log.info("nothing to run: %s", e)
            return 0
        log.info("request %s ended %s", ended.id, ended.status.value)
        return 0 if ended.status == Status.FINISHED else 1
    if args.once:
        count = worker.drain(wait_for_others=True)
        log.info("worker %s: queue empty after %d request(s)", worker.worker_id, count)
    else:
        worker.serve()
    return 0


def exit_now(code: int) -> None:
    """Leave without the interpreter's teardown. pyarrow (26 here) sometimes aborts in its
    C++ teardown at exit ("terminate called without an active exception": SIGABRT after
    the work is done), which would turn a finished --once run into a failure. Everything
    is written and flushed first."""
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
