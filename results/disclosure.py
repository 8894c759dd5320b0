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

Hiding one bucket is not enough where its group makes up a published score (the domains
of a benchmark make up its overall, a level's tasks make up the level): the hidden score
would be the parent's less the shown ones. So the group's smallest shown buckets are
hidden too, until the hidden ones are at least two and hold `min_bucket_items` items
together (`complements`); the groups are declared per benchmark (evaluator/buckets.py:
`partitions`). What the parent then says of them is no finer than a published bucket.
A near-duplicate file's result also hides the buckets it changed on too few items
(submissions/near_duplicates.py), with their complements.

`overall` (and its interval) and every whole-benchmark metric always use all items
and are never touched. Only public copies are suppressed (`public`); the worker's
staged copy in the private store keeps every score for the maintainers.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from typing import Any

from evaluator.buckets import Partition, Path, count_buckets, hook, partitions
from evaluator.result import Result

REASON = "n too small"  # what the site shows (with n) in place of a hidden bucket's score
# ... of a bucket big enough to show, hidden so that another hidden one stays hidden (or as a
# near-duplicate file's change)
COMPLEMENT = "hidden with others"
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


def suppress_benchmark(name: str, metrics: dict[str, Any], minimum: int,
                       close: Iterable[Path] = ()) -> dict[str, Any]:
    """A copy of one benchmark's scores with every bucket of 1..minimum-1 items hidden, and
    the `close` buckets (those a near-duplicate file changes on too few items), and then
    their complements. Buckets with no item carry no score anyway and are left alone."""
    sizes, down = hidden_buckets(name, metrics, minimum, close)
    out = copy.deepcopy(metrics)
    hidden: dict[str, Any] = copy.deepcopy(out.get(SUPPRESSED) or {})
    for path in sorted(down):
        _set(out, path, None)
        _set(hidden, path, sizes[path])
    if hidden:
        out[SUPPRESSED] = hidden
    return out


def hidden_buckets(name: str, metrics: dict[str, Any], minimum: int,
                   close: Iterable[Path] = ()) -> tuple[dict[Path, int], set[Path]]:
    """(item count of every bucket with items, the buckets to hide)."""
    sizes = {path: n for path, n in count_buckets(name, metrics, minimum) if n > 0 and _has(metrics, path)}
    down = {path for path, n in sizes.items() if n < minimum} | {p for p in close if p in sizes}
    # hidden when published (a public copy checked again: exports, rebuild), for whatever reason
    down |= {p for p in sizes if suppressed_n(metrics.get(SUPPRESSED), p) is not None}
    down = complements(down, sizes, partitions(name, metrics, minimum), minimum)
    return sizes, with_derived(name, metrics, sizes, down)


def with_derived(name: str, metrics: dict[str, Any], sizes: dict[Path, int], down: set[Path]) -> set[Path]:
    """`down` with the cells computed from a hidden bucket's own items, which would give it
    back (the benchmark's HIDDEN_WITH hook: Video-MMMU's knowledge-gain figures come from its
    Adaptation items); each such cell is recorded with its bucket's item count."""
    for bucket, cells in hook(name, "HIDDEN_WITH", {}).items():
        if bucket in down:
            for cell in cells:
                if _has(metrics, cell) and _get(metrics, cell) is not None:
                    sizes.setdefault(cell, sizes[bucket])
                    down.add(cell)
    return down


def complements(down: set[Path], sizes: dict[Path, int], groups: list[Partition], minimum: int) -> set[Path]:
    """`down` grown until no hidden bucket can be recomputed from a published score made
    of its group (complementary suppression, as statistical agencies do for tables):
    where a group's published parent is made of its members, the hidden members must be
    at least two and hold at least `minimum` items together, so that what the parent
    gives back about them is no finer than a published bucket. The smallest shown member
    is hidden next; a group with every member hidden hides its parent bucket instead."""
    down = set(down)
    grew = True
    while grew:
        grew = False
        for group in groups:
            if group.parent in down:
                continue  # the parent is not published: nothing to subtract from
            members = [p for p in group.members if p in sizes]
            hidden = [p for p in members if p in down]
            if not hidden or (len(hidden) > 1 and sum(sizes[p] for p in hidden) >= minimum):
                continue
            shown = [p for p in members if p not in down]
            if shown:
                down.add(min(shown, key=lambda p: (sizes[p], p)))
            elif group.parent is not None and group.parent in sizes:
                down.add(group.parent)
            else:
                continue
            grew = True
    return down


def exposed(scores: dict[str, dict[str, Any]], minimum: int) -> list[tuple[str, Path]]:
    """(benchmark, path) of every bucket that should be hidden at `minimum` (small, or
    the complement of one) and still shows a score: empty when `scores` is already public
    at `minimum`. No copy: exports check every row of a table with it and suppress only
    the rows it names."""
    found = []
    for name, metrics in scores.items():
        _, down = hidden_buckets(name, metrics, minimum)
        found.extend((name, path) for path in sorted(down) if _get(metrics, path) is not None)
    return found


def _get(tree: dict, path: Path) -> Any:
    for key in path:
        tree = tree[key]
    return tree


def suppress(scores: dict[str, dict[str, Any]], minimum: int,
             close: Iterable[Sequence[str]] = ()) -> dict[str, dict[str, Any]]:
    """Every benchmark's scores suppressed; `close`: buckets as [benchmark, *path]."""
    paths = [tuple(c) for c in close if len(c) > 1]
    return {name: suppress_benchmark(name, metrics, minimum, [p[1:] for p in paths if p[0] == name])
            for name, metrics in scores.items()}


def public(result: Result, minimum: int | None = None) -> Result:
    """The result as it may be published: buckets below `minimum` items (default: the
    LEADERBOARD_MIN_BUCKET_ITEMS setting) hidden, with their complements and the buckets
    a near-duplicate file changed too little (`submission.close_cells`), the minimum
    recorded. Hiding again what is hidden changes nothing, so a copy published under an
    older rule is brought up to this one."""
    if minimum is None:
        from space_config.settings import get_settings

        minimum = get_settings().min_bucket_items
    close = (result.submission or {}).get("close_cells") or ()
    minimum = max(minimum, result.min_bucket_items or 0)  # what was hidden stays hidden
    return result.model_copy(update={"scores": suppress(result.scores, minimum, close),
                                     "min_bucket_items": minimum})


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


def hidden_text(n: int, minimum: int | None = None) -> str:
    """What the site shows in place of a hidden bucket's score: "n too small", or, for a
    bucket big enough to be shown (hidden so that another stays hidden, or as a near-duplicate
    file's), COMPLEMENT."""
    if minimum is None:
        from space_config.settings import get_settings

        minimum = get_settings().min_bucket_items
    return f"{REASON if n < minimum else COMPLEMENT} (n={n})"
