"""Submission quotas: per user and per model org over a
rolling window, and a cap on how many of a user's submissions wait or run at once.

What counts is decided from the requests themselves, so there is no counter to drift:

- counted: every request submitted inside the window (`submitted_at` after now minus
  `window_days`), whatever its status, EXCEPT
  - CANCELLED ones (withdrawn; nothing was evaluated), and
  - FAILED ones whose reason is the infrastructure's, not the submission's: download,
    internal, timeout, out_of_memory. A worker crash must not cost the submitter a slot.
    (A FAILED(validation / bad_predictions) request cannot normally exist, since those
    refusals happen before anything is queued; if a worker ever records one, it counts:
    it was the submission's fault.)
- refused submissions never count: a refusal stores no request, so there is nothing to count.
- pending: the user's PENDING + RUNNING requests, whenever submitted.

The per-org quota counts model-id submissions of the org's models by anyone: it limits
how often one org's models (e.g. many checkpoints of one run) can be evaluated.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from space_config.settings import Quotas
from submissions.errors import Refused
from submissions.requests import Reason, Request, Status

# Failures that were not the submitter's doing: they never count against a quota.
INFRASTRUCTURE_REASONS = frozenset({Reason.DOWNLOAD, Reason.INTERNAL, Reason.TIMEOUT, Reason.OUT_OF_MEMORY})


def counts_against_quota(request: Request) -> bool:
    if request.status == Status.CANCELLED:
        return False
    if request.status == Status.FAILED and request.failure is not None:
        return request.failure.reason not in INFRASTRUCTURE_REASONS
    return True


def model_org(model: str) -> str | None:
    """The org (or user) owning a hub model id: the part before '/'; None without one."""
    return model.split("/", 1)[0].lower() if "/" in model else None


@dataclass(frozen=True)
class Usage:
    """One limit as it stands: how many slots are used, and when the next one frees up."""

    limit_name: str  # "per_user", "per_org", "pending"
    used: int
    limit: int
    frees_at: datetime | None  # when the oldest counted submission leaves the window (None: pending)

    @property
    def remaining(self) -> int:
        return max(0, self.limit - self.used)

    def as_dict(self) -> dict:
        return {"used": self.used, "limit": self.limit, "remaining": self.remaining,
                "frees_at": self.frees_at.isoformat() if self.frees_at else None}


def same_user(a: str, b: str) -> bool:
    return a.lower() == b.lower()  # Hub usernames are unique regardless of case


def _windowed(name: str, counted: list[Request], limit: int, window: timedelta) -> Usage:
    oldest = min((r.submitted_at for r in counted), default=None)
    return Usage(name, len(counted), limit, oldest + window if oldest else None)


def quota_usage(requests: list[Request], submitter: str, model_org_name: str | None, quotas: Quotas,
                now: datetime) -> dict[str, Usage]:
    """Usage of every limit that applies ("per_org" only when a model org is given)."""
    window = timedelta(days=quotas.window_days)
    recent = [r for r in requests if r.submitted_at > now - window and counts_against_quota(r)]
    usage = {
        "per_user": _windowed("per_user", [r for r in recent if same_user(r.submitter, submitter)],
                              quotas.per_user, window),
        "pending": Usage("pending", sum(1 for r in requests if same_user(r.submitter, submitter)
                                        and r.status in (Status.PENDING, Status.RUNNING)),
                         quotas.pending_per_user, None),
    }
    if model_org_name:
        org = model_org_name.lower()
        usage["per_org"] = _windowed("per_org", [r for r in recent if r.kind == "model"
                                                 and model_org(r.model) == org], quotas.per_org, window)
    return usage


def _when(at: datetime) -> str:
    return f"{at:%Y-%m-%d %H:%M} UTC"


def check_quota(requests: list[Request], submitter: str, model_org: str | None, quotas: Quotas,
                now: datetime) -> None:
    """Raise Refused("quota") naming the limit reached, its use, and when a slot frees."""
    usage = quota_usage(requests, submitter, model_org, quotas, now)
    days = quotas.window_days
    user = usage["per_user"]
    if user.used >= user.limit:
        raise Refused("quota", f"You have used your {user.limit} submissions of the last {days} days "
                               f"({user.used} counted). The oldest leaves the window at {_when(user.frees_at)}; "
                               f"you can submit again then. Submissions that were refused, cancelled or failed "
                               f"for infrastructure reasons do not count." if user.frees_at else
                      f"Submissions are closed for you: the limit is {user.limit} per {days} days.")
    org = usage.get("per_org")
    if org is not None and org.used >= org.limit:
        raise Refused("quota", f"Models of '{model_org}' have had {org.used} submissions in the last {days} days; "
                               f"the limit per model org is {org.limit}. The oldest leaves the window at "
                               f"{_when(org.frees_at)}." if org.frees_at else
                      f"Submissions of models of '{model_org}' are closed: the limit is {org.limit} per {days} days.")
    pending = usage["pending"]
    if pending.used >= pending.limit:
        raise Refused("quota", f"You already have {pending.used} submissions waiting or running (at most "
                               f"{pending.limit} at once). Submit again when one of them has finished.")
