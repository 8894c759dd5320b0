"""What the site shows of ExAct: its tab's metrics and breakdown views, as data
(evaluator/benchmarks/hooks.py; leaderboard/views/columns.py reads them)."""

from evaluator.benchmarks.exact.records import NAME, TITLE
from evaluator.benchmarks.hooks import View

# its `overall` in words, for the suite's dataset card and eval.yaml
HEADLINE = "accuracy over all items"
DISPLAY_METRICS = ("overall", "good_execution", "tips")
METRIC_LABELS = {"good_execution": "Good execution", "tips": "Tips"}
VIEWS = (
    View(f"{NAME}-domain", "domain", f"{TITLE}: domains", "by_domain", order=20),
    View(f"{NAME}-activity", "domain", f"{TITLE}: activities", "by_activity", order=20),
)
