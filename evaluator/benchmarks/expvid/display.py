"""What the site shows of ExpVid: its tab's metrics, "By level" columns and breakdown
views, as data (evaluator/benchmarks/hooks.py; leaderboard/views/columns.py reads them)."""

from evaluator.benchmarks.hooks import LevelColumn, View

# its `overall` in words, for the suite's dataset card and eval.yaml
HEADLINE = "the mean of its three levels' accuracies (level 3: the share of blanks filled correctly)"
DISPLAY_METRICS = ("overall", "level1", "level2", "level3", "tool", "material", "quantity", "operation",
                   "ordering", "generation", "verification", "prediction", "analysis", "discovery")
METRIC_LABELS = {"level1": "Level 1", "level2": "Level 2", "level3": "Level 3"}
LEVEL_COLUMNS = (LevelColumn("level1", "ExpVid L1", 10, "perception"),
                 LevelColumn("level2", "ExpVid L2", 10, "procedure"),
                 LevelColumn("level3", "ExpVid L3", 10, "reasoning"))
VIEWS = (View("expvid-discipline", "domain", "ExpVid: disciplines", "by_discipline", "overall", order=10),)
