"""Which breakdown buckets of a benchmark's metrics hold how many items.

`count_buckets(benchmark, metrics, minimum)` yields (path of the bucket's value in the
metrics tree, its item count) for every breakdown bucket: a level, task, domain, hop,
category... Each benchmark declares its own in its folder (`count_buckets` in
evaluator/benchmarks/<name>/buckets.py); a benchmark that declares none has no
breakdown buckets. The small-bucket rule (leaderboard/disclosure.py) hides the buckets
under its minimum; the paired statistics (evaluator/paired.py) record the same counts,
so both agree on what a bucket is and how many items it has.
"""

from __future__ import annotations

from typing import Any

from evaluator.benchmarks import BENCHMARKS
from evaluator.benchmarks.hooks import Buckets, Path

__all__ = ["Buckets", "Path", "count_buckets", "hook"]


def hook(benchmark: str, name: str, default: Any) -> Any:
    """A benchmark package's optional hook (evaluator/benchmarks/hooks.py), else `default`;
    an unknown benchmark gets the default too (a result may name one this code lacks)."""
    return getattr(BENCHMARKS.get(benchmark), name, default)


def _none(metrics: dict, minimum: int) -> Buckets:
    return iter(())


def count_buckets(benchmark: str, metrics: dict, minimum: int) -> Buckets:
    return hook(benchmark, "count_buckets", _none)(metrics, minimum)
