"""Where requests live in the requests store: one file each, `<h>/<h>/<id>.json`, spread over
16 x 16 folders by a hash of the id (submissions/requests.py: request_path), since a Hub
folder holds at most 10,000 entries. A request stored at the top level, `<id>.json`, before
requests were sharded is read, and changed, where it is. A finished request moved to the
archive (submissions/archive.py) is at `archive/<yyyy-mm>/<h>/<h>/<id>.json`, the month its id
was made in (`archive/undated/...` for an id that does not start with its time).

    path, found = read_request(store, id)   # found: Versioned or None; the archive too
    requests = read_all(store)              # every request, archived ones too, oldest first
    requests = read_live(store)             # the requests not archived: all that may still change by itself
    write_request(store, path, expected, request, message)   # a change, where `read_request` found it

A request moves between the live shards and the archive in one step of the store that adds
it at its new place before it leaves the old one (Store.write_files with `delete`). So it is
always in one place at least, and a reader that looks in both may see it in both (on a local
store, as a move happens, or after a writer was killed in between): the live copy then counts.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from pathlib import Path

from evaluator.shards import sharded
from submissions.errors import NotFoundError
from submissions.requests import Request, Status, request_path
from submissions.stores.base import Store, Versioned
from submissions.stores.sharded import read_sharded

log = logging.getLogger(__name__)

SHARD_GLOB = "[0-9a-f]/[0-9a-f]/*.json"  # the shard folders, not admission/ or anything else
ARCHIVE = "archive"
ARCHIVE_GLOB = f"{ARCHIVE}/*/{SHARD_GLOB}"
FINAL = frozenset({Status.FINISHED, Status.FAILED, Status.CANCELLED})  # nothing changes these by itself
_ID_MONTH = re.compile(r"(\d{4})(0[1-9]|1[0-2])\d{2}T")  # new_id(): "20261126T120000-..."


def request_file(id: str) -> str:
    """The path of request `id`; NotFoundError for what cannot be an id."""
    # ids are file names: anything else cannot name a request (and must not reach the store as a path)
    if not id or "/" in id or "\\" in id or id.startswith("."):
        raise NotFoundError(f"{id!r} is not a submission id")
    return request_path(id)


def archive_path(id: str) -> str:
    """Where request `id` is kept once archived: `archive/<yyyy-mm>/<h>/<h>/<id>.json`, the month
    of its id (made when it was submitted), so reading it by id needs no search."""
    month = _ID_MONTH.match(id)
    return sharded(f"{ARCHIVE}/{month[1]}-{month[2]}" if month else f"{ARCHIVE}/undated", id, ".json")


def is_archived(path: str) -> bool:
    return path.startswith(ARCHIVE + "/")


def read_request(store: Store, id: str) -> tuple[str, Versioned | None]:
    """(the request's path, what is stored there): its shard, the top level for a request
    stored there before sharding, or the archive; (its shard, None) when none holds it.
    A request moved while we look is found by the next look: live, archive, live again."""
    path = request_file(id)
    where, found = read_sharded(store, path)
    if found is None:
        where, found = archive_path(id), store.read(archive_path(id))
    if found is None:
        where, found = read_sharded(store, path)
    return (where, found) if found is not None else (path, None)


def write_request(store: Store, path: str, expected: str, request: Request, message: str) -> None:
    """Write a changed request over the copy read at `path` (version `expected`): where it is,
    except that an archived request that is live work again (a rerun, a requeue) moves back to
    its shard in the same step, where workers look for work. ConflictError as write_if."""
    if not is_archived(path) or request.status in FINAL:
        store.write_if(path, request.to_bytes(), expected, message=message)
        return
    store.write_files({request.path: request.to_bytes()}, {path: expected, request.path: None},
                      message=f"{message} (back from the archive)", delete=[path])


def read_live(store: Store) -> list[Request]:
    """The requests not archived, oldest first: every PENDING and RUNNING one, and finished ones
    until they are archived. What a worker looks for work in; reads no archived file."""
    folder = _snapshot(store)
    return _oldest_first(_parse(store, _live_files(folder)).values()) if folder else []


def read_all(store: Store) -> list[Request]:
    """Every request, archived ones too, oldest first; a request found both live and archived
    counts once, as its live copy. A file that cannot be parsed is skipped with a warning
    naming it: one bad file must not stop the whole queue.

    Read from one snapshot of the store (`local_folder`): on the Hub that is one snapshot
    download fetching only the files that changed, where a `read` per file would cost two
    requests each. Nothing is decided on this view alone: every change re-reads its file
    and compares-and-swaps. A local folder changes while it is read, so the live files are
    looked at again after the archive: a request moved either way meanwhile is seen."""
    folder = _snapshot(store)
    if folder is None:
        return []
    live = _parse(store, _live_files(folder))
    archived = _parse(store, folder.glob(ARCHIVE_GLOB))
    later = _parse(store, [f for f in _live_files(folder) if f.stem not in live])
    return _oldest_first((archived | live | later).values())


def _snapshot(store: Store) -> Path | None:
    try:
        return store.local_folder("")
    except NotFoundError:
        return None  # nothing was ever stored


def _live_files(folder: Path) -> list[Path]:
    return sorted([*folder.glob(SHARD_GLOB), *folder.glob("*.json")])


def _parse(store: Store, files: Iterable[Path]) -> dict[str, Request]:
    found = {}
    for file in files:
        try:
            request = Request.from_bytes(file.read_bytes())
        except FileNotFoundError:
            continue  # moved or deleted between listing and reading
        except ValueError as e:
            log.warning("skipping unreadable request file %s in the %s store: %s", file.name, store.name, e)
            continue
        found[request.id] = request
    return found


def _oldest_first(requests: Iterable[Request]) -> list[Request]:
    return sorted(requests, key=lambda r: (r.submitted_at, r.id))


__all__ = ["ARCHIVE", "ARCHIVE_GLOB", "FINAL", "SHARD_GLOB", "archive_path", "is_archived", "read_all", "read_live",
           "read_request", "request_file", "write_request"]
