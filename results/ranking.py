"""Where each row of a suite stands: the Leaderboard's order, and each row's rank and band.
The site's board (leaderboard/views/board.py `prepare`) and the open exports
(results/exports.py) both take them from `ranked`, so an export carries the very rank
and band the Leaderboard shows. Pure pandas.

    out = ranked(rows)   # rows sorted as the Leaderboard sorts them, with the columns below
    reads(columns)       # the columns of a table that `ranked` reads

Rows are sorted by average, then (verified rows first, papers' rows grouped by paper in the
benchmarks' order) by the mean of the overalls a row has, then by name. `rank` is
interval_ranks and `band` rank_bands (results/bands.py) among the `ranked` rows: verified
rows at the reference protocol (protocol_status.RANKED_STATUSES), within one judge. A row with
an average ranks above every row without one. Papers' rows never affect a verified row's rank.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evaluator.benchmarks import JUDGED, ORDER
from results import protocol_status
from results.bands import rank_bands

BENCHMARKS = tuple(ORDER)
REPORTED = "reported"  # the `source` of a paper's row (leaderboard/reported.py)
_PAPER_ID = r"^reported/([^/]+)/"


def _col(frame: pd.DataFrame, name: str) -> pd.Series:
    return frame[name] if name in frame.columns else pd.Series(np.nan, index=frame.index, dtype="float64")


def _numbers(series: pd.Series) -> pd.Series:
    return pd.to_numeric(series, errors="coerce").astype("float64")


def _text(series: pd.Series) -> pd.Series:
    return series.astype("string").fillna("").astype(object)


def overall_columns() -> list[str]:
    return [f"{b}.overall" for b in BENCHMARKS]


def half_widths(frame: pd.DataFrame, benchmark: str) -> pd.Series:
    """Half the width of a benchmark's 95% interval (0 where it has none)."""
    low = _numbers(_col(frame, f"{benchmark}.overall_ci_low"))
    high = _numbers(_col(frame, f"{benchmark}.overall_ci_high"))
    return ((high - low) / 2).fillna(0.0)


def mean_half_width(frame: pd.DataFrame) -> pd.Series:
    """The half-width of the interval of a mean of overall scores: the benchmarks use
    different videos, so their errors are independent and add in quadrature,
    sqrt(sum of squared half-widths) / count (a normal approximation of each interval)."""
    present = pd.DataFrame({c: _numbers(_col(frame, c)) for c in overall_columns()}, index=frame.index).notna()
    squares = pd.DataFrame({b: half_widths(frame, b) ** 2 for b in BENCHMARKS}, index=frame.index)
    squares.columns = present.columns
    count = present.sum(axis=1).replace(0, np.nan)  # a row with an average has all of its suite's
    return (np.sqrt(squares.where(present, 0.0).sum(axis=1)) / count).fillna(0.0)


def judge_text(frame: pd.DataFrame) -> pd.Series:
    """The row's judge, named only where one graded it (multiple-choice answers are read by rule)."""
    judged = pd.DataFrame({b: _numbers(_col(frame, f"{b}.overall")) for b in BENCHMARKS if b in JUDGED},
                          index=frame.index).notna().any(axis=1)
    return _text(_col(frame, "judge_id")).where(judged, "")


def paper_order(frame: pd.DataFrame) -> pd.Series:
    """A paper's row: its benchmark's place in the site's order; -1 for every other row."""
    benchmark = _text(_col(frame, "id")).str.extract(_PAPER_ID, expand=False)
    return _numbers(benchmark.map({b: i for i, b in enumerate(BENCHMARKS)})).fillna(-1)


def reads(columns) -> list[str]:
    """Of a table's columns, those `ranked` reads (a caller converts only these)."""
    named = ("id", "model", "source", "average", "judge_id", protocol_status.STATUS)
    ends = (".overall", ".overall_ci_low", ".overall_ci_high")
    return [c for c in columns if c in named or c.endswith(ends)]


def _derived(rows: pd.DataFrame) -> pd.DataFrame:
    """The columns the order and the ranks read."""
    reported = (_col(rows, "source").astype("string") == REPORTED).fillna(False).to_numpy(bool)
    return rows.assign(
        average=_numbers(_col(rows, "average")),
        source_kind=np.where(reported, "reported", "verified"),
        judge_text=judge_text(rows),
        mean_available=pd.DataFrame({c: _numbers(_col(rows, c)) for c in overall_columns()},
                                    index=rows.index).mean(axis=1, skipna=True),
        model_text=_text(_col(rows, "model")),
        protocol_status=protocol_status.statuses(rows),
        paper_order=paper_order(rows))


def ranked(rows: pd.DataFrame) -> pd.DataFrame:
    """`rows` in the Leaderboard's order with average (a number), source_kind, judge_text,
    mean_available, model_text, protocol_status, paper_order, ranked, rank and band.
    Ranking happens on the suite's rows before any filter, so a filter never renumbers rows."""
    out = _derived(rows).sort_values(["average", "paper_order", "mean_available", "model_text"],
                                     ascending=[False, True, False, True], na_position="last",
                                     kind="stable").reset_index(drop=True)
    # Results are never ranked across judges, and a paper's number was made with that paper's
    # own setup: only verified rows at the suite's reference protocol get a rank, within their judge.
    out["ranked"] = (out["source_kind"] == "verified") & out["protocol_status"].isin(protocol_status.RANKED_STATUSES)
    has_average = out["average"].notna()
    score = out["average"].where(has_average, out["mean_available"])
    half = mean_half_width(out)
    tier = np.where(has_average, 1, 0)  # a row with all its suite's scores ranks above a partial one
    out["rank"] = interval_ranks(score, half, tier, out["judge_text"], out["ranked"])
    out["band"] = rank_bands(score, half, tier, out["judge_text"], out["ranked"])
    return out


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
