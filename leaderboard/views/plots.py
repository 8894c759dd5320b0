"""Data for the plots: the per-level profile and score against size."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from results import number_format
from leaderboard.views.columns import BENCHMARKS, LEVELS, TITLES, column_or_empty, as_numbers, as_text


# -- plots ------------------------------------------------------------------------------------------------------

LEVEL_ORDER = [label for _, label in LEVELS]


def model_options(board: pd.DataFrame) -> list[tuple[str, str]]:
    """(label, id) for the plot's model picker, in rank order."""
    return list(zip(board["label"], as_text(board["id"])))


def profile_defaults(board: pd.DataFrame, count: int = 5) -> list[str]:
    """Ids for the per-level profile when nobody chose: the best-ranked rows among those
    with the most levels (a paper row covers one benchmark's levels only)."""
    levels = pd.DataFrame({label: as_numbers(column_or_empty(board, column)) for column, label in LEVELS}).notna().sum(axis=1)
    order = pd.DataFrame({"levels": levels.to_numpy(), "rank": board["rank"].to_numpy(),
                          "id": as_text(board["id"]).to_numpy()})
    order = order[order["levels"] > 0].sort_values(["levels", "rank"], ascending=[False, True], kind="stable")
    return list(order["id"].head(count))


def level_profile(board: pd.DataFrame, ids: Sequence[str]) -> pd.DataFrame:
    """Long frame (model, level, score) for the chosen rows: one line per model in the
    per-level profile plot. Levels a row lacks are left out."""
    chosen = board[as_text(board["id"]).isin(list(ids)).to_numpy(bool)]
    values = pd.DataFrame({label: as_numbers(column_or_empty(chosen, column)) for column, label in LEVELS}, index=chosen.index)
    values.insert(0, "model", chosen["label"])
    long = values.melt(id_vars="model", var_name="level", value_name="score").dropna(subset=["score"])
    long["level"] = pd.Categorical(long["level"], categories=LEVEL_ORDER, ordered=True)
    long["score"] = _rounded(long["score"])
    return long.sort_values(["model", "level"], kind="stable").astype({"level": str}).reset_index(drop=True)


def _rounded(values: pd.Series) -> pd.Series:
    """Scores with the digits the site shows (results/number_format.py): a plot's tooltip
    reads 52.8, never 52.800000000000004."""
    return pd.Series([number_format.rounded(v) for v in values], index=values.index, dtype="float64")


def plot_benchmarks() -> list[tuple[str, str]]:
    return [("Average", "average"), *((TITLES[b], b) for b in BENCHMARKS)]


def score_vs_params(board: pd.DataFrame, benchmark: str = "average") -> pd.DataFrame:
    """One point per row that states its parameter count: (model, params_b, score, source, type)."""
    score = as_numbers(board["average"] if benchmark == "average" else column_or_empty(board, f"{benchmark}.overall"))
    keep = (score.notna() & board["params_b"].notna()).to_numpy(bool)
    return pd.DataFrame({"model": board["label"][keep].to_numpy(),
                         "params_b": _rounded(board["params_b"][keep]).to_numpy(),
                         "score": _rounded(score[keep]).to_numpy(), "source": board["badge"][keep].to_numpy(),
                         "type": board["model_type"][keep].to_numpy()})
