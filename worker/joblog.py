"""The per-submission log, `logs/<h>/<h>/<id>.log` in the private store
(submissions/requests.py: request_log_path)."""

from __future__ import annotations

import logging
import threading
from datetime import datetime, timezone

from evaluator import CODE_VERSION
from submissions.errors import ConflictError, StoreError
from submissions.requests import Request, request_log_path
from submissions.stores.sharded import read_sharded

log = logging.getLogger("evaluator.worker")  # the worker's one logger, as before the split

LOG_RETRIES = 10  # appending to a log is a compare-and-swap too


class JobLog:
    """Timestamped lines for the request's private log (`request_log_path`); also sent to the
    process log. Each attempt appends its lines to what earlier attempts wrote, as it
    runs (the heartbeat flushes at every lease renewal), so a killed attempt keeps them."""

    def __init__(self, request: Request, worker_id: str):
        self.path = request_log_path(request.id)
        # only a request that ran (or was tried) before can have a log from before sharding
        self._look_back = bool(request.log_path or request.attempt or request.runs)
        self._lock = threading.Lock()
        self._flushing = threading.Lock()  # the heartbeat and the job both flush: one at a time
        self._lines: list[str] = []
        self._flushed = 0
        self.add(f"== attempt {request.attempt + 1} of {request.max_attempts} on worker {worker_id} "
                 f"(code {CODE_VERSION}) ==")

    def add(self, message: str) -> None:
        stamp = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
        with self._lock:
            self._lines.append(f"{stamp} {message}")
        log.info(message)

    def flush(self, store) -> str | None:
        """Append the lines not yet written; the log's path, or None if the store
        refused (the log is a help, never a reason to lose a result)."""
        try:
            return self.flush_with(store, {})
        except Exception as e:  # noqa: BLE001 - see the docstring
            log.warning("could not write the log %s: %s", self.path, e)
            return None

    def flush_with(self, store, files: dict[str, bytes], message: str = "") -> str:
        """Append the lines not yet written and write `files` in the same step (one
        commit on the Hub); StoreError if the store refused."""
        with self._flushing:
            with self._lock:
                fresh = self._lines[self._flushed:]
                end = len(self._lines)
            if not fresh and not files:
                return self.path
            text = "".join(f"{line}\n" for line in fresh).encode()
            for _ in range(LOG_RETRIES):
                found = self._read(store)
                try:
                    store.write_files({**files, self.path: (found.data if found else b"") + text},
                                      {self.path: found.version if found else None},
                                      message=message or f"Log of {self.path}")
                    break
                except ConflictError:
                    continue  # someone appended meanwhile (an earlier attempt's worker): re-read
            else:
                raise StoreError(f"{self.path} kept changing while appending to it")
            with self._lock:
                self._flushed = max(self._flushed, end)
            return self.path

    def _read(self, store):
        """The log as stored; the first look also finds one kept where it was before sharding."""
        if not self._look_back:
            return store.read(self.path)
        self.path, found = read_sharded(store, self.path)
        self._look_back = found is None  # until there is a log, one may yet appear there
        return found
