"""The published table's format, shared by the table (results/aggregate.py) and its
open exports (results/exports.py): the column names and order, how a cell is typed,
and the parquet bytes with their key-value metadata. Nothing here reads or writes a store.

It is its own module so that exports can build on the format without importing the
table's writer, which itself writes the exports in the same step (no import cycle).
"""

from __future__ import annotations

import io
import json
from datetime import datetime, timezone
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from evaluator.benchmarks import JUDGED, ORDER

TABLE_PATH = "leaderboard.parquet"
ID = "id"  # the key column: the submission id
UPDATED_AT_KEY = b"leaderboard.updated_at"  # parquet key-value metadata: when the table was written
EXPORTS_KEY = b"leaderboard.exports"  # and the index of the open exports (results/exports.py)

# Columns every table has, in this order; benchmark columns follow.
META_COLUMNS = [ID, "model", "kind", "submitter", "revision", "file_sha256", "suite_id", "judge_id",
                "judge_kind", "runner", "created", "code_version", "run", "thinking", "precision", "frames",
                "params", "average", "average_of", "source"]


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def benchmark_columns(name: str, metrics: dict[str, Any], counts: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    ci = metrics.get("overall_ci95")
    out[f"{name}.overall"] = metrics.get("overall")
    out[f"{name}.overall_ci_low"] = ci[0] if ci else None
    out[f"{name}.overall_ci_high"] = ci[1] if ci else None
    for metric, value in metrics.items():
        if metric in ("overall", "overall_ci95"):
            continue
        if value is None or is_number(value):
            out[f"{name}.{metric}"] = value
        else:  # breakdowns (dicts) and anything else structured: one JSON string cell
            out[f"{name}.{metric}"] = json.dumps(value, sort_keys=True)
    out[f"{name}.n_calls"] = counts.get("calls")
    out[f"{name}.n_answered"] = counts.get("answered")
    if name in JUDGED:  # answers the judge gave no verdict on (scored as not correct); the card shows them
        out[f"{name}.judge_unscored"] = counts.get("judge_unscored")
    return out


# -- the parquet file ---------------------------------------------------------------
# Built with pyarrow directly: an upsert reads the table, drops one row, appends one and
# writes it back, which pandas would make several times slower (bench/pipeline_speed.py).

def _column_order(columns) -> list[str]:
    rest = [c for c in columns if c not in META_COLUMNS and c != "scores_json"]
    bench_rank = {name: i for i, name in enumerate(ORDER)}
    # benchmark columns grouped in the site's order, runner/meta settings after them
    rest.sort(key=lambda c: (bench_rank.get(c.split(".")[0], len(ORDER)), c))
    return [*META_COLUMNS, *rest, "scores_json"]


def typed_column(values: list[Any]) -> pa.Array:
    """Numbers as float64 (so int and float cells never clash), text as strings,
    `thinking` as bool; a column with only None stays untyped until a value comes."""
    try:
        return pa.array([float(v) if is_number(v) else v for v in values])
    except (pa.ArrowInvalid, pa.ArrowTypeError):  # mixed kinds: keep every value, as text
        return pa.array([None if v is None else _text(v) for v in values], pa.string())


def _text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))  # 32.0 read back from a number column was 32
    return str(value)


def tidy(table: pa.Table) -> pa.Table:
    """Every META column present, columns in a stable order, rows sorted by id."""
    for column in META_COLUMNS:
        if column not in table.column_names:
            table = table.append_column(column, pa.nulls(len(table)))
    table = table.select(_column_order(table.column_names))
    return table.sort_by([(ID, "ascending")]) if len(table) else table


def arrow(rows: list[dict[str, Any]]) -> pa.Table:
    columns = {c: typed_column([r.get(c) for r in rows]) for c in _column_order({k for r in rows for k in r})}
    return tidy(pa.table(columns) if rows else pa.table({c: pa.array([], pa.null()) for c in columns}))


def merge(old: pa.Table, rows: list[dict[str, Any]], drop: set[str]) -> pa.Table:
    """`old` without the rows whose id is in `drop`, plus `rows`."""
    if drop:
        old = old.filter(pc.invert(pc.is_in(old[ID], value_set=pa.array(sorted(drop), pa.string()))))
    try:
        return tidy(pa.concat_tables([old, arrow(rows)], promote_options="permissive"))
    except (pa.ArrowInvalid, pa.ArrowTypeError):  # a column changed kind: rebuild every column's type
        return arrow(_rows(old) + rows)


def _rows(table: pa.Table) -> list[dict[str, Any]]:
    return table.to_pylist()


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def stamped(table: pa.Table, stamp: str | None = None, exported: bytes | None = None) -> pa.Table:
    """The table with its write time (and the exports' index: results/exports.py) as metadata."""
    metadata = {UPDATED_AT_KEY: (stamp or utc_now()).encode()}
    if exported is not None:
        metadata[EXPORTS_KEY] = exported
    return table.replace_schema_metadata(metadata)


def to_parquet(table: pa.Table) -> bytes:
    buffer = io.BytesIO()
    pq.write_table(table, buffer, compression="zstd")
    return buffer.getvalue()


def read_arrow(data: bytes) -> pa.Table:
    return pq.ParquetFile(pa.BufferReader(data)).read()
