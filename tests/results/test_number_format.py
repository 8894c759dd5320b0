"""One rule for every number the site shows (results/number_format.py): scores with two
decimals, counts as whole numbers, plots' axes over round ticks; and every view writes its
numbers by it, so one score reads the same on every tab (the browser test in
tests/leaderboard/test_site_browser.py checks the page itself)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from results import number_format
from leaderboard import views
from leaderboard.views import models as model_views


@pytest.mark.parametrize("value, shown", [
    (52.8, "52.80"), (52, "52.00"), (np.float64(11.0), "11.00"), (1.785, "1.79"), (54.375, "54.38"),
    (-2.345, "-2.35"), (-0.004, "0.00"), (0.0, "0.00"), (100.0, "100.00"), (7.615616512, "7.62"),
])
def test_a_score_has_two_decimals_rounded_half_up_as_written(value, shown):
    assert number_format.score(value) == shown


@pytest.mark.parametrize("missing", [None, float("nan"), np.nan, pd.NA, math.inf, "n/a"])
def test_a_missing_number_reads_as_an_empty_cell(missing):
    assert number_format.score(missing) is None and number_format.count(missing) is None
    assert number_format.amount(missing) is None and number_format.with_half(missing, 1.0) is None


def test_counts_amounts_intervals_and_p_values():
    assert number_format.count(120.0) == "120" and number_format.count(np.int64(3)) == "3"
    assert number_format.whole(120.0) == 120 and type(number_format.whole(120.0)) is int
    assert [number_format.amount(v) for v in (7.615616512, 72.0, 0.5, 13)] == ["7.62", "72", "0.5", "13"]
    assert number_format.with_half(61.2, 1.79) == "61.20 ±1.79"
    assert number_format.with_half(61.2, 0.0) == number_format.with_half(61.2, float("nan")) == "61.20"
    assert number_format.interval(6.0, 15.63) == "[6.00, 15.63]" and number_format.interval(6.0, None) is None
    assert number_format.p_value(0.0002) == "<0.001" and number_format.p_value(2 / 1001) == "0.002"
    assert number_format.rounded(52.800000000000004) == 52.8
    assert [number_format.text(k, 32.0) for k in (number_format.SCORE, number_format.COUNT, number_format.AMOUNT)] \
        == ["32.00", "32", "32"]


def test_count_metrics_are_told_apart_from_scores():
    assert all(number_format.is_count(m) for m in ("n_calls", "n_answered", "calibration_n", "judge_unscored",
                                                   "n_right_before"))
    assert not any(number_format.is_count(m) for m in ("overall", "level1", "cga", "ece", "amcl", "ws_norm"))


def test_the_plots_axes_span_scores_and_trim_padded_digits():
    assert number_format.SCORE_LIMITS == [0, 100] and "~" in number_format.AXIS_FORMAT


# -- every view writes its numbers by the rule ---------------------------------------------------------

@pytest.fixture(scope="module")
def board():
    """The papers' rows beside an official suite's verified row with an interval."""
    row = {"id": "run-1", "model": "acme/Vid-7B", "kind": "model", "source": "verified",
           "suite_id": "official-v1-0123456789ab", "judge_id": "j@1", "params": "7.615616512",
           "frames": 32.0, "protocol_status": "reference", "expvid.overall": 52.8, "expvid.overall_ci_low": 50.0,
           "expvid.overall_ci_high": 55.63, "expvid.level1": 60.0, "expvid.n_calls": 120.0,
           "expvid.n_answered": 119.0}
    table = pd.DataFrame([row])
    return views.prepare(views.select_suite(table, "official-v1-0123456789ab"))


def shown(frame: pd.DataFrame, column: str, model: str) -> str:
    at = list(frame[views.MODEL]).index(model)
    return views.display_text(frame).loc[at, column]


def test_one_score_reads_the_same_on_the_leaderboard_and_the_benchmarks_tab(board):
    leaderboard = views.leaderboard_view(board, [*views.DEFAULT_COLUMNS, "ExpVid 95% CI"])
    bench = views.benchmark_view(board, "expvid")
    assert shown(leaderboard, "ExpVid", "acme/Vid-7B").startswith("52.80 ±")
    # 119 of its 120 calls answered: both tabs mark the score (results/coverage.py)
    assert shown(leaderboard, "ExpVid", "acme/Vid-7B").endswith(" ◐")
    assert shown(bench, "Overall", "acme/Vid-7B") == "52.80 ◐"
    assert shown(bench, "Level 1", "acme/Vid-7B") == "60.00 ◐"
    assert shown(bench, "Calls", "acme/Vid-7B") == "120" and shown(bench, "Answered", "acme/Vid-7B") == "119"
    mine = list(leaderboard[views.MODEL]).index("acme/Vid-7B"), list(bench[views.MODEL]).index("acme/Vid-7B")
    assert leaderboard.loc[mine[0], "ExpVid 95% CI"] == bench.loc[mine[1], "95% CI"] == "[50.00, 55.63]"
    # a paper's score printed with one decimal reads with two wherever it is shown
    papers = [i for i, (m, v) in enumerate(zip(bench[views.MODEL], bench["Overall"]))
              if v == 52.8 and m != "acme/Vid-7B"]
    assert papers and all(views.display_text(bench).loc[i, "Overall"] == "52.80" for i in papers)
    assert any(t and t.startswith("52.80") for t in views.display_text(leaderboard)["ExpVid"])
    # the numbers stay numbers: columns sort as numbers
    assert pd.api.types.is_float_dtype(bench["Overall"]) and pd.api.types.is_float_dtype(leaderboard["ExpVid"])


def test_counts_and_sizes_on_the_leaderboard(board):
    leaderboard = views.leaderboard_view(board, [*views.DEFAULT_COLUMNS])
    assert shown(leaderboard, views.FRAMES, "acme/Vid-7B") == "32"
    assert shown(leaderboard, views.PARAMS, "acme/Vid-7B") == "7.62"
    assert shown(leaderboard, views.RANK, "acme/Vid-7B") == "1"
    assert shown(leaderboard, views.BAND, "acme/Vid-7B") == "1"


def test_level_and_breakdown_views_and_the_models_view_write_two_decimals(board):
    level = views.by_level_view(board)
    assert shown(level, "ExpVid L1", "acme/Vid-7B") == "60.00 ◐"  # 119 of 120 calls answered
    texts = views.display_text(views.breakdown_view(board, "exact-domain"))
    assert texts.iloc[:, 3:].stack().map(lambda t: t.split(".")[-1]).map(len).eq(2).all()
    rows = model_views.model_rows(board, None)
    cells = [t for t in model_views.model_view(rows).attrs["display"]["ExpVid"] if t]
    assert cells and all(t.split(" ")[0].split(".")[-1].isdigit() and len(t.split(" ")[0].split(".")[-1]) == 2
                         for t in cells)


def test_plot_data_is_rounded_as_shown(board):
    points = views.score_vs_params(board, "expvid")
    assert 7.62 in set(points["params_b"]) and all(round(v, 2) == v for v in points["params_b"])
    profile = views.level_profile(board, list(board["id"]))
    assert all(round(v, 2) == v for v in profile["score"])


def test_a_view_without_kinds_leaves_its_numbers_to_the_table():
    frame = pd.DataFrame({"x": [1.5]})
    assert views.display_text(frame).isna().all(axis=None)
