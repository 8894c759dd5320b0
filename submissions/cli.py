"""`python -m evaluator queue ...`: the maintainers' view of the request queue.

    queue list [--status S] [--json]   every request: status, attempt, progress, age, why it failed
    queue show ID                      one request in full, history included
    queue requeue ID                   FAILED or CANCELLED -> PENDING, attempts reset
    queue rerun ID [--suite SUITE]     FINISHED -> PENDING; the old result stays up until replaced
    queue cancel ID                    PENDING or RUNNING -> CANCELLED (a running worker stops)
    queue priority ID N                higher N is claimed first

The stores come from the environment (space_config/settings.py: LEADERBOARD_STORE,
LEADERBOARD_HOME, ...), the same ones the Space and the worker use.
`add_queue_commands` plugs these into the evaluator's parser; `main` runs them alone
(`python -m submissions.cli queue ...`), and `run_command` runs a parsed command for
both entry points, so errors print and exit the same way from either. This module
never imports the evaluator's CLI (evaluator/__main__.py imports it).
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime

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


def add_queue_commands(subparsers) -> None:
    """Add `queue` and its sub-commands to an argparse sub-parser set; each sets `func`."""
    q = subparsers.add_parser("queue", help="list, requeue, rerun, cancel and prioritise submissions",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = q.add_subparsers(dest="queue_command", required=True, metavar="{list,show,requeue,rerun,cancel,priority}")

    s = sub.add_parser("list", help="every request with its status, attempt, progress and age")
    s.add_argument("--status", type=_status, help="only requests in this status (PENDING, RUNNING, FINISHED, "
                                                   "FAILED, CANCELLED)")
    s.add_argument("--json", action="store_true", help="print the full requests as JSON")
    s.set_defaults(func=_cmd_list)

    s = sub.add_parser("show", help="one request in full, history included")
    s.add_argument("id")
    s.set_defaults(func=_cmd_show)

    s = sub.add_parser("requeue", help="FAILED or CANCELLED -> PENDING, attempts reset")
    s.add_argument("id")
    s.set_defaults(func=_cmd_requeue)

    s = sub.add_parser("rerun", help="evaluate a FINISHED request again; its result is replaced when done")
    s.add_argument("id")
    s.add_argument("--suite", help="evaluate against this suite id instead of the request's own")
    s.set_defaults(func=_cmd_rerun)

    s = sub.add_parser("cancel", help="PENDING or RUNNING -> CANCELLED")
    s.add_argument("id")
    s.set_defaults(func=_cmd_cancel)

    s = sub.add_parser("priority", help="set a request's priority (higher is claimed first; default 0)")
    s.add_argument("id")
    s.add_argument("priority", type=int)
    s.set_defaults(func=_cmd_priority)


def run_command(args: argparse.Namespace) -> int:
    """Run a parsed command (its `func`): 0, or 2 after printing `error: ...` for an
    expected failure (a bad input, a refused change, a missing file)."""
    from evaluator.errors import EvaluatorError
    from submissions.errors import SubmissionError

    try:
        args.func(args)
    except (EvaluatorError, SubmissionError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except ValueError as e:  # bad option values, unknown judge names
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"error: {e.filename or ''}: {e.strerror or e}", file=sys.stderr)
        return 2
    return 0


def main(argv: list[str] | None = None) -> int:
    """`python -m submissions.cli queue ...`: the queue commands as `python -m evaluator
    queue ...` runs them (same parser, same errors and exit codes)."""
    p = argparse.ArgumentParser(prog="python -m submissions.cli", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_queue_commands(p.add_subparsers(dest="command", required=True))
    return run_command(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
