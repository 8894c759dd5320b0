"""Video SimpleQA: short factual answers about a video, chained over 2-4 facts.

Protocol as data: protocol.toml; choices: docs/protocol.md. Each item is one multi-hop question: hop 1
asks what the video shows, hops 2..k ask world knowledge about the previous answer,
and the multi-hop question folds the chain into one question. The model answers
with JSON {"answer": ..., "confidence_score": 0-100}; a judge grades each answer
CORRECT, INCORRECT or NOT_ATTEMPTED. Headline: F-score = 2c / (2N - n).

What is public and what is hidden:
- public (questions.jsonl, calls.jsonl): the multi-hop question, its hop count, the
  primary category when the release has labels, and an OPAQUE video id;
- hidden (the answer record): the gold answer, the sub-questions and their answers
  (sub-question j >= 2 names the answer of hop j-1), and the release's date key (the
  Wikimedia "Media of the Day" page for that date names the hop-1 answer).
Worker runs also ask every sub-question in its own call (`hidden_calls`), which gives
the per-hop F-scores of the paper's Tables 4 and 8.
"""

from evaluator.benchmarks.videosimpleqa.buckets import BREAKDOWN_FIELDS, PAIRED_REDUCER, count_buckets, paired_bucket_paths, paired_row_key
from evaluator.benchmarks.videosimpleqa.calls import HIDDEN_CALLS_STAGE, build_calls, hidden_calls
from evaluator.benchmarks.videosimpleqa.demo import demo
from evaluator.benchmarks.videosimpleqa.display import DISPLAY_METRICS, HEADLINE, METRIC_LABELS, VIEWS
from evaluator.benchmarks.videosimpleqa.metrics import Grades, expected_calibration_error, score
from evaluator.benchmarks.videosimpleqa.records import (
    CATEGORY_FILE,
    JUDGE_SEES_FRAMES,
    JUDGE_TASK,
    NAME,
    PAPER_CATEGORIES,
    PAPER_HOPS,
    PAPER_SIZE,
    PRIMARY,
    RELEASE_FILE,
    TITLE,
    Answer,
    Question,
    call_id,
    hop_call_id,
)
from evaluator.benchmarks.videosimpleqa.release import RELEASE_LAYOUT, import_release

__all__ = [
    "RELEASE_LAYOUT", "HIDDEN_CALLS_STAGE",
    "BREAKDOWN_FIELDS", "DISPLAY_METRICS", "HEADLINE", "METRIC_LABELS", "VIEWS",
    "PAIRED_REDUCER", "count_buckets", "paired_bucket_paths", "paired_row_key",
    "Answer", "CATEGORY_FILE", "Grades", "JUDGE_SEES_FRAMES", "JUDGE_TASK", "NAME", "PAPER_CATEGORIES", "PAPER_HOPS", "PAPER_SIZE", "PRIMARY",
    "Question", "RELEASE_FILE", "TITLE", "build_calls", "call_id", "demo", "expected_calibration_error",
    "hidden_calls", "hop_call_id", "import_release", "score"
]
