"""RetryingStore: any Store, with calls that failed for a passing reason tried again.

A TransientStoreError (network, 5xx, 429) is retried with exponential backoff plus
jitter, so that several workers hitting the same hiccup do not retry in lockstep. When
the server said how long to wait (a 429's Retry-After: the Hub's per-token rate limit),
the wait is at least that; if that is longer than `max_delay`, retrying now is pointless
and the error is raised at once, saying how long the server asked to wait. The wait also
holds every later call through this store until it has passed (they wait, or are refused
at once without reaching the server when the rest is longer than `max_delay`): a 429
answered by more requests would only extend the refusal.
A ConflictError is never retried here: it means "re-read, then decide again", which
only the caller can do (the queue's read + write_if loop).

One case needs care. A write can reach the server and still fail on the way back (a
timeout, a 5xx after the commit landed). Its retry then meets a ConflictError caused by
our own write. So when a `write_if` or `write_files` retry conflicts after an earlier
transient failure, the files are read back: if they hold exactly the bytes we meant to
write, the write did land and its versions are returned; otherwise the conflict is real
and is raised. This
assumes two writers never write identical bytes for different reasons: true of request
records (they carry the worker id and timestamps), not of a bare counter.
"""

from __future__ import annotations

import logging
import random
import time
from pathlib import Path
from typing import Callable, Iterable, Mapping, TypeVar

from submissions.errors import ConflictError, TransientStoreError
from submissions.stores.base import Store, Versioned

log = logging.getLogger(__name__)
T = TypeVar("T")


class RetryingStore:
    def __init__(self, inner: Store, attempts: int = 5, base_delay: float = 0.2, max_delay: float = 30.0,
                 patience: float = 300.0, sleep: Callable[[float], None] = time.sleep):
        if attempts < 1:
            raise ValueError(f"attempts must be at least 1, not {attempts}")
        self.inner = inner
        self.name = inner.name
        self.attempts = attempts
        self.base_delay = base_delay
        self.max_delay = max_delay  # the longest wait before a retry; a longer Retry-After is not waited for
        self.patience = patience  # the most time spent waiting out Retry-Afters in one call
        self._sleep = sleep  # tests pass a recorder instead of waiting
        self._clock = time.monotonic
        self._not_before = 0.0  # a Retry-After also holds the calls that come after the refused one

    def __repr__(self) -> str:
        return f"RetryingStore({self.inner!r})"

    def __getattr__(self, attribute: str):
        # backend details (LocalStore.root, HubStore.repo_id) stay reachable through the wrapper
        if attribute == "inner":  # not set yet (copy, pickle): don't recurse
            raise AttributeError(attribute)
        return getattr(self.inner, attribute)

    def _delay(self, failures: int) -> float:
        return self.base_delay * (2 ** (failures - 1)) * random.uniform(1.0, 1.5)

    def _wait_for_the_server(self, what: str) -> None:
        """Wait out what is left of a Retry-After the server gave an earlier call, or refuse
        at once when that is longer than `max_delay` (the caller tries again later)."""
        left = self._not_before - self._clock()
        if left > self.max_delay:
            raise TransientStoreError(f"store {self.name!r}: {what} not tried: the server asked to wait "
                                      f"{left:.0f}s more before trying again", retry_after=left)
        if left > 0:
            self._sleep(left)

    def _call(self, what: str, call: Callable[[], T], landed: Callable[[], T | None] | None = None) -> T:
        last: TransientStoreError | None = None
        self._wait_for_the_server(what)
        attempt, waited = 0, 0.0
        while attempt < self.attempts:
            attempt += 1
            try:
                return call()
            except TransientStoreError as e:
                last = e
                if e.retry_after is not None and waited + e.retry_after <= self.patience:
                    # a rate limit that says when to come back is not a failure: wait it out
                    # without spending an attempt (a quota shared by many workers may refuse us
                    # several windows in a row), up to `patience` seconds in all
                    attempt -= 1
                    waited += e.retry_after
                if e.retry_after is not None:
                    self._not_before = max(self._not_before, self._clock() + e.retry_after)
                if e.retry_after is not None and e.retry_after > self.max_delay:
                    raise TransientStoreError(
                        f"store {self.name!r}: {what} refused; the server asks to wait {e.retry_after:.0f}s "
                        f"before trying again: {e}", retry_after=e.retry_after) from e
                if attempt < self.attempts:
                    delay = max(self._delay(attempt), e.retry_after or 0.0)
                    log.warning("store %s: %s failed (%s); try %d of %d in %.2fs",
                                self.name, what, e, attempt + 1, self.attempts, delay)
                    self._sleep(delay)
            except ConflictError:
                if last is not None and landed is not None:
                    version = landed()
                    if version is not None:
                        return version
                raise
        raise TransientStoreError(
            f"store {self.name!r}: {what} failed {self.attempts} times in a row; last error: {last}") from last

    # -- the Store interface ----------------------------------------------------------

    def read(self, path: str) -> Versioned | None:
        return self._call(f"read {path}", lambda: self.inner.read(path))

    def write(self, path: str, data: bytes, message: str = "") -> str:
        return self._call(f"write {path}", lambda: self.inner.write(path, data, message))

    def write_if(self, path: str, data: bytes, expected: str | None, message: str = "") -> str:
        def landed() -> str | None:
            versions = self._landed({path: data})
            return versions[path] if versions else None

        return self._call(f"write {path}", lambda: self.inner.write_if(path, data, expected, message), landed)

    def write_files(self, files: Mapping[str, bytes], expected: Mapping[str, str | None] | None = None,
                    message: str = "", delete: Iterable[str] = ()) -> dict[str, str]:
        gone = list(delete)
        extra = {"delete": gone} if gone else {}  # a write that deletes nothing is passed on as it always was
        return self._call(f"write {', '.join([*files, *gone])}",
                          lambda: self.inner.write_files(files, expected, message, **extra),
                          lambda: self._landed(files, gone))

    def _landed(self, files: Mapping[str, bytes], gone: Iterable[str] = ()) -> dict[str, str] | None:
        """The versions of `files` if every one of them holds exactly our bytes and every file
        of `gone` is absent (our own earlier attempt landed), else None (including when the
        store cannot tell)."""
        versions = {}
        try:
            for path, data in files.items():
                found = self.inner.read(path)
                if found is None or found.data != data:
                    return None
                versions[path] = found.version
            if any(self.inner.read(path) is not None for path in gone):
                return None
        except TransientStoreError:
            return None  # cannot tell: report the conflict, the caller re-reads anyway
        return versions

    def version_of(self, data: bytes, folder: Path) -> str:
        return self.inner.version_of(data, folder)  # computed, nothing to retry

    def list(self, prefix: str = "") -> list[str]:
        return self._call(f"list {prefix!r}", lambda: self.inner.list(prefix))

    def delete(self, path: str, message: str = "") -> None:
        return self._call(f"delete {path}", lambda: self.inner.delete(path, message))

    def upload_file(self, path: str, local: Path, message: str = "") -> None:
        return self._call(f"upload {path}", lambda: self.inner.upload_file(path, local, message))

    def upload_folder(self, prefix: str, local: Path, message: str = "") -> None:
        return self._call(f"upload {local} to {prefix!r}", lambda: self.inner.upload_folder(prefix, local, message))

    def local_folder(self, prefix: str) -> Path:
        return self._call(f"download {prefix!r}", lambda: self.inner.local_folder(prefix))

    def head(self) -> str | None:
        return self._call("read the head", self.inner.head)
