"""Where requests live in the requests store: one file each, `<h>/<h>/<id>.json`, spread over
16 x 16 folders by a hash of the id (submissions/requests.py: request_path), since a Hub
folder holds at most 10,000 entries. A request stored at the top level, `<id>.json`, before
requests were sharded is read, and changed, where it is.

    path, found = read_request(store, id)   # found: Versioned or None
    requests = read_all(store)              # every request, oldest first
"""

from __future__ import annotations

import logging

from submissions.errors import NotFoundError
from submissions.requests import Request, request_path
from submissions.stores.base import Store, Versioned
from submissions.stores.sharded import read_sharded

log = logging.getLogger(__name__)

SHARD_GLOB = "[0-9a-f]/[0-9a-f]/*.json"  # the shard folders, not admission/ or anything else


def request_file(id: str) -> str:
    """The path of request `id`; NotFoundError for what cannot be an id."""
    # ids are file names: anything else cannot name a request (and must not reach the store as a path)
    if not id or "/" in id or "\\" in id or id.startswith("."):
        raise NotFoundError(f"{id!r} is not a submission id")
    return request_path(id)


def read_request(store: Store, id: str) -> tuple[str, Versioned | None]:
    """(the request's path, what is stored there): its shard, or the top level for a
    request stored there before sharding."""
    return read_sharded(store, request_file(id))


def read_all(store: Store) -> list[Request]:
    """Every request, oldest first. A file that cannot be parsed is skipped with a warning
    naming it: one bad file must not stop the whole queue.

    Read from one snapshot of the store (`local_folder`): on the Hub that is one snapshot
    download fetching only the files that changed, where a `read` per file would cost two
    requests each. Nothing is decided on this view alone: every change re-reads its file
    and compares-and-swaps."""
    try:
        folder = store.local_folder("")
    except NotFoundError:
        return []  # nothing was ever stored
    requests = []
    for file in sorted([*folder.glob(SHARD_GLOB), *folder.glob("*.json")]):
        try:
            requests.append(Request.from_bytes(file.read_bytes()))
        except FileNotFoundError:
            continue  # deleted between listing and reading
        except ValueError as e:
            log.warning("skipping unreadable request file %s in the %s store: %s", file.name, store.name, e)
    return sorted(requests, key=lambda r: (r.submitted_at, r.id))


__all__ = ["SHARD_GLOB", "read_all", "read_request", "request_file"]
