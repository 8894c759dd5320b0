"""Helpers shared by the importers: reading release files with errors that name the
file and line, and seeded option orders."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any, Iterator

from evaluator.errors import ImportReleaseError


def read_jsonl(path: Path) -> Iterator[tuple[int, dict]]:
    """(line number, record) for each non-empty line; a bad line raises with its number."""
    if not path.is_file():
        raise ImportReleaseError(f"{path}: file not found")
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                raise ImportReleaseError(f"{path}:{n}: not valid JSON ({e.msg})") from None
            if not isinstance(record, dict):
                raise ImportReleaseError(f"{path}:{n}: expected a JSON object")
            yield n, record


def require(record: dict, key: str, kind: type | tuple, where: str) -> Any:
    """record[key], checked for presence and type, else an error naming `where`."""
    if key not in record:
        raise ImportReleaseError(f"{where}: missing field '{key}'")
    value = record[key]
    if not isinstance(value, kind):
        raise ImportReleaseError(f"{where}: field '{key}' has the wrong type ({type(value).__name__})")
    return value


def seeded_permutation(key: str, n: int, seed: int = 0) -> list[int]:
    """A fixed permutation of range(n) for one item: the same for every model and run."""
    digest = hashlib.sha256(f"{seed}:{key}".encode()).digest()
    order = list(range(n))
    random.Random(int.from_bytes(digest[:8], "big")).shuffle(order)
    return order


def find_video(root: Path, name: str, where: str) -> Path:
    """A release's video file, looked up directly and under the usual sub-folders."""
    for candidate in (root / name, root / "videos" / name, root / "data" / name):
        if candidate.is_file():
            return candidate
    raise ImportReleaseError(f"{where}: video file '{name}' not found under {root}")
