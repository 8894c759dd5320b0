"""Rank bands (results/bands.py): greedy from the top, a band is the run of rows
whose intervals overlap its leader's; within one judge and tier; papers' rows get none.
The main table shows them in the Band column."""

from __future__ import annotations

import numpy as np
import pandas as pd

from leaderboard import views
from results.bands import rank_bands


def bands(scores, halves, tier=None, groups=None, eligible=None) -> list:
    n = len(scores)
    out = rank_bands(pd.Series(scores, dtype=float), pd.Series(halves, dtype=float),
                     np.zeros(n) if tier is None else np.asarray(tier),
                     pd.Series(groups or ["judge"] * n), pd.Series(eligible or [True] * n))
    return [None if pd.isna(v) else int(v) for v in out]


def test_a_band_takes_the_rows_overlapping_its_leader_then_the_next_row_leads():
    # leader [58, 62]; 59±2 overlaps; 55±2.5 reaches 57.5 < 58: leads band 2 [52.5, 57.5];
    # 53±1 overlaps band 2's leader; 50±1 does not (51 < 52.5): band 3
    assert bands([60, 59, 55, 53, 50], [2, 2, 2.5, 1, 1]) == [1, 1, 2, 2, 3]


def test_overlap_with_a_member_is_not_enough_only_the_leader_counts():
    # 57±1.5 overlaps 59±2 (a member) but not the leader's [59, 61]: a new band
    assert bands([60, 59, 57], [1, 2, 1.5]) == [1, 1, 2]


def test_touching_intervals_share_a_band_and_exact_points_split():
    assert bands([60, 58], [1, 1]) == [1, 1]  # [59, 61] and [57, 59] touch at 59
    assert bands([60, 60, 59.99], [0, 0, 0]) == [1, 1, 2]  # no intervals: equal scores tie


def test_bands_are_per_judge_and_tier_and_skip_papers_rows():
    assert bands([60, 59, 58, 57], [5, 5, 5, 5], groups=["a", "b", "a", "b"]) == [1, 1, 1, 1]
    # a row with all five scores (tier 1) is above a partial row whatever their intervals
    assert bands([40, 90, 39], [5, 5, 5], tier=[1, 0, 1]) == [1, 2, 1]
    assert bands([60, 59, 55], [2, 2, 2], eligible=[True, False, True]) == [1, None, 2]
    assert bands([60, float("nan")], [1, 0]) == [1, None]


def test_the_main_table_shows_the_band_after_the_scores(tmp_path):
    table = pd.DataFrame({"id": ["a", "b", "c", "reported/exact/x"], "model": ["A", "B", "C", "Paper"],
                          "kind": ["predictions"] * 3 + ["reported"],
                          "source": ["verified", "verified", "verified", "reported"],
                          "judge_id": ["j", "j", "j", ""], "average": [70.0, 69.0, 50.0, np.nan],
                          "protocol_status": ["reference"] * 3 + [""],
                          **{f"{b}.overall": [70.0, 69.0, 50.0, 80.0 if b == "exact" else np.nan]
                             for b in views.BENCHMARKS},
                          **{f"{b}.overall_ci_low": [68.0, 67.0, 48.0, np.nan] for b in views.BENCHMARKS},
                          **{f"{b}.overall_ci_high": [72.0, 71.0, 52.0, np.nan] for b in views.BENCHMARKS}})
    shown = views.leaderboard_view(views.prepare(table))
    # Rank and Model first (a phone keeps them in view), the scores beside them, then Source and Band
    assert list(shown.columns[:2]) == [views.RANK, views.MODEL]
    assert list(shown.columns).index(views.BAND) == list(shown.columns).index(views.SOURCE) + 1
    assert views.unfilled_columns(views.prepare(table)) == ()
    assert views.unfilled_columns(views.prepare(table[table["source"] == "reported"])) == (views.AVERAGE, views.BAND)
    by_model = dict(zip(shown[views.MODEL], shown[views.BAND]))
    assert (by_model["A"], by_model["B"], by_model["C"]) == (1, 1, 2) and pd.isna(by_model["Paper"])
