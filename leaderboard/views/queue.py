"""The Queue tab: every request by state, the user's own submissions and their log tail."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

import pandas as pd

from leaderboard.views.columns import column_or_empty, as_text
from results import coverage
from submissions.requests import request_log_path


# -- the queue --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class QueueView:
    pending: pd.DataFrame
    running: pd.DataFrame
    finished: pd.DataFrame  # FINISHED and CANCELLED
    failed: pd.DataFrame


PENDING_COLUMNS = ("Position", "Submission", "Model", "Kind", "Submitter", "Submitted", "Attempt")
RUNNING_COLUMNS = ("Submission", "Model", "Kind", "Submitter", "Started", "Progress", "Worker", "Attempt")
FINISHED_COLUMNS = ("Submission", "Model", "Kind", "Submitter", "Status", "Finished")
FAILED_COLUMNS = ("Submission", "Model", "Kind", "Submitter", "Failed", "Reason", "Message")
MINE_COLUMNS = ("Submission", "Model", "Status", "Progress", "Reason", "Message", "Submitted")


def when(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC") if moment else ""


def _status(request) -> str:
    return getattr(request.status, "value", str(request.status))


def progress_text(request) -> str:
    """"done/total stage", e.g. "120/286 scored expvid"."""
    p = request.progress
    if not p.total:
        return p.stage or "starting"
    return f"{p.done}/{p.total} {p.stage}".strip()


def _attempt(request) -> str:
    return f"{request.attempt + 1} of {request.max_attempts}"


def _failed_at(request) -> datetime | None:
    return request.finished_at or (request.history[-1].at if request.history else None)


def queue_view(requests: Sequence) -> QueueView:
    """Four public tables. Never shows where a prediction file or a log is stored, nor
    any log's content: those are for their submitter (`my_submissions`)."""
    by = {s: [r for r in requests if _status(r) == s] for s in ("PENDING", "RUNNING", "FINISHED", "FAILED",
                                                                 "CANCELLED")}
    pending = sorted(by["PENDING"], key=lambda r: (-r.priority, r.submitted_at, r.id))  # the claim order
    running = sorted(by["RUNNING"], key=lambda r: (r.started_at or r.submitted_at, r.id))
    finished = sorted(by["FINISHED"] + by["CANCELLED"], key=lambda r: (r.finished_at or r.submitted_at, r.id),
                      reverse=True)
    failed = sorted(by["FAILED"], key=lambda r: (_failed_at(r) or r.submitted_at, r.id), reverse=True)
    return QueueView(
        pending=pd.DataFrame([(i, r.id, r.model, r.kind, r.submitter, when(r.submitted_at), _attempt(r))
                              for i, r in enumerate(pending, 1)], columns=list(PENDING_COLUMNS)),
        running=pd.DataFrame([(r.id, r.model, r.kind, r.submitter, when(r.started_at), progress_text(r),
                               r.worker_id or "", _attempt(r)) for r in running], columns=list(RUNNING_COLUMNS)),
        finished=pd.DataFrame([(r.id, r.model, r.kind, r.submitter, _status(r), when(r.finished_at))
                               for r in finished], columns=list(FINISHED_COLUMNS)),
        failed=pd.DataFrame([(r.id, r.model, r.kind, r.submitter, when(_failed_at(r)),
                              r.failure.reason.value if r.failure else "unknown",
                              r.failure.message if r.failure else "No reason was recorded; ask a maintainer.")
                             for r in failed], columns=list(FAILED_COLUMNS)),
    )


def log_tail(text: str | None, lines: int) -> str:
    if not text:
        return ""
    return "\n".join(text.rstrip("\n").splitlines()[-lines:])


# The dispatcher keeps a Hugging Face Job's own output in the request's log between these lines
# (worker/dispatch.py): it is for the maintainers (a traceback, the environment's errors), not the submitter.
JOB_OUTPUT_START, JOB_OUTPUT_END = "-- the job's output (", "-- end of the job's output --"
JOB_OUTPUT_KEPT = "(the job's own output is kept for the maintainers)"


def for_the_submitter(text: str | None) -> str | None:
    """A request's log as its submitter sees it: the job's own output left out."""
    if not text or JOB_OUTPUT_START not in text:
        return text
    out, inside = [], False
    for line in text.splitlines():
        if JOB_OUTPUT_START in line:
            inside = True
            out.append(line[:line.index(" -- the job's output")] + " " + JOB_OUTPUT_KEPT
                       if " -- the job's output" in line else JOB_OUTPUT_KEPT)
        elif inside:
            inside = JOB_OUTPUT_END not in line
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def _log_path(request) -> str:
    # Recorded when a job ends; while one runs (or after an attempt that died) the log
    # sits where the worker always writes it (worker.joblog.JobLog).
    return request.log_path or request_log_path(request.id)


def _has_log(request) -> bool:
    return bool(request.log_path) or request.attempt > 0 or _status(request) == "RUNNING"


def _mine(requests: Sequence, user: str | None) -> list:
    if not user:
        return []
    return sorted((r for r in requests if r.submitter.lower() == user.lower()),
                  key=lambda r: (r.submitted_at, r.id), reverse=True)


def my_submissions(requests: Sequence, user: str | None, places: Mapping[str, str] | None = None) -> pd.DataFrame:
    """The signed-in user's own submissions, newest first (logs open on demand: my_log). A
    finished one's message says where its row is (`places`: submission id -> place_text)."""
    rows = []
    for r in _mine(requests, user):
        status = _status(r)
        message = r.failure.message if r.failure else (places or {}).get(r.id, "") if status == "FINISHED" else ""
        rows.append((r.id, r.model, status, progress_text(r) if status == "RUNNING" else "",
                     r.failure.reason.value if r.failure else "", message, when(r.submitted_at)))
    return pd.DataFrame(rows, columns=list(MINE_COLUMNS))


def place_text(board: pd.DataFrame, submission: str) -> str:
    """Where a finished submission's row is on its suite's prepared board."""
    found = board[as_text(column_or_empty(board, "id")) == submission] if len(board) else board
    if not len(found):
        return "Scored; its row appears on the Leaderboard at the next refresh."
    row = found.iloc[0]
    if bool(row.get("ranked")) and not pd.isna(row.get("rank")):
        place = _rank_text(board, found.index[0])
    else:
        place = (f"On the Leaderboard, not ranked ({row.get('protocol_text')}): shown marked, with the Protocol "
                 f"filter on All rows (its default).")
    return " ".join([place, *_coverage_notes(board, row)])


def _coverage_notes(board: pd.DataFrame, row: pd.Series) -> list[str]:
    """What the row's place owes to calls never answered: in part (counted as wrong), or a
    benchmark of the suite with no answer at all (no score, so no Average: the row comes after
    every row that has one)."""
    held = [c.removesuffix(".n_calls") for c in board.columns if c.endswith(".n_calls") and board[c].notna().any()]
    unanswered, skipped = coverage.coverage_text(row), coverage.not_answered(row, held)
    notes = [f"Answered in part ({coverage.PARTIAL_MARK}): {unanswered}, counted as wrong."] if unanswered else []
    if skipped:
        notes.append(f"No answer at all in {', '.join(skipped)}: no score there, so no Average, and the row comes "
                     "after every row that has one.")
    return notes


def _rank_text(board: pd.DataFrame, at) -> str:
    """A ranked row's rank among the rows ranked beside it (same judge), saying so where it
    shares the rank: a rank counts only the rows surely ahead (whole interval above), so
    rows whose intervals overlap share one, and the message must not read as first place."""
    ranked = board[board["ranked"].astype(bool) & board["rank"].notna()]
    if "judge_text" in board:
        ranked = ranked[ranked["judge_text"] == board.at[at, "judge_text"]]
    rank = int(board.at[at, "rank"])
    sharing = ranked[ranked["rank"] == rank]
    head = f"On the Leaderboard: rank {rank} of {len(ranked)}"
    if "average" in board and pd.isna(board.at[at, "average"]):  # a partial row: placed after every complete one
        complete = int(ranked["average"].notna().sum())
        head += (f" ({complete} row{'s' * (complete != 1)} with an Average come{'s' * (complete == 1)} first; "
                 f"after them, rows are placed by the mean of the scores each has)")
    if len(sharing) < 2:
        return f"{head}."
    by_score = list(sharing.index).index(at) + 1  # the board is in score order
    others = len(sharing) - 1
    return (f"{head}, shared with {others} other row{'s' * (others > 1)} whose 95% intervals overlap yours; "
            f"by score alone yours is {_ordinal(by_score)} of these {len(sharing)}.")


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def declared_summary(metadata: Mapping[str, str]) -> str:
    """Every declared setting in words, those left empty too: "parameters 7 B, weights not
    stated, frames as the call list gives them, thinking off"."""
    params, weights, frames, thinking = declared_fields(metadata)
    return (f"parameters {f'{params} B' if params else 'not stated'}, weights {weights}, frames "
            f"{frames or 'as the call list gives them'}, thinking {'on' if thinking else 'off'}")


def declared_fields(metadata: Mapping[str, str]) -> tuple[str, str, str, bool]:
    """What a prediction file's submitter declared (a request's metadata), as the correction
    form's fields: parameters, weights ("open", "closed", "not stated"), frames, thinking.
    The form starts from them, so correcting one setting keeps the others."""
    weights = {"yes": "open", "no": "closed"}.get(str(metadata.get("open", "")), "not stated")
    return (str(metadata.get("params", "")), weights, str(metadata.get("frames", "")),
            str(metadata.get("thinking", "")).lower() == "true")


def my_log(requests: Sequence, user: str | None, submission: str | None, read_log: Callable[[str], str | None],
           tail_lines: int = 20) -> str:
    """The last lines of the log of one of the user's own submissions. `read_log(path)` is
    called only for a submission of this user: nobody else's log is ever read."""
    request = next((r for r in _mine(requests, user) if r.id == submission), None)
    if request is None:
        return ""
    if not _has_log(request):
        return "(no log yet: the submission has not started)"
    return log_tail(for_the_submitter(read_log(_log_path(request))), tail_lines) or "(the log is empty)"
