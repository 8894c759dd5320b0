"""ExAct's breakdown buckets (categories, domains, activities) and paired-statistics
hooks (evaluator/benchmarks/hooks.py says what each name is for)."""

from __future__ import annotations

from typing import Any

from evaluator.benchmarks.hooks import Buckets, Path, keyed, scalars

# the public Question fields its results are broken down by (`import --check` counts them)
BREAKDOWN_FIELDS = ("category", "domain", "activity")
PAIRED_REDUCER = "ratio"


def count_buckets(metrics: dict, minimum: int) -> Buckets:
    yield from scalars(metrics, "n_by_category")  # good_execution, tips
    yield from keyed(metrics, "by_domain", "n_by_domain")
    yield from keyed(metrics, "by_activity", "n_by_activity")


def paired_bucket_paths(q: Any, labelled: bool) -> list[Path]:
    return [(q.category,), ("by_domain", q.domain), ("by_activity", q.activity)]
