"""Compare two verified results: per benchmark and per bucket, the difference of their
scores with a 95% paired bootstrap interval over videos. Pure logic, no gradio.

    pair = check_pair(row_a, row_b)                       # CompareRefused: why not
    stats = load_paired(stores.private, submission_id)   # evaluator.paired.PairedStats or None
    frame = compare(stats_a, stats_b, min_items=10)      # one row per comparable number
    gap = compare_protocol.protocol_gap(row_a, row_b)     # where the two rows' protocols differ
    frame = mark_protocols(frame, gap)                    # ... marked in Note
    text = summary(row_a, row_b, frame, samples, gap)    # the status line (Markdown)

Where it runs, and why: the per-video statistics are private (a video's right/wrong
can be one item's), so they are never in the public table. The site reads
the two results' files from the private store when a visitor asks (it already writes
uploads there; it never reads answers) and keeps them cached; computing one pair is
one matrix product per bucket (milliseconds). Precomputing every pair in the worker
would grow with the square of the rows, for pairs nobody asks for.

What leaves here is aggregates only: each model's score on the bucket (public already),
the difference, its interval, its p-value raw and adjusted for the number of scores
compared (leaderboard/multiple_testing.py), and whether it is significant after the
headline correction (HEADLINE). A bucket with fewer items than
LEADERBOARD_MIN_BUCKET_ITEMS is refused like on the rest of the site.
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
from results import coverage, markup, number_format
from leaderboard import compare_protocol, multiple_testing
from leaderboard.compare_protocol import ProtocolGap
from results.disclosure import SUPPRESSED, hidden_text, suppressed_n
from leaderboard.errors import CompareRefused
from leaderboard.views import METRICS, parse_cells
from submissions.stores.sharded import read_sharded

# Display columns (the tab and the browser tests use them).
BENCHMARK, NUMBER, N, SCORE_A, SCORE_B, DIFF, INTERVAL, NOTE = (
    "Benchmark", "Score", "n", "Model A", "Model B", "A − B", "95% interval of A − B", "Note")
P_RAW, P_HOLM, P_BH = "p", "p (Holm)", "p (BH)"
# The headline correction is Benjamini-Hochberg's (docs/compare.md says why); Holm's is shown beside it.
HEADLINE = multiple_testing.BH
SIGNIFICANT = "Significant (BH)"
COLUMNS = (BENCHMARK, NUMBER, N, SCORE_A, SCORE_B, DIFF, INTERVAL, P_RAW, P_HOLM, P_BH, SIGNIFICANT, NOTE)
P_COLUMNS = (P_RAW, P_HOLM, P_BH)

REPORTED_NOTE = ("Papers' reported rows cannot be compared: a paper gives one number per benchmark, not the "
                 "per-video results a paired interval needs. Pick two ✓ verified rows.")

_KIND = {"by_hop": "Hops", "by_discipline": "Discipline", "by_domain": "Domain", "by_activity": "Activity",
         "by_category": "Category"}
_NAMED = {"overall": "Overall", "delta_knowledge": "Δknowledge", "good_execution": "Good execution",
          "dua": "Descriptive (DUA)", "icra": "Causal (ICRA)"}


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
    found = read_sharded(private_store, paired_path(submission_id))[1]
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
    """Scores, difference, its paired interval and raw p-value of one bucket. `drawn`:
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
    diffs = bootstrap.paired_differences(stats[0], fn_a, stats[1], fn_b, samples=samples, seed=seed,
                                         videos=len(where), rows=rows)
    if diffs is None or not (np.isfinite(score_a) and np.isfinite(score_b)):
        return out | {NOTE: "no interval: the score is undefined in every resample"}
    low, high = bootstrap.percentile_interval(diffs)
    # significance is decided on the unrounded p-values, once all of them are known (compare)
    return out | {"low": round_half_up(low), "high": round_half_up(high),
                  INTERVAL: number_format.interval(low, high),
                  P_RAW: bootstrap.two_sided_p(diffs)}


def _rounded(value: float) -> float:
    return round_half_up(value) if np.isfinite(value) else float("nan")


TOO_SMALL = ": not compared"  # a bucket's note where it holds too few items
NOT_ATTEMPTED = "did not attempt this benchmark"


def hidden_trees(*rows: dict[str, Any]) -> dict[str, list[dict]]:
    """Per benchmark, the trees of the buckets each row's public result hides (results/
    disclosure.py: small buckets and their complements), read from the table's cells."""
    out: dict[str, list[dict]] = {}
    for benchmark in ORDER:
        trees = [t for t in parse_cells(row.get(f"{benchmark}.{SUPPRESSED}") for row in rows) if t]
        if trees:
            out[benchmark] = trees
    return out


def compare(a: PairedStats, b: PairedStats, min_items: int,
            hidden: dict[str, list[dict]] | None = None) -> pd.DataFrame:
    """One row per benchmark and bucket either result has: the scores, A − B, the 95%
    paired bootstrap interval of A − B, its p-value raw and adjusted over every compared
    row (Holm, Benjamini-Hochberg) and whether the headline's is at most 5%; a bucket
    with fewer than `min_items` items, one that either result's public scores hide
    (`hidden`, hidden_trees: a small bucket's complement too), or one only one model has,
    gets a note and no numbers; a benchmark only one model has is one row. The buckets too small to compare and
    the benchmarks one model lacks come last, after every compared row (on a small suite the
    small buckets are most of them). `frame.attrs`: "path", "benchmark", "low", "high" per
    row (the bounds as numbers)."""
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
        if not by_path_a or not by_path_b:  # one model has nothing here: one row says so, not one per bucket
            rows.append({BENCHMARK: title, NUMBER: bucket_label(OVERALL), "path": "/".join(OVERALL),
                         "benchmark": benchmark, NOTE: f"model {'A' if not by_path_a else 'B'} {NOT_ATTEMPTED}"})
            continue
        overall_a, overall_b = by_path_a.get(OVERALL), by_path_b.get(OVERALL)
        drawn = overall_a.videos if overall_a is not None and overall_b is not None \
            and sorted(overall_a.videos) == sorted(overall_b.videos) else None
        for path in sorted(set(by_path_a) | set(by_path_b), key=lambda p: _order(benchmark, p)):
            sa, sb = by_path_a.get(path), by_path_b.get(path)
            row: dict[str, Any] = {BENCHMARK: title, NUMBER: bucket_label(path), "path": "/".join(path),
                                   "benchmark": benchmark}
            if sa is None or sb is None:
                rows.append(row | {NOTE: f"model {'A' if sa is None else 'B'} has no value here"})
                continue
            n = min(sa.n, sb.n)
            row[N] = n
            # hidden in either row's published scores: shown here, it would give the hidden score back
            hid = next((m for tree in (hidden or {}).get(benchmark, ())
                        if (m := suppressed_n(tree, path)) is not None), None)
            if path != OVERALL and (0 < n < min_items or hid is not None):
                rows.append(row | {NOTE: f"{hidden_text(hid or n, min_items)}{TOO_SMALL}"})
                continue
            if drawn is None:
                rows.append(row | {NOTE: "the two results were scored on different items"})
                continue
            rows.append(row | compare_bucket(sa, sb, a.samples, a.seed, drawn))
    # stable: each group keeps its order; what was not compared comes after what was
    rows.sort(key=lambda row: row.get(NOTE, "").endswith((TOO_SMALL, NOT_ATTEMPTED)))
    return _frame(adjusted(rows))


def adjusted(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows with their p-values adjusted for testing all the compared ones at once
    (the family: every row with a raw p), and the headline's significance."""
    tested = [i for i, row in enumerate(rows) if P_RAW in row]
    raw = [rows[i][P_RAW] for i in tested]
    holm, bh = multiple_testing.holm(raw), multiple_testing.benjamini_hochberg(raw)
    out = [dict(row) for row in rows]
    for i, by_holm, by_bh, yes in zip(tested, holm, bh, multiple_testing.significant(bh)):
        out[i] |= {P_HOLM: by_holm, P_BH: by_bh, SIGNIFICANT: "yes" if yes else "no"}
    return out


def _frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    full = pd.DataFrame(rows, columns=[*COLUMNS, "path", "benchmark", "low", "high"])
    for column in (N, SCORE_A, SCORE_B, DIFF, *P_COLUMNS, "low", "high"):
        full[column] = pd.to_numeric(full[column], errors="coerce")
    for column in (INTERVAL, SIGNIFICANT, NOTE):
        full[column] = full[column].astype(object).fillna("")
    out = full[list(COLUMNS)].copy()
    out.attrs.update(path=list(full["path"]), benchmark=list(full["benchmark"]), low=list(full["low"]),
                     high=list(full["high"]))
    return out


def mark_protocols(frame: pd.DataFrame, gap: ProtocolGap) -> pd.DataFrame:
    """A copy of the frame whose rows of benchmarks where the two protocols differ say so
    in Note, before any note of their own."""
    out = frame.copy()
    marks = [gap.mark(b) for b in frame.attrs.get("benchmark", [""] * len(frame))]
    out[NOTE] = ["; ".join(t for t in (mark, note) if t) for mark, note in zip(marks, frame[NOTE])]
    return out


def _named(row: dict[str, Any]) -> str:
    label = _text(row.get("label")) or _text(row.get("id"))
    return f"{markup.escape(label)} [{markup.escape(compare_protocol.status_text(row))}]"


def counts(frame: pd.DataFrame) -> dict[str, int]:
    """How many scores were compared, and how many are significant raw and after each correction."""
    def at_most(column: str) -> int:
        return int(sum(multiple_testing.significant(frame[column].dropna())))
    return {"compared": int(frame[P_RAW].notna().sum()), "raw": at_most(P_RAW), multiple_testing.HOLM: at_most(P_HOLM),
            multiple_testing.BH: at_most(P_BH)}


def summary(row_a: dict[str, Any], row_b: dict[str, Any], frame: pd.DataFrame, samples: int,
            gap: ProtocolGap) -> str:
    """What the table compares, in a few sentences (Markdown, the rows' labels escaped): both
    rows with their protocol status, how many scores differ significantly after the headline
    correction (and after the other one, and uncorrected), and whether the protocols differ."""
    n = counts(frame)
    small = int(frame[NOTE].str.endswith(TOO_SMALL).sum()) if len(frame) else 0
    listed = (f" {small} bucket{'s' * (small != 1)} with too few items to compare {'are' if small != 1 else 'is'} "
              f"listed last." if small else "")
    return (f"**Model A**: {_named(row_a)}; **Model B**: {_named(row_b)} — same suite and judge. "
            f"A − B with a 95% paired bootstrap interval and p-value ({samples} resamples of videos, the same "
            f"videos for both models in each). **{n[HEADLINE]}** of {n['compared']} compared scores differ "
            f"significantly after the Benjamini-Hochberg correction for testing {n['compared']} at once (false "
            f"discovery rate 5%; column {SIGNIFICANT}). After Holm's stricter correction (family-wise error 5%): "
            f"{n[multiple_testing.HOLM]}; uncorrected (p ≤ 0.05): {n['raw']}.{listed}\n\n"
            + "".join(_unanswered(name, row) for name, row in (("A", row_a), ("B", row_b))) + gap.note())


def _unanswered(name: str, row: dict[str, Any]) -> str:
    """A paragraph where a model left calls unanswered: its differences there are partly those calls."""
    text = coverage.coverage_text(row)
    return (f"**{coverage.PARTIAL_MARK} Model {name} left calls unanswered** ({text}): each counts as wrong, so "
            f"A − B in those benchmarks is partly calls never answered, not only the models.\n\n") if text else ""


def cell_text(column: str, value: Any) -> str:
    """How the tab shows one cell: scores with two decimals as everywhere on the site,
    p-values with three (below 0.001 as "<0.001"), missing ones empty."""
    if value is None or pd.isna(value):
        return ""
    if column == N:
        return number_format.count(value) or ""
    if column in P_COLUMNS:
        return number_format.p_value(value) or ""
    return (number_format.score(value) or "") if column in (SCORE_A, SCORE_B, DIFF) else str(value)
