"""The Leaderboard tab's table: filters, search, score text, column widths and the shown view."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from evaluator.benchmarks import hook
from results import coverage, number_format, protocol_status
from leaderboard.views import run_columns
from results.ranking import half_widths, mean_half_width
from leaderboard.views.board import ci_text, source_text
from leaderboard.views.columns import (
    ALWAYS_SHOWN, AVERAGE, BAND, BENCHMARKS, DATE, DEFAULT_COLUMNS, FRAMES, JUDGE, LEVELS, MODEL, MODEL_BUDGET_FRAMES,
    OPTIONAL_COLUMNS, PAPER, PARAMS, PRECISION, PROTOCOL, RANK, REVISION, RUNNER, SCORE_COLUMNS, SOURCE, SUBMISSION,
    SUBMITTER, SUITE_DEFAULT_FRAMES, THINKING, TITLES, TYPE, UNSTATED_FRAMES, ci_label, column_or_empty, as_numbers, as_text,
    name_matches, search_terms,
)
from leaderboard.views.display import DISPLAY, set_kinds


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
    protocols: str | None = None  # protocol_status.REFERENCE_ONLY: rows sharing the suite's reference (and papers')


def search_mask(names: pd.Series, search: str) -> pd.Series:
    """Which rows a search matches: `names` holds each row's names (views.prepare's search_names;
    any may match)."""
    terms = search_terms(search)
    if not terms:
        return pd.Series(True, index=names.index)
    return pd.Series([any(name_matches(n, terms) for n in row) for row in names], index=names.index, dtype=bool)


def filter_rows(board: pd.DataFrame, filters: Filters) -> pd.DataFrame:
    """The rows (of the prepared board or of leaderboard_table) that pass every filter;
    ranks unchanged."""
    mask = search_mask(board["search_names"], filters.search)
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
    mask &= protocol_status.filter_mask(board, filters.protocols)
    return board[mask.to_numpy(bool)]


def frame_choices(board: pd.DataFrame) -> list[str]:
    """Frame counts present, numerically, then the special labels."""
    present = set(board["frames_label"])
    labels = (SUITE_DEFAULT_FRAMES, MODEL_BUDGET_FRAMES, UNSTATED_FRAMES)
    numbers = sorted((v for v in present if v not in labels), key=float)
    return numbers + [v for v in labels if v in present]


def judge_choices(board: pd.DataFrame) -> list[str]:
    return sorted(j for j in set(board["judge_text"]) if j)


def _leaderboard_column(rows: pd.DataFrame, name: str) -> pd.Series:
    for benchmark in BENCHMARKS:
        if name == TITLES[benchmark]:
            return as_numbers(rows[f"{benchmark}.overall"])
        if name == ci_label(benchmark):
            return ci_text(rows, benchmark)
    sources = {**run_columns.sources(rows),  # the no-video and cost columns of model-ID runs
        RANK: lambda: rows["rank"], BAND: lambda: rows["band"], MODEL: lambda: rows["model_text"], SOURCE: lambda: source_text(rows),
        AVERAGE: lambda: rows["average"], PARAMS: lambda: rows["params_b"], FRAMES: lambda: rows["frames_n"],
        TYPE: lambda: rows["model_type"], THINKING: lambda: rows["thinking_text"],
        RUNNER: lambda: rows["runner_text"], JUDGE: lambda: rows["judge_text"], DATE: lambda: rows["date"],
        SUBMITTER: lambda: as_text(column_or_empty(rows, "submitter")), REVISION: lambda: as_text(column_or_empty(rows, "revision")),
        PRECISION: lambda: as_text(column_or_empty(rows, "precision")), PAPER: lambda: as_text(column_or_empty(rows, "paper")),
        SUBMISSION: lambda: as_text(column_or_empty(rows, "id")), PROTOCOL: lambda: rows["protocol_text"],
    }
    if name not in sources:
        raise KeyError(f"unknown leaderboard column {name!r}; known: {', '.join((*ALWAYS_SHOWN, *OPTIONAL_COLUMNS))}")
    return sources[name]()


# The board's columns the filters read; leaderboard_table keeps them beside the display columns.
FILTER_KEYS = ("model", "search_names", "model_type", "size", "source_kind", "frames_label", "judge_text",
               "protocol_status")


def _pm_key(column: str) -> str:
    return f"{column} ±"  # leaderboard_table's column of a score column's shown text


def score_text(score: pd.Series, half: pd.Series) -> pd.Series:
    """"61.20 ±1.79": the score and half its 95% interval; the score alone without one."""
    out = [number_format.with_half(v, h) for v, h in zip(as_numbers(score).to_numpy(), as_numbers(half).to_numpy())]
    return pd.Series(out, index=score.index, dtype=object)


def marked(text: pd.Series, partial: np.ndarray) -> np.ndarray:
    """Score texts with coverage.PARTIAL_MARK where the score counts calls left unanswered."""
    return np.array([f"{t} {coverage.PARTIAL_MARK}" if p and t is not None else t
                     for t, p in zip(text.to_numpy(), partial)], dtype=object)


def average_text(board: pd.DataFrame) -> np.ndarray:
    """The Average cells: "9.54 ±4.23" (◐ where a score in it counts unanswered calls), and
    "— 3 missing" where a verified row lacks scores in benchmarks its Average is over: it says
    why the cell is empty and why the row is listed after every row with an Average."""
    average = as_numbers(board["average"]).to_numpy()
    text = marked(score_text(board["average"], mean_half_width(board)), coverage.any_partial(board) & ~np.isnan(average))
    over = as_text(column_or_empty(board, "average_of")).to_numpy()
    overall = {b: as_numbers(column_or_empty(board, f"{b}.overall")).to_numpy() for b in BENCHMARKS}
    for i in np.flatnonzero(np.isnan(average)):
        missing = sum(np.isnan(overall[b][i]) for b in str(over[i]).split(",") if b in overall)
        if missing:
            text[i] = f"— {missing} missing"
    return text


def rank_marks(board: pd.DataFrame) -> pd.Series:
    """What the Rank cell shows instead of a blank for a row that is not ranked because it
    is off the reference protocol ("≠") or its protocol is unknown ("?"); None elsewhere."""
    marks = {protocol_status.DIFFERS: "≠", protocol_status.UNKNOWN: "?"}
    shown = pd.Series([marks.get(s) for s in board["protocol_status"]], index=board.index, dtype=object)
    return shown.where(shown.notna(), paper_ranks(board))


def paper_ranks(board: pd.DataFrame, score: pd.Series | None = None) -> pd.Series:
    """A paper's model rows ranked within that paper by their score ("3 📄": 1 + the paper's
    models scoring higher, so ties share a rank); None elsewhere. A paper's rank never mixes
    with another paper's or with a verified one. `score`: what ranks them (by board index;
    default the mean of a row's overall scores)."""
    out = pd.Series(None, index=board.index, dtype=object)
    kinds = as_text(column_or_empty(board, "row_kind"))
    papers = board[(board["paper_order"] >= 0).to_numpy(bool) & (kinds == "model").to_numpy(bool)]
    score = board["mean_available"] if score is None else score
    for _, group in papers.groupby("paper_order"):
        scores = as_numbers(score.loc[group.index])
        for i, v in scores.items():
            if not np.isnan(v):
                out[i] = f"{1 + int((scores > v).sum())} 📄"
    return out


def leaderboard_table(board: pd.DataFrame) -> pd.DataFrame:
    """Every leaderboard column (display names) plus FILTER_KEYS and each score column's
    shown text, in rank order. Built once per table and suite: a reader's filters and
    column choice then only pick rows and columns from it (filter_rows, leaderboard_view).
    A paper's row with no overall score is left to the views that show its parts
    (ExpVid's human row: levels 1 and 2, no level 3): here it would be a blank row, and the
    line under the table names it instead (unlisted_text)."""
    board = board[~_no_overall(board)]
    data = {name: _leaderboard_column(board, name).to_numpy() for name in (*ALWAYS_SHOWN, *OPTIONAL_COLUMNS)}
    data.update({key: board[key].to_numpy() for key in FILTER_KEYS} | run_columns.texts(board, _pm_key))
    data[_pm_key(AVERAGE)] = average_text(board)
    data[_pm_key(RANK)] = rank_marks(board).to_numpy()
    for b in BENCHMARKS:
        text = score_text(column_or_empty(board, f"{b}.overall"), half_widths(board, b))
        data[_pm_key(TITLES[b])] = marked(text, coverage.partial(board, b))
    return pd.DataFrame(data)


def _no_overall(board: pd.DataFrame) -> np.ndarray:
    return ((board["source_kind"] == "reported") & board["mean_available"].isna()).to_numpy(bool)


def unlisted(board: pd.DataFrame) -> pd.DataFrame:
    """The board's rows that leaderboard_table leaves out: papers' rows with no overall score."""
    return board[_no_overall(board)]


def unlisted_text(rows: pd.DataFrame) -> str:
    """What the line under the Leaderboard says of the unlisted rows that pass its filters, so
    that no row is left out unsaid: "" when there are none."""
    if rows.empty:
        return ""
    whose = "its paper gives" if len(rows) == 1 else "their papers give"
    return (f"Not listed: {', '.join(rows['label'])}, as {whose} parts of the score only, no overall "
            f"(the Benchmarks tab shows the parts)")


# Pixel widths that fit the default leaderboard columns, and the By level table, in a 1280 px
# window (long headers wrap); other columns get WIDE.
# A benchmark's column: its folder's COLUMN_WIDTH (evaluator/benchmarks/hooks.py), else 102.
WIDTHS = {RANK: 58, BAND: 56, MODEL: 156, SOURCE: 160, AVERAGE: 102,
          **{TITLES[b]: hook(b, "COLUMN_WIDTH", 102) for b in BENCHMARKS},
          PARAMS: 80, FRAMES: 74, DATE: 100}
LEVEL_WIDTHS = {RANK: WIDTHS[RANK], MODEL: 160, SOURCE: 150}  # the same Rank width: the site pins Model beside it
WIDE = 130


def column_widths(columns: Sequence[str]) -> list[str]:
    """Gradio column_widths for these leaderboard (or By level) columns."""
    if set(columns) & {label for _, label in LEVELS}:
        return [f"{LEVEL_WIDTHS.get(c, 104)}px" for c in columns]
    return [f"{WIDTHS.get(c, WIDE)}px" for c in columns]


def held_columns(columns: Sequence[str], held: Sequence[str]) -> tuple[str, ...]:
    """`columns` without those of the benchmarks a suite does not hold (its score, interval
    and no-video columns): a suite of three shows no empty ExpVid column."""
    missing = tuple(TITLES[b] for b in BENCHMARKS if b not in held)
    return tuple(c for c in columns if not c.startswith(missing)) if missing and held else tuple(columns)


# How the Leaderboard's numbers read (results/number_format.py); scores carry their own text.
NUMBER_KINDS = {RANK: number_format.COUNT, BAND: number_format.COUNT, FRAMES: number_format.COUNT,
                PARAMS: number_format.AMOUNT, run_columns.JUDGE_TOKENS: number_format.COUNT,
                **{c: number_format.SCORE for c in (AVERAGE, *SCORE_COLUMNS, *run_columns.NO_VIDEO_COLUMNS)}}


def unfilled_columns(board: pd.DataFrame) -> tuple[str, ...]:
    """Average and Band where no row of the suite (its prepared board) has one: the papers'
    page, whose rows never get either, shows no empty column for them."""
    keys = ((AVERAGE, "average"), (BAND, "band"))
    return tuple(name for name, key in keys if key in board.columns and as_numbers(board[key]).isna().all())


def leaderboard_view(rows: pd.DataFrame, columns: Sequence[str] = DEFAULT_COLUMNS,
                     leave_out: Sequence[str] = ()) -> pd.DataFrame:
    """One display row per result: Rank, Model and Average, the chosen score columns (each
    with its no-video column), Protocol where chosen (what a ≠ in the Rank cell means: in view
    beside the scores, not past the table's right edge), Source and Band, then the other
    chosen columns, each group in its fixed order (unknown names are ignored; `leave_out`:
    columns of ALWAYS_SHOWN not to show, unfilled_columns). Score columns stay numbers (they
    sort as numbers); their "score ±half-interval" text is in attrs[DISPLAY], the other
    numbers' kinds in attrs[KINDS] (views.display_text). `rows`: prepared board rows, or rows of
    leaderboard_table."""
    table = rows if RANK in rows.columns else leaderboard_table(rows)
    chosen = [c for c in OPTIONAL_COLUMNS if c in set(columns)]
    scores = set(run_columns.beside(SCORE_COLUMNS))
    first = [c for c in chosen if c in scores] + [PROTOCOL] * (PROTOCOL in chosen)
    names = [*ALWAYS_SHOWN[:3], *first, *ALWAYS_SHOWN[3:], *(c for c in chosen if c not in first)]
    names = [c for c in names if c not in set(leave_out)]
    out = table[names].reset_index(drop=True)
    out.attrs[DISPLAY] = {c: list(table[_pm_key(c)]) for c in names if _pm_key(c) in table.columns}
    return set_kinds(out, NUMBER_KINDS)

