"""Compare two verified results: per benchmark and per bucket, the difference of their
scores with a 95% paired bootstrap interval over videos. Pure logic, no gradio.

    pair = check_pair(row_a, row_b)                       # CompareRefused: why not
    stats = load_paired(stores.private, submission_id)   # evaluator.paired.PairedStats or None
    frame = compare(stats_a, stats_b, min_items=10)      # one row per comparable number

Where it runs, and why: the per-video statistics are private (a video's right/wrong
can be one item's, design §4), so they are never in the public table. The site reads
the two results' files from the private store when a visitor asks (it already writes
uploads there; it never reads answers) and keeps them cached; computing one pair is
one matrix product per bucket (milliseconds). Precomputing every pair in the worker
would grow with the square of the rows, for pairs nobody asks for.

What leaves here is aggregates only: each model's score on the bucket (public already),
the difference, its interval and whether the interval excludes zero. A bucket with
fewer items than LEADERBOARD_MIN_BUCKET_ITEMS is refused like on the rest of the site.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from pydantic import ValidationError

from evaluator import bootstrap
from evaluator.benchmarks import ORDER
from evaluator.benchmarks import BENCHMARKS as _MODULES
from evaluator.paired import OVERALL, SCHEMA_VERSION, BucketStats, PairedStats, paired_path, reducer
from evaluator.records import round_half_up
from leaderboard.disclosure import hidden_text
from leaderboard.errors import CompareRefused
from leaderboard.views import METRICS

# Display columns (the tab and the browser tests use them).
BENCHMARK, NUMBER, N, SCORE_A, SCORE_B, DIFF, INTERVAL, SIGNIFICANT, NOTE = (
    "Benchmark", "Score", "n", "Model A", "Model B", "A − B", "95% interval of A − B", "Significant", "Note")
COLUMNS = (BENCHMARK, NUMBER, N, SCORE_A, SCORE_B, DIFF, INTERVAL, SIGNIFICANT, NOTE)

REPORTED_NOTE = ("Papers' reported rows cannot be compared: a paper gives one number per benchmark, not the "
                 "per-video results a paired interval needs. Pick two ✓ verified rows.")

_KIND = {"by_hop": "Hops", "by_discipline": "Discipline", "by_domain": "Domain", "by_activity": "Activity",
         "by_category": "Category"}
_NAMED = {"overall": "Overall", "delta_knowledge": "Δknowledge", "good_execution": "Good execution"}


# -- which rows may be compared ------------------------------------------------------------------------

def _text(value: Any) -> str:
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else str(value)


def _run(value: Any) -> int | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else int(value)


def check_pair(a: dict[str, Any], b: dict[str, Any]) -> None:
    """Refuse (CompareRefused) two table rows that cannot be compared: the same row, a
    paper's row, or rows of different suites or judges (never ranked against each other)."""
    if any(_text(r.get("source")) == "reported" or _text(r.get("id")).startswith("reported/") for r in (a, b)):
        raise CompareRefused(REPORTED_NOTE)
    if _text(a.get("id")) == _text(b.get("id")):
        raise CompareRefused("Pick two different rows: a row compared with itself differs by nothing.")
    if _text(a.get("suite_id")) != _text(b.get("suite_id")):
        raise CompareRefused(f"These rows were scored on different suites ({_text(a.get('suite_id'))} and "
                             f"{_text(b.get('suite_id'))}): results are never compared across suites.")
    if _text(a.get("judge_id")) != _text(b.get("judge_id")):
        raise CompareRefused(f"These rows were graded by different judges ({_text(a.get('judge_id'))} and "
                             f"{_text(b.get('judge_id'))}): results are never compared across judges.")


def load_paired(private_store, submission_id: str) -> PairedStats | None:
    """A result's per-video statistics from the private store; None when it has none
    (scored before comparisons existed)."""
    found = private_store.read(paired_path(submission_id))
    if found is None:
        return None
    try:
        stats = PairedStats.model_validate_json(found.data)
    except ValidationError as e:
        raise CompareRefused(f"The per-video statistics of {submission_id} cannot be read ({e.error_count()} "
                             f"problems); a maintainer's rerun writes them again.") from None
    if stats.schema_version != SCHEMA_VERSION:
        raise CompareRefused(f"The per-video statistics of {submission_id} have schema version "
                             f"{stats.schema_version}, this site reads {SCHEMA_VERSION}; a rerun writes them again.")
    return stats


def check_stats(row: dict[str, Any], stats: PairedStats | None, label: str) -> PairedStats:
    """The statistics belong to this very row (suite, judge, run), or CompareRefused."""
    name = _text(row.get("model")) or _text(row.get("id"))
    if stats is None:
        raise CompareRefused(f"{label} ({name}) was scored before comparisons existed and has no per-video "
                             f"statistics; a maintainer can rerun it (python -m evaluator queue rerun ID).")
    if stats.suite_id != _text(row.get("suite_id")) or stats.judge_id != _text(row.get("judge_id")):
        raise CompareRefused(f"The per-video statistics of {label} ({name}) are of another suite or judge than "
                             f"its row; a rerun brings them in line.")
    run = _run(row.get("run"))
    if run is not None and stats.run != run:
        raise CompareRefused(f"The per-video statistics of {label} ({name}) are of run {stats.run}, the table "
                             f"shows run {run}; try again once the rerun is published.")
    return stats


# -- one comparison ------------------------------------------------------------------------------------

def bucket_label(path: Sequence[str]) -> str:
    """'Overall', 'Level 1', 'Domain: Sports', '2-hop'... for a bucket's metric path."""
    if len(path) == 1:
        name = path[0]
        return _NAMED.get(name) or re.sub(r"^level(\d)$", r"Level \1", name).replace("_", " ").capitalize()
    if path[0] == "by_hop":
        return f"{path[1]}-hop"
    return f"{_KIND.get(path[0], path[0])}: {path[1]}"


def _order(benchmark: str, path: Sequence[str]) -> tuple:
    """Overall first, then levels, tracks and tasks, Δknowledge, then the breakdowns by kind."""
    if tuple(path) == OVERALL:
        return (0,)
    if len(path) == 1:  # in the order of the Benchmarks tab (levels before tasks)
        metrics = METRICS.get(benchmark, ())
        return (1, metrics.index(path[0]) if path[0] in metrics else len(metrics), path[0])
    number = re.match(r"\d+", path[1])
    return (3, list(_KIND).index(path[0]) if path[0] in _KIND else 9,
            (int(number.group()) if number else 1 << 30, path[1]))


def _aligned(a: BucketStats, b: BucketStats) -> tuple[np.ndarray, np.ndarray] | None:
    """Both matrices with row i the same video, or None when the videos differ."""
    if a.videos == b.videos:
        return a.matrix(), b.matrix()
    if sorted(a.videos) != sorted(b.videos):
        return None
    where = {v: i for i, v in enumerate(b.videos)}
    return a.matrix(), b.matrix()[[where[v] for v in a.videos]]


def compare_bucket(a: BucketStats, b: BucketStats, samples: int, seed: int,
                   drawn: list[str] | None = None) -> dict[str, Any]:
    """Scores, difference, its paired interval and significance of one bucket. `drawn`:
    the benchmark's videos (its overall's), which each resample draws; a bucket's score
    in a resample comes from the drawn videos that have items in it. Default: the
    bucket's own videos."""
    stats = _aligned(a, b)
    # the same metric, whether made of one run or the mean of several ("runs:3:f_score")
    if stats is None or a.reducer.rsplit(":", 1)[-1] != b.reducer.rsplit(":", 1)[-1]:
        return {NOTE: "the two results were scored on different items"}
    where = {v: i for i, v in enumerate(drawn if drawn is not None else a.videos)}
    if any(v not in where for v in a.videos):
        return {NOTE: "the two results were scored on different items"}
    rows = np.fromiter((where[v] for v in a.videos), dtype=np.int64, count=len(a.videos))
    fn_a, fn_b = reducer(a.reducer), reducer(b.reducer)
    score_a, score_b = (float(fn(m.sum(0)[None])[0]) for fn, m in zip((fn_a, fn_b), stats))
    out: dict[str, Any] = {SCORE_A: _rounded(score_a), SCORE_B: _rounded(score_b),
                           DIFF: _rounded(score_a - score_b)}
    if len(a.videos) < 2:  # every resample is that one video again: no spread to measure
        return out | {NOTE: "one video only: no interval"}
    bounds = bootstrap.paired_difference(stats[0], fn_a, stats[1], fn_b, samples=samples, seed=seed,
                                         videos=len(where), rows=rows)
    if bounds is None or not (np.isfinite(score_a) and np.isfinite(score_b)):
        return out | {NOTE: "no interval: the score is undefined in every resample"}
    low, high = bounds
    # significant: the whole 95% interval lies on one side of zero (decided before rounding)
    return out | {"low": round_half_up(low), "high": round_half_up(high),
                  INTERVAL: f"[{round_half_up(low):.2f}, {round_half_up(high):.2f}]",
                  SIGNIFICANT: "yes" if low > 0 or high < 0 else "no"}


def _rounded(value: float) -> float:
    return round_half_up(value) if np.isfinite(value) else float("nan")


def compare(a: PairedStats, b: PairedStats, min_items: int) -> pd.DataFrame:
    """One row per benchmark and bucket either result has: the scores, A − B, the 95%
    paired bootstrap interval of A − B and whether it excludes zero; a bucket with fewer
    than `min_items` items, or one only one model has, gets a note and no numbers.
    `frame.attrs`: "path", "low", "high" per row (the bounds as numbers)."""
    if (a.samples, a.seed) != (b.samples, b.seed):
        raise CompareRefused(f"The two results' statistics were made with different bootstrap settings "
                             f"({a.samples} and {b.samples} resamples): a maintainer's rerun aligns them.")
    if a.suite_id != b.suite_id or a.judge_id != b.judge_id:
        raise CompareRefused("These results were scored on different suites or by different judges: results "
                             "are never compared across suites or judges.")
    rows = []
    for benchmark in [*ORDER, *sorted((set(a.benchmarks) | set(b.benchmarks)) - set(ORDER))]:
        by_path_a = {tuple(s.path): s for s in a.benchmarks.get(benchmark, [])}
        by_path_b = {tuple(s.path): s for s in b.benchmarks.get(benchmark, [])}
        if not by_path_a and not by_path_b:
            continue
        title = _MODULES[benchmark].TITLE if benchmark in _MODULES else benchmark
        overall_a, overall_b = by_path_a.get(OVERALL), by_path_b.get(OVERALL)
        drawn = overall_a.videos if overall_a is not None and overall_b is not None \
            and sorted(overall_a.videos) == sorted(overall_b.videos) else None
        for path in sorted(set(by_path_a) | set(by_path_b), key=lambda p: _order(benchmark, p)):
            sa, sb = by_path_a.get(path), by_path_b.get(path)
            row: dict[str, Any] = {BENCHMARK: title, NUMBER: bucket_label(path), "path": "/".join(path)}
            if sa is None or sb is None:
                missing = "A" if sa is None else "B"
                what = "did not attempt this benchmark" if not (by_path_a if sa is None else by_path_b) \
                    else "has no value here"
                rows.append(row | {NOTE: f"model {missing} {what}"})
                continue
            n = min(sa.n, sb.n)
            row[N] = n
            if path != OVERALL and 0 < n < min_items:
                rows.append(row | {NOTE: f"{hidden_text(n)}: not compared"})
                continue
            if drawn is None:
                rows.append(row | {NOTE: "the two results were scored on different items"})
                continue
            rows.append(row | compare_bucket(sa, sb, a.samples, a.seed, drawn))
    return _frame(rows)


def _frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    full = pd.DataFrame(rows, columns=[*COLUMNS, "path", "low", "high"])
    for column in (N, SCORE_A, SCORE_B, DIFF, "low", "high"):
        full[column] = pd.to_numeric(full[column], errors="coerce")
    for column in (INTERVAL, SIGNIFICANT, NOTE):
        full[column] = full[column].astype(object).fillna("")
    out = full[list(COLUMNS)].copy()
    out.attrs.update(path=list(full["path"]), low=list(full["low"]), high=list(full["high"]))
    return out


def summary(label_a: str, label_b: str, frame: pd.DataFrame, samples: int) -> str:
    """What the table compares, in a sentence or two (Markdown; the labels escaped by the caller)."""
    compared = int((frame[SIGNIFICANT] != "").sum())
    significant = int((frame[SIGNIFICANT] == "yes").sum())
    return (f"**Model A**: {label_a} · **Model B**: {label_b} — same suite and judge. "
            f"A − B with a 95% paired bootstrap interval ({samples} resamples of videos, the same videos for "
            f"both models in each). **{significant}** of {compared} compared scores differ significantly "
            f"(the interval excludes 0).")
