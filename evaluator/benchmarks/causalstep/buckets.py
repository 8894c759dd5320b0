"""CausalStep's breakdown buckets (categories, chain positions) and paired-statistics
hooks (evaluator/benchmarks/hooks.py says what each name is for)."""

from __future__ import annotations

from typing import Any

from evaluator.benchmarks.hooks import Buckets, Path, keyed

# the public Question fields its results are broken down by (`import --check` counts them)
BREAKDOWN_FIELDS = ("category",)
PAIRED_REDUCER = "ratio"


def count_buckets(metrics: dict, minimum: int) -> Buckets:
    yield from keyed(metrics, "by_category", "n_by_category")
    yield from keyed(metrics, "by_chain_position", "n_by_chain_position")


def paired_row_key(q: Any) -> str | None:
    return q.id  # one row per video record


def paired_bucket_paths(q: Any, labelled: bool) -> list[Path]:
    return [("by_category", q.category)]
