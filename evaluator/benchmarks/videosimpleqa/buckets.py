"""Video SimpleQA's breakdown buckets (hops, categories, sub-questions) and
paired-statistics hooks (evaluator/benchmarks/hooks.py says what each name is for)."""

from __future__ import annotations

from typing import Any

from evaluator.benchmarks.hooks import Buckets, Path, count, keyed

# the public Question fields its results are broken down by (`import --check` counts them)
BREAKDOWN_FIELDS = ("hops", "category")
PAIRED_REDUCER = "f_score"  # F = 2c / (2N - n), from [correct, not attempted, items]


def count_buckets(metrics: dict, minimum: int) -> Buckets:
    yield from keyed(metrics, "by_hop", "n_by_hop")
    yield from keyed(metrics, "by_category", "n_by_category")
    yield from keyed(metrics, "subqa", "n_subqa")
    for hop_count, hops in (metrics.get("n_subqa_by_hop_count") or {}).items():
        for hop, n in hops.items():
            yield ("subqa_by_hop_count", str(hop_count), str(hop)), count(n)


def paired_row_key(q: Any) -> str | None:
    return q.video if q.question else None  # items without a multi-hop question are not scored


def paired_bucket_paths(q: Any, labelled: bool) -> list[Path]:
    paths = [("by_hop", str(q.hops))]
    return paths + [("by_category", q.category or "unlabelled")] if labelled else paths
