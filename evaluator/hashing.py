"""The one way a file's content is hashed (sha256, hex): prediction files, suite contents,
result provenance all compare these digests, so they must agree byte for byte."""

from __future__ import annotations

import hashlib
from pathlib import Path


def file_sha256(path: Path) -> str:
    """The file's sha256 in hex, read in 1 MiB chunks (a prediction file or a video can be large)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


__all__ = ["file_sha256"]
