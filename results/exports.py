"""Open exports: a versioned snapshot of the leaderboard, per suite, as JSON and Parquet.

The worker writes them into the results store in the same step (one commit on the Hub)
as the aggregated table they come from (results/aggregate.py `_swap`), so a snapshot
is never behind the table and costs no commit of its own:

    exports/index.json                       the pointer: every suite's latest snapshot,
                                             its version, row count and file names
    exports/leaderboard-<suite id>.json      {header..., "results": [record, ...]}
    exports/leaderboard-<suite id>.parquet   the suite's rows of the flat table (columns as
                                             in leaderboard.parquet), header in the file's
                                             key-value metadata under `leaderboard.export`

    files = snapshot_files(table, suite_id, minimum, updated_at)  # {path: bytes}, json + parquet
    header, table = read_json(data)        # the flat table again, from the JSON document
    header, table = read_parquet(data)

A JSON record is one result: the table's non-score columns (id, model, submitter,
suite_id, judge_id, code_version, runner.*, meta.*, average ...) plus `scores` (the
result's scores, nested: `scores[benchmark][metric]`) and `counts` (calls and answered
calls per benchmark, integers). The flat score columns and `scores_json` are derived from
those two, exactly as the table derives them, which is how `read_json` rebuilds the table.

Each row carries the `rank` and `band` the Leaderboard gives it (results/ranking.py,
the same code; null for a row it does not rank, one off the reference protocol): the first
two columns of the flat table, two keys of a record. Rows come by rank, equal ranks in the
Leaderboard's order, then the unranked rows in the Leaderboard's order. Ranks count within
one judge, as on the site.

What a snapshot never holds: an answer, a call id or any per-item outcome. It is made
only from the aggregated table, whose rows are the public form of each result; small
breakdown buckets are hidden again here at `minimum` (results/disclosure.py), so an
export is never more detailed than the site.

Versions: `schema_version` is this file format's; `table_version` is a hash of the
snapshot's records (it changes exactly when the suite's rows do); `table_updated_at` is
the table's own stamp. Earlier snapshots are the results repo's history on the Hub.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pydantic import BaseModel

from evaluator import CODE_VERSION
from evaluator.benchmarks import ORDER
from results import disclosure, number_format, ranking, table_format
from results.errors import ExportError

EXPORT_SCHEMA_VERSION = 2  # 2: each row's rank and band, rows in the Leaderboard's order; integer counts
FOLDER = "exports"
INDEX_PATH = f"{FOLDER}/index.json"
HEADER_KEY = b"leaderboard.export"  # parquet key-value metadata: the snapshot header (JSON)
INDEX_KEY = table_format.EXPORTS_KEY  # the aggregated table's metadata: the index entries (JSON)
SCORES, COUNTS = "scores", "counts"  # the record keys that replace the flat score columns
STANDING = ("rank", "band")  # each row's place on the Leaderboard (results/ranking.py), first columns
_SAFE_SUITE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


class SnapshotHeader(BaseModel):
    """What a snapshot says about itself (the JSON document's top-level keys but `results`)."""

    schema_version: int = EXPORT_SCHEMA_VERSION
    suite_id: str
    table_version: str  # "sha256:<16 hex>" of the records
    table_updated_at: str | None  # when the aggregated table was written (ISO 8601, UTC)
    code_version: str  # of the code that wrote this snapshot; each row has its own
    judges: list[str]  # judge ids among the rows: never rank across two of them
    min_bucket_items: int  # breakdown buckets with fewer items carry no score
    rows: int
    suppressed_here: int = 0  # rows published under a lower minimum, made public for this snapshot
    columns: list[tuple[str, str]]  # the flat table's columns, in order: [name, arrow type]


class IndexEntry(BaseModel):
    suite_id: str
    schema_version: int = 1  # of the snapshot's files (an entry written before versions were listed: 1)
    table_version: str
    table_updated_at: str | None
    rows: int
    min_bucket_items: int
    suppressed_here: int = 0
    json_path: str
    parquet_path: str


class ExportIndex(BaseModel):
    schema_version: int = EXPORT_SCHEMA_VERSION
    code_version: str
    table_updated_at: str | None
    suites: list[IndexEntry]


# -- names ---------------------------------------------------------------------------------

def check_suite_id(suite_id: str) -> str:
    if not isinstance(suite_id, str) or not _SAFE_SUITE.match(suite_id):
        raise ExportError(f"{suite_id!r} is not a suite id: letters, digits, '.', '_' and '-' only "
                          f"(e.g. demo-v1-9dd6550cef2c)")
    return suite_id


def json_path(suite_id: str) -> str:
    return f"{FOLDER}/leaderboard-{check_suite_id(suite_id)}.json"


def parquet_path(suite_id: str) -> str:
    return f"{FOLDER}/leaderboard-{check_suite_id(suite_id)}.parquet"


# -- building ---------------------------------------------------------------------------------

def _benchmarks(columns: list[str]) -> set[str]:
    """Every benchmark with columns in the table: each has `<name>.overall`."""
    return set(ORDER) | {c.removesuffix(".overall") for c in columns if c.endswith(".overall")}


def _is_score_column(column: str, benchmarks: set[str]) -> bool:
    return column == "scores_json" or column.split(".", 1)[0] in benchmarks


_COUNT_COLUMNS = (("calls", "n_calls"), ("answered", "n_answered"), ("judge_unscored", "judge_unscored"))


class _Records:
    """One suite's rows as JSON records. Each record is encoded once; a row's scores go in
    as the table's own `scores_json` text (already JSON: no decoding, no re-encoding)
    unless the row had to be made public here (`fixed`)."""

    def __init__(self, table: pa.Table, minimum: int, check: set[str] | None):
        columns = table.column_names
        benchmarks = _benchmarks(columns)
        self.metas = table.select([c for c in columns if not _is_score_column(c, benchmarks)]).to_pylist()
        ids = table[table_format.ID].to_pylist()
        texts = table["scores_json"].to_pylist() if "scores_json" in columns else [None] * len(ids)
        # the counts a row's columns keep: calls, answered and (judged benchmarks) judge_unscored
        tally = {name: {key: table[f"{name}.{column}"].to_pylist() for key, column in _COUNT_COLUMNS
                        if f"{name}.{column}" in columns}
                 for name in sorted(benchmarks) if f"{name}.n_calls" in columns and f"{name}.n_answered" in columns}
        self.counts = [{name: {key: number_format.whole(values[i]) for key, values in kept.items()
                               if key in ("calls", "answered") or values[i] is not None}
                        for name, kept in tally.items()
                        if kept["calls"][i] is not None or kept["answered"][i] is not None} for i in range(len(ids))]
        self.fixed: dict[int, dict] = {}  # row position -> its scores, suppressed here
        self.encoded: list[bytes] = []
        for i, text in enumerate(texts):
            text = text or "{}"
            if check is None or ids[i] in check:
                scores = json.loads(text)
                if disclosure.exposed(scores, minimum):  # published under a lower minimum
                    self.fixed[i] = disclosure.suppress(scores, minimum)
                    text = json.dumps(self.fixed[i], sort_keys=True)
            head = _canonical({**self.metas[i], COUNTS: self.counts[i]})
            self.encoded.append(head[:-1] + f',"{SCORES}":'.encode() + text.encode() + b"}")

    def body(self) -> bytes:
        return b"[" + b",".join(self.encoded) + b"]"

    def record(self, i: int, scores: dict) -> dict[str, Any]:
        return {**self.metas[i], SCORES: scores, COUNTS: self.counts[i]}


def flat_row(record: dict[str, Any]) -> dict[str, Any]:
    """A record as a row of the flat table: the score columns derived the table's way."""
    row = {k: v for k, v in record.items() if k not in (SCORES, COUNTS)}
    scores, counts = record.get(SCORES) or {}, record.get(COUNTS) or {}
    for name, metrics in scores.items():
        row.update(table_format.benchmark_columns(name, metrics, counts.get(name) or {}))
    row["scores_json"] = json.dumps(scores, sort_keys=True)
    return row


def _schema(base: pa.Schema, rows: list[dict[str, Any]]) -> pa.Schema:
    """`base` (the table's), plus columns that hiding a bucket added (`<bench>.suppressed`)."""
    fields = list(base)
    known = set(base.names)
    for name in dict.fromkeys(k for row in rows for k in row):
        if name not in known:
            fields.append(pa.field(name, table_format.typed_column([row.get(name) for row in rows]).type))
    return pa.schema(fields)


def _flat_table(rows: list[dict[str, Any]], schema: pa.Schema) -> pa.Table:
    table = pa.Table.from_pylist(rows, schema=schema) if rows else schema.empty_table()
    return _standing_first(_rows_in(table_format.tidy(table), [row[table_format.ID] for row in rows]))


def _rows_in(table: pa.Table, ids: list[str]) -> pa.Table:
    """`table`'s rows (tidied: by id) in the order of `ids`."""
    if not len(table):
        return table
    return table.take(pc.index_in(pa.array(ids, pa.string()), value_set=table[table_format.ID]))


def _standing_first(table: pa.Table) -> pa.Table:
    return table.select([*(c for c in STANDING if c in table.column_names),
                         *(c for c in table.column_names if c not in STANDING)])


def _standing(part: pa.Table) -> pa.Table:
    """A suite's tidied rows by rank, each with the rank and band the Leaderboard gives it;
    equal ranks, and then the rows it does not rank (null: off the reference protocol), in
    the Leaderboard's order."""
    frame = part.select(ranking.reads(part.column_names)).to_pandas()
    placed = ranking.ranked(frame) if len(frame) else frame.assign(id=[], rank=[], band=[])
    placed = placed.sort_values("rank", na_position="last", kind="stable")  # ranked rows first, by rank
    part = _rows_in(part.drop_columns([c for c in STANDING if c in part.column_names]),
                    [str(v) for v in placed[table_format.ID]])
    for name in STANDING:  # in the rows' new order
        part = part.append_column(name, pa.array([None if pd.isna(v) else number_format.whole(v)
                                                  for v in placed[name]], pa.int64()))
    return _standing_first(part)


def suite_rows(table: pa.Table, suite_id: str) -> pa.Table:
    if "suite_id" not in table.column_names or table["suite_id"].type != pa.string():
        return table.slice(0, 0)  # no row has a suite (an empty table's columns are untyped)
    return table.filter(pc.equal(table["suite_id"], suite_id))


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def build(table: pa.Table, suite_id: str, minimum: int, updated_at: str | None, check: set[str] | None = None
          ) -> tuple[SnapshotHeader, bytes, pa.Table]:
    """One suite's snapshot from the aggregated table: its header, its records as one JSON
    array, and its flat table. Rows in `check` (None: every row) with a bucket of fewer
    than `minimum` items still showing a score are made public here; rows not checked
    were found public when they were exported before."""
    check_suite_id(suite_id)
    part = _standing(table_format.tidy(suite_rows(table.replace_schema_metadata(None), suite_id)))
    recs = _Records(part, minimum, check)
    flat = part
    if recs.fixed:  # those rows' score columns derived again from their public scores, the table's way
        rows = part.to_pylist()
        for i, scores in recs.fixed.items():
            rows[i] = flat_row(recs.record(i, scores))
        flat = _flat_table(rows, _schema(part.schema, rows))
    body = recs.body()
    header = SnapshotHeader(
        suite_id=suite_id, table_version="sha256:" + hashlib.sha256(body).hexdigest()[:16],
        table_updated_at=updated_at, code_version=CODE_VERSION,
        judges=sorted({str(j) for j in part["judge_id"].to_pylist() if j}) if "judge_id" in part.column_names
        else [], min_bucket_items=minimum, rows=len(part), suppressed_here=len(recs.fixed),
        columns=[(f.name, str(f.type)) for f in flat.schema])
    return header, body, flat


def encode_json(header: SnapshotHeader, body: bytes) -> bytes:
    """The JSON document: the header's keys, then `results` (the records, encoded once)."""
    return _canonical(header.model_dump())[:-1] + b',"results":' + body + b"}"


def encode_parquet(header: SnapshotHeader, flat: pa.Table) -> bytes:
    buffer = io.BytesIO()
    pq.write_table(flat.replace_schema_metadata({HEADER_KEY: header.model_dump_json().encode()}), buffer,
                   compression="zstd")
    return buffer.getvalue()


def snapshot_files(table: pa.Table, suite_id: str, minimum: int, updated_at: str | None,
                   check: set[str] | None = None) -> tuple[SnapshotHeader, dict[str, bytes]]:
    """The two files of one suite's snapshot, by their paths in the results store."""
    header, body, flat = build(table, suite_id, minimum, updated_at, check)
    return header, {json_path(suite_id): encode_json(header, body),
                    parquet_path(suite_id): encode_parquet(header, flat)}


# -- reading ------------------------------------------------------------------------------------

def read_json(data: bytes) -> tuple[SnapshotHeader, pa.Table]:
    """A JSON snapshot as its header and the flat table (columns typed as the header says)."""
    try:
        document = json.loads(data)
        header = SnapshotHeader.model_validate({k: v for k, v in document.items() if k != "results"})
        recs = document["results"]
    except (ValueError, KeyError, TypeError) as e:
        raise ExportError(f"not a leaderboard snapshot (JSON): {e}") from e
    if header.schema_version != EXPORT_SCHEMA_VERSION:
        raise ExportError(f"snapshot schema version {header.schema_version}; this code reads {EXPORT_SCHEMA_VERSION}")
    schema = pa.schema([(name, pa.type_for_alias(kind)) for name, kind in header.columns])
    rows = [flat_row(r) for r in recs]
    return header, pa.Table.from_pylist(rows, schema=schema) if rows else schema.empty_table()


def read_parquet(data: bytes) -> tuple[SnapshotHeader, pa.Table]:
    table = pq.ParquetFile(pa.BufferReader(data)).read()
    raw = (table.schema.metadata or {}).get(HEADER_KEY)
    if raw is None:
        raise ExportError("not a leaderboard snapshot (Parquet): no leaderboard.export metadata")
    return SnapshotHeader.model_validate_json(raw), table.replace_schema_metadata(None)


# -- the index, kept in the aggregated table's metadata -----------------------------------------

def _entries(table: pa.Table | None) -> dict[str, IndexEntry]:
    raw = ((table.schema.metadata or {}) if table is not None else {}).get(INDEX_KEY)
    if not raw:
        return {}
    try:
        return {e["suite_id"]: IndexEntry.model_validate(e) for e in json.loads(raw)}
    except (ValueError, KeyError, TypeError):
        return {}  # unreadable: every suite is written again


def _current(entries: dict[str, IndexEntry]) -> dict[str, IndexEntry]:
    """The entries whose files are in this code's format."""
    return {s: e for s, e in entries.items() if e.schema_version == EXPORT_SCHEMA_VERSION}


def is_current(index: ExportIndex, suite_id: str) -> bool:
    """Whether the index lists this suite's files, written in this code's format."""
    return any(e.suite_id == suite_id and e.schema_version == EXPORT_SCHEMA_VERSION for e in index.suites)


def suites_in(table: pa.Table | None, ids: set[str] | None = None) -> set[str]:
    if table is None or "suite_id" not in table.column_names or not len(table):
        return set()
    if ids is not None:
        table = table.filter(pc.is_in(table[table_format.ID], value_set=pa.array(sorted(ids), pa.string())))
    return {s for s in table["suite_id"].to_pylist() if s}


def refresh(old: pa.Table | None, new: pa.Table, ids: set[str] | None, minimum: int | None,
            updated_at: str | None) -> tuple[dict[str, bytes], bytes]:
    """The export files to write with `new` (the table after a change to the rows `ids`;
    None: any row may have changed) and the index entries to keep in its metadata.
    Only suites whose rows changed are written again, plus any suite without a snapshot
    yet (a table from before exports existed)."""
    if minimum is None:
        from space_config.settings import get_settings

        minimum = get_settings().min_bucket_items
    entries = _entries(old)
    present = suites_in(new)
    changed = present | set(entries) if ids is None else suites_in(old, ids) | suites_in(new, ids)
    changed |= present - set(_current(entries))  # new suites, and those exported in an older format
    files: dict[str, bytes] = {}
    for suite_id in sorted(changed):
        if not _SAFE_SUITE.match(suite_id):
            continue  # a suite id no file can be named after is never exported
        before = entries.get(suite_id)
        # Only the changed rows need a look when every other row was found public at this
        # minimum last time; else (a new suite or minimum, rows that the table holds under a
        # lower minimum) every row is checked again.
        settled = (before is not None and before.min_bucket_items == minimum and not before.suppressed_here
                   and before.schema_version == EXPORT_SCHEMA_VERSION)
        check = ids if ids is not None and settled else None
        header, written = snapshot_files(new, suite_id, minimum, updated_at, check)
        files.update(written)
        entries[suite_id] = IndexEntry(suite_id=suite_id, schema_version=EXPORT_SCHEMA_VERSION,
                                       table_version=header.table_version,
                                       table_updated_at=updated_at, rows=header.rows, min_bucket_items=minimum,
                                       suppressed_here=header.suppressed_here,
                                       json_path=json_path(suite_id), parquet_path=parquet_path(suite_id))
    kept = [entries[s] for s in sorted(entries) if s in present]
    index = ExportIndex(code_version=CODE_VERSION, table_updated_at=updated_at, suites=kept)
    files[INDEX_PATH] = index.model_dump_json(indent=1).encode()
    return files, json.dumps([e.model_dump() for e in kept]).encode()


def index_of(table: pa.Table) -> ExportIndex | None:
    """The index a table's metadata holds, or None for a table written before exports."""
    if INDEX_KEY not in (table.schema.metadata or {}):
        return None
    stamp = (table.schema.metadata or {}).get(table_format.UPDATED_AT_KEY)
    return ExportIndex(code_version=CODE_VERSION, table_updated_at=stamp.decode() if stamp else None,
                       suites=sorted(_entries(table).values(), key=lambda e: e.suite_id))


def index_for(table: pa.Table, minimum: int) -> ExportIndex:
    """The table's index; for a table written before exports (or before their current
    format), the one its snapshots would have."""
    index = index_of(table)
    if index is not None and all(is_current(index, e.suite_id) for e in index.suites):
        return index
    stamp = (table.schema.metadata or {}).get(table_format.UPDATED_AT_KEY)
    _, entries = refresh(None, table, None, minimum, stamp.decode() if stamp else None)
    return index_of(table.replace_schema_metadata({**(table.schema.metadata or {}), INDEX_KEY: entries}))
