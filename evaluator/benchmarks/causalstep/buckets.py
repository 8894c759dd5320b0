"""CausalStep's breakdown buckets (categories, chain positions) and paired-statistics
hooks (evaluator/benchmarks/hooks.py says what each name is for)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evaluator.benchmarks.hooks import Buckets, ExtraBucket, Path, keyed

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


def paired_extra(score_alone: Callable[[list], dict], questions: list, metrics: dict) -> list[ExtraBucket]:
    """DUA and ICRA, the accuracies of the descriptive and the causal questions asked alone,
    as per-video sums [right, asked]: each video's record scored alone gives its accuracies,
    over its segments (descriptive) and all but its first (causal)."""
    if metrics.get("dua") is None:
        return []
    rows: dict[str, dict[str, list[float]]] = {"dua": {}, "icra": {}}
    for q in questions:
        alone = score_alone([q])
        for name, asked in (("dua", len(q.segments)), ("icra", len(q.segments) - 1)):
            if asked > 0 and alone.get(name) is not None:
                rows[name][q.id] = [float(round(alone[name] * asked / 100)), float(asked)]
    return [ExtraBucket(path=(name,), reducer="ratio", n=int(sum(r[1] for r in found.values())), rows=found)
            for name, found in rows.items() if found]
