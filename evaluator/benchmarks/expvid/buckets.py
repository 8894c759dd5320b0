"""ExpVid's breakdown buckets (levels, tasks, disciplines) and paired-statistics hooks
(evaluator/benchmarks/hooks.py says what each name is for)."""

from __future__ import annotations

from typing import Any

from evaluator.benchmarks.expvid.records import LEVELS, TASK_LEVEL
from evaluator.benchmarks.hooks import Buckets, Partition, Path, count, scalars

# the public Question fields its results are broken down by (`import --check` counts them)
BREAKDOWN_FIELDS = ("level", "task", "discipline")
PAIRED_REDUCER = "level_mean"  # overall is the mean of the levels present


def count_buckets(metrics: dict, minimum: int) -> Buckets:
    yield from scalars(metrics, "n_by_level")
    yield from scalars(metrics, "n_by_task")
    for discipline, levels in (metrics.get("n_by_discipline") or {}).items():
        for level, n in levels.items():
            yield ("by_discipline", discipline, level), count(n)
        # the discipline's overall is the mean of its levels: shown only when each of them is
        present = [count(n) for n in levels.values() if count(n)]
        yield ("by_discipline", discipline, "overall"), min(present, default=0)


def partitions(metrics: dict) -> list[Partition]:
    """The levels make up the overall (their mean); each level's tasks make up the level;
    each level's discipline cells make up the level; a discipline's levels make up its own
    overall (their mean)."""
    tasks = list(metrics.get("n_by_task") or {})
    disciplines = metrics.get("n_by_discipline") or {}
    groups = [Partition(None, tuple((level,) for level in (metrics.get("n_by_level") or {})))]
    for level in LEVELS:
        groups.append(Partition((level,), tuple((t,) for t in tasks if f"level{TASK_LEVEL.get(t)}" == level)))
        groups.append(Partition((level,), tuple(("by_discipline", d, level) for d, levels in disciplines.items()
                                                if level in levels)))
    for d, levels in disciplines.items():
        groups.append(Partition(("by_discipline", d, "overall"), tuple(("by_discipline", d, lv) for lv in levels)))
    return [g for g in groups if g.members]


def paired_row_key(q: Any) -> str | None:
    return q.source


def paired_bucket_paths(q: Any, labelled: bool) -> list[Path]:
    return [(f"level{q.level}",), (q.task,), ("by_discipline", q.discipline, "overall")]
