"""The prepared board: derived columns (badge, type, size, frames), sorting, ranks and bands."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from evaluator.judges import JUDGED
from leaderboard import protocol_card
from leaderboard.bands import rank_bands
from leaderboard.views.columns import (
    BASELINE, BENCHMARKS, MODEL_BUDGET_FRAMES, REPORTED, SIZES, SUITE_DEFAULT_FRAMES, TITLES, UNSTATED_FRAMES,
    VERIFIED, _col, _flags, _numbers, _text,
)


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


def _own_budgets(frame: pd.DataFrame) -> np.ndarray:
    """Rows of model runs whose frame budgets (runner.frame_budgets) differ from the protocols' defaults."""
    from evaluator.reference import default_budgets

    defaults = default_budgets()

    def own(text: object) -> bool:
        budgets = json.loads(text) if isinstance(text, str) and text.startswith("{") else {}
        return any(defaults.get(k, v) != v for k, v in budgets.items())
    return np.array([own(t) for t in _col(frame, "runner.frame_budgets")], dtype=bool)


def frames_label(frame: pd.DataFrame, frames: pd.Series) -> pd.Series:
    """What the frames filter offers: "32", or SUITE_DEFAULT_FRAMES / MODEL_BUDGET_FRAMES / UNSTATED_FRAMES."""
    reported = (_col(frame, "source").astype("string") == "reported").fillna(False).to_numpy(bool)
    missing = np.where(reported, UNSTATED_FRAMES, np.where(_own_budgets(frame), MODEL_BUDGET_FRAMES,
                                                           SUITE_DEFAULT_FRAMES))
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
    # a judge is named only where one graded the row (multiple-choice answers are read by rule)
    judged = out[[f"{b}.overall" for b in BENCHMARKS if b in JUDGED]].apply(_numbers).notna().any(axis=1)
    out["judge_text"] = _text(_col(out, "judge_id")).where(judged, "")
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
    half = _mean_half_width(out)
    tier = np.where(has_average, 1, 0)  # a row with all its suite's scores ranks above a partial one
    # ... and only rows that share the suite's reference protocol (protocol_card.RANKED_STATUSES).
    out["ranked"] = (out["source_kind"] == "verified") & out["protocol_status"].isin(protocol_card.RANKED_STATUSES)
    out["rank"] = interval_ranks(score, half, tier, out["judge_text"], out["ranked"])
    out["band"] = rank_bands(score, half, tier, out["judge_text"], out["ranked"])
    out["label"] = _labels(out)
    return out


def suite_benchmarks(board: pd.DataFrame) -> list[str]:
    """The benchmarks the board's verified rows have scores on (its papers' rows', where it
    has only those), in the site's order: what a view of this suite can show (a suite may
    hold any of the five)."""
    verified = board[board["source_kind"] == "verified"] if "source_kind" in board.columns else board
    rows = verified if len(verified) else board
    return [b for b in BENCHMARKS if _numbers(_col(rows, f"{b}.overall")).notna().any()]


def average_note(board: pd.DataFrame) -> str:
    """What Average means on this board when its suite does not hold all five benchmarks
    ("" when it does, or when nothing is scored)."""
    held = suite_benchmarks(board)
    if not held or len(held) == len(BENCHMARKS):
        return ""
    names = [TITLES[b] for b in held]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return (f"This suite holds {len(held)} of the five benchmarks ({listed}): **Average** is the mean of "
            f"{'its overall score' if len(held) == 1 else f'these {len(held)} overall scores'}, and rows are "
            f"ranked by it.")


def _half_widths(frame: pd.DataFrame, benchmark: str) -> pd.Series:
    """Half the width of a benchmark's 95% interval (0 where it has none)."""
    low = _numbers(_col(frame, f"{benchmark}.overall_ci_low"))
    high = _numbers(_col(frame, f"{benchmark}.overall_ci_high"))
    return ((high - low) / 2).fillna(0.0)


def _mean_half_width(frame: pd.DataFrame) -> pd.Series:
    """The half-width of the interval of a mean of overall scores: the benchmarks use
    different videos, so their errors are independent and add in quadrature,
    sqrt(sum of squared half-widths) / count (a normal approximation of each interval)."""
    present = frame[overall_columns()].apply(_numbers).notna()
    squares = pd.DataFrame({b: _half_widths(frame, b) ** 2 for b in BENCHMARKS}, index=frame.index)
    squares.columns = present.columns
    count = present.sum(axis=1).replace(0, np.nan)  # a row with an average has all of its suite's
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
