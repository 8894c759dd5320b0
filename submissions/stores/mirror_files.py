"""Files of the local copies of a Hub store (HubStore.local_folder): placed atomically, old copies pruned."""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path


def link(source: Path, target: Path) -> None:
    """`target` becomes `source`'s content, atomically (a hard link where possible)."""
    temporary = target.with_name(f".{target.name}.{uuid.uuid4().hex}")
    try:
        os.link(source, temporary)
    except OSError:
        shutil.copyfile(source, temporary)
    os.replace(temporary, target)


def prune(mirrors: Path, keep: int) -> None:
    """Drop all but the newest `keep` copies (readers of an old one skip vanished files)."""
    def age(path: Path) -> float:
        try:
            return path.stat().st_mtime
        except FileNotFoundError:  # pruned by another process meanwhile
            return 0.0

    copies = sorted((p for p in mirrors.iterdir() if not p.name.startswith(".")), key=age)
    for old in copies[:-keep]:
        shutil.rmtree(old, ignore_errors=True)
