"""A store kept in a Hugging Face Hub dataset repo, through huggingface_hub.

- A file's version names the commit it was read at and its content (git blob id and
  sha256): `commit:blob:sha256`. `read` asks for the head, then downloads the file at
  exactly that commit, so data and version always agree.
- `write_if(path, data, expected)` is one commit with `parent_commit` set to the commit
  the file was read at. If anyone committed since, the Hub refuses it (HTTP 412, "A commit
  has happened since"); we then check the file's own content at the new head (paths-info)
  and, if it is unchanged (the commit was to another file: another request, a log), commit
  again on that head. Only a change to the file itself is a ConflictError, so a worker's
  progress commit never makes another worker's claim or a submitter's add fail.
- `write_if(path, data, None)` (create only) checks that the file is absent at the head
  and commits with `parent_commit=head`, retried the same way.
- `write_files` writes several files (and deletes some) in one commit, under the same conditions.
- huggingface_hub sends no commit when the bytes are already stored (it compares them
  with the head's, then returns the head). For `write_if` that would let a stale writer
  "succeed" (two writers read 5, both write 6), so when no commit was sent and the head
  is not the parent, the file is checked again at the head, as after a 412.

Errors become the pipeline's own: 412/409 -> ConflictError (from `write_if`; from an
unconditional write it is a race with another committer and is worth retrying), network
failures, 408, 429 and 5xx -> TransientStoreError (carrying how long the Hub asks to wait: its
RateLimit reset or Retry-After, submissions/stores/hub_limits.py), a missing repo -> NotFoundError that
says how to create it, anything else -> StoreError naming the repo and the action. huggingface_hub's
own 429 sleeps are bounded inside our calls (hub_limits.bounded_client_waits).

Every Hub call goes through `self.api` (an HfApi), so tests can hand in a fake one.
"""

from __future__ import annotations

import hashlib
import importlib
import random
import shutil
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator, Mapping

from huggingface_hub import CommitOperationAdd, CommitOperationDelete, HfApi, RepoFile, constants
from huggingface_hub.errors import (
    EntryNotFoundError,
    HfHubHTTPError,
    LocalEntryNotFoundError,
    OfflineModeIsEnabled,
    RepositoryNotFoundError,
    RevisionNotFoundError,
)

from submissions.errors import ConflictError, NotFoundError, StoreError, TransientStoreError
from submissions.stores.base import Versioned
from submissions.stores.hub_limits import ClientWaitRefused, bounded_client_waits, wait_seconds
from submissions.stores.hub_versions import FileId, file_version, parse_version, shared_commit
from submissions.stores.local import clean_path
from submissions.stores.mirror_files import link, prune

REPO_TYPE = "dataset"
HUB_PLUMBING = {".gitattributes"}
MIRRORS_KEPT = 8  # local copies of the store at recent heads (local_folder)
REBASES = 20  # commits retried on a moved head while our own files stay unchanged
REBASE_BACKOFF = 0.02  # seconds; jittered and doubled per retry, so racing writers fall out of step  # files every Hub repo has; never part of a store's content


def _network_errors() -> tuple[type[BaseException], ...]:
    """The "could not reach the server" errors of whichever HTTP client this huggingface_hub
    uses (requests up to 0.x, httpx in 1.x, httpx2 later); HTTP status errors are not among them."""
    found: list[type[BaseException]] = [ConnectionError, TimeoutError]
    for module, name in (("httpx2", "TransportError"), ("httpx", "TransportError"),
                         ("requests", "ConnectionError"), ("requests", "Timeout")):
        try:
            found.append(getattr(importlib.import_module(module), name))
        except (ImportError, AttributeError):
            pass
    return tuple(found)


NETWORK_ERRORS = _network_errors()


def hub_repo_id(owner: str, prefix: str, name: str) -> str:
    """The dataset repo holding store `name`: `<owner>/<prefix>-<name>`."""
    return f"{owner}/{prefix}-{name}"


def default_cache_dir(repo_id: str) -> Path:
    return Path.home() / ".cache" / "leaderboard" / repo_id.replace("/", "--")


class HubStore:
    def __init__(self, repo_id: str, name: str, token: str | None, api: HfApi | None = None,
                 cache_dir: Path | None = None):
        self.repo_id = repo_id
        self.name = name
        self.api = api if api is not None else HfApi(token=token)
        self.cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir(repo_id)

    def __repr__(self) -> str:
        return f"HubStore({self.repo_id!r}, {self.name!r})"

    # -- error mapping ----------------------------------------------------------------

    @contextmanager
    def _hub(self, action: str, *, conflict_is_cas: bool = False) -> Iterator[None]:
        """Turn huggingface_hub's and httpx's errors into the pipeline's, naming the repo."""
        where = f"store {self.name!r} (dataset repo {self.repo_id}): {action}"
        try:
            with bounded_client_waits():  # the client's own 429 sleeps may not hold our call for long
                yield
        except (StoreError, NotFoundError):
            raise
        except ClientWaitRefused as e:
            raise TransientStoreError(f"{where}: the Hub's rate limit asks to wait {e.seconds:.0f}s",
                                      retry_after=e.seconds) from e
        except RepositoryNotFoundError as e:
            raise NotFoundError(
                f"{where}: the repo does not exist or this token cannot see it. Create the five repos with "
                f"`{self._create_command()}` and give HF_TOKEN write access to them.") from e
        except RevisionNotFoundError as e:
            if conflict_is_cas:  # the commit we based the write on is not on the branch any more
                raise ConflictError(f"{where}: the version read is no longer the head; re-read and retry") from e
            # the commit just read as the head is gone: the history was squashed in between
            raise TransientStoreError(f"{where}: the commit read is no longer in the repo's history "
                                      f"(squashed?); read again ({_first_line(e)})") from e
        except HfHubHTTPError as e:
            raise self._http_error(where, e, conflict_is_cas) from e
        except OfflineModeIsEnabled as e:
            raise StoreError(f"{where}: HF_HUB_OFFLINE is set, so the Hub cannot be reached; unset it") from e
        except LocalEntryNotFoundError as e:
            # hf_hub_download's way of saying "could not reach the Hub and nothing is cached"
            if constants.is_offline_mode():
                raise StoreError(f"{where}: HF_HUB_OFFLINE is set, so the Hub cannot be reached; unset it") from e
            raise TransientStoreError(f"{where}: the Hub could not be reached ({_first_line(e)})") from e
        except NETWORK_ERRORS as e:
            raise TransientStoreError(f"{where}: the Hub could not be reached ({type(e).__name__}: {e})") from e

    def _create_command(self) -> str:
        owner, _, repo = self.repo_id.partition("/")
        suffix = f"-{self.name}"
        prefix = repo[:-len(suffix)] if repo.endswith(suffix) else "<prefix>"
        return f"python -m evaluator create-repos --owner {owner} --prefix {prefix}"

    @staticmethod
    def _http_error(where: str, e: HfHubHTTPError, conflict_is_cas: bool) -> Exception:
        response = getattr(e, "response", None)
        status = getattr(response, "status_code", None)
        detail = e.server_message or _first_line(e)
        if status in (409, 412):
            if conflict_is_cas:
                return ConflictError(f"{where}: someone committed since the version read ({status}); re-read and retry")
            return TransientStoreError(f"{where}: another commit landed at the same moment ({status}: {detail})")
        if status is not None and (status in (408, 429) or status >= 500):
            wait = _retry_after(response)
            asks = f"; it asks to wait {wait:.0f}s" if wait is not None else ""
            return TransientStoreError(f"{where}: the Hub answered {status} ({detail}){asks}", retry_after=wait)
        if status in (401, 403):
            return StoreError(f"{where}: permission denied ({status}); HF_TOKEN needs write access to the repo")
        return StoreError(f"{where}: the Hub answered {status} ({detail})")

    def squash_history(self, message: str) -> None:
        """Replace the repo's history by one commit holding its current files (the Hub slows
        down after some thousands of commits). A writer whose parent commit vanishes gets the
        usual 412 and commits again on the new head; a reader reads the head again."""
        with self._hub("squash the history"):
            self.api.super_squash_history(self.repo_id, repo_type=REPO_TYPE, commit_message=message)

    # -- helpers ----------------------------------------------------------------------

    def _head(self) -> str:
        with self._hub("read the head commit"):
            info = self.api.repo_info(self.repo_id, repo_type=REPO_TYPE, expand=["sha"])
        if not info.sha:
            raise StoreError(f"store {self.name!r} (dataset repo {self.repo_id}): the Hub gave no head commit")
        return info.sha

    def _commit(self, operations: list, message: str, action: str, parent: str | None = None) -> str:
        with self._hub(action, conflict_is_cas=parent is not None):
            info = self.api.create_commit(self.repo_id, operations, commit_message=message,
                                          repo_type=REPO_TYPE, parent_commit=parent)
        return info.oid

    # -- the Store interface ----------------------------------------------------------

    def read(self, path: str) -> Versioned | None:
        path = clean_path(path, self.name)
        head = self._head()
        with self._hub(f"read {path}"):
            try:
                local = self.api.hf_hub_download(self.repo_id, path, repo_type=REPO_TYPE, revision=head,
                                                 cache_dir=self.cache_dir)
            except EntryNotFoundError as e:
                if isinstance(e, LocalEntryNotFoundError):
                    raise  # the Hub could not be asked: that is not "no such file"
                return None
        data = Path(local).read_bytes()
        return Versioned(data, file_version(head, data))

    def write(self, path: str, data: bytes, message: str = "") -> str:
        path = clean_path(path, self.name)
        return self.write_files({path: data}, message=message or f"Write {path}")[path]

    def write_if(self, path: str, data: bytes, expected: str | None, message: str = "") -> str:
        path = clean_path(path, self.name)
        return self.write_files({path: data}, {path: expected}, message or f"Update {path}")[path]

    def write_files(self, files: Mapping[str, bytes], expected: Mapping[str, str | None] | None = None,
                    message: str = "", delete: Iterable[str] = ()) -> dict[str, str]:
        """One commit (`delete`'s files removed in it too), made only if every path in `expected` still
        holds the content its version names (None: absent). The commit's parent is the head those files were
        checked at, so the Hub refuses it (412) if anyone committed since; a 412 makes us
        check the files again at the new head and, if they are unchanged (someone wrote
        another file), commit again on it. Only a change to one of these files conflicts."""
        files = {clean_path(path, self.name): data for path, data in files.items()}
        expected = {clean_path(path, self.name): parse_version(version, self) if version is not None else None
                    for path, version in (expected or {}).items()}
        operations = [CommitOperationAdd(path_in_repo=path, path_or_fileobj=data) for path, data in files.items()]
        operations += [CommitOperationDelete(path_in_repo=clean_path(path, self.name)) for path in delete]
        names = ", ".join(files)
        parent = shared_commit(expected)  # the head the files were read at: no check needed on it
        for attempt in range(REBASES):
            if expected and parent is None:
                parent = self._check(expected)
            try:
                oid = self._commit(operations, message or f"Update {names}", f"write {names}", parent=parent)
            except ConflictError:
                parent = None  # the head moved: check our files again at the new one
                time.sleep(random.uniform(0, REBASE_BACKOFF * 2 ** min(attempt, 5)))
                continue
            # huggingface_hub sends no commit when the bytes are already stored and returns
            # the head; if that is not our parent, the file may have changed since: check again
            sent = any(getattr(operation, "_is_committed", True) for operation in operations)
            if parent is not None and not sent and oid != parent:
                parent = None
                continue
            return {path: file_version(oid, data) for path, data in files.items()}
        raise ConflictError(f"store {self.name!r} (dataset repo {self.repo_id}): other commits kept landing while "
                            f"writing {names} ({REBASES} times in a row); re-read and retry")

    def _check(self, expected: Mapping[str, FileId | None]) -> str:
        """The head, after checking that every expected file is, at that head, what its
        version says (ConflictError otherwise): two calls, the head and paths-info."""
        head = self._head()
        with self._hub(f"check {', '.join(expected)}"):
            entries = self.api.get_paths_info(self.repo_id, list(expected), repo_type=REPO_TYPE, revision=head)
        found = {entry.path: entry for entry in entries if isinstance(entry, RepoFile)}
        for path, wanted in expected.items():
            entry = found.get(path)
            if wanted is None and entry is not None:
                raise ConflictError(f"store {self.name!r} (dataset repo {self.repo_id}): {path} already "
                                    f"exists; it was to be created only if absent")
            if wanted is not None and (entry is None or not wanted.matches(entry)):
                raise ConflictError(f"store {self.name!r} (dataset repo {self.repo_id}): {path} changed since "
                                    f"it was read; re-read and retry")
        return head

    def list(self, prefix: str = "") -> list[str]:
        folder = clean_path(prefix, self.name, allow_root=True)
        with self._hub(f"list {folder or 'the repo'}"):
            files = self.api.list_repo_files(self.repo_id, repo_type=REPO_TYPE)
        return sorted(f for f in files
                      if f not in HUB_PLUMBING and (not folder or f.startswith(folder + "/")))

    def delete(self, path: str, message: str = "") -> None:
        path = clean_path(path, self.name)
        with self._hub(f"delete {path}"):
            try:
                self.api.create_commit(self.repo_id, [CommitOperationDelete(path_in_repo=path, is_folder=False)],
                                       commit_message=message or f"Delete {path}", repo_type=REPO_TYPE)
            except EntryNotFoundError:
                return  # already gone: what the caller wanted

    def upload_file(self, path: str, local: Path, message: str = "") -> None:
        path = clean_path(path, self.name)
        source = Path(local)
        if not source.is_file():
            raise NotFoundError(f"store {self.name!r}: cannot upload {source}: no such file")
        # a path (not bytes): huggingface_hub streams it and sends large files through LFS/Xet
        self._commit([CommitOperationAdd(path_in_repo=path, path_or_fileobj=str(source))],
                     message or f"Upload {path}", f"upload {path}")

    def upload_folder(self, prefix: str, local: Path, message: str = "") -> None:
        folder = clean_path(prefix, self.name, allow_root=True)
        source = Path(local)
        if not source.is_dir():
            raise NotFoundError(f"store {self.name!r}: cannot upload {source}: no such folder")
        operations = []
        for file in sorted(p for p in source.rglob("*") if p.is_file()):
            relative = file.relative_to(source).as_posix()
            target = clean_path(f"{folder}/{relative}" if folder else relative, self.name)
            operations.append(CommitOperationAdd(path_in_repo=target, path_or_fileobj=str(file)))
        if not operations:
            return  # an empty folder: nothing to store (and the Hub refuses empty commits)
        self._commit(operations, message or f"Upload {folder or 'files'} ({len(operations)} files)",
                     f"upload {source} to {folder or 'the repo root'}")

    def head(self) -> str:
        """The repo's head commit: one cheap call that tells whether anything changed."""
        return self._head()

    def local_folder(self, prefix: str) -> Path:
        """A local copy of the files under `prefix` at the head, kept per head commit.

        Not snapshot_download: it sends a HEAD request per file for every new commit, and
        the requests repo gets a new commit with every claim, so each look at the queue
        would cost a call per request. Here a look costs the head, one tree listing (only
        when the head moved) and a download per file whose content we do not hold yet."""
        folder = clean_path(prefix, self.name, allow_root=True)
        head = self._head()
        mirrors = self.cache_dir / "mirrors"
        done = mirrors / f"{head}-{hashlib.sha1(folder.encode()).hexdigest()[:12]}"
        if not done.is_dir():
            self._mirror(folder, head, done)
            prune(mirrors, keep=MIRRORS_KEPT)
        path = done / folder if folder else done
        if not path.is_dir():
            raise NotFoundError(f"store {self.name!r} (dataset repo {self.repo_id}): nothing stored under {prefix!r}")
        return path

    def version_of(self, data: bytes, folder: Path) -> str:
        """The version `read` gives a file holding `data` in `folder`, a copy local_folder made: the
        head commit of that copy (its folder under mirrors/ is named after it) and the content's ids."""
        copy = Path(folder).resolve().relative_to((self.cache_dir / "mirrors").resolve()).parts[0]
        return file_version(copy.split("-", 1)[0], data)

    def _mirror(self, folder: str, head: str, target: Path) -> None:
        with self._hub(f"list {folder or 'the repo'}"):
            try:
                entries = [e for e in self.api.list_repo_tree(self.repo_id, path_in_repo=folder or None, recursive=True,
                                                              revision=head, repo_type=REPO_TYPE)
                           if isinstance(e, RepoFile) and e.path not in HUB_PLUMBING]
            except EntryNotFoundError:
                entries = []  # no such folder: an empty copy, reported as missing by local_folder
        staging = target.parent / f".tmp-{uuid.uuid4().hex}"
        staging.mkdir(parents=True)
        for entry in entries:
            blob = self._blob(entry, head)
            (staging / entry.path).parent.mkdir(parents=True, exist_ok=True)
            link(blob, staging / entry.path)
        try:
            staging.rename(target)  # whole or not at all: another process may have built it first
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)

    def _blob(self, entry: RepoFile, head: str) -> Path:
        """The local file holding `entry`'s content (downloaded once per content)."""
        blob = self.cache_dir / "blobs" / (entry.lfs.sha256 if entry.lfs is not None else entry.blob_id)
        if not blob.exists():
            with self._hub(f"download {entry.path}"):
                local = self.api.hf_hub_download(self.repo_id, entry.path, repo_type=REPO_TYPE, revision=head,
                                                 cache_dir=self.cache_dir)
            blob.parent.mkdir(parents=True, exist_ok=True)
            link(Path(local).resolve(), blob)
        return blob


def _retry_after(response) -> float | None:
    """How long a 429 or 503 asks to wait: its RateLimit reset, or its Retry-After (seconds)."""
    return wait_seconds(getattr(response, "headers", None))


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__
