"""The store interface: five logical stores, one per Hub dataset repo or
local folder, all behind the same small set of calls.

Paths are POSIX paths relative to the store's root ("3f2a.json", "demo-v1-ab12/calls.jsonl").
A *version* is an opaque string naming what was read; `write_if` is the
compare-and-swap every state change goes through:

    found = store.read("x.json")                      # Versioned(data, version) or None
    store.write_if("x.json", new, found.version)      # ConflictError if anyone wrote since
    store.write_if("y.json", data, None)              # create only; ConflictError if it exists
    store.write_files({"r.json": a, "t.parquet": b},  # several files in one step, all or none,
                      expected={"t.parquet": v})      # each `expected` entry checked as in write_if

On the Hub the version is the repo's head commit and the swap is a commit with
`parent_commit`; locally it is the file's content hash checked under a lock.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

STORE_NAMES = ("requests", "results", "suite", "answers", "private")
PUBLIC = {"requests": True, "results": True, "suite": True, "answers": False, "private": False}


@dataclass(frozen=True)
class Versioned:
    data: bytes
    version: str


class Store(Protocol):
    name: str  # one of STORE_NAMES

    def read(self, path: str) -> Versioned | None:
        """The file and the version it was read at, or None if it does not exist."""

    def write(self, path: str, data: bytes, message: str = "") -> str:
        """Write unconditionally (idempotent writes: results keyed by submission id). Returns the new version."""

    def write_if(self, path: str, data: bytes, expected: str | None, message: str = "") -> str:
        """Compare-and-swap: write only if nothing changed since `expected` (None: only if
        the file does not exist). Raises ConflictError otherwise. Returns the new version."""

    def write_files(self, files: Mapping[str, bytes], expected: Mapping[str, str | None] | None = None,
                    message: str = "", delete: Iterable[str] = ()) -> dict[str, str]:
        """Write several files in one step (one commit on the Hub), only if every path in
        `expected` is still at the version given (None: absent); ConflictError otherwise,
        and then nothing is written. Files are installed in the order given, so a reader
        that never locks sees the last one only after the others; the files in `delete`
        (name each in `expected`: it must be there) go in the same step, after them, so a
        file moved this way is never missing from both places. Returns each written path's new
        version."""

    def list(self, prefix: str = "") -> list[str]:
        """Paths of the files under `prefix`, sorted."""

    def delete(self, path: str, message: str = "") -> None:
        """Remove a file; no error if it is already gone."""

    def upload_file(self, path: str, local: Path, message: str = "") -> None:
        """Store a (possibly large) local file at `path`."""

    def upload_folder(self, prefix: str, local: Path, message: str = "") -> None:
        """Store every file of a local folder under `prefix`, in one operation where possible."""

    def local_folder(self, prefix: str) -> Path:
        """A local folder holding the files under `prefix` (the Hub downloads a snapshot)."""

    def version_of(self, data: bytes, folder: Path) -> str:
        """The version `read` would have given a file holding `data`, read from `folder` (a
        local_folder copy): files read from a snapshot can then be compared-and-swapped."""

    def head(self) -> str | None:
        """A token that changes whenever anything in the store changes, from one cheap
        call (the Hub's head commit), or None where the store cannot tell more cheaply
        than by looking (a local folder: looking costs nothing there)."""
