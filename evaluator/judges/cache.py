"""A persistent cache of judgements, so that re-scoring never calls a judge twice.

One sqlite3 file (stdlib only). A judgement is keyed by the sha256 of the judge's
id and the request's texts, so a new judge version or a changed prompt gets new
keys instead of stale answers. UNPARSEABLE judgements are cached like the others:
re-scoring then gives the same numbers instead of re-rolling the judge.

Several processes may share one file: WAL mode lets readers run while one writes,
each write is one transaction, and a connection waits up to 60 s for a lock.
A connection is opened per call, so an instance may be used after fork.
"""

from __future__ import annotations

import hashlib
import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Sequence

from evaluator.judges.base import SCHEMA_VERSION, Judge, Judgement, JudgeRequest

_CHUNK = 500  # keys per SELECT, well under sqlite's limit on bound parameters


def request_key(judge_id: str, request: JudgeRequest) -> str:
    """sha256 of judge id, task, question, gold, prediction and (when shown) the frames,
    NUL-separated."""
    parts = (judge_id, request.task, request.question, request.gold, request.prediction, *request.frames)
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()


class JudgementCache:
    """Judgements stored in a sqlite file at `path` (created with its folder if missing)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as con:
            con.execute("PRAGMA journal_mode=WAL")  # a property of the file: set once, kept
            con.execute(
                "CREATE TABLE IF NOT EXISTS judgements ("
                " key TEXT PRIMARY KEY, judge_id TEXT NOT NULL, label TEXT NOT NULL,"
                " raw TEXT, schema_version INTEGER NOT NULL)"
            )

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        con = sqlite3.connect(self.path, timeout=60)
        try:
            with con:  # one transaction: commit on success, roll back on error
                yield con
        finally:
            con.close()

    def get_many(self, judge_id: str, requests: Sequence[JudgeRequest]) -> dict[int, Judgement]:
        """The cached judgements, by index into `requests`; misses are absent."""
        keys = [request_key(judge_id, r) for r in requests]
        rows: dict[str, Judgement] = {}
        with self._connect() as con:
            unique = list(dict.fromkeys(keys))
            for start in range(0, len(unique), _CHUNK):
                chunk = unique[start:start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                for key, jid, label, raw in con.execute(
                    f"SELECT key, judge_id, label, raw FROM judgements WHERE key IN ({marks})", chunk
                ):
                    rows[key] = Judgement(label, jid, raw)
        return {i: rows[k] for i, k in enumerate(keys) if k in rows}

    def put_many(self, judge_id: str, requests: Sequence[JudgeRequest],
                 judgements: Sequence[Judgement]) -> None:
        """Store one judgement per request, all in one transaction (last write wins)."""
        if len(requests) != len(judgements):
            raise ValueError(f"{len(requests)} requests but {len(judgements)} judgements")
        rows = [
            (request_key(judge_id, r), j.judge_id, j.label, j.raw, SCHEMA_VERSION)
            for r, j in zip(requests, judgements)
        ]
        with self._connect() as con:
            con.executemany(
                "INSERT OR REPLACE INTO judgements (key, judge_id, label, raw, schema_version)"
                " VALUES (?, ?, ?, ?, ?)", rows
            )

    def __len__(self) -> int:
        with self._connect() as con:
            return con.execute("SELECT COUNT(*) FROM judgements").fetchone()[0]


class CachedJudge:
    """A Judge that answers from the cache and sends only the misses, once each, to `inner`.

    Keys use the inner judge's judge_id plus its `config_digest` when it has one
    (LLMJudge: a hash of its prompt files and generation settings).
    `stats` counts, over the life of the object, requests served from the cache
    ("cached") and distinct requests sent to the inner judge ("judged").
    """

    def __init__(self, inner: Judge, cache: JudgementCache):
        self.inner = inner
        self.cache = cache
        self.judge_id = inner.judge_id
        self.kind = inner.kind
        digest = getattr(inner, "config_digest", None)
        self.cache_id = f"{inner.judge_id}#{digest}" if digest else inner.judge_id
        self.stats = {"cached": 0, "judged": 0}

    def judge(self, requests: Sequence[JudgeRequest]) -> list[Judgement]:
        requests = list(requests)
        found = self.cache.get_many(self.cache_id, requests)
        # Distinct misses, in first-seen order (requests are frozen dataclasses, so hashable).
        misses = list(dict.fromkeys(r for i, r in enumerate(requests) if i not in found))
        fresh: dict[JudgeRequest, Judgement] = {}
        if misses:
            judged = self.inner.judge(misses)
            if len(judged) != len(misses):
                raise RuntimeError(
                    f"judge {self.judge_id} returned {len(judged)} judgements for {len(misses)} requests"
                )
            self.cache.put_many(self.cache_id, misses, judged)
            fresh = dict(zip(misses, judged))
        self.stats["cached"] += len(found)
        self.stats["judged"] += len(misses)
        return [found[i] if i in found else fresh[r] for i, r in enumerate(requests)]
