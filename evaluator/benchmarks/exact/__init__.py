"""ExAct: pick the expert coach's feedback on a short clip of a skilled activity.

Protocol as data: protocol.toml; choices: docs/protocol.md. Five options per item (the coach's comment and four
distractors), shown in one order fixed per item, drawn from the suite's secret
(so the order, published in the suite, says nothing about where the comment is). Scores: micro accuracy over all items, over Good Execution and Tips
items, by domain (6) and by activity (11).
"""

from evaluator.benchmarks.exact.buckets import BREAKDOWN_FIELDS, PAIRED_REDUCER, count_buckets, paired_bucket_paths
from evaluator.benchmarks.exact.calls import build_calls
from evaluator.benchmarks.exact.demo import demo
from evaluator.benchmarks.exact.display import DISPLAY_METRICS, HEADLINE, METRIC_LABELS, VIEWS
from evaluator.benchmarks.exact.metrics import score
from evaluator.benchmarks.exact.records import (
    ACTIVITY_DOMAIN,
    LABELS,
    NAME,
    PAPER_SIZE,
    TITLE,
    Answer,
    Question,
    make_item,
    call_id,
    normalise_activity,
)
from evaluator.benchmarks.exact.release import RELEASE_LAYOUT, import_release

__all__ = [
    "RELEASE_LAYOUT",
    "BREAKDOWN_FIELDS", "DISPLAY_METRICS", "HEADLINE", "METRIC_LABELS", "VIEWS",
    "PAIRED_REDUCER", "count_buckets", "paired_bucket_paths",
    "ACTIVITY_DOMAIN", "Answer", "LABELS", "NAME", "PAPER_SIZE", "Question", "TITLE", "make_item", "build_calls",
    "call_id", "demo", "import_release", "normalise_activity", "score"
]
