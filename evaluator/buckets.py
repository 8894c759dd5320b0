"""Which breakdown buckets of a benchmark's metrics hold how many items.

`count_buckets(benchmark, metrics, minimum)` yields (path of the bucket's value in the
metrics tree, its item count) for every breakdown bucket: a level, task, domain, hop,
category... Each benchmark declares its own in its folder (`count_buckets` in
evaluator/benchmarks/<name>/buckets.py); a benchmark that declares none has no
breakdown buckets. The small-bucket rule (results/disclosure.py) hides the buckets
under its minimum; the paired statistics (evaluator/paired.py) record the same counts,
so both agree on what a bucket is and how many items it has.
"""

from __future__ import annotations

from typing import Any

from evaluator.benchmarks import BENCHMARKS
from evaluator.benchmarks.hooks import Buckets, Partition, Path

__all__ = ["Buckets", "Partition", "Path", "bucket_paths", "count_buckets", "hook", "partitions"]


def hook(benchmark: str, name: str, default: Any) -> Any:
    """A benchmark package's optional hook (evaluator/benchmarks/hooks.py), else `default`;
    an unknown benchmark gets the default too (a result may name one this code lacks)."""
    return getattr(BENCHMARKS.get(benchmark), name, default)


def _none(metrics: dict, minimum: int) -> Buckets:
    return iter(())


def count_buckets(benchmark: str, metrics: dict, minimum: int) -> Buckets:
    return hook(benchmark, "count_buckets", _none)(metrics, minimum)


def bucket_paths(benchmark: str, q: Any, labelled: bool = True) -> list[Path]:
    """The breakdown buckets (as paths of the published metrics) a question counts in:
    levels and tasks, domains and disciplines, categories, hops."""
    return hook(benchmark, "paired_bucket_paths", _no_paths)(q, labelled)


def _no_paths(q: Any, labelled: bool) -> list[Path]:
    return []


def partitions(benchmark: str, metrics: dict, minimum: int) -> list[Partition]:
    """The groups of breakdown buckets whose scores make up a published score (the
    benchmark's overall, or a bucket above them): the benchmark's own `partitions` hook,
    else one group per breakdown (the values of one `by_*` key, or the scalars counted in
    one `n_*` key), each making up the overall."""
    declared = hook(benchmark, "partitions", None)
    if declared is not None:
        return list(declared(metrics))
    groups: dict[Path, list[Path]] = {}
    for path, _ in count_buckets(benchmark, metrics, minimum):
        key = path[:-1] if len(path) > 1 else (_counted_in(metrics, path[0]),)
        if key != (None,):
            groups.setdefault(key, []).append(path)
    return [Partition(None, tuple(members)) for members in groups.values()]


def _counted_in(metrics: dict, name: str) -> str | None:
    """The `n_*` key whose {group: n} counts the scalar metric `name` (levels, tracks...)."""
    return next((k for k, v in metrics.items() if k.startswith("n_") and isinstance(v, dict) and name in v), None)
