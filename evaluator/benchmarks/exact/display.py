"""What the site shows of ExAct: its tab's metrics and breakdown views, as data
(evaluator/benchmarks/hooks.py; leaderboard/views/columns.py reads them)."""

from evaluator.benchmarks.hooks import View

DISPLAY_METRICS = ("overall", "good_execution", "tips")
METRIC_LABELS = {"good_execution": "Good execution", "tips": "Tips"}
VIEWS = (
    View("exact-domain", "domain", "ExAct: domains", "by_domain", order=20),
    View("exact-activity", "domain", "ExAct: activities", "by_activity", order=20),
)
