"""Per-video statistics for comparing two results (a paired bootstrap), kept private.

A published result has each headline's interval, but comparing two models fairly
needs more: the SAME resampled videos for both in every replicate, so the difference
of their scores has its own interval. That needs each model's per-video statistics,
per benchmark and per breakdown bucket (level, task, domain, hop, category...). A
video's statistics can be one item's right/wrong, which would rebuild the answer key
(the answers store is private), so they go to the PRIVATE store only (`paired/<h>/<h>/<submission id>.json`,
sharded by a hash of the id: evaluator/shards.py; written by the worker beside the staged
result; older ones stay at `paired/<id>.json`); the site reads them there to answer
a comparison and shows only aggregates (leaderboard/compare.py).

How a bucket's statistics are made: the benchmark's own scorer is run again on the
bucket's questions alone. Its per-video statistics then sum to the bucket's score by
the benchmark's own definition (CausalStep's weighted score, Video SimpleQA's F-score,
ExpVid's mean of levels), with no second implementation of any metric. What differs
per benchmark is declared in its folder (evaluator/benchmarks/<name>/buckets.py, hooks
listed in evaluator/benchmarks/hooks.py): `PAIRED_REDUCER` (default "ratio"),
`paired_row_key(q)` (default: q.video), `paired_bucket_paths(q, labelled)` (default:
no buckets) and `paired_extra(...)` (Video-MMMU's Δknowledge, a ratio of per-video sums
(right after - right before) / (wrong before) over the Adaptation items that have a
question-only call, read item by item the same way).

Each bucket names a `reducer` (a function of column sums, as evaluator.bootstrap's
`overall_from`) that is checked, when the statistics are made, to give the scorer's
own headline from them: a change of a benchmark's metric cannot go unnoticed here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from evaluator import benchmarks
from evaluator.buckets import bucket_paths, count_buckets, hook  # the very counts the small-bucket rule uses
from evaluator.records import BenchmarkScore, Responses, ScoringContext
from evaluator.shards import sharded

SCHEMA_VERSION = 1
OVERALL = ("overall",)


def paired_path(submission_id: str) -> str:
    """Where a submission's per-video statistics live in the private store."""
    return sharded("paired", submission_id, ".json")


# -- records -----------------------------------------------------------------------------

class BucketStats(BaseModel):
    """One comparable number of one benchmark: per-video column sums and how the
    number is made from them. `videos` are opaque ids (a hash of the suite and the
    video), in the row order of `stats`; `n` is the bucket's item count as the
    small-bucket rule counts it (evaluator/buckets.py)."""

    path: list[str]
    reducer: str
    n: int
    videos: list[str]
    stats: list[list[float]]

    def matrix(self) -> np.ndarray:
        return np.asarray(self.stats, dtype=np.float64).reshape(len(self.videos), -1)


class PairedStats(BaseModel):
    """Everything one result needs for paired comparisons; private."""

    schema_version: int = SCHEMA_VERSION
    submission_id: str
    run: int | None = None
    suite_id: str
    judge_id: str
    samples: int
    seed: int = 0
    benchmarks: dict[str, list[BucketStats]] = Field(default_factory=dict)

    def bucket(self, benchmark: str, path: Iterable[str]) -> BucketStats | None:
        wanted = list(path)
        return next((b for b in self.benchmarks.get(benchmark, []) if b.path == wanted), None)


# -- reducers: column sums (B, k) -> metric (B,) ------------------------------------------

def _ratio(sums: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return 100.0 * sums[:, 0] / sums[:, 1]


def _level_mean(sums: np.ndarray) -> np.ndarray:
    """ExpVid: the mean of the level percentages (columns [credit, n] per level) of the
    levels the bucket has; which levels it has depends on the items only."""
    present = [lv for lv in range(sums.shape[1] // 2) if sums[:, 2 * lv + 1].max(initial=0) > 0]
    if not present:
        return np.full(len(sums), np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.mean([100.0 * sums[:, 2 * lv] / sums[:, 2 * lv + 1] for lv in present], axis=0)


def _f_score(sums: np.ndarray) -> np.ndarray:
    """Video SimpleQA: F from [correct, not attempted, items] = 100 * 2c / (2N - n)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return 100.0 * 2.0 * sums[:, 0] / (2.0 * sums[:, 2] - sums[:, 1])


REDUCERS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "ratio": _ratio, "level_mean": _level_mean, "f_score": _f_score,
}


def reducer(name: str) -> Callable[[np.ndarray], np.ndarray]:
    """A reducer by name; "runs:<k>:<name>" is the mean of <name> over k runs whose
    columns stand side by side (evaluator/runs.py: a benchmark's score over its runs)."""
    if name.startswith("runs:"):
        from evaluator.runs import mean_over_runs

        _, k, base = name.split(":", 2)
        return mean_over_runs(reducer(base), int(k))
    try:
        return REDUCERS[name]
    except KeyError:
        raise ValueError(f"unknown reducer {name!r} in paired statistics (known: {', '.join(REDUCERS)})") from None


def merge_runs(per_run: list[list[BucketStats]]) -> list[BucketStats]:
    """One benchmark's statistics of several runs as one: per bucket, each run's columns
    side by side on the same video rows, reduced by the mean over runs."""
    if len(per_run) == 1:
        return per_run[0]
    merged = []
    for first, *others in zip(*per_run):
        if any(b.path != first.path or b.videos != first.videos for b in others):
            raise ValueError(f"runs of {'/'.join(first.path)} cover different buckets or videos")
        stats = np.concatenate([b.matrix() for b in (first, *others)], axis=1)
        merged.append(first.model_copy(update={"reducer": f"runs:{len(per_run)}:{first.reducer}",
                                               "stats": stats.tolist()}))
    return merged


# -- which rows are videos, and which questions make each bucket ----------------------------
# The row keys mirror how each scorer groups its per-video statistics (first appearance
# order); `collect` checks the row count, so a scorer that groups otherwise fails loudly.

def _video(q: Any) -> str | None:
    return q.video


def _row_key(name: str, q: Any) -> str | None:
    return hook(name, "paired_row_key", _video)(q)


def opaque(suite_id: str, key: str) -> str:
    return hashlib.sha256(f"{suite_id}\0{key}".encode()).hexdigest()[:16]


def _keys(name: str, questions: list) -> list[str]:
    return list(dict.fromkeys(k for k in (_row_key(name, q) for q in questions) if k is not None))


def _bucket(name: str, path: tuple[str, ...], reducer_name: str, n: int, suite_id: str, questions: list,
            score: BenchmarkScore) -> BucketStats | None:
    keys = _keys(name, questions)
    stats = np.asarray(score.video_stats, dtype=np.float64)
    if len(keys) != len(stats):
        raise ValueError(f"{name} {'/'.join(path)}: {len(stats)} rows of per-video statistics for {len(keys)} "
                         f"videos; the paired statistics no longer match how the scorer groups videos")
    if not len(stats):
        return None
    sums = stats.sum(0)[None]
    ours, theirs = reducer(reducer_name)(sums)[0], np.asarray(score.overall_from(sums))[0]
    if not (np.isclose(ours, theirs, rtol=0, atol=1e-9) or (np.isnan(ours) and np.isnan(theirs))):
        raise ValueError(f"{name} {'/'.join(path)}: the {reducer_name} reducer gives {ours} where the scorer's "
                         f"headline gives {theirs}; update PAIRED_REDUCER in evaluator/benchmarks/{name}/")
    return BucketStats(path=list(path), reducer=reducer_name, n=int(n), videos=[opaque(suite_id, k) for k in keys],
                       stats=stats.tolist())


# -- collecting --------------------------------------------------------------------------------

def _bucket_counts(name: str, metrics: dict) -> dict[tuple[str, ...], int]:
    return dict(count_buckets(name, metrics, 0))


def _extra(name: str, module, questions: list, answers: list, responses: Responses, ctx: ScoringContext,
           metrics: dict, suite_id: str) -> list[BucketStats]:
    """The benchmark's own comparable numbers besides its buckets (`paired_extra`)."""
    extra = hook(name, "paired_extra", None)
    if extra is None:
        return []
    made = extra(lambda subset: module.score(subset, answers, responses, ctx).metrics, questions, metrics)
    return [BucketStats(path=list(b.path), reducer=b.reducer, n=b.n, videos=[opaque(suite_id, k) for k in b.rows],
                        stats=list(b.rows.values())) for b in made]


def collect_benchmark(name: str, questions: list, answers: list, responses: Responses, ctx: ScoringContext,
                      scored: BenchmarkScore, suite_id: str) -> list[BucketStats]:
    """The overall's and every breakdown bucket's per-video statistics of one benchmark;
    `scored` is the scorer's result on all of `questions`."""
    module = benchmarks.get(name)
    alone_ctx = replace(ctx, worker_run=False)  # buckets never need the hidden sub-questions
    headline = hook(name, "PAIRED_REDUCER", "ratio")
    counts = _bucket_counts(name, scored.metrics)
    overall = _bucket(name, OVERALL, headline, len(questions), suite_id, questions, scored)
    out = [overall] if overall else []
    labelled = any(getattr(q, "category", None) for q in questions if getattr(q, "question", True))
    groups: dict[tuple[str, ...], list] = {}
    for q in questions:
        for path in bucket_paths(name, q, labelled):
            groups.setdefault(path, []).append(q)
    for path, subset in groups.items():
        if path not in counts:
            continue  # not a published bucket (e.g. ExAct's categories in a suite without them)
        bucket = _bucket(name, path, headline, counts[path], suite_id, subset,
                         module.score(subset, answers, responses, alone_ctx))
        if bucket is not None:
            out.append(bucket)
    return out + _extra(name, module, questions, answers, responses, alone_ctx, scored.metrics, suite_id)


def record(result: Any, collected: dict[str, list[BucketStats]], samples: int, seed: int = 0) -> PairedStats:
    """The private record of a scored result (evaluator.result.Result) and what
    `score_responses(..., paired=collected)` gathered."""
    return PairedStats(submission_id=str(result.submission.get("id")), run=result.submission.get("run"),
                       suite_id=result.suite_id, judge_id=str(result.judge.get("id")), samples=samples, seed=seed,
                       benchmarks=collected)
