"""Reading a per-submission file at its sharded path (evaluator/shards.py), or where it was
stored before sharding: files written then stay, and are read (and changed) where they are.

    path, found = read_sharded(store, paired_path(id))   # found: Versioned or None
"""

from __future__ import annotations

from evaluator.shards import flat_path
from submissions.stores.base import Store, Versioned


def read_sharded(store: Store, path: str) -> tuple[str, Versioned | None]:
    """(where the file is, what is stored there): `path`, or its place before sharding when
    only that holds it; (`path`, None) when neither does."""
    found = store.read(path)
    flat = flat_path(path) if found is None else None
    if flat is not None:
        legacy = store.read(flat)
        if legacy is not None:
            return flat, legacy
    return path, found


__all__ = ["read_sharded"]
