"""A store kept in a local folder: the embedded default.

Every file lives at `root/<path>`. The store's own bookkeeping lives in `root/.store/`
(a lock file and temporary files), which `list` never shows and no path may name.

- Writes are atomic: the bytes go to a temporary file in `.store/tmp/`, are flushed to
  disk, then `os.replace`d over the target, so a reader sees the old file or the new one,
  never half of one, even if the writer is killed.
- The version of a file is the sha256 of its bytes.
- `write_if` and `write_files` compare and swap under an exclusive `fcntl.flock` on
  `.store/lock`, which every write and delete also takes: the check and the swap cannot
  interleave with another writer, in this process or any other on the machine. Several
  files written together are installed one after another under that lock, in the
  order given: a reader (who takes no lock) sees the last one only after the others,
  and the files `write_files` deletes go after them (a moved file is never in neither place;
  a writer killed in between leaves it in both, which readers of moved files allow for).

The swap is strict: a stale `expected` is a conflict even when the new bytes equal the
stored ones (two writers that both read 5 and both write 6 must not both succeed).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator, Mapping

from submissions.errors import ConflictError, NotFoundError, StoreError
from submissions.stores.base import PUBLIC, Versioned

INTERNAL = ".store"  # the store's own folder inside root: lock file and temporary files


def content_version(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def clean_path(path: str, store: str, *, allow_root: bool = False) -> str:
    """`path` as a normalised relative POSIX path, or StoreError if it could leave the store.

    Shared with the Hub store so both backends accept exactly the same paths."""
    raw = str(path).replace("\\", "/")
    parts = [p for p in raw.split("/") if p not in ("", ".")]
    if raw.startswith("/"):
        raise StoreError(f"store {store!r}: path {path!r} is absolute; store paths are relative to the store")
    if ".." in parts:
        raise StoreError(f"store {store!r}: path {path!r} contains '..'; a path may not leave the store")
    if not parts and not allow_root:
        raise StoreError(f"store {store!r}: empty path; name a file inside the store")
    if parts and parts[0] == INTERNAL:
        raise StoreError(f"store {store!r}: path {path!r} is inside {INTERNAL}/, which the store keeps for itself")
    return "/".join(parts)


class LocalStore:
    def __init__(self, root: Path, name: str):
        self.root = Path(root)
        self.name = name
        self._internal = self.root / INTERNAL
        self._tmp = self._internal / "tmp"
        self._tmp.mkdir(parents=True, exist_ok=True)
        self._lock_path = self._internal / "lock"
        self._lock_path.touch(exist_ok=True)
        self._sweep_staging()
        # answers and private files stay readable by their owner only
        self._mode = 0o644 if PUBLIC.get(name, False) else 0o600

    def __repr__(self) -> str:
        return f"LocalStore({str(self.root)!r}, {self.name!r})"

    def _sweep_staging(self, older_than: float = 3600.0) -> None:
        """Remove temporary files left by writers killed before they finished (old enough
        that no live writer can still be filling them)."""
        cutoff = time.time() - older_than
        for leftover in self._tmp.iterdir():
            try:
                if leftover.stat().st_mtime < cutoff:
                    leftover.unlink()
            except FileNotFoundError:
                pass  # another process swept it first

    # -- paths and locking ------------------------------------------------------------

    def _file(self, path: str) -> Path:
        return self.root / clean_path(path, self.name)

    @contextmanager
    def _locked(self) -> Iterator[None]:
        # A fresh open file per call: flock locks belong to the open file, so two
        # threads of one process exclude each other exactly like two processes do.
        with open(self._lock_path, "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _stage(self, fill) -> Path:
        """A temporary file in .store/tmp/ (same file system as root, so os.replace is
        atomic), filled by `fill(handle)` and flushed to disk."""
        fd, name = tempfile.mkstemp(dir=self._tmp, prefix="stage-")
        try:
            with os.fdopen(fd, "wb") as handle:
                fill(handle)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(name, self._mode)
        except BaseException:
            Path(name).unlink(missing_ok=True)
            raise
        return Path(name)

    def _install(self, staged: Path, target: Path) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.replace(staged, target)
        except BaseException:
            staged.unlink(missing_ok=True)
            raise
        # the rename itself survives a crash only once its folder is flushed
        dir_fd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)

    def _current(self, target: Path) -> bytes | None:
        try:
            return target.read_bytes()
        except FileNotFoundError:
            return None
        except IsADirectoryError:
            raise StoreError(f"store {self.name!r}: {target} is a folder, not a file") from None

    # -- the Store interface ----------------------------------------------------------

    def read(self, path: str) -> Versioned | None:
        data = self._current(self._file(path))
        return None if data is None else Versioned(data, content_version(data))

    def write(self, path: str, data: bytes, message: str = "") -> str:
        return self.write_files({path: data}, message=message)[path]

    def write_if(self, path: str, data: bytes, expected: str | None, message: str = "") -> str:
        return self.write_files({path: data}, {path: expected}, message)[path]

    def write_files(self, files: Mapping[str, bytes], expected: Mapping[str, str | None] | None = None,
                    message: str = "", delete: Iterable[str] = ()) -> dict[str, str]:
        expected = dict(expected or {})
        targets = {path: self._file(path) for path in files}
        checked = {path: self._file(path) for path in expected}
        doomed = [self._file(path) for path in delete]
        staged: dict[str, Path] = {}
        try:
            for path, data in files.items():
                staged[path] = self._stage(lambda handle, data=data: handle.write(data))
            with self._locked():
                for path, target in checked.items():
                    current = self._current(target)
                    found = None if current is None else content_version(current)
                    if found != expected[path]:
                        raise ConflictError(_conflict_message(self.name, path, expected[path], found))
                for path, target in targets.items():
                    self._install(staged[path], target)
                for target in doomed:  # after the installs: to a reader that takes no lock, a moved file
                    target.unlink(missing_ok=True)  # is never missing from both places
        finally:
            for leftover in staged.values():
                leftover.unlink(missing_ok=True)  # still there if nothing was installed
        return {path: content_version(data) for path, data in files.items()}

    def list(self, prefix: str = "") -> list[str]:
        folder = clean_path(prefix, self.name, allow_root=True)
        base = self.root / folder if folder else self.root
        if not base.is_dir():
            return []
        found = []
        for file in base.rglob("*"):
            relative = file.relative_to(self.root).as_posix()
            if relative.split("/")[0] != INTERNAL and file.is_file():
                found.append(relative)
        return sorted(found)

    def delete(self, path: str, message: str = "") -> None:
        target = self._file(path)
        with self._locked():
            target.unlink(missing_ok=True)

    def upload_file(self, path: str, local: Path, message: str = "") -> None:
        target = self._file(path)
        source = Path(local)
        if not source.is_file():
            raise NotFoundError(f"store {self.name!r}: cannot upload {source}: no such file")
        with open(source, "rb") as src:
            staged = self._stage(lambda handle: shutil.copyfileobj(src, handle, 1 << 20))
        with self._locked():
            self._install(staged, target)

    def upload_folder(self, prefix: str, local: Path, message: str = "") -> None:
        folder = clean_path(prefix, self.name, allow_root=True)
        source = Path(local)
        if not source.is_dir():
            raise NotFoundError(f"store {self.name!r}: cannot upload {source}: no such folder")
        for file in sorted(p for p in source.rglob("*") if p.is_file()):
            relative = file.relative_to(source).as_posix()
            self.upload_file(f"{folder}/{relative}" if folder else relative, file, message)

    def head(self) -> str | None:
        return None  # looking at a folder is as cheap as any token that would summarise it

    def local_folder(self, prefix: str) -> Path:
        folder = clean_path(prefix, self.name, allow_root=True)
        path = self.root / folder if folder else self.root
        if not path.is_dir():
            raise NotFoundError(f"store {self.name!r}: nothing stored under {prefix!r} (no folder {path})")
        return path

    def version_of(self, data: bytes, folder: Path) -> str:
        return content_version(data)  # a file's version is its content's hash, wherever it was read


def _conflict_message(store: str, path: str, expected: str | None, found: str | None) -> str:
    if expected is None:
        return f"store {store!r}: {path} already exists; it was to be created only if absent"
    if found is None:
        return f"store {store!r}: {path} was deleted since it was read; re-read and retry"
    return f"store {store!r}: {path} changed since it was read; re-read and retry"
