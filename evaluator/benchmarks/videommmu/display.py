"""What the site shows of Video-MMMU: its tab's metrics, "By level" columns and
breakdown views, as data (evaluator/benchmarks/hooks.py; leaderboard/views/columns.py
reads them)."""

from evaluator.benchmarks.hooks import LevelColumn, View

# its `overall` in words, for the suite's dataset card and eval.yaml
HEADLINE = "accuracy over the questions of its three tracks (Perception, Comprehension, Adaptation)"
DISPLAY_METRICS = ("overall", "perception", "comprehension", "adaptation", "delta_knowledge",
                   "wrong_to_right", "right_to_wrong", "adaptation_question_only")
METRIC_LABELS = {
    "delta_knowledge": "Δknowledge", "wrong_to_right": "Wrong→right", "right_to_wrong": "Right→wrong",
    "adaptation_question_only": "Adaptation (question only)",
    "n_wrong_to_right": "# wrong→right", "n_right_to_wrong": "# right→wrong",
    "n_wrong_before": "# wrong before", "n_right_before": "# right before",
}
LEVEL_COLUMNS = (LevelColumn("perception", "Video-MMMU Perception", 20),
                 LevelColumn("comprehension", "Video-MMMU Comprehension", 20),
                 LevelColumn("adaptation", "Video-MMMU Adaptation", 20))
VIEWS = (View("videommmu-discipline", "domain", "Video-MMMU: disciplines", "by_discipline", order=30),)
