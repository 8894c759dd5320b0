"""A Hub store's file versions (submissions/stores/hub.py): `commit:blob:sha256`, the commit a
file was read (or written) at and its content's ids, the git blob id by which the Hub names a
regular file and the sha256 by which it names an LFS file. A compare-and-swap checks a file's
content by them at the head it commits on; the commit only lets files all read at one commit
be committed on it without that check.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Mapping

from huggingface_hub import RepoFile, constants

from submissions.errors import StoreError


@dataclass(frozen=True)
class FileId:
    """What a version says about a file's content: its git blob id (how the Hub names a
    regular file) and its sha256 (how it names an LFS file)."""

    commit: str
    blob: str
    sha256: str

    def matches(self, entry: RepoFile) -> bool:
        return entry.lfs.sha256 == self.sha256 if entry.lfs is not None else entry.blob_id == self.blob


def file_version(commit: str, data: bytes) -> str:
    """A file's version: the commit it was read (or written) at, and its content's ids."""
    blob = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
    return f"{commit}:{blob}:{hashlib.sha256(data).hexdigest()}"


def parse_version(version: str, store) -> FileId:
    """The FileId a version names; StoreError naming the store (a HubStore) for anything else."""
    parts = version.split(":")
    if len(parts) != 3 or not constants.REGEX_COMMIT_OID.fullmatch(parts[0]):
        raise StoreError(f"store {store.name!r} (dataset repo {store.repo_id}): version {version!r} is not "
                         f"a Hub file version (commit:blob:sha256); pass the version that read() of this store "
                         f"returned")
    return FileId(*parts)


def shared_commit(expected: Mapping[str, FileId | None]) -> str | None:
    """The commit every expected file was read at, when they were all read at one commit
    and none is expected absent (then committing on it needs no check); else None."""
    if not expected or any(file is None for file in expected.values()):
        return None
    commits = {file.commit for file in expected.values()}
    return commits.pop() if len(commits) == 1 else None


__all__ = ["FileId", "file_version", "parse_version", "shared_commit"]
