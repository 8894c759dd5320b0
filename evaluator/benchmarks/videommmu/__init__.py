"""Video-MMMU: learn from a college lecture video, then answer about it and apply it.

Protocol as data: protocol.toml; choices: docs/protocol.md. 300 lecture videos, 3 questions each, one per
track: Perception (find the information), Comprehension (understand the method),
Adaptation (apply it to a new problem whose picture is the video's last frame).
Adaptation also has a question-only call (the picture alone, no lecture): the
"before" run of the knowledge-gain metrics Δknowledge, wrong->right, right->wrong.

Public item and video ids are opaque (keyed hashes of (track, release id) and of
the release id, from the suite's secret); the release id is kept in the answer key.
Subject and discipline are read from the release id at import time and stored in
each question, and pooled over the three tracks (paper Table 2).
Scoring is rule-based (no judge): option letters, or for the 20 open-ended
Adaptation items a number / phrase matcher of our own (see `_open_correct`).

Protocol choices where the paper or the release is ambiguous (About page):
- fixed denominators (300 per track, 900 overall): missing or unreadable replies
  are wrong, not dropped as the official code drops empty replies;
- question_type null / "None" (one Adaptation item with 10 options and a letter
  gold) is multiple-choice, with its options shown (the official code shows it
  without options and matches the letter as open text: unanswerable); a missing
  question_type means multiple-choice (open only where an Adaptation row has no
  options); "perception" (a branch of the official scorer) means multiple-choice;
- LaTeX commands whose backslash the GitHub JSON lost to a JSON escape ("rac"
  read as form feed + "rac") are restored (`repair_latex_escapes`);
- open items with a letter gold are read as a choice among A-J;
- numeric golds match after rounding both to 2 decimals, or within 0.1% when
  |gold| >= 100; phrase golds match by normalised whole-word containment in the
  final answer; the malformed list gold is read as its three alternatives;
- an MCQ gold whose text repeats under another letter accepts both letters;
- Δknowledge, wrong->right, right->wrong use the question-only calls as "before"
  and are None when no question-only reply was submitted; Δ is None when every
  item was right before, W->R / R->W when their denominator is 0.
"""

from evaluator.benchmarks.videommmu.buckets import (
    BREAKDOWN_FIELDS,
    GAIN,
    HIDDEN_WITH,
    PAIRED_REDUCER,
    count_buckets,
    paired_bucket_paths,
    paired_extra,
)
from evaluator.benchmarks.videommmu.calls import SEPARATE_CALL_KINDS, build_calls, frame_budget_key
from evaluator.benchmarks.videommmu.demo import PHRASES, demo
from evaluator.benchmarks.videommmu.display import DISPLAY_METRICS, HEADLINE, LEVEL_COLUMNS, METRIC_LABELS, VIEWS
from evaluator.benchmarks.videommmu.metrics import score
from evaluator.benchmarks.videommmu.records import (
    DISCIPLINES,
    MCQ,
    NAME,
    OPEN,
    PAPER_SIZE,
    PAPER_VIDEOS,
    TITLE,
    TRACKS,
    Answer,
    Question,
    call_id,
    discipline_of,
    labels_for,
    make_answer,
    question_only_call_id,
)
from evaluator.benchmarks.videommmu.release import RELEASE_LAYOUT, import_release, repair_latex_escapes

__all__ = [
    "RELEASE_LAYOUT", "SEPARATE_CALL_KINDS",
    "BREAKDOWN_FIELDS", "DISPLAY_METRICS", "HEADLINE", "LEVEL_COLUMNS", "METRIC_LABELS", "VIEWS",
    "GAIN", "HIDDEN_WITH", "PAIRED_REDUCER", "count_buckets", "paired_bucket_paths", "paired_extra",
    "Answer", "DISCIPLINES", "MCQ", "NAME", "OPEN", "PAPER_SIZE", "PAPER_VIDEOS", "Question", "TITLE",
    "TRACKS", "PHRASES", "build_calls", "call_id", "demo", "discipline_of", "frame_budget_key", "import_release", "labels_for",
    "make_answer", "question_only_call_id", "repair_latex_escapes", "score"
]
