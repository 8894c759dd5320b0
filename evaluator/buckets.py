"""Which breakdown buckets of a benchmark's metrics hold how many items (BUCKETS).

BUCKETS[benchmark](metrics, minimum) yields (path of the bucket's value in the metrics
tree, its item count) for every breakdown bucket: a level, task, domain, hop,
category... The small-bucket rule (leaderboard/disclosure.py) hides the buckets under
its minimum; the paired statistics (evaluator/paired.py) record the same counts, so both
agree on what a bucket is and how many items it has.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

Path = tuple[str, ...]
Buckets = Iterator[tuple[Path, int]]


def _count(value: Any) -> int:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


def _keyed(metrics: dict, metric: str, counts: str) -> Buckets:
    """One bucket per group of a {group: value} breakdown, sized by its {group: n} key."""
    for group, n in (metrics.get(counts) or {}).items():
        yield (metric, str(group)), _count(n)


def _scalars(metrics: dict, counts: str) -> Buckets:
    """Scalar metrics named like their groups (level1, tool, perception...)."""
    for name, n in (metrics.get(counts) or {}).items():
        yield (str(name),), _count(n)


def _expvid(metrics: dict, minimum: int) -> Buckets:
    yield from _scalars(metrics, "n_by_level")
    yield from _scalars(metrics, "n_by_task")
    for discipline, levels in (metrics.get("n_by_discipline") or {}).items():
        for level, n in levels.items():
            yield ("by_discipline", discipline, level), _count(n)
        # the discipline's overall is the mean of its levels: shown only when each of them is
        present = [_count(n) for n in levels.values() if _count(n)]
        yield ("by_discipline", discipline, "overall"), min(present, default=0)


def _causalstep(metrics: dict, minimum: int) -> Buckets:
    yield from _keyed(metrics, "by_category", "n_by_category")
    yield from _keyed(metrics, "by_chain_position", "n_by_chain_position")


def _exact(metrics: dict, minimum: int) -> Buckets:
    yield from _scalars(metrics, "n_by_category")  # good_execution, tips
    yield from _keyed(metrics, "by_domain", "n_by_domain")
    yield from _keyed(metrics, "by_activity", "n_by_activity")


# Video-MMMU's knowledge gain is measured on the adaptation items that have a
# question-only call; its counts of right/wrong answers are scores too.
GAIN = ("delta_knowledge", "adaptation_question_only", "wrong_to_right", "right_to_wrong",
         "n_wrong_to_right", "n_right_to_wrong", "n_right_before", "n_wrong_before")


def _videommmu(metrics: dict, minimum: int) -> Buckets:
    yield from _scalars(metrics, "n_by_track")
    yield from _keyed(metrics, "by_discipline", "n_by_discipline")
    right, wrong = metrics.get("n_right_before"), metrics.get("n_wrong_before")
    if right is None or wrong is None:  # already hidden by an earlier pass: the track's size
        group = _count((metrics.get("n_by_track") or {}).get("adaptation"))
    else:
        group = _count(right) + _count(wrong)
    if group < minimum:
        # the rates' own denominators would give away the question-only score: all go together
        yield from (((name,), group) for name in GAIN)
        return
    yield from ((("wrong_to_right",), _count(wrong)), (("n_wrong_to_right",), _count(wrong)))
    yield from ((("right_to_wrong",), _count(right)), (("n_right_to_wrong",), _count(right)))


def _videosimpleqa(metrics: dict, minimum: int) -> Buckets:
    yield from _keyed(metrics, "by_hop", "n_by_hop")
    yield from _keyed(metrics, "by_category", "n_by_category")
    yield from _keyed(metrics, "subqa", "n_subqa")
    for count, hops in (metrics.get("n_subqa_by_hop_count") or {}).items():
        for hop, n in hops.items():
            yield ("subqa_by_hop_count", str(count), str(hop)), _count(n)


BUCKETS: dict[str, Callable[[dict, int], Buckets]] = {
    "expvid": _expvid, "causalstep": _causalstep, "exact": _exact,
    "videommmu": _videommmu, "videosimpleqa": _videosimpleqa,
}
