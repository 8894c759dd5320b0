"""Helpers shared by the importers and demos: reading release files with errors that
name the file and line, and the suite's secret, from which every arrangement that
depends on an answer is drawn."""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import secrets
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


class Secret:
    """A suite's secret: 32 random bytes made when the suite is built (import or demo),
    kept only in its private answer key (`answers.json`), never published.

    Every arrangement that depends on an answer (an option order, which text is the
    gold, where a cut falls) is drawn from it, each purpose from its own stream
    (HMAC-SHA256 of the purpose), so that public ids, code and files tell nothing:
    with a public seed, anyone could rerun the same shuffle and read the gold off it."""

    def __init__(self, key: bytes):
        if len(key) < 16:
            raise ValueError("a suite secret needs at least 16 bytes")
        self._key = bytes(key)

    @classmethod
    def new(cls) -> Secret:
        return cls(secrets.token_bytes(32))

    @classmethod
    def from_hex(cls, text: str) -> Secret:
        return cls(bytes.fromhex(text))

    def hex(self) -> str:
        return self._key.hex()

    def __repr__(self) -> str:
        return "Secret(<hidden>)"  # never in a log or a traceback

    def rng(self, purpose: str) -> random.Random:
        """An independent random stream for one purpose ("exact:item-7:order", ...)."""
        digest = hmac.new(self._key, purpose.encode(), hashlib.sha256).digest()
        return random.Random(int.from_bytes(digest, "big"))

    def permutation(self, purpose: str, n: int) -> list[int]:
        """A fixed permutation of range(n): the same for every model and run of the suite."""
        order = list(range(n))
        self.rng(purpose).shuffle(order)
        return order


class OpaqueIds:
    """Public ids that say nothing about the release: a short keyed hash (HMAC of the
    suite's secret) of the release's own key, so that re-importing with the same secret
    (`--secret-from`) gives the same ids, and no one without it can tell which release
    item, recording or position an id stands for. Each id is checked unique."""

    def __init__(self, secret: Secret, purpose: str, prefix: str = "", width: int = 12):
        self._secret, self._purpose, self._prefix, self._width = secret, purpose, prefix, width
        self._ids: dict[str, str] = {}
        self._keys: dict[str, str] = {}

    def __call__(self, key: str) -> str:
        if key in self._ids:
            return self._ids[key]
        digest = hmac.new(self._secret._key, f"id:{self._purpose}:{key}".encode(), hashlib.sha256).hexdigest()
        opaque = f"{self._prefix}{digest[:self._width]}"
        if opaque in self._keys:  # 48 bits: never seen in practice, but never silently merged
            raise ImportReleaseError(f"opaque id {opaque} stands for both '{self._keys[opaque]}' and "
                                     f"'{key}'; rebuild with a fresh secret (omit --secret-from)")
        self._ids[key], self._keys[opaque] = opaque, key
        return opaque


def sort_by_id(questions: list, answers: list) -> tuple[list, list]:
    """Questions and answers in the order of their (opaque) ids, so the public suite's
    order does not follow the release's (which would tell the release position)."""
    key = {a.id: a for a in answers}
    questions = sorted(questions, key=lambda q: q.id)
    return questions, [key[q.id] for q in questions]


class MissingVideos:
    """The video files an importer could not find, gathered over the whole release so that
    one error names them all, each with the folders searched."""

    SHOWN = 50  # listed one a line; the rest counted

    def __init__(self) -> None:
        self.missing: list[tuple[str, str, list[Path]]] = []  # (where, file name, folders searched)

    def note(self, where: str, name: str, searched: list[Path]) -> None:
        self.missing.append((where, name, searched))

    def raise_if_any(self) -> None:
        if not self.missing:
            return
        lines = [f"  {where}: '{name}' (looked in {', '.join(str(p) for p in dict.fromkeys(searched))})"
                 for where, name, searched in self.missing[:self.SHOWN]]
        more = len(self.missing) - self.SHOWN
        raise ImportReleaseError(f"{len(self.missing)} video file(s) not found:\n" + "\n".join(lines)
                                 + (f"\n  ... and {more} more" if more > 0 else ""))


def find_video(root: Path, name: str, where: str, missing: MissingVideos | None = None) -> Path | None:
    """A release's video file, looked up directly and under the usual sub-folders. Not found:
    noted in `missing` (None returned), or ImportReleaseError when there is no `missing`."""
    folders = [root, root / "videos", root / "data"]
    for folder in folders:
        if (folder / name).is_file():
            return folder / name
    if missing is None:
        raise ImportReleaseError(f"{where}: video file '{name}' not found under {root}")
    missing.note(where, name, folders)
    return None
