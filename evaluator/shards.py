"""Where a store keeps one file per submission: spread over 16 x 16 folders by a hash of the
id, `<folder>/<h>/<h>/<id><suffix>`, since a Hub folder holds at most 10,000 entries (and
lists slowly long before). No folder then holds more than 16 folders, and a leaf 1/256 of
the files. Files written before sharding sit at `<folder>/<id><suffix>`: `flat_path` names
that place, and readers look there when the sharded file is absent
(submissions/stores/sharded.py).

    sharded("logs", "20261126T1200-ab", ".log")   # "logs/3/f/20261126T1200-ab.log"
    flat_path("logs/3/f/20261126T1200-ab.log")    # "logs/20261126T1200-ab.log"
"""

from __future__ import annotations

import hashlib
import re

_SHARD = re.compile(r"(?:(.+)/)?[0-9a-f]/[0-9a-f]/([^/]+)")


def shard(id: str) -> str:
    """The two folder levels of `id`: "3/f"."""
    digest = hashlib.sha256(id.encode()).hexdigest()
    return f"{digest[0]}/{digest[1]}"


def sharded(folder: str, id: str, suffix: str) -> str:
    """The path of submission `id`'s file in `folder` ("" for a store's top level)."""
    return f"{folder}/{shard(id)}/{id}{suffix}" if folder else f"{shard(id)}/{id}{suffix}"


def flat_path(path: str) -> str | None:
    """Where a sharded path's file was stored before sharding; None for a path that is not sharded."""
    match = _SHARD.fullmatch(path)
    if match is None:
        return None
    folder, name = match.groups()
    return f"{folder}/{name}" if folder else name


__all__ = ["flat_path", "shard", "sharded"]
