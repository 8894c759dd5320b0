"""When an idle worker looks at the queue again, and how much that look costs.

A full look (the queue's snapshot, the table, a claim attempt) costs several store calls;
on the Hub every call counts against a per-token rate limit (1,000 per 5 minutes on a free
account). So an idle worker

- waits `poll_seconds` after an empty look, doubling up to `poll_max_seconds` while the
  queue stays empty (a submission or a maintainer's `wake` starts it over);
- when that wait is over, first asks the store for its head (one cheap call) and looks
  again only if it moved, or if a lease seen last time has run out since (an expired
  lease changes nothing in the store, yet frees a request to take over).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime


@dataclass
class IdlePolls:
    poll_seconds: float
    poll_max_seconds: float
    clock: Callable[[], float] = time.monotonic
    interval: float = field(init=False)
    next_at: float = field(init=False, default=0.0)  # monotonic time of the next look; 0: now
    seen_head: str | None = field(init=False, default=None)  # the head at the last empty look
    lease_ends: datetime | None = field(init=False, default=None)  # the first lease seen then to run out

    def __post_init__(self) -> None:
        self.interval = self.poll_seconds

    def due(self) -> bool:
        """Whether the wait after the last empty look is over."""
        return self.clock() >= self.next_at

    def unchanged(self, head: str | None, now: datetime) -> bool:
        """Whether a look now would see what the last empty one saw: the same head and no
        lease run out since. A store that gives no head (None) is always worth a look."""
        if head is None or head != self.seen_head:
            return False
        return self.lease_ends is None or now < self.lease_ends

    def empty(self, head: str | None, lease_ends: datetime | None) -> None:
        """A look (or a head check) found nothing to do: wait longer before the next."""
        self.seen_head, self.lease_ends = head, lease_ends
        self.next_at = self.clock() + self.interval
        self.interval = min(self.interval * 2, max(self.poll_max_seconds, self.poll_seconds))

    def busy(self) -> None:
        """There was work: look again at the next poll."""
        self.interval, self.next_at, self.seen_head, self.lease_ends = self.poll_seconds, 0.0, None, None

    wake = busy
