"""The aggregated table shaped for the site's tabs: pure pandas, no gradio.

Three steps, each a small function the tests call directly:

    board = select_suite(table, suite_id)   # one suite's rows (+ the papers' rows for an official suite)
    board = prepare(board)                  # derived columns (badge, type, size...), sorted and ranked
    shown = leaderboard_view(filter_rows(board, Filters(search="qwen")), columns=DEFAULT_COLUMNS)

and the other views read the same prepared board:

    benchmark_view(board, "expvid")             every scalar metric of one benchmark
    by_level_view(board)                        ExpVid L1-L3, Video-MMMU tracks, CausalStep desc. vs causal
    breakdown_view(board, "exact-domain")       a JSON breakdown column expanded to one column per group
    level_profile(board, ids), score_vs_params(board, "average")     data for the plots
    queue_view(requests), my_submissions(requests, user), my_log(...)   the Queue tab

Breakdown buckets published without a score (leaderboard/disclosure.py) stay missing
(NaN) in these frames, so every column still sorts as numbers; `frame.attrs["hidden"]`
says which cells they are ({column: {row position: item count}}) and `shown_text`
gives the "n too small (n=...)" text the site puts in their place.

`table` is `leaderboard.aggregate.load_table`'s frame (columns documented there);
paper-reported rows come from `leaderboard.reported.reported_rows`. Display column
names (RANK, MODEL, ...) are constants here: the UI and the browser tests use them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

import numpy as np
import pandas as pd

from evaluator.benchmarks import BENCHMARKS as _MODULES
from evaluator.benchmarks import ORDER
from leaderboard import disclosure, protocol_card, run_columns
from leaderboard.bands import rank_bands

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


# -- suites ------------------------------------------------------------------------------------------------

def is_official(suite_id: str | None) -> bool:
    return bool(suite_id) and str(suite_id).startswith(OFFICIAL_PREFIX)


def suite_choices(in_table: Iterable[str], published: Iterable[str] = (), configured: str | None = None) -> list[str]:
    """Suites a reader can pick, the one to open first at the front: official suites
    (newest version first); while none exists, the paper-reported pseudo-suite first,
    so a visitor meets real models, then the others (the demo suite)."""
    ids = {s for s in [*in_table, *published, configured] if isinstance(s, str) and s and s != REPORTED_SUITE}
    official = sorted((s for s in ids if is_official(s)), reverse=True)
    others = sorted(ids - set(official))
    return [*official, *others] if official else [REPORTED_SUITE, *others]


def suite_label(suite_id: str) -> str:
    """How the suite picker names a suite."""
    if suite_id == REPORTED_SUITE:
        return "📄 Papers' reported results"
    if is_official(suite_id):
        return f"✓ {suite_id} (official data, with the papers' results)"
    if suite_id.startswith("demo"):
        return f"✓ Demo suite, synthetic videos ({suite_id})"
    return f"✓ {suite_id}"


@lru_cache(maxsize=8)
def _reported_frame(suite_id: str) -> pd.DataFrame:
    from leaderboard.reported import reported_rows

    return pd.DataFrame(reported_rows(suite_id))


def reported_frame(suite_id: str) -> pd.DataFrame:
    """The papers' rows attached to `suite_id` (parsed once per suite id)."""
    return _reported_frame(suite_id).copy()


def select_suite(table: pd.DataFrame, suite_id: str,
                 reported: Callable[[str], pd.DataFrame] = reported_frame) -> pd.DataFrame:
    """The rows of one suite. An official suite (id starting with "official") and the
    REPORTED_SUITE pseudo-suite get the papers' rows too; no other suite ever does, so
    demo rows are never ranked beside official ones."""
    verified = table.iloc[0:0] if suite_id == REPORTED_SUITE or "suite_id" not in table.columns \
        else table[table["suite_id"] == suite_id]
    if not is_official(suite_id):
        return verified.reset_index(drop=True)
    papers = reported(suite_id)
    if verified.empty:
        return papers.reset_index(drop=True)
    return pd.concat([verified, papers], ignore_index=True)


# -- derived columns ----------------------------------------------------------------------------------------

def badge(frame: pd.DataFrame) -> pd.Series:
    source = _col(frame, "source").astype("string")
    kind = _col(frame, "kind").astype("string")
    out = np.where(source == "reported", REPORTED, np.where(kind == "baseline", BASELINE, VERIFIED))
    return pd.Series(out, index=frame.index, dtype=object)


def params_billions(frame: pd.DataFrame) -> pd.Series:
    """Parameters in billions: the paper's `params_b`, else the submission's `params`
    text ("7.62", "7B", "500M", or a raw count such as "7615616512")."""
    text = _col(frame, "params").astype("string").str.strip()
    parts = text.str.extract(r"^([0-9]*\.?[0-9]+)\s*([kKmMbBtT]?)", expand=True)
    number = _numbers(parts[0])
    unit = parts[1].astype("string").str.upper().map({"K": 1e-6, "M": 1e-3, "B": 1.0, "T": 1e3})
    number = number * _numbers(unit).fillna(1.0)
    number = number.where(~(number > 1e5), number / 1e9)  # a raw count, not billions
    return _numbers(_col(frame, "params_b")).fillna(number)


def size_bucket(params_b: pd.Series) -> pd.Series:
    out = np.select([params_b < 10, params_b <= 40, params_b > 40], list(SIZES[:3]), default=SIZES[3])
    return pd.Series(out, index=params_b.index, dtype=object)


def model_type(frame: pd.DataFrame) -> pd.Series:
    """open / closed / baseline / human / random / unspecified."""
    kind = _col(frame, "kind").astype("string")
    row_kind = _col(frame, "row_kind").astype("string")
    declared = _flags(_col(frame, "open")).fillna(_flags(_col(frame, "meta.open")))
    conditions = [
        (kind == "baseline").fillna(False).to_numpy(bool),
        (row_kind == "human").fillna(False).to_numpy(bool),
        (row_kind == "random").fillna(False).to_numpy(bool),
        (kind == "model").fillna(False).to_numpy(bool),  # a Hub model: public weights (validation insists)
        declared.eq(True).fillna(False).to_numpy(bool),  # a nullable boolean: NA matches neither
        declared.eq(False).fillna(False).to_numpy(bool),
    ]
    out = np.select(conditions, ["baseline", "human", "random", "open", "open", "closed"], default="unspecified")
    return pd.Series(out, index=frame.index, dtype=object)


def frames_used(frame: pd.DataFrame) -> pd.Series:
    """The frame count: the run's own, else the one a prediction file's submitter stated."""
    return _numbers(_col(frame, "frames")).fillna(_numbers(_col(frame, "meta.frames")))


def frames_label(frame: pd.DataFrame, frames: pd.Series) -> pd.Series:
    """What the frames filter offers: "32", or SUITE_DEFAULT_FRAMES / UNSTATED_FRAMES."""
    reported = (_col(frame, "source").astype("string") == "reported").fillna(False).to_numpy(bool)
    missing = np.where(reported, UNSTATED_FRAMES, SUITE_DEFAULT_FRAMES)
    text = frames.map(lambda v: f"{v:g}", na_action="ignore").astype(object)
    return text.where(frames.notna(), pd.Series(missing, index=frame.index, dtype=object))


def thinking_text(frame: pd.DataFrame) -> pd.Series:
    flag = _flags(_col(frame, "thinking"))
    declared = _flags(_col(frame, "meta.thinking"))
    flag = flag.where(~declared.eq(True).fillna(False), True)  # a prediction file's stated thinking mode
    out = np.select([flag.eq(True).fillna(False).to_numpy(bool), flag.eq(False).fillna(False).to_numpy(bool)],
                    ["on", "off"], default="")
    return pd.Series(out, index=frame.index, dtype=object)


def overall_columns() -> list[str]:
    return [f"{b}.overall" for b in BENCHMARKS]


def _labels(frame: pd.DataFrame) -> pd.Series:
    """Unique names for plot pickers: the model, "(thinking)", the paper for reported
    rows, and the end of the id where two rows would still read the same."""
    label = _text(_col(frame, "model")).where(_text(_col(frame, "model")) != "", _text(_col(frame, "id")))
    label = label + np.where(frame["thinking_text"] == "on", " (thinking)", "")
    ids = _text(_col(frame, "id"))
    paper_bench = _paper_benchmark(frame)
    label = label.where(paper_bench.isna(), label + " (" + paper_bench.astype(str) + " paper)")
    repeated = label.duplicated(keep=False)
    return label.where(~repeated, label + " #" + ids.str[-6:])


def prepare(rows: pd.DataFrame) -> pd.DataFrame:
    """The suite's rows with the columns every view needs, sorted by average, then
    (verified rows first, papers' rows grouped by paper) by the mean of the overalls a
    row has, then by name; `rank` is interval_ranks among the verified rows of the same
    judge (reported rows have none). Ranking happens here, before any filter, so a
    filter never renumbers rows."""
    out = rows.copy()
    for column in ("model", "id", "average", *overall_columns()):
        if column not in out.columns:
            out[column] = np.nan
    out["average"] = _numbers(out["average"])
    out["badge"] = badge(out)
    out["source_kind"] = np.where(out["badge"] == REPORTED, "reported", "verified")
    out["model_type"] = model_type(out)
    out["params_b"] = params_billions(out)
    out["size"] = size_bucket(out["params_b"])
    out["frames_n"] = frames_used(out)
    out["frames_label"] = frames_label(out, out["frames_n"])
    out["thinking_text"] = thinking_text(out)
    out["date"] = _text(_col(out, "created")).str[:10]
    out["runner_text"] = _text(_col(out, "runner")).where(out["source_kind"] == "verified", "paper")
    out["judge_text"] = _text(_col(out, "judge_id"))
    out["mean_available"] = out[overall_columns()].apply(_numbers).mean(axis=1, skipna=True)
    out["model_text"] = _text(out["model"])
    out["protocol_status"] = protocol_card.statuses(out)
    out["protocol_text"] = protocol_card.labels(out)
    # Papers' rows (one benchmark each) come grouped by paper, in the benchmarks' order, so a
    # CausalStep number is never ordered against a Video SimpleQA one; verified rows come first.
    paper = _paper_benchmark(out).map({TITLES[b]: i for i, b in enumerate(BENCHMARKS)})
    out["paper_order"] = _numbers(paper).fillna(-1)
    out = out.sort_values(["average", "paper_order", "mean_available", "model_text"],
                          ascending=[False, True, False, True], na_position="last", kind="stable"
                          ).reset_index(drop=True)
    # Results are never ranked across judges, and a paper's number was made with that
    # paper's own setup: only verified rows get a rank, within their judge.
    has_average = out["average"].notna()
    score = out["average"].where(has_average, out["mean_available"])
    half = _mean_half_width(out, has_average)
    tier = np.where(has_average, 1, 0)  # a row with all five scores ranks above a partial one
    # ... and only rows that share the suite's reference protocol (protocol_card.RANKED_STATUSES).
    out["ranked"] = (out["source_kind"] == "verified") & out["protocol_status"].isin(protocol_card.RANKED_STATUSES)
    out["rank"] = interval_ranks(score, half, tier, out["judge_text"], out["ranked"])
    out["band"] = rank_bands(score, half, tier, out["judge_text"], out["ranked"])
    out["label"] = _labels(out)
    return out


def _half_widths(frame: pd.DataFrame, benchmark: str) -> pd.Series:
    """Half the width of a benchmark's 95% interval (0 where it has none)."""
    low = _numbers(_col(frame, f"{benchmark}.overall_ci_low"))
    high = _numbers(_col(frame, f"{benchmark}.overall_ci_high"))
    return ((high - low) / 2).fillna(0.0)


def _mean_half_width(frame: pd.DataFrame, has_average: pd.Series) -> pd.Series:
    """The half-width of the interval of a mean of overall scores: the benchmarks use
    different videos, so their errors are independent and add in quadrature,
    sqrt(sum of squared half-widths) / count (a normal approximation of each interval)."""
    present = frame[overall_columns()].apply(_numbers).notna()
    squares = pd.DataFrame({b: _half_widths(frame, b) ** 2 for b in BENCHMARKS}, index=frame.index)
    squares.columns = present.columns
    count = present.sum(axis=1).where(~has_average, len(BENCHMARKS)).replace(0, np.nan)
    return (np.sqrt(squares.where(present, 0.0).sum(axis=1)) / count).fillna(0.0)


def interval_ranks(score: pd.Series, half: pd.Series, tier, groups: pd.Series, eligible: pd.Series) -> pd.Series:
    """Rank = 1 + the number of rows of the same group that are surely better: in a higher
    tier, or whose whole interval lies above this row's (low > this row's high). Equal
    scores share a rank, and every row whose interval overlaps the leader's ranks 1.
    Rows not `eligible` (paper rows) get no rank."""
    low = (score - half).round(6).to_numpy(float)
    high = (score + half).round(6).to_numpy(float)
    tier = np.asarray(tier)
    ok = eligible.to_numpy(bool) & ~np.isnan(low)
    rank = pd.Series(pd.NA, index=score.index, dtype="Int64")
    for _, where in pd.Series(np.arange(len(score)))[ok].groupby(groups.to_numpy()[ok], sort=False):
        idx = where.to_numpy()
        better = np.zeros(len(idx), dtype=int)
        for t in np.unique(tier[idx]):
            in_tier = idx[tier[idx] == t]
            lows = np.sort(low[in_tier])
            above_tier = int((tier[idx] > t).sum())
            better[tier[idx] == t] = above_tier + len(lows) - np.searchsorted(lows, high[in_tier], side="right")
        rank.iloc[idx] = better + 1
    return rank


# -- filters and the leaderboard -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Filters:
    """What the Leaderboard tab's controls ask for. A tuple filters strictly (only the
    listed values are shown); None means "no filter". `frames` and `judges` are
    multi-selects where an empty choice means "any"."""

    search: str = ""  # model-name terms separated by ";" (any may match), case-insensitive
    types: tuple[str, ...] | None = None
    sizes: tuple[str, ...] | None = None
    sources: tuple[str, ...] | None = None
    frames: tuple[str, ...] = ()
    judges: tuple[str, ...] = ()
    protocols: str | None = None  # protocol_card.REFERENCE_ONLY: rows sharing the suite's reference (and papers')


def search_mask(models: pd.Series, search: str) -> pd.Series:
    terms = [t.strip() for t in (search or "").split(";") if t.strip()]
    if not terms:
        return pd.Series(True, index=models.index)
    text = _text(models).str.lower()
    mask = pd.Series(False, index=models.index)
    for term in terms:
        mask |= text.str.contains(term.lower(), regex=False)
    return mask


def filter_rows(board: pd.DataFrame, filters: Filters) -> pd.DataFrame:
    """The rows (of the prepared board or of leaderboard_table) that pass every filter;
    ranks unchanged."""
    mask = search_mask(board["model"], filters.search)
    if filters.types is not None:
        mask &= board["model_type"].isin(filters.types)
    if filters.sizes is not None:
        mask &= board["size"].isin(filters.sizes)
    if filters.sources is not None:
        mask &= board["source_kind"].isin(filters.sources)
    if filters.frames:
        mask &= board["frames_label"].isin(filters.frames)
    if filters.judges:
        mask &= board["judge_text"].isin(filters.judges)
    mask &= protocol_card.filter_mask(board, filters.protocols)
    return board[mask.to_numpy(bool)]


def frame_choices(board: pd.DataFrame) -> list[str]:
    """Frame counts present, numerically, then the special labels."""
    present = set(board["frames_label"])
    numbers = sorted((v for v in present if v not in (SUITE_DEFAULT_FRAMES, UNSTATED_FRAMES)), key=float)
    return numbers + [v for v in (SUITE_DEFAULT_FRAMES, UNSTATED_FRAMES) if v in present]


def judge_choices(board: pd.DataFrame) -> list[str]:
    return sorted(j for j in set(board["judge_text"]) if j)


def ci_text(frame: pd.DataFrame, benchmark: str) -> pd.Series:
    """"[lo, hi]" for display; a text column of its own so the score column sorts as numbers."""
    low = _numbers(_col(frame, f"{benchmark}.overall_ci_low"))
    high = _numbers(_col(frame, f"{benchmark}.overall_ci_high"))
    text = "[" + low.astype(str) + ", " + high.astype(str) + "]"
    return text.where(low.notna() & high.notna(), "").astype(object)


def _paper_benchmark(frame: pd.DataFrame) -> pd.Series:
    """The benchmark whose paper a reported row comes from (its id: reported/<benchmark>/...)."""
    ids = _text(_col(frame, "id"))
    return ids.str.extract(r"^reported/([^/]+)/", expand=False).map(TITLES, na_action="ignore")


def source_text(frame: pd.DataFrame) -> pd.Series:
    """The Source column: the badge, and for a paper's row which paper ("📄 ExAct paper")."""
    paper = _paper_benchmark(frame)
    named = "📄 " + paper.astype(str) + " paper"
    return named.where(paper.notna(), frame["badge"]).astype(object)


def _leaderboard_column(rows: pd.DataFrame, name: str) -> pd.Series:
    for benchmark in BENCHMARKS:
        if name == TITLES[benchmark]:
            return _numbers(rows[f"{benchmark}.overall"])
        if name == ci_label(benchmark):
            return ci_text(rows, benchmark)
    sources = {**run_columns.sources(rows),  # the no-video and cost columns of model-ID runs
        RANK: lambda: rows["rank"], BAND: lambda: rows["band"], MODEL: lambda: rows["model_text"], SOURCE: lambda: source_text(rows),
        AVERAGE: lambda: rows["average"], PARAMS: lambda: rows["params_b"], FRAMES: lambda: rows["frames_n"],
        TYPE: lambda: rows["model_type"], THINKING: lambda: rows["thinking_text"],
        RUNNER: lambda: rows["runner_text"], JUDGE: lambda: rows["judge_text"], DATE: lambda: rows["date"],
        SUBMITTER: lambda: _text(_col(rows, "submitter")), REVISION: lambda: _text(_col(rows, "revision")),
        PRECISION: lambda: _text(_col(rows, "precision")), PAPER: lambda: _text(_col(rows, "paper")),
        SUBMISSION: lambda: _text(_col(rows, "id")), PROTOCOL: lambda: rows["protocol_text"],
    }
    if name not in sources:
        raise KeyError(f"unknown leaderboard column {name!r}; known: {', '.join((*ALWAYS_SHOWN, *OPTIONAL_COLUMNS))}")
    return sources[name]()


# The board's columns the filters read; leaderboard_table keeps them beside the display columns.
FILTER_KEYS = ("model", "model_type", "size", "source_kind", "frames_label", "judge_text", "protocol_status")


def _pm_key(column: str) -> str:
    return f"{column} ±"  # leaderboard_table's column of a score column's shown text


def score_text(score: pd.Series, half: pd.Series) -> pd.Series:
    """"61.20 ±1.79": the score and half its 95% interval; the score alone without one."""
    out = [None if np.isnan(v) else f"{v:.2f} ±{h:.2f}" if h > 0 else f"{v:.2f}"
           for v, h in zip(_numbers(score).to_numpy(), _numbers(half).fillna(0.0).to_numpy())]
    return pd.Series(out, index=score.index, dtype=object)


def leaderboard_table(board: pd.DataFrame) -> pd.DataFrame:
    """Every leaderboard column (display names) plus FILTER_KEYS and each score column's
    shown text, in rank order. Built once per table and suite: a reader's filters and
    column choice then only pick rows and columns from it (filter_rows, leaderboard_view)."""
    data = {name: _leaderboard_column(board, name).to_numpy() for name in (*ALWAYS_SHOWN, *OPTIONAL_COLUMNS)}
    data.update({key: board[key].to_numpy() for key in FILTER_KEYS} | run_columns.texts(board, _pm_key))
    has_average = board["average"].notna()
    data[_pm_key(AVERAGE)] = score_text(board["average"], _mean_half_width(board, has_average)).to_numpy()
    for b in BENCHMARKS:
        data[_pm_key(TITLES[b])] = score_text(_col(board, f"{b}.overall"), _half_widths(board, b)).to_numpy()
    return pd.DataFrame(data)


# Pixel widths that fit the default leaderboard columns, and the By level table, in a 1280 px
# window (long headers wrap); other columns get WIDE.
WIDTHS = {RANK: 58, BAND: 56, MODEL: 156, SOURCE: 160, AVERAGE: 102, **{TITLES[b]: 102 for b in BENCHMARKS},
          TITLES["causalstep"]: 112,  # its one-word header must not break
          PARAMS: 80, FRAMES: 74, DATE: 100}
LEVEL_WIDTHS = {RANK: 62, MODEL: 160, SOURCE: 150}
WIDE = 130


def column_widths(columns: Sequence[str]) -> list[str]:
    """Gradio column_widths for these leaderboard (or By level) columns."""
    if set(columns) & {label for _, label in LEVELS}:
        return [f"{LEVEL_WIDTHS.get(c, 104)}px" for c in columns]
    return [f"{WIDTHS.get(c, WIDE)}px" for c in columns]


DISPLAY = "display"  # frame.attrs key: {column: [text per row]} shown in place of the numbers


def leaderboard_view(rows: pd.DataFrame, columns: Sequence[str] = DEFAULT_COLUMNS) -> pd.DataFrame:
    """One display row per result: ALWAYS_SHOWN, then the chosen optional columns in
    their fixed order (unknown names are ignored). Score columns stay numbers (they sort
    as numbers); their "score ±half-interval" text is in attrs[DISPLAY]. `rows`:
    prepared board rows, or rows of leaderboard_table."""
    table = rows if RANK in rows.columns else leaderboard_table(rows)
    chosen = set(columns)
    names = [*ALWAYS_SHOWN, *(c for c in OPTIONAL_COLUMNS if c in chosen)]
    out = table[names].reset_index(drop=True)
    out.attrs[DISPLAY] = {c: list(table[_pm_key(c)]) for c in names if _pm_key(c) in table.columns}
    return out


# -- one tab per benchmark ---------------------------------------------------------------------------------------

def metric_columns(board: pd.DataFrame, benchmark: str) -> list[str]:
    """The benchmark's scalar (numeric) columns: design §7 order first, then the rest
    (counts included); intervals are shown as one text column instead."""
    prefix = f"{benchmark}."
    numeric = [c for c in board.columns if c.startswith(prefix) and pd.api.types.is_numeric_dtype(board[c])
               and not c.endswith(("_ci_low", "_ci_high"))]
    # design §7's metrics even when every value is missing (a column of None is not numeric)
    known = [f"{prefix}{m}" for m in METRICS.get(benchmark, ()) if f"{prefix}{m}" in board.columns]
    rest = sorted(set(numeric) - set(known), key=lambda c: (c.startswith(f"{prefix}n_"), c))
    return known + rest


def metric_label(metric: str) -> str:
    return METRIC_LABELS.get(metric, metric.replace("_", " ").capitalize())


def benchmark_view(board: pd.DataFrame, benchmark: str) -> pd.DataFrame:
    """Every row with a score on this benchmark, by its overall: rank, model, source,
    overall, its interval, every other metric, then frames, judge and date."""
    columns = metric_columns(board, benchmark)
    rows = board[board[columns].notna().any(axis=1)] if columns else board.iloc[0:0]
    overall = _numbers(_col(rows, f"{benchmark}.overall"))
    rows = rows.assign(_score=overall).sort_values(["_score", "rank"], ascending=[False, True],
                                                   na_position="last", kind="stable")
    ranks = interval_ranks(overall.loc[rows.index], _half_widths(rows, benchmark), np.zeros(len(rows)),
                           rows["judge_text"], rows["ranked"])
    data: dict[str, object] = {RANK: ranks.to_numpy(), MODEL: rows["model_text"].to_numpy(),
                               SOURCE: source_text(rows).to_numpy()}
    for column in columns:
        metric = column.split(".", 1)[1]
        data[metric_label(metric)] = _numbers(rows[column]).to_numpy()
        if metric == "overall":
            data["95% CI"] = ci_text(rows, benchmark).to_numpy()
    data.update({FRAMES: rows["frames_n"].to_numpy(), JUDGE: rows["judge_text"].to_numpy(),
                 DATE: rows["date"].to_numpy()})
    out = pd.DataFrame(data)
    trees = _hidden_trees(rows, benchmark)
    for column in columns:
        metric = column.split(".", 1)[1]
        _mark_hidden(out, metric_label(metric), trees, (metric,))
    return out


# -- hidden buckets ---------------------------------------------------------------------------------------------

HIDDEN = "hidden"  # frame.attrs key: {column: {row position: item count}} of cells published without a score


def _hidden_trees(rows: pd.DataFrame, benchmark: str) -> list[dict]:
    """Each row's tree of hidden buckets for one benchmark ({} when none)."""
    return _parse(_col(rows, f"{benchmark}.{disclosure.SUPPRESSED}"))


def _mark_hidden(frame: pd.DataFrame, column: str, trees: list[dict], path: tuple[str, ...]) -> None:
    cells = {i: n for i, tree in enumerate(trees) if (n := disclosure.suppressed_n(tree, path)) is not None}
    if cells:
        frame.attrs.setdefault(HIDDEN, {})[column] = cells


def shown_text(frame: pd.DataFrame) -> pd.DataFrame:
    """What the site shows instead of a cell's value: "n too small (n=1)" for a hidden
    bucket, "61.20 ±1.79" for a leaderboard score, None (the value itself) elsewhere.
    Same shape as `frame`."""
    out = pd.DataFrame(np.full(frame.shape, None, dtype=object), columns=frame.columns)
    for column, texts in frame.attrs.get(DISPLAY, {}).items():
        if column in out.columns:
            out[column] = pd.Series(texts, dtype=object).to_numpy()
    for column, cells in frame.attrs.get(HIDDEN, {}).items():
        if column in out.columns:
            for row, n in cells.items():
                out.iloc[row, out.columns.get_loc(column)] = disclosure.hidden_text(n)
    return out.astype(object).where(out.notna(), None)


# -- by level, by domain, by hop ------------------------------------------------------------------------------------

def _identity_columns(rows: pd.DataFrame) -> dict[str, object]:
    return {RANK: rows["rank"].to_numpy(), MODEL: rows["model_text"].to_numpy(), SOURCE: source_text(rows).to_numpy()}


def by_level_view(board: pd.DataFrame) -> pd.DataFrame:
    """ExpVid's three levels, Video-MMMU's three tracks, CausalStep's descriptive (DUA)
    and causal (ICRA) accuracy, for every row that has one of them."""
    values = pd.DataFrame({label: _numbers(_col(board, column)) for column, label in LEVELS}, index=board.index)
    present = values.notna().any(axis=1)
    rows, values = board[present], values[present]
    out = pd.DataFrame({**_identity_columns(rows), **{c: values[c].to_numpy() for c in values.columns}})
    for column, label in LEVELS:
        benchmark, metric = column.split(".", 1)
        _mark_hidden(out, label, _hidden_trees(rows, benchmark), (metric,))
    return out


def _natural(key: str) -> tuple:
    """"2" < "10", "hop2" < "hop10"; text keys alphabetically."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part.lower())
                 for part in re.split(r"(\d+)", str(key)) if part)


def _parse(cells: pd.Series) -> list[dict]:
    out = []
    for cell in cells:
        try:
            value = json.loads(cell) if isinstance(cell, str) else None
        except ValueError:
            value = None  # a damaged cell hides one row's groups, never the whole view
        out.append(value if isinstance(value, dict) else {})
    return out


def breakdown_metrics(board: pd.DataFrame, key: str) -> list[str]:
    """For a breakdown whose groups hold several metrics ({group: {metric: value}}):
    those metric names, the headline first; [] when each group holds one number."""
    spec = BREAKDOWNS[key]
    found: list[str] = []
    hidden = False  # a hidden bucket (null) in place of a {metric: value} group
    for cell in _parse(_col(board, spec.column).dropna()):
        for value in cell.values():
            if isinstance(value, dict):
                found += [m for m in value if m not in found]
            hidden = hidden or value is None
    if not found and hidden and spec.headline:  # every group hidden: still offer the headline
        found = [spec.headline]
    if spec.headline in found:
        found.remove(spec.headline)
        found.insert(0, spec.headline)
    return found


def breakdown_view(board: pd.DataFrame, key: str, metric: str | None = None) -> pd.DataFrame:
    """A JSON breakdown column expanded to one column per group (natural order), for the
    rows that have it. Groups holding several metrics show `metric` (default: the
    breakdown's headline); a group holding a single number shows that number."""
    spec = BREAKDOWNS[key]
    metric = metric or spec.headline
    cells = _col(board, spec.column)
    rows = board[cells.notna().to_numpy(bool)]
    picked = [{group: (value.get(metric) if isinstance(value, dict) else value) for group, value in cell.items()}
              for cell in _parse(rows[spec.column] if len(rows) else pd.Series(dtype=object))]
    groups = sorted({g for cell in picked for g in cell}, key=_natural)
    wide = pd.DataFrame.from_records(picked, columns=groups) if picked else pd.DataFrame(columns=groups)
    data = _identity_columns(rows)
    data.update({spec.group_label.format(g): _numbers(wide[g]).to_numpy() for g in groups})
    out = pd.DataFrame(data)
    benchmark, breakdown = spec.column.split(".", 1)
    trees = _hidden_trees(rows, benchmark)
    for g in groups:
        _mark_hidden(out, spec.group_label.format(g), trees, (breakdown, g, *((metric,) if metric else ())))
    return out


# -- plots ------------------------------------------------------------------------------------------------------

LEVEL_ORDER = [label for _, label in LEVELS]


def model_options(board: pd.DataFrame) -> list[tuple[str, str]]:
    """(label, id) for the plot's model picker, in rank order."""
    return list(zip(board["label"], _text(board["id"])))


def profile_defaults(board: pd.DataFrame, count: int = 5) -> list[str]:
    """Ids for the per-level profile when nobody chose: the best-ranked rows among those
    with the most levels (a paper row covers one benchmark's levels only)."""
    levels = pd.DataFrame({label: _numbers(_col(board, column)) for column, label in LEVELS}).notna().sum(axis=1)
    order = pd.DataFrame({"levels": levels.to_numpy(), "rank": board["rank"].to_numpy(),
                          "id": _text(board["id"]).to_numpy()})
    order = order[order["levels"] > 0].sort_values(["levels", "rank"], ascending=[False, True], kind="stable")
    return list(order["id"].head(count))


def level_profile(board: pd.DataFrame, ids: Sequence[str]) -> pd.DataFrame:
    """Long frame (model, level, score) for the chosen rows: one line per model in the
    per-level profile plot. Levels a row lacks are left out."""
    chosen = board[_text(board["id"]).isin(list(ids)).to_numpy(bool)]
    values = pd.DataFrame({label: _numbers(_col(chosen, column)) for column, label in LEVELS}, index=chosen.index)
    values.insert(0, "model", chosen["label"])
    long = values.melt(id_vars="model", var_name="level", value_name="score").dropna(subset=["score"])
    long["level"] = pd.Categorical(long["level"], categories=LEVEL_ORDER, ordered=True)
    return long.sort_values(["model", "level"], kind="stable").astype({"level": str}).reset_index(drop=True)


def plot_benchmarks() -> list[tuple[str, str]]:
    return [("Average", "average"), *((TITLES[b], b) for b in BENCHMARKS)]


def score_vs_params(board: pd.DataFrame, benchmark: str = "average") -> pd.DataFrame:
    """One point per row that states its parameter count: (model, params_b, score, source, type)."""
    score = _numbers(board["average"] if benchmark == "average" else _col(board, f"{benchmark}.overall"))
    keep = (score.notna() & board["params_b"].notna()).to_numpy(bool)
    return pd.DataFrame({"model": board["label"][keep].to_numpy(), "params_b": board["params_b"][keep].to_numpy(),
                         "score": score[keep].to_numpy(), "source": board["badge"][keep].to_numpy(),
                         "type": board["model_type"][keep].to_numpy()})


# -- the queue --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class QueueView:
    pending: pd.DataFrame
    running: pd.DataFrame
    finished: pd.DataFrame  # FINISHED and CANCELLED
    failed: pd.DataFrame


PENDING_COLUMNS = ("Position", "Submission", "Model", "Kind", "Submitter", "Submitted", "Attempt")
RUNNING_COLUMNS = ("Submission", "Model", "Kind", "Submitter", "Started", "Progress", "Worker", "Attempt")
FINISHED_COLUMNS = ("Submission", "Model", "Kind", "Submitter", "Status", "Finished")
FAILED_COLUMNS = ("Submission", "Model", "Kind", "Submitter", "Failed", "Reason", "Message")
MINE_COLUMNS = ("Submission", "Model", "Status", "Progress", "Reason", "Message", "Submitted")


def when(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC") if moment else ""


def _status(request) -> str:
    return getattr(request.status, "value", str(request.status))


def progress_text(request) -> str:
    """"done/total stage", e.g. "120/286 scored expvid"."""
    p = request.progress
    if not p.total:
        return p.stage or "starting"
    return f"{p.done}/{p.total} {p.stage}".strip()


def _attempt(request) -> str:
    return f"{request.attempt + 1} of {request.max_attempts}"


def _failed_at(request) -> datetime | None:
    return request.finished_at or (request.history[-1].at if request.history else None)


def queue_view(requests: Sequence) -> QueueView:
    """Four public tables. Never shows where a prediction file or a log is stored, nor
    any log's content: those are for their submitter (`my_submissions`)."""
    by = {s: [r for r in requests if _status(r) == s] for s in ("PENDING", "RUNNING", "FINISHED", "FAILED",
                                                                 "CANCELLED")}
    pending = sorted(by["PENDING"], key=lambda r: (-r.priority, r.submitted_at, r.id))  # the claim order
    running = sorted(by["RUNNING"], key=lambda r: (r.started_at or r.submitted_at, r.id))
    finished = sorted(by["FINISHED"] + by["CANCELLED"], key=lambda r: (r.finished_at or r.submitted_at, r.id),
                      reverse=True)
    failed = sorted(by["FAILED"], key=lambda r: (_failed_at(r) or r.submitted_at, r.id), reverse=True)
    return QueueView(
        pending=pd.DataFrame([(i, r.id, r.model, r.kind, r.submitter, when(r.submitted_at), _attempt(r))
                              for i, r in enumerate(pending, 1)], columns=list(PENDING_COLUMNS)),
        running=pd.DataFrame([(r.id, r.model, r.kind, r.submitter, when(r.started_at), progress_text(r),
                               r.worker_id or "", _attempt(r)) for r in running], columns=list(RUNNING_COLUMNS)),
        finished=pd.DataFrame([(r.id, r.model, r.kind, r.submitter, _status(r), when(r.finished_at))
                               for r in finished], columns=list(FINISHED_COLUMNS)),
        failed=pd.DataFrame([(r.id, r.model, r.kind, r.submitter, when(_failed_at(r)),
                              r.failure.reason.value if r.failure else "unknown",
                              r.failure.message if r.failure else "No reason was recorded; ask a maintainer.")
                             for r in failed], columns=list(FAILED_COLUMNS)),
    )


def log_tail(text: str | None, lines: int) -> str:
    if not text:
        return ""
    return "\n".join(text.rstrip("\n").splitlines()[-lines:])


def _log_path(request) -> str:
    # Recorded when a job ends; while one runs (or after an attempt that died) the log
    # sits where the worker always writes it (evaluator.worker.JobLog).
    return request.log_path or f"logs/{request.id}.log"


def _has_log(request) -> bool:
    return bool(request.log_path) or request.attempt > 0 or _status(request) == "RUNNING"


def _mine(requests: Sequence, user: str | None) -> list:
    if not user:
        return []
    return sorted((r for r in requests if r.submitter.lower() == user.lower()),
                  key=lambda r: (r.submitted_at, r.id), reverse=True)


def my_submissions(requests: Sequence, user: str | None) -> pd.DataFrame:
    """The signed-in user's own submissions, newest first (logs open on demand: my_log)."""
    rows = []
    for r in _mine(requests, user):
        status = _status(r)
        rows.append((r.id, r.model, status, progress_text(r) if status == "RUNNING" else "",
                     r.failure.reason.value if r.failure else "", r.failure.message if r.failure else "",
                     when(r.submitted_at)))
    return pd.DataFrame(rows, columns=list(MINE_COLUMNS))


def my_log(requests: Sequence, user: str | None, submission: str | None, read_log: Callable[[str], str | None],
           tail_lines: int = 20) -> str:
    """The last lines of the log of one of the user's own submissions. `read_log(path)` is
    called only for a submission of this user: nobody else's log is ever read."""
    request = next((r for r in _mine(requests, user) if r.id == submission), None)
    if request is None:
        return ""
    if not _has_log(request):
        return "(no log yet: the submission has not started)"
    return log_tail(read_log(_log_path(request)), tail_lines) or "(the log is empty)"
