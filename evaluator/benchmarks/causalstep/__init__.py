"""CausalStep: explicit stepwise causal reasoning over the segments of a video.

Protocol as data: protocol.toml; choices: docs/protocol.md. Each video is cut into ordered segments S1..SN.
Every segment has a descriptive question (what S_i shows); every segment but the
first has a causal question (how S_i follows from S_(i-1)). All questions are
multiple choice, usually with 8 options, shown in one order fixed per question,
drawn from the suite's secret and published in the suite (labels A, B, ...; fewer
options, fewer letters).

Release schema (CausalStep has no public release; this is the layout we read)
-----------------------------------------------------------------------------
A folder holding `causalstep.json` (a JSON array of videos) or `causalstep.jsonl`
(one video object per line), and the video files. Each video object:

    {"video_id": "mgit-017",                 # letters, digits, '.', '_', '-'; unique
     "category": "Outdoor Sports",           # one of CATEGORIES (case and '&'/'and' ignored)
     "video_file": "videos/mgit-017.mp4",    # relative to the folder (also looked up in videos/, data/)
     "segments": [                           # in temporal order, not overlapping
        {"start": 0.0, "end": 41.5,          # seconds
         "descriptive": {"question": "...", "options": ["...", ...], "answer": 3},
         "causal": {...same shape...}},      # absent (or null) on the first segment only
        ...]}

`answer` is the 0-based index of the correct option in `options` as released, or
that option's exact text. Options must be 2-26 distinct non-empty strings.

Calls (public; ids `causalstep/<video_id>/s<i>/<kind>`, i is 1-based)
---------------------------------------------------------------------
- `desc` (every i): the descriptive question, frames of S_i only. It serves both
  the chain and DUA (its input is the same in both).
- `causal-isolated` (i >= 2): the causal question, frames of S_i only, no history (ICRA).
- `causal-after-desc` (i >= 2) and `causal-after-causal` (i >= 3): the causal
  question in the chain, frames of S_(i-1) then S_i, the previous question's text
  and a `{previous_answer}` placeholder. `Call.context` names the call(s) whose
  answer fills it and maps each of their labels to its option text.

Prediction files answer in-context calls with the model's OWN previous answer: one
record per (call id, context label), for every distinct label the model gave to the
call(s) in `context.after`. `branch_table(calls, answer_fn)` produces exactly that
table from any model function; the built-in baselines use it.

Scoring (server-side replay of the stepwise protocol)
--------------------------------------------------------------------
Per video the chain starts at Q1 desc. A correct answer at S_(i-1) leads to the
causal question of S_i, answered with the in-context record whose context label is
the GOLD label of the question just answered (own and gold coincide there, because
it was answered correctly; records with other labels are never used). A wrong,
missing or unparseable answer breaks the chain: after a descriptive question the
next chain starts at the next segment's descriptive question; after a causal one
at the SAME segment's descriptive question ("prose", default) or the next
segment's ("algo"), per the `restart` option (ScoringOptions.by_benchmark). Points: a descriptive
start is worth 1; the k-th causal answer of a chain is worth k+1 ("algo", default:
Algorithm 1, a perfect video scores N(N+1)/2) or k ("prose": 1 + N(N-1)/2), per
the `points` option. Both are one reading of the paper, named in protocol.toml's [scoring].

Other choices (spec ambiguities): the context is the single previous question and
the chosen option's TEXT (Algorithm 1), not the whole chain; ICRA shows S_i only
(the metric's formal definition); each segment gets the same frame budget
(its protocol.toml: causalstep_segment), an in-context call twice that, in time order.

Metrics: overall = ws_norm = 100 * sum of scores / sum of perfect scores; csr,
amcl, mcl, rf (every wrong answer, the last question's included), ws (mean score
per video), dua, icra; by_category with the same plus ws_norm; by_chain_position:
accuracy of the answers given at chain position k (1 = a chain's descriptive start).
"""

from evaluator.benchmarks.causalstep.buckets import (
    BREAKDOWN_FIELDS,
    PAIRED_REDUCER,
    count_buckets,
    paired_bucket_paths,
    paired_extra,
    paired_row_key,
)
from evaluator.benchmarks.causalstep.calls import CALL_MODE, branch_table, build_calls
from evaluator.benchmarks.causalstep.demo import demo
from evaluator.benchmarks.causalstep.display import COLUMN_WIDTH, DISPLAY_METRICS, HEADLINE, LEVEL_COLUMNS, METRIC_LABELS, VIEWS
from evaluator.benchmarks.causalstep.metrics import score
from evaluator.benchmarks.causalstep.records import (
    AFTER_CAUSAL,
    AFTER_DESC,
    CATEGORIES,
    DESC,
    ISOLATED,
    MCQ,
    NAME,
    PAPER_SIZE,
    PLACEHOLDER,
    PREVIOUS,
    RELEASE_JSON,
    RELEASE_JSONL,
    TITLE,
    Answer,
    Question,
    Segment,
    call_id,
)
from evaluator.benchmarks.causalstep.release import RELEASE_LAYOUT, import_release

__all__ = [
    "RELEASE_LAYOUT", "CALL_MODE", "COLUMN_WIDTH",
    "BREAKDOWN_FIELDS", "DISPLAY_METRICS", "HEADLINE", "LEVEL_COLUMNS", "METRIC_LABELS", "VIEWS",
    "PAIRED_REDUCER", "count_buckets", "paired_bucket_paths", "paired_extra", "paired_row_key",
    "AFTER_CAUSAL", "AFTER_DESC", "Answer", "CATEGORIES", "DESC", "ISOLATED", "MCQ", "NAME", "PAPER_SIZE",
    "PLACEHOLDER", "PREVIOUS", "Question", "RELEASE_JSON", "RELEASE_JSONL", "Segment", "TITLE",
    "branch_table", "build_calls", "call_id", "demo", "import_release", "score"
]
