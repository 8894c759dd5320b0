"""Display column names, metrics and breakdown definitions, and small column helpers."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from evaluator.benchmarks import BENCHMARKS as _MODULES
from evaluator.benchmarks import ORDER
from leaderboard import run_columns


BENCHMARKS: tuple[str, ...] = tuple(ORDER)
TITLES: dict[str, str] = {name: _MODULES[name].TITLE for name in BENCHMARKS}

# -- suites ---------------------------------------------------------------------------------------
OFFICIAL_PREFIX = "official"
# Shown while no official suite is published, so readers still see the papers' numbers.
REPORTED_SUITE = "official (paper-reported)"

# -- badges, types, buckets -------------------------------------------------------------------------
VERIFIED, REPORTED, BASELINE = "✓ verified", "📄 reported", "baseline"
SOURCES = ("verified", "reported")
TYPES = ("open", "closed", "baseline", "human", "random", "unspecified")
SIZES = ("<10B", "10-40B", ">40B", "unknown")
SUITE_DEFAULT_FRAMES = "suite default"  # a verified run that used the suite's per-benchmark budgets
UNSTATED_FRAMES = "not stated"  # a paper row without a frame count

# -- leaderboard columns (display names) --------------------------------------------------------------
RANK, MODEL, SOURCE, AVERAGE = "Rank", "Model", "Source", "Average"
BAND = "Band"  # leaderboard/bands.py: rows whose intervals overlap the band leader's
ALWAYS_SHOWN = (RANK, BAND, MODEL, SOURCE, AVERAGE)
PARAMS, FRAMES, TYPE, THINKING = "Params (B)", "Frames", "Type", "Thinking"
RUNNER, JUDGE, DATE = "Runner", "Judge", "Date"
SUBMITTER, REVISION, PRECISION, PAPER, SUBMISSION = "Submitter", "Revision", "Precision", "Paper", "Submission id"
PROTOCOL = "Protocol"  # the row's protocol status (leaderboard/protocol_card.py)


def ci_label(benchmark: str) -> str:
    return f"{TITLES[benchmark]} 95% CI"


# A score cell shows "61.20 ±1.79" (half the 95% interval); the bounds have optional columns.
SCORE_COLUMNS = tuple(TITLES[b] for b in BENCHMARKS)
CI_COLUMNS = tuple(ci_label(b) for b in BENCHMARKS)
META_DEFAULT = (PARAMS, FRAMES)
META_EXTRA = (DATE, TYPE, THINKING, RUNNER, JUDGE, SUBMITTER, REVISION, PRECISION, PAPER, SUBMISSION, PROTOCOL)
OPTIONAL_COLUMNS = (*run_columns.beside(SCORE_COLUMNS), *CI_COLUMNS, *META_DEFAULT, *META_EXTRA, *run_columns.COST_COLUMNS)
DEFAULT_COLUMNS = (*SCORE_COLUMNS, *META_DEFAULT)

# -- per-benchmark metrics (design §7), in the order the tabs show them ---------------------------------
METRICS: dict[str, tuple[str, ...]] = {
    "expvid": ("overall", "level1", "level2", "level3", "tool", "material", "quantity", "operation",
               "ordering", "generation", "verification", "prediction", "analysis", "discovery"),
    "causalstep": ("overall", "csr", "amcl", "mcl", "rf", "ws", "dua", "icra"),
    "exact": ("overall", "good_execution", "tips"),
    "videommmu": ("overall", "perception", "comprehension", "adaptation", "delta_knowledge",
                  "wrong_to_right", "right_to_wrong", "adaptation_question_only"),
    "videosimpleqa": ("overall", "correct", "incorrect", "not_attempted", "cga", "ece"),
}
METRIC_LABELS = {
    "overall": "Overall", "level1": "Level 1", "level2": "Level 2", "level3": "Level 3",
    "good_execution": "Good execution", "tips": "Tips",
    "csr": "CSR", "amcl": "AMCL", "mcl": "MCL", "rf": "RF", "ws": "WS", "dua": "DUA", "icra": "ICRA",
    "ws_norm": "WS norm",
    "delta_knowledge": "Δknowledge", "wrong_to_right": "Wrong→right", "right_to_wrong": "Right→wrong",
    "adaptation_question_only": "Adaptation (question only)",
    "n_wrong_to_right": "# wrong→right", "n_right_to_wrong": "# right→wrong",
    "n_wrong_before": "# wrong before", "n_right_before": "# right before",
    "correct": "Correct", "incorrect": "Incorrect", "not_attempted": "Not attempted", "cga": "CGA", "ece": "ECE",
    "calibration_n": "# with confidence", "f_score": "F-score",
    "n_calls": "Calls", "n_answered": "Answered",
}

# -- the "By level" view: (column, label) ------------------------------------------------------------
LEVELS: tuple[tuple[str, str], ...] = (
    ("expvid.level1", "ExpVid L1"), ("expvid.level2", "ExpVid L2"), ("expvid.level3", "ExpVid L3"),
    ("videommmu.perception", "Video-MMMU Perception"), ("videommmu.comprehension", "Video-MMMU Comprehension"),
    ("videommmu.adaptation", "Video-MMMU Adaptation"),
    ("causalstep.dua", "CausalStep Descriptive (DUA)"), ("causalstep.icra", "CausalStep Causal (ICRA)"),
)


# -- the "By domain" and "By hop" views: one JSON breakdown column each --------------------------------------

@dataclass(frozen=True)
class Breakdown:
    title: str  # what the selector shows
    column: str  # the table's JSON column
    headline: str | None = None  # for {group: {metric: value}} cells: the metric shown by default
    group_label: str = "{}"  # column header for a group key


BREAKDOWNS: dict[str, Breakdown] = {
    "expvid-discipline": Breakdown("ExpVid: disciplines", "expvid.by_discipline", "overall"),
    "exact-domain": Breakdown("ExAct: domains", "exact.by_domain"),
    "exact-activity": Breakdown("ExAct: activities", "exact.by_activity"),
    "videommmu-discipline": Breakdown("Video-MMMU: disciplines", "videommmu.by_discipline"),
    "causalstep-category": Breakdown("CausalStep: categories", "causalstep.by_category", "ws_norm"),
    "videosimpleqa-category": Breakdown("Video SimpleQA: categories", "videosimpleqa.by_category", "f_score"),
    "videosimpleqa-hop": Breakdown("Video SimpleQA: by hop count", "videosimpleqa.by_hop", "f_score", "{}-hop"),
    "videosimpleqa-subqa": Breakdown("Video SimpleQA: sub-questions, F-score per hop", "videosimpleqa.subqa"),
    "videosimpleqa-subqa-by-count": Breakdown("Video SimpleQA: sub-questions within each k-hop subset",
                                              "videosimpleqa.subqa_by_hop_count", "multi_hop", "{}-hop"),
    "causalstep-chain": Breakdown("CausalStep: accuracy by chain position", "causalstep.by_chain_position",
                                  None, "position {}"),
}
DOMAIN_VIEWS = ("expvid-discipline", "exact-domain", "exact-activity", "videommmu-discipline",
                "causalstep-category", "videosimpleqa-category")
HOP_VIEWS = ("videosimpleqa-hop", "videosimpleqa-subqa", "videosimpleqa-subqa-by-count", "causalstep-chain")

_TRUE = {"true", "yes", "y", "1", "open", "on"}
_FALSE = {"false", "no", "n", "0", "closed", "off", "proprietary"}


# -- small column helpers ---------------------------------------------------------------------------------

def _col(frame: pd.DataFrame, name: str) -> pd.Series:
    """A column, or an all-missing one when the table has none (e.g. no reported rows)."""
    if name in frame.columns:
        return frame[name]
    return pd.Series(np.nan, index=frame.index, dtype="float64")


def _numbers(series: pd.Series) -> pd.Series:
    return pd.to_numeric(series, errors="coerce").astype("float64")


def _flags(series: pd.Series) -> pd.Series:
    """True / False / NA from booleans or from text such as "yes", "open", "false"."""
    text = series.astype("string").str.strip().str.lower()
    out = pd.Series(pd.NA, index=series.index, dtype="boolean")
    out[text.isin(_TRUE).fillna(False).astype(bool)] = True
    out[text.isin(_FALSE).fillna(False).astype(bool)] = False
    return out


def _text(series: pd.Series) -> pd.Series:
    """Text for display: missing values as ""."""
    return series.astype("string").fillna("").astype(object)
