"""ExpVid: understanding and reasoning about wet-lab experiment videos, at three levels.

Protocol as data: protocol.toml; choices: docs/protocol.md. Ten tasks over 390 JoVE experiments in 13 disciplines:

    level 1, short action clips (8 frames):     tool, material, quantity, operation   4-option MCQ
    level 2, stage segments (32 frames):        ordering (MCQ), generation (step numbers, Jaccard),
                                                verification (MCQ, one letter per step),
                                                prediction (the next step's number)
    level 3, full videos (budgets.expvid_level3): analysis, discovery   fill in the blanks, judged

Each item is one call: an instruction, then the question block (no narration or
transcript: the release's `asr_caption` never enters the suite). Scores: accuracy
per task (Jaccard x100 for generation, per-blank accuracy for level 3); level 1 and
level 2 are micro averages over questions (a generation item adds its Jaccard),
level 3 pools blanks over both tasks; `overall` is the mean of the levels present.
"""

from evaluator.benchmarks.expvid.buckets import (
    BREAKDOWN_FIELDS,
    PAIRED_REDUCER,
    count_buckets,
    paired_bucket_paths,
    paired_row_key,
    partitions,
)
from evaluator.benchmarks.expvid.calls import build_calls, frame_budget_key
from evaluator.benchmarks.expvid.demo import FILLERS, demo
from evaluator.benchmarks.expvid.display import DISPLAY_METRICS, HEADLINE, LEVEL_COLUMNS, METRIC_LABELS, VIEWS
from evaluator.benchmarks.expvid.metrics import jaccard, score
from evaluator.benchmarks.expvid.records import (
    ANSWER_FORMAT,
    DISCIPLINES,
    JUDGE_LABELS_KEY,
    JUDGE_TASK,
    JUDGE_TITLE,
    LEVEL_TASKS,
    LEVELS,
    NAME,
    PAPER_SIZE,
    TASK_LEVEL,
    TASKS,
    TITLE,
    Answer,
    Question,
    call_id,
)
from evaluator.benchmarks.expvid.release import RELEASE_LAYOUT, import_release, task_of_file

__all__ = [
    "RELEASE_LAYOUT",
    "BREAKDOWN_FIELDS", "DISPLAY_METRICS", "HEADLINE", "LEVEL_COLUMNS", "METRIC_LABELS", "VIEWS",
    "PAIRED_REDUCER", "count_buckets", "paired_bucket_paths", "paired_row_key", "partitions",
    "ANSWER_FORMAT", "Answer", "DISCIPLINES", "JUDGE_LABELS_KEY", "JUDGE_TASK", "JUDGE_TITLE", "LEVELS", "LEVEL_TASKS", "NAME", "PAPER_SIZE", "Question",
    "TASKS", "TASK_LEVEL", "TITLE", "FILLERS", "build_calls", "call_id", "frame_budget_key", "demo", "import_release", "jaccard",
    "score", "task_of_file"
]
