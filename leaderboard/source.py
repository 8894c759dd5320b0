"""Where the site's data comes from, kept fresh without restarts.

    source = TableSource(stores, settings)   # loads leaderboard.parquet once
    source.refresh()                         # True when the table changed and was reloaded
    source.frame, source.updated_at, source.suites, source.generation

    queue = QueueSource(stores)              # the request files, re-read at most every few seconds
    queue.requests()

The site reads ONE aggregated table (results/aggregate.py), written by the worker.
`refresh` first asks whether it changed, cheaply: for a local store the file's
mtime, size and inode (the worker replaces the file atomically, so each write is a new
inode); for the Hub the file as read at the repo's head, hashed (huggingface_hub keeps
the download cached per commit). Only a change is parsed. Every session's timer calls
`refresh`; `min_interval` keeps that to one store check per interval for the whole
process. A store that cannot be reached keeps the last table and sets `error`: the
site shows stale data with a warning rather than no data.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import pandas as pd

from results import aggregate
from submissions.queue import Queue
from submissions.stores.local import LocalStore

if TYPE_CHECKING:
    from space_config.settings import Settings
    from submissions.requests import Request
    from submissions.stores import Stores

log = logging.getLogger(__name__)

CHECK_SECONDS = 5.0  # the least time between two looks at the store, for all sessions together


class _Found:
    """A store that answers one read with what was already read (no second download)."""

    def __init__(self, name: str, found):
        self.name = name
        self._found = found

    def read(self, path: str):
        return self._found


class TableSource:
    """The aggregated table as the site shows it, reloaded only when it changed."""

    def __init__(self, stores: Stores, settings: Settings | None = None, *, min_interval: float = CHECK_SECONDS,
                 clock: Callable[[], float] = time.monotonic):
        self.stores = stores
        self.settings = settings
        self.min_interval = min_interval
        self._clock = clock
        self._lock = threading.Lock()
        self._version: Any = object()  # matches no real version: the first refresh loads
        self._checked: float | None = None
        # (generation, frame), replaced in one assignment so a reader never pairs a new
        # frame with an old generation; the generation is +1 per reload (the UI re-renders).
        self._snapshot: tuple[int, pd.DataFrame] = (0, pd.DataFrame({aggregate.ID: pd.Series(dtype="string")}))
        self.checked_at: datetime | None = None  # when the store was last looked at (UTC)
        self.error: str | None = None  # why the last look failed, if it did
        self.refresh(force=True)

    # -- what the UI reads ------------------------------------------------------------------

    def snapshot(self) -> tuple[int, pd.DataFrame]:
        """(generation, frame), consistent with each other."""
        return self._snapshot

    @property
    def frame(self) -> pd.DataFrame:
        return self._snapshot[1]

    @property
    def generation(self) -> int:
        return self._snapshot[0]

    @property
    def updated_at(self) -> datetime | None:
        """When the worker last wrote the table (from the file's own stamp), or None."""
        stamp = self.frame.attrs.get("updated_at")
        try:
            return datetime.fromisoformat(stamp) if stamp else None
        except ValueError:
            return None

    @property
    def suites(self) -> list[str]:
        """Suite ids that have at least one result."""
        if "suite_id" not in self.frame.columns:
            return []
        return sorted(str(s) for s in self.frame["suite_id"].dropna().unique())

    # -- keeping it fresh -------------------------------------------------------------------

    def refresh(self, force: bool = False) -> bool:
        """Reload the table if it changed since the last load; True if it was reloaded.
        Never raises: a failure keeps the last table and is reported in `error`."""
        if not self._lock.acquire(blocking=force):
            return False  # another session is checking right now; its answer serves everyone
        try:
            now = self._clock()
            if not force and self._checked is not None and now - self._checked < self.min_interval:
                return False
            self._checked = now
            self.checked_at = datetime.now(UTC)
            try:
                return self._reload_if_changed()
            except Exception as e:  # noqa: BLE001 - the site keeps serving the last table
                self.error = f"{type(e).__name__}: {e}"
                log.warning("could not refresh the leaderboard table from the %s store: %s",
                            self.stores.results.name, self.error)
                return False
        finally:
            self._lock.release()

    def _reload_if_changed(self) -> bool:
        store = self.stores.results
        local = getattr(store, "inner", store)
        found = None
        if isinstance(local, LocalStore):
            try:
                stat = (local.root / aggregate.TABLE_PATH).stat()
                version: Any = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
            except FileNotFoundError:
                version = None
        else:
            found = store.read(aggregate.TABLE_PATH)
            version = None if found is None else hashlib.sha256(found.data).hexdigest()
        self.error = None
        if version == self._version:
            return False
        frame = aggregate.load_table(store if found is None else _Found(store.name, found))
        self._snapshot = (self.generation + 1, frame)
        self._version = version
        log.info("leaderboard table loaded: %d rows (written %s)", len(frame), frame.attrs.get("updated_at"))
        return True


class QueueSource:
    """The request files, read at most once per `max_age` seconds for all sessions."""

    def __init__(self, stores: Stores, *, max_age: float = CHECK_SECONDS, clock: Callable[[], float] = time.monotonic):
        self.queue = Queue(stores.requests)
        self.max_age = max_age
        self._clock = clock
        self._lock = threading.Lock()
        self._requests: list[Request] = []
        self._read: float | None = None
        self.error: str | None = None

    def requests(self, fresh: bool = False) -> list[Request]:
        """Every request, oldest first; `fresh` reads the store now (after a submission)."""
        with self._lock:
            now = self._clock()
            if fresh or self._read is None or now - self._read >= self.max_age:
                try:
                    self._requests = self.queue.all()
                    self.error = None
                except Exception as e:  # noqa: BLE001 - show the last snapshot, say it is stale
                    self.error = f"{type(e).__name__}: {e}"
                    log.warning("could not read the queue: %s", self.error)
                self._read = now
            return list(self._requests)
