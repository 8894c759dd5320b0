"""What a benchmark folder may declare for the scoring and display code, and the
helpers its declarations share.

Every hook is optional; evaluator/buckets.py, evaluator/paired.py,
leaderboard/views/columns.py and the rest look each one up in the registry
(`evaluator.benchmarks.hook(name, ATTR, default)`) and fall back to the default named here:

    count_buckets(metrics, minimum) -> Buckets   breakdown buckets and their item counts
                                                  (default: none)
    BREAKDOWN_FIELDS: tuple[str, ...]             public Question fields `import --check` counts
                                                  (default: none)
    PAIRED_REDUCER: str                           how the headline is made of per-video column
                                                  sums: "ratio" (default), "level_mean", "f_score"
    partitions(metrics) -> [Partition]           the groups of buckets that make up a published
                                                  score, which the small-bucket rule must hide
                                                  together (default: one group per breakdown,
                                                  making up the overall)
    HIDDEN_WITH: {Path: tuple[Path, ...]}         cells computed from a bucket's own items, hidden
                                                  whenever it is (Video-MMMU's knowledge-gain
                                                  figures with its Adaptation track; default: none)
    paired_row_key(q) -> str | None               which per-video row a question is in
                                                  (default: q.video; None: not scored)
    paired_bucket_paths(q, labelled) -> [Path]    the buckets a question counts in (default: none)
    paired_extra(score_alone, questions, metrics) -> [ExtraBucket]
                                                  comparable numbers the scorer does not make per
                                                  bucket (Video-MMMU's Δknowledge; default: none)
    frame_budget_key(call) -> str                 which frame budget of its protocol.toml a call
                                                  follows (default: the protocol's only frames key)
    COLUMN_WIDTH: int                             its leaderboard column's width in pixels (default:
                                                  102; wider where a one-word title must not break)
    DISPLAY_METRICS: tuple[str, ...]              scalar metric keys its site tab shows, in order
                                                  (default: ("overall",))
    METRIC_LABELS: dict[str, str]                 headers of its own metric keys (default: the
                                                  key, capitalised)
    LEVEL_COLUMNS: tuple[LevelColumn, ...]        its columns of the site's "By level" view
    VIEWS: tuple[View, ...]                       its "By domain" / "By hop" breakdown views
    HEADLINE: str                                 its `overall` in words, for the suite repo's
                                                  dataset card and eval.yaml (default:
                                                  DEFAULT_HEADLINE)
    CALL_MODE: str                                how a runner answers its calls (evaluator/runners/
                                                  schedule.py): "independent" (default), each call
                                                  once; "stepwise", a call in context (Call.context)
                                                  once per option the model chose before, as the
                                                  folder's branch_table(calls, answer_fn) does (which
                                                  a stepwise folder provides: baselines use it)
    SEPARATE_CALL_KINDS: tuple[str, ...]          call kinds answered in a pass of their own, after
                                                  the others, staged "<name> <kind>" (default: none)
    HIDDEN_CALLS_STAGE: str | None                its pass's stage, "<name> <this>", when a worker
                                                  run adds its hidden calls (default: None, "<name>")
    JUDGE_TASK: str | None                        the judge's grading task its free-text answers
                                                  go to, one of evaluator.judges.base.TASKS
                                                  ("blank", "simpleqa": the judge's own prompts);
                                                  a judged benchmark has its own judge setting,
                                                  LEADERBOARD_JUDGE_<NAME> (default: None, no judge)
    JUDGE_TITLE: str                              its judged answers on the About tab (default: TITLE)
    JUDGE_LABELS_KEY: str                         its key in the labelled judge sets
                                                  (docs/judge_agreement.json; default: NAME)
    JUDGE_SEES_FRAMES: bool                       a judge that takes images is shown the video's
                                                  frames (LEADERBOARD_JUDGE_FRAMES; default: False)

Not hooks but data in its protocol.toml (evaluator/reference.py): its frame budgets, frame size
([resolution]) and its own scoring options ([scoring] readings: ScoringOptions.by_benchmark,
LEADERBOARD_<NAME>_READING, recorded as "<name>_<option>").

Kept in the domain layer with records only: a benchmark folder never imports the
scoring or site code that reads these.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

Path = tuple[str, ...]
DEFAULT_HEADLINE = "its overall score"
Buckets = Iterator[tuple[Path, int]]


def count(value: Any) -> int:
    """An item count from a metrics tree (None, text or a bool count as 0)."""
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


def keyed(metrics: dict, metric: str, counts: str) -> Buckets:
    """One bucket per group of a {group: value} breakdown, sized by its {group: n} key."""
    for group, n in (metrics.get(counts) or {}).items():
        yield (metric, str(group)), count(n)


def scalars(metrics: dict, counts: str) -> Buckets:
    """Scalar metrics named like their groups (level1, tool, perception...)."""
    for name, n in (metrics.get(counts) or {}).items():
        yield (str(name),), count(n)


@dataclass(frozen=True)
class ExtraBucket:
    """A comparable number made by the benchmark itself: per-video column sums (`rows`,
    keyed by the video's own id, in first-appearance order) and its reducer."""

    path: Path
    reducer: str
    n: int
    rows: dict[str, list[float]]


@dataclass(frozen=True)
class Partition:
    """Buckets whose scores make up a published score: `parent`, a bucket's path, or None
    for the benchmark's overall (always published). Hide one member alone and it can be
    recomputed from the others and the parent."""

    parent: Path | None
    members: tuple[Path, ...]


@dataclass(frozen=True)
class LevelColumn:
    """One column of the site's "By level" view: a scalar metric and its header.
    `order` places it among all benchmarks' level columns (ties: registry order);
    `meaning`, what the level is, in the tab's opening line ("perception")."""

    metric: str
    label: str
    order: int = 100
    meaning: str = ""


@dataclass(frozen=True)
class View:
    """One breakdown view of the site: `tab` "domain" or "hop"; `metric` the JSON
    breakdown metric; `headline` the metric shown by default for {group: {metric: value}}
    cells; `group_label` a group key's column header. `order` places it among all
    benchmarks' views of its tab (ties: registry order)."""

    key: str
    tab: str
    title: str
    metric: str
    headline: str | None = None
    group_label: str = "{}"
    order: int = 100
