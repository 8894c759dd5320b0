"""The one aggregated table the site reads.

Every finished submission has its own Result JSON in the results store,
`<h>/<h>/<submission id>.json` (16 x 16 folders by a hash of the id: evaluator/shards.py;
one published before that stays at `<submission id>.json`, where a rerun replaces it).
The site does not scan those (one download per file, 429s
on the Hub, a slow start): it reads ONE parquet file, `leaderboard.parquet`, with
one flat row per result. The worker keeps it current with `publish`, which writes
each result file together with its row; `rebuild` recreates it from the result files
(after a schema change, or by a maintainer who deleted a result).

    row = result_row(result, request)      # a flat dict
    publish(stores.results, result, request)  # the result file and its row, in one step
    upsert(stores.results, result, request)  # insert or replace the row alone (compare-and-swap)
    frame = load_table(stores.results)     # pandas.DataFrame, one row per submission
    rebuild(stores.results)                # the table again, from every result file
    build_table(results)                   # the same frame from Result objects, nothing written

Numbers are float64 columns, text and breakdowns string columns, `thinking` bool.

Columns (benchmark names as in evaluator.benchmarks):
    id, model, kind, submitter, revision, file_sha256, suite_id, judge_id, judge_kind,
    runner, runner.<setting>..., created, code_version, run, thinking, precision, frames,
    params, meta.<key>... (request metadata), average (the mean of the `overall`s of the
    suite's benchmarks, only when all of them exist), average_of (those benchmarks, comma-
    separated: a suite may hold any of the five), source ("verified": computed by our worker),
    <bench>.overall, <bench>.overall_ci_low, <bench>.overall_ci_high,
    <bench>.<metric> for every scalar metric, <bench>.<breakdown> as a JSON string for
    every dict (by_discipline, by_hop, ...), <bench>.n_calls, <bench>.n_answered,
    blind.<bench>.overall and blind.average (the "no video" pass, when one ran; the same mean),
    cost.gpu_seconds_per_call (mean), cost.ttft_s and cost.tokens_per_s (medians),
    cost.device (model-ID runs: what the run cost, on which hardware),
    cost.judge_tokens and cost.judge_usd (what remote LLM judges cost to grade the row),
    scores_json (the whole `scores` dict as JSON).
"""

from __future__ import annotations

import io
import json
import logging
import random
import time
from datetime import datetime
from typing import Any, Callable

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from evaluator.benchmarks import ORDER
from evaluator.records import ratio
from evaluator.result import Result
from evaluator.shards import flat_path, sharded
from results import disclosure, exports, protocol_status, results_card
# The format itself (columns, cell types, parquet bytes) is results/table_format.py, which
# the exports build on too; its names stay reachable here (aggregate.TABLE_PATH, ...).
from results.table_format import (ID, TABLE_PATH, UPDATED_AT_KEY, arrow, benchmark_columns,  # noqa: F401
                                      merge, utc_now, is_number, read_arrow, stamped, tidy, to_parquet)
from submissions.errors import ConflictError
from submissions.stores.base import Store

log = logging.getLogger(__name__)

CONFLICT_RETRIES = 30  # on the Hub any commit to the results repo moves the version: conflicts are normal


# -- rows -----------------------------------------------------------------------

def _params(metadata: dict[str, str]) -> str | None:
    for key in ("params", "params_billions", "parameters", "num_params"):
        if metadata.get(key):
            return str(metadata[key])
    return None


def result_row(result: Result, request=None, min_items: int | None = None) -> dict[str, Any]:
    """One flat row for a result, as published: small breakdown buckets hidden
    (results/disclosure.py). The result's own `submission` record comes first
    (so `rebuild`, which has no requests, gives the same rows); `request` fills in
    what an older result lacks. `min_items`: the bucket minimum (default: the setting)."""
    result = disclosure.public(result, min_items)
    sub = dict(result.submission)

    def field(name: str, default=None):
        if sub.get(name) is not None:
            return sub[name]
        value = getattr(request, name, None) if request is not None else None
        return default if value is None else value

    metadata = dict(getattr(request, "metadata", None) or {}) | dict(sub.get("metadata") or {})
    row: dict[str, Any] = {
        ID: field("id"),
        "model": field("model"),
        "kind": field("kind"),
        "submitter": field("submitter"),
        "revision": field("revision"),
        "file_sha256": sub.get("file_sha256") or (request.predictions_sha256 if request is not None else None),
        "suite_id": result.suite_id,
        "judge_id": result.judge.get("id"),
        "judge_kind": result.judge.get("kind"),
        "runner": result.runner.get("name"),
        "created": result.created,
        "code_version": result.code_version,
        "run": sub.get("run"),  # which run of the submission (reruns count up); None for baselines
        "thinking": bool(field("thinking", False)),
        "precision": field("precision"),
        "frames": field("frames"),
        "params": _params(metadata),
        "source": "verified",
    }
    if row[ID] is None:
        raise ValueError("a result without a submission id cannot go into the leaderboard table")
    for key, value in sorted(result.runner.items()):
        if key != "name":
            row[f"runner.{key}"] = value if value is None or is_number(value) or isinstance(value, str) \
                else json.dumps(value, sort_keys=True)
    for key, value in sorted(metadata.items()):
        row[f"meta.{key}"] = str(value)
    over = suite_benchmarks(result)
    overalls = [result.scores.get(name, {}).get("overall") for name in over]
    row["average"] = ratio(sum(overalls), len(overalls)) if all(v is not None for v in overalls) else None
    row["average_of"] = ",".join(over)
    for name in [*ORDER, *sorted(set(result.scores) - set(ORDER))]:
        if name in result.scores:
            row.update(benchmark_columns(name, result.scores[name], result.counts.get(name, {})))
    row.update(_blind_columns(result.blind_scores, over))
    row.update(_cost_columns(result.cost))
    row.update(_judge_cost_columns(result.judge_usage))
    row.update(protocol_status.row_columns(result))  # the card, its status and hash (results/protocol_status.py)
    row["scores_json"] = json.dumps(result.scores, sort_keys=True)
    return row


def suite_benchmarks(result: Result) -> list[str]:
    """The benchmarks of the result's suite, in ORDER: those whose calls its protocol card
    hashed (every call of the suite was asked); all five for a result without a card."""
    asked = set(result.protocol.prompts_sha256) if result.protocol is not None else set()
    return [name for name in ORDER if name in asked] or list(ORDER)


def _blind_columns(blind: dict[str, dict[str, Any]] | None, over: list[str]) -> dict[str, Any]:
    """The "no video" pass's headline per benchmark, and their mean when the suite's all exist."""
    if not blind:
        return {}
    out = {f"blind.{name}.overall": metrics.get("overall") for name, metrics in blind.items()}
    overalls = [blind.get(name, {}).get("overall") for name in over]
    out["blind.average"] = ratio(sum(overalls), len(overalls)) if all(v is not None for v in overalls) else None
    return out


def _cost_columns(cost: dict[str, Any] | None) -> dict[str, Any]:
    """What a model-ID run cost: mean GPU-seconds per call (mean x calls = the total),
    median time to first token and median tokens per second, and the device."""
    if not cost:
        return {}
    return {"cost.gpu_seconds_per_call": (cost.get("gpu_seconds_per_call") or {}).get("mean"),
            "cost.ttft_s": (cost.get("ttft_s") or {}).get("median"),
            "cost.tokens_per_s": (cost.get("tokens_per_s") or {}).get("median"),
            "cost.device": cost.get("device")}


def _judge_cost_columns(usage: dict[str, Any] | None) -> dict[str, Any]:
    """What the remote LLM judges cost to grade this row, over the judged benchmarks:
    tokens sent and received, and US dollars where prices were given (else None)."""
    if not usage:
        return {}
    tokens = sum(int(u.get("prompt_tokens") or 0) + int(u.get("completion_tokens") or 0) for u in usage.values())
    costs = [u.get("cost_usd") for u in usage.values()]
    return {"cost.judge_tokens": tokens,
            "cost.judge_usd": None if all(c is None for c in costs) else sum(c or 0.0 for c in costs)}


def _frame(table: pa.Table) -> pd.DataFrame:
    frame = table.to_pandas()
    stamp = (table.schema.metadata or {}).get(UPDATED_AT_KEY)
    frame.attrs["updated_at"] = stamp.decode() if stamp else None
    return frame


# -- reading and writing the table ---------------------------------------------------

def load_table(results_store: Store) -> pd.DataFrame:
    """The leaderboard table: one row per result; an empty frame (with the id column)
    when no result has been published yet. `frame.attrs["updated_at"]` says when it
    was written (ISO 8601, UTC), or None."""
    found = results_store.read(TABLE_PATH)
    return _frame(read_arrow(found.data) if found is not None else arrow([]))


def table_updated_at(results_store: Store) -> datetime | None:
    """When the table was last written, or None when there is none yet."""
    found = results_store.read(TABLE_PATH)
    if found is None:
        return None
    stamp = (pq.read_schema(io.BytesIO(found.data)).metadata or {}).get(UPDATED_AT_KEY)
    return datetime.fromisoformat(stamp.decode()) if stamp else None


def _swap(results_store: Store, change: Callable[[pa.Table | None], pa.Table], message: str,
          files: dict[str, bytes] | None = None, ids: set[str] | None = None,
          min_items: int | None = None) -> pa.Table:
    """Read the table, change it, compare-and-swap; on a conflict re-read and apply the
    change again, so two workers publishing at once both keep their rows. `files` are
    written in the same step, before the table (a reader sees a row only once its
    result file is there), and so are the open exports of the suites whose rows changed
    (`ids`: the rows changed; None: any), with small buckets hidden at `min_items`, and the
    repo's dataset card (README.md: results/results_card.py; this is its one writer)."""
    for attempt in range(CONFLICT_RETRIES):
        found = results_store.read(TABLE_PATH)
        old = read_arrow(found.data) if found is not None else None
        stamp = utc_now()
        table = change(old)
        try:
            exported, index = exports.refresh(old, table, ids, min_items, stamp)
        except Exception:  # noqa: BLE001 - the table comes first; without an index the next change exports all
            log.exception("the open exports could not be built; %s is written without them", TABLE_PATH)
            exported, index = {}, None
        try:  # the repo's dataset card, written with the table: its configs name the files written here
            exported.update(results_card.card_files(table, index, getattr(results_store, "repo_id", None)))
        except Exception:  # noqa: BLE001 - a card is never worth a row; the next change writes it
            log.exception("the results dataset card could not be built; %s is written without it", TABLE_PATH)
        table = stamped(table, stamp, index)
        try:
            results_store.write_files({**(files or {}), **exported, TABLE_PATH: to_parquet(table)},
                                      {TABLE_PATH: found.version if found else None}, message=message)
            return table
        except ConflictError:
            # jittered backoff: racing writers fall out of step instead of colliding again
            time.sleep(random.uniform(0, 0.02 * 2 ** min(attempt, 6)))
    raise ConflictError(f"gave up updating {TABLE_PATH} in the {results_store.name} store: it changed under "
                        f"us {CONFLICT_RETRIES} times in a row; run `rebuild` or try again")


def _upserted(row: dict[str, Any]) -> Callable[[pa.Table | None], pa.Table]:
    return lambda old: arrow([row]) if old is None else merge(old, [row], {row[ID]})


def upsert(results_store: Store, result: Result, request=None, min_items: int | None = None) -> None:
    """Insert the result's row, or replace the row with the same submission id."""
    row = result_row(result, request, min_items)
    _swap(results_store, _upserted(row), f"Leaderboard table: upsert {row[ID]}", ids={row[ID]},
          min_items=min_items)


def publish(results_store: Store, result: Result, request=None, min_items: int | None = None) -> str:
    """Make a result public: its file (`result_path`, or where the request says an earlier
    run's is) and its table row, written in one step
    (one commit on the Hub), so no reader ever finds one without the other. Both are the
    public form (disclosure.public, with `min_items` or the setting): no small breakdown
    bucket's score leaves here. Returns the result file's path."""
    result = disclosure.public(result, min_items)
    row = result_row(result, request, result.min_bucket_items)
    path = getattr(request, "result_path", None) or result_path(row[ID])
    _swap(results_store, _upserted(row), f"Result of {row[ID]} ({row['model']}) and its table row",
          {path: result.model_dump_json(indent=2).encode()}, ids={row[ID]}, min_items=result.min_bucket_items)
    return path


def result_path(submission_id: str) -> str:
    """Where a submission's public result goes in the results store: `<h>/<h>/<id>.json`."""
    return sharded("", submission_id, ".json")


def is_result_file(path: str) -> bool:
    """A result file: `<h>/<h>/<id>.json`, or `<id>.json` at the top from before sharding."""
    return path.endswith(".json") and ("/" not in path or (path.count("/") == 2 and flat_path(path) is not None))


def published_runs(results_store: Store) -> dict[str, int | None]:
    """Submission id -> the run (1, 2, ... for reruns) whose result is in the table; None
    for rows without one (baselines, rows written before runs were recorded)."""
    found = results_store.read(TABLE_PATH)
    if found is None:
        return {}
    table = read_arrow(found.data)
    runs = table["run"].to_pylist() if "run" in table.column_names else [None] * len(table)
    return {id: None if run is None else int(run) for id, run in zip(table[ID].to_pylist(), runs)}


def read_results(results_store: Store) -> list[Result]:
    """Every result file (`is_result_file`); unreadable ones are skipped with a warning naming them."""
    results = []
    for path in results_store.list():
        if not is_result_file(path):
            continue
        found = results_store.read(path)
        if found is None:
            continue  # deleted between list and read
        try:
            results.append(Result.model_validate_json(found.data))
        except ValueError as e:
            log.warning("skipping unreadable result file %s in the %s store: %s", path, results_store.name, e)
    return results


def _latest_rows(results: list[Result]) -> list[dict[str, Any]]:
    latest: dict[str, dict[str, Any]] = {}
    for result in results:
        row = result_row(result)
        if row[ID] in latest:  # a copied or renamed file: one row per submission, the newest
            log.warning("two results for submission %s; keeping the newer", row[ID])
            if str(row["created"]) < str(latest[row[ID]]["created"]):
                continue
        latest[row[ID]] = row
    return list(latest.values())


def build_table(results: list[Result]) -> pd.DataFrame:
    """The table for these results, one row per submission id (the newest result wins
    if two carry the same id), typed as load_table gives it; nothing is written."""
    return _frame(arrow(_latest_rows(results)))


def rebuild(results_store: Store) -> pd.DataFrame:
    """Recreate the table from every result file in the store."""
    table = arrow(_latest_rows(read_results(results_store)))
    written = _swap(results_store, lambda _old: table, f"Leaderboard table: rebuild from {len(table)} results")
    return _frame(written)
