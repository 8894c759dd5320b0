"""What of a result may be published: small breakdown buckets lose their score.

A breakdown bucket (a level, task, domain, hop, category... of one benchmark) with
fewer than `min_bucket_items` items (LEADERBOARD_MIN_BUCKET_ITEMS) would tell a
submitter how individual answers were graded: a one-item bucket says whether that one
answer was right. Such a bucket keeps its item count (the `n_*` keys) but its value
becomes null, and the benchmark's scores get a `suppressed` tree that mirrors the
metric's shape down to the hidden cell, whose leaf is the bucket's item count:

    "by_hop": {"2": {...}, "3": {...}, "4": null},
    "n_by_hop": {"2": 10, "3": 5, "4": 1},
    "suppressed": {"by_hop": {"4": 1}, "level3": 7}

`overall` (and its interval) and every whole-benchmark metric always use all items
and are never touched. Only public copies are suppressed (`public`); the worker's
staged copy in the private store keeps every score for the maintainers.
"""

from __future__ import annotations

import copy
from typing import Any

from evaluator.buckets import Path, count_buckets
from evaluator.result import Result

REASON = "n too small"  # what the site shows (with n) in place of a hidden bucket's score
SUPPRESSED = "suppressed"  # the key of the tree of hidden buckets in a benchmark's scores


def _has(tree: dict, path: Path) -> bool:
    for key in path:
        if not isinstance(tree, dict) or key not in tree:
            return False
        tree = tree[key]
    return True


def _set(tree: dict, path: Path, value: Any) -> None:
    for key in path[:-1]:
        tree = tree.setdefault(key, {})
    tree[path[-1]] = value


def suppress_benchmark(name: str, metrics: dict[str, Any], minimum: int) -> dict[str, Any]:
    """A copy of one benchmark's scores with every bucket of 1..minimum-1 items hidden.
    Buckets with no item carry no score anyway and are left alone."""
    out = copy.deepcopy(metrics)
    hidden: dict[str, Any] = copy.deepcopy(out.get(SUPPRESSED) or {})
    for path, n in list(count_buckets(name, metrics, minimum)):
        if 0 < n < minimum and _has(out, path):
            _set(out, path, None)
            _set(hidden, path, n)
    if hidden:
        out[SUPPRESSED] = hidden
    return out


def exposed(scores: dict[str, dict[str, Any]], minimum: int) -> list[tuple[str, Path]]:
    """(benchmark, path) of every bucket of 1..minimum-1 items that still shows a score:
    empty when `scores` is already public at `minimum`. Cheap (no copy): exports check
    every row of a table with it and suppress only the rows it names."""
    found = []
    for name, metrics in scores.items():
        for path, n in count_buckets(name, metrics, minimum):
            if 0 < n < minimum and _has(metrics, path) and _get(metrics, path) is not None:
                found.append((name, path))
    return found


def _get(tree: dict, path: Path) -> Any:
    for key in path:
        tree = tree[key]
    return tree


def suppress(scores: dict[str, dict[str, Any]], minimum: int) -> dict[str, dict[str, Any]]:
    return {name: suppress_benchmark(name, metrics, minimum) for name, metrics in scores.items()}


def public(result: Result, minimum: int | None = None) -> Result:
    """The result as it may be published: buckets below `minimum` items (default: the
    LEADERBOARD_MIN_BUCKET_ITEMS setting) hidden, the minimum recorded. A result already
    made public with at least this minimum comes back unchanged."""
    if minimum is None:
        from space_config.settings import get_settings

        minimum = get_settings().min_bucket_items
    if result.min_bucket_items is not None and minimum <= result.min_bucket_items:
        return result
    return result.model_copy(update={"scores": suppress(result.scores, minimum), "min_bucket_items": minimum})


def suppressed_n(hidden: Any, path: Path) -> int | None:
    """The item count of the hidden bucket at `path` (or of a hidden bucket above it),
    from a benchmark's `suppressed` tree; None when that cell is shown."""
    for key in path:
        if not isinstance(hidden, dict) or key not in hidden:
            return None
        hidden = hidden[key]
        if isinstance(hidden, int) and not isinstance(hidden, bool):
            return hidden
    return None


def hidden_text(n: int) -> str:
    """What the site shows in place of a hidden bucket's score."""
    return f"{REASON} (n={n})"
