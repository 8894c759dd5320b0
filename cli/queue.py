"""`python -m evaluator queue ...`: the maintainers' view of the request queue.

    queue list [--status S] [--json]   every request: status, attempt, progress, age, why it failed
    queue show ID                      one request in full, history included
    queue requeue ID                   FAILED or CANCELLED -> PENDING, attempts reset
    queue rerun ID [--suite SUITE]     FINISHED -> PENDING; the old result stays up until replaced
    queue cancel ID                    PENDING or RUNNING -> CANCELLED (a running worker stops)
    queue priority ID N                higher N is claimed first
    queue archive [--older-than-days D] [--dry-run]   requests that ended long ago to the archive

The stores come from the environment (space_config/settings.py: LEADERBOARD_STORE,
LEADERBOARD_HOME, ...), the same ones the Space and the worker use.
`add_queue_commands` plugs these into the evaluator's parser (cli/evaluator.py); `main`
runs them alone (`python -m submissions.cli queue ...`, a forwarder to it), with the same
errors and exit codes (cli/commands.py: run_command).
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime

from cli.commands import add_command, run_command
from submissions.archive import BATCH
from submissions.queue import Queue
from submissions.requests import Request, Status, utcnow


def _queue() -> Queue:
    # imported here: opening Hub stores pulls in huggingface_hub, not needed for --help
    from space_config.settings import get_settings
    from submissions.stores import open_stores

    return Queue(open_stores(get_settings()).requests)


def _status(value: str) -> Status:
    try:
        return Status(value.upper())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"unknown status {value!r}; one of {', '.join(s.value for s in Status)}") from None


# ---- list / show ---------------------------------------------------------------------------

def _age(since: datetime, now: datetime) -> str:
    seconds = max(0, int((now - since).total_seconds()))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def _progress(r: Request) -> str:
    p = r.progress
    if r.status != Status.RUNNING or not (p.total or p.stage):
        return "-"
    text = f"{p.done}/{p.total}" if p.total else ""
    return f"{text} {p.stage}".strip()


def _row(r: Request, now: datetime) -> list[str]:
    status = r.status.value
    if r.status == Status.RUNNING and r.lease_until and r.lease_until < now:
        status += " (lease expired)"  # the next claim or expire sends it back to PENDING
    return [r.id, status, r.kind, r.model, r.submitter, f"{min(r.attempt + 1, r.max_attempts)}/{r.max_attempts}", _progress(r),
            str(r.priority), _age(r.submitted_at, now), r.failure.reason.value if r.failure else "-"]


HEADER = ["id", "status", "kind", "model", "submitter", "attempt", "progress", "priority", "age", "failure"]


def format_table(requests: list[Request], now: datetime) -> str:
    rows = [HEADER] + [_row(r, now) for r in requests]
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADER))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows)


def _cmd_list(args) -> None:
    requests = _queue().all()
    if args.status:
        requests = [r for r in requests if r.status == args.status]
    if args.json:
        print(json.dumps([r.model_dump(mode="json") for r in requests], indent=2))
        return
    if not requests:
        print(f"no {args.status.value + ' ' if args.status else ''}requests")
        return
    print(format_table(requests, utcnow()))
    counts = {s: sum(r.status == s for r in requests) for s in Status}
    print("\n" + ", ".join(f"{n} {s.value}" for s, n in counts.items() if n))


def _cmd_show(args) -> None:
    print(_queue().get(args.id).model_dump_json(indent=2))


# ---- changes ----------------------------------------------------------------------------------

def _said(r: Request) -> str:
    return f"{r.id}: {r.history[-1].note if r.history else ''}; now {r.status.value}"


def _cmd_requeue(args) -> None:
    r = _queue().requeue(args.id)
    print(_said(r) + f", attempt 1 of {r.max_attempts}")


def _cmd_rerun(args) -> None:
    r = _queue().rerun(args.id, suite_id=args.suite)
    print(_said(r))
    if r.result_path:
        print(f"the current result ({r.result_path}, code {r.code_version or 'unknown'}) stays published "
              f"until the new run replaces it")


def _cmd_cancel(args) -> None:
    queue = _queue()
    was = queue.get(args.id)
    r = queue.cancel(args.id)
    print(_said(r))
    if was.status == Status.RUNNING:
        print(f"worker {was.worker_id} drops the work at its next lease renewal")


def _cmd_priority(args) -> None:
    r = _queue().set_priority(args.id, args.priority)
    print(f"{r.id}: priority {r.priority} ({r.status.value})")


QUEUE_HELP = "manage the submission queue: list, show, requeue, rerun, cancel, prioritise, archive"
QUEUE_DETAILS = """\
The queue lives in the requests store that the site and the worker use, chosen by the same
settings: LEADERBOARD_STORE (local or hub), LEADERBOARD_HOME for a local store, and
LEADERBOARD_HUB_OWNER with HF_TOKEN for the Hub."""
QUEUE_EXAMPLES = ["python -m evaluator queue list --status FAILED", "python -m evaluator queue show ID",
                  "python -m evaluator queue requeue ID", "python -m evaluator queue priority ID 10",
                  "python -m evaluator queue archive --dry-run"]
ID_HELP = "the request's id (the first column of `queue list`)"


def add_queue_commands(subparsers) -> None:
    """Add `queue` and its sub-commands to an argparse sub-parser set; each sets `func`."""
    q = add_command(subparsers, "queue", QUEUE_HELP, QUEUE_DETAILS, QUEUE_EXAMPLES)
    sub = q.add_subparsers(dest="queue_command", required=True, title="commands",
                           metavar="{list,show,requeue,rerun,cancel,priority,archive}")
    _add_list_commands(sub)
    _add_change_commands(sub)
    _add_archive_command(sub)


def _add_list_commands(sub) -> None:
    s = add_command(sub, "list", "list every request with its status, attempt, progress, age and why it failed")
    s.add_argument("--status", type=_status, help="only requests in this status: PENDING, RUNNING, FINISHED, "
                                                   "FAILED or CANCELLED (any case); default: every status")
    s.add_argument("--json", action="store_true", help="print the requests in full, as JSON, instead of a table")
    s.set_defaults(func=_cmd_list)

    s = add_command(sub, "show", "print one request in full, its history included (JSON)")
    s.add_argument("id", help=ID_HELP)
    s.set_defaults(func=_cmd_show)


def _add_change_commands(sub) -> None:
    s = add_command(sub, "requeue", "put a FAILED or CANCELLED request back in the queue, its attempts counted "
                                    "from 1 again")
    s.add_argument("id", help=ID_HELP)
    s.set_defaults(func=_cmd_requeue)

    s = add_command(sub, "rerun", "evaluate a FINISHED request again; its result stays published until the new "
                                  "one replaces it")
    s.add_argument("id", help=ID_HELP)
    s.add_argument("--suite", help="the id of the suite to evaluate against; default: the request's own suite")
    s.set_defaults(func=_cmd_rerun)

    s = add_command(sub, "cancel", "cancel a PENDING or RUNNING request (a worker running it stops at its next "
                                   "lease renewal)")
    s.add_argument("id", help=ID_HELP)
    s.set_defaults(func=_cmd_cancel)

    s = add_command(sub, "priority", "set a request's priority: higher is claimed first (a new request has 0)")
    s.add_argument("id", help=ID_HELP)
    s.add_argument("priority", type=int, help="the new priority, a whole number (negative: claimed last)")
    s.set_defaults(func=_cmd_priority)


ARCHIVE_DETAILS = """\
Requests that ended (FINISHED, FAILED or CANCELLED) longer ago than the bound move from the live
queue to the archive of the requests store, a folder per month, a bounded number per commit:
each commit adds the archived copies and removes the live ones together, so no reader ever misses
a request. Workers then read only the live queue; `queue list`, `queue show`, the site's Queue tab,
the quotas and the duplicate checks still read the archive. A request changed while it is being
archived (a rerun, a correction, a new priority) stays live with its change; a FINISHED one whose result
is not on the leaderboard yet stays live until a worker publishes it; a rerun or requeue of an
archived request brings it back live. Running it again moves only what has aged since. Safe while
workers and the site write; run it on a schedule, e.g. weekly, beside squash-history."""


def _add_archive_command(sub) -> None:
    s = add_command(sub, "archive", "move requests that ended long ago from the live queue to the archive",
                    ARCHIVE_DETAILS, ["python -m evaluator queue archive --dry-run",
                                      "python -m evaluator queue archive --older-than-days 90"])
    s.add_argument("--older-than-days", type=float, metavar="DAYS",
                   help="move requests that ended (and were submitted) more than DAYS days ago; never fewer than "
                        "the quota window (LEADERBOARD_QUOTA_DAYS) allows; default: that window plus 30 days")
    s.add_argument("--batch", type=int, default=BATCH, metavar="N",
                   help="requests moved per commit (the Hub advises under 100 files a commit: an add and a "
                        f"delete each); default: {BATCH}")
    s.add_argument("--dry-run", action="store_true", help="say how many requests would move, and move none")
    s.set_defaults(func=_cmd_archive)


def _cmd_archive(args) -> None:
    from space_config.settings import get_settings
    from submissions.archive import archivable, archive_age, archive_requests
    from submissions.errors import SubmissionError
    from submissions.stores import open_stores

    if args.batch < 1:
        raise SubmissionError(f"--batch must be at least 1, not {args.batch}")
    settings = get_settings()
    stores = open_stores(settings)
    age, now = archive_age(settings, args.older_than_days), utcnow()
    keep = _unpublished(stores)
    print(f"archiving requests that ended before {now - age:%Y-%m-%d %H:%M} UTC "
          f"({age.total_seconds() / 86400:g} days ago)")
    if args.dry_run:
        ids, kept = archivable(stores.requests, age, now, keep)
        print(f"{len(ids)} would move to the archive" + _kept(kept))
        return
    done = archive_requests(stores.requests, age, now, batch=args.batch, keep=keep,
                            on_step=lambda ids: print(f"moved {len(ids)}: {ids[0]} ... {ids[-1]}"))
    print(f"{len(done.moved)} moved to the archive in {done.steps} commits" + _kept(done.kept))
    if done.contended:
        print(f"{len(done.contended)} kept changing while being archived and stay live; run again later")


def _unpublished(stores):
    """A FINISHED request whose latest run is not in the results table: kept live, where a worker
    publishes it."""
    from results.aggregate import published_runs
    from worker.publish import published

    runs = published_runs(stores.results)
    return lambda r: r.status == Status.FINISHED and r.runs > 0 and not published(r, runs)


def _kept(kept: list[str]) -> str:
    return f"; {len(kept)} FINISHED with a result not yet published stay live" if kept else ""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m submissions.cli",
                                description="The submission queue's commands, as `python -m evaluator queue` runs "
                                            "them.")
    add_queue_commands(p.add_subparsers(dest="command", required=True, title="commands", metavar="queue"))
    return p


def main(argv: list[str] | None = None) -> int:
    """`python -m submissions.cli queue ...`: the queue commands as `python -m evaluator
    queue ...` runs them (same parser, same errors and exit codes)."""
    return run_command(parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
