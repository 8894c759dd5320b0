"""The submission request: one JSON per submission in the requests store.

    PENDING -> RUNNING -> FINISHED | FAILED | CANCELLED

RUNNING holds `worker_id`, `lease_until` and `progress`; an expired lease sends the
request back to PENDING with `attempt + 1`, and to FAILED after `max_attempts`.
FAILED always carries a reason code and a message its submitter can read.
Unknown keys are ignored on read, so older code can read newer files.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from enum import Enum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from evaluator.shards import sharded

REQUEST_SCHEMA_VERSION = 1


def request_path(id: str) -> str:
    """Where a request lives in the requests store: "3/f/<id>.json", spread over 16 x 16
    folders by a hash of its id (evaluator/shards.py), as a Hub folder holds at most 10,000 entries."""
    return sharded("", id, ".json")


def request_log_path(id: str) -> str:
    """Where a request's log is in the private store: "logs/3/f/<id>.log" (one written before
    logs were sharded stays at "logs/<id>.log": submissions/stores/sharded.py reads it there)."""
    return sharded("logs", id, ".log")


class Status(str, Enum):
    PENDING = "PENDING"
    RUNNING = "RUNNING"
    FINISHED = "FINISHED"
    FAILED = "FAILED"
    CANCELLED = "CANCELLED"


class Reason(str, Enum):
    """Why a request FAILED."""

    VALIDATION = "validation"
    DOWNLOAD = "download"
    OUT_OF_MEMORY = "out_of_memory"
    TIMEOUT = "timeout"
    BAD_PREDICTIONS = "bad_predictions"
    INTERNAL = "internal"


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def new_id() -> str:
    """Sortable by submission time, unique across machines."""
    return f"{utcnow():%Y%m%dT%H%M%S}-{uuid.uuid4().hex[:10]}"


class Progress(BaseModel):
    done: int = 0  # calls (or items) done
    total: int = 0
    stage: str = ""  # e.g. "scoring expvid"


class Failure(BaseModel):
    reason: Reason
    message: str


class Event(BaseModel):
    at: datetime
    status: Status
    note: str = ""


class Request(BaseModel):
    model_config = ConfigDict(extra="ignore")

    schema_version: int = REQUEST_SCHEMA_VERSION
    id: str = Field(default_factory=new_id)
    kind: Literal["model", "predictions"]
    submitter: str  # from the login (HF OAuth profile), never from a form field
    submitted_at: datetime = Field(default_factory=utcnow)
    suite_id: str

    # what is evaluated: a hub model (revision resolved to a commit sha) or a prediction file
    model: str  # hub id for "model"; a display name for "predictions"
    revision: str | None = None
    precision: str | None = None  # "bfloat16", "float16", ...
    frames: int | None = None  # one count for every call: outside every paper's protocol (older requests, API)
    # frames per call of the budgets the papers let each model choose (evaluator/reference.py),
    # resolved at submission: the author's, the paper's count for the model, or the default
    frame_budgets: dict[str, int] = Field(default_factory=dict)
    frame_budget_notes: dict[str, str] = Field(default_factory=dict)  # budget key -> why that count
    thinking: bool = False
    predictions_path: str | None = None  # in the private store
    predictions_sha256: str | None = None
    metadata: dict[str, str] = Field(default_factory=dict)  # e.g. parameters, model type for display
    # Breakdown buckets ([benchmark, *path in its metrics]) this file changes on too few items
    # against an earlier file: published without their score (submissions/near_duplicates.py).
    close_cells: list[list[str]] = Field(default_factory=list)

    # lifecycle
    status: Status = Status.PENDING
    priority: int = 0  # higher first; maintainers set it
    attempt: int = 0
    max_attempts: int = 3
    worker_id: str | None = None
    lease_until: datetime | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    progress: Progress = Field(default_factory=Progress)
    failure: Failure | None = None
    result_path: str | None = None  # in the results store
    log_path: str | None = None  # in the private store
    runs: int = 0  # completed runs; a rerun replaces the result
    code_version: str | None = None  # of the run that produced the result
    history: list[Event] = Field(default_factory=list)

    @property
    def path(self) -> str:
        return request_path(self.id)

    def dedup_key(self) -> tuple:
        """Two requests with the same key evaluate the same thing (any status)."""
        if self.kind == "predictions":
            return ("predictions", self.suite_id, self.predictions_sha256)
        return ("model", self.suite_id, self.model.lower(), self.revision, self.precision, self.frames,
                tuple(sorted(self.frame_budgets.items())), self.thinking)

    def to_bytes(self) -> bytes:
        return self.model_dump_json(indent=2).encode()

    @classmethod
    def from_bytes(cls, data: bytes) -> "Request":
        return cls.model_validate_json(data)

    def moved(self, status: Status, note: str = "", at: datetime | None = None) -> "Request":
        """A copy in a new status, with the move recorded in `history` (at `at`, default now)."""
        copy = self.model_copy(deep=True)
        copy.status = status
        copy.history.append(Event(at=at or utcnow(), status=status, note=note))
        return copy
