"""What the site shows of Video SimpleQA: its tab's metrics and breakdown views, as
data (evaluator/benchmarks/hooks.py; leaderboard/views/columns.py reads them)."""

from evaluator.benchmarks.hooks import View

# its `overall` in words, for the suite's dataset card and eval.yaml
HEADLINE = "the F-score of the judged answers (harmonic mean of correct over all and over attempted)"
DISPLAY_METRICS = ("overall", "correct", "incorrect", "not_attempted", "cga", "ece")
METRIC_LABELS = {"correct": "Correct", "incorrect": "Incorrect", "not_attempted": "Not attempted", "cga": "CGA",
                 "ece": "ECE", "calibration_n": "# with confidence", "f_score": "F-score"}
VIEWS = (
    View("videosimpleqa-category", "domain", "Video SimpleQA: categories", "by_category", "f_score", order=50),
    View("videosimpleqa-hop", "hop", "Video SimpleQA: by hop count", "by_hop", "f_score", "{}-hop", order=10),
    View("videosimpleqa-subqa", "hop", "Video SimpleQA: sub-questions, F-score per hop", "subqa", order=10),
    View("videosimpleqa-subqa-by-count", "hop", "Video SimpleQA: sub-questions within each k-hop subset",
         "subqa_by_hop_count", "multi_hop", "{}-hop", order=10),
)
