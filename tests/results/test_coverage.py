"""How much of the call list a row answered (results/coverage.py), and where the site says so:
the Leaderboard's score texts and the protocol card (the other tabs: tests/leaderboard/test_partial_marks.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from leaderboard import views
from results import coverage, protocol_status


def _rows() -> pd.DataFrame:
    return pd.DataFrame({
        "expvid.n_calls": [60, 60, np.nan, 60], "expvid.n_answered": [13, 60, np.nan, 0],
        "exact.n_calls": [22, 22, np.nan, 22], "exact.n_answered": [22, 21, np.nan, 22],
    })


def test_a_benchmark_answered_in_part_is_found_per_row():
    rows = _rows()
    assert list(coverage.partial(rows, "expvid")) == [True, False, False, True]
    assert list(coverage.partial(rows, "exact")) == [False, True, False, False]
    assert list(coverage.partial(rows, "videommmu")) == [False] * 4  # no counts: nothing to say
    assert list(coverage.any_partial(rows)) == [True, True, False, True]
    assert coverage.unanswered(rows.iloc[0]) == {"expvid": (13, 60)}
    assert coverage.coverage_text(rows.iloc[1]) == "ExAct 21 of 22 calls (1 unanswered)"
    assert coverage.coverage_text(rows.iloc[3]) == "ExpVid 0 of 60 calls (60 unanswered)"
    assert coverage.coverage_text(rows.iloc[2]) == ""


def test_benchmarks_with_no_score_at_all_are_named():
    row = {"expvid.n_calls": 60, "expvid.n_answered": 60, "expvid.overall": 40.0}
    assert coverage.not_answered(row, ["expvid", "exact", "videosimpleqa"]) == ["ExAct", "Video SimpleQA"]
    assert coverage.not_answered(row, ["expvid"]) == []


def test_the_leaderboard_marks_scores_that_count_unanswered_calls():
    board = views.prepare(pd.DataFrame([
        {"id": "half", "model": "Half", "source": "predictions", "kind": "predictions", "suite_id": "demo-v1",
         "expvid.overall": 20.0, "expvid.n_calls": 60, "expvid.n_answered": 30,
         "exact.overall": 30.0, "exact.n_calls": 22, "exact.n_answered": 22},
        {"id": "full", "model": "Full", "source": "predictions", "kind": "predictions", "suite_id": "demo-v1",
         "expvid.overall": 40.0, "expvid.n_calls": 60, "expvid.n_answered": 60,
         "exact.overall": 30.0, "exact.n_calls": 22, "exact.n_answered": 22},
    ]))
    shown = views.leaderboard_view(views.leaderboard_table(board))
    text = dict(zip(shown[views.MODEL], zip(*(shown.attrs["display"][views.TITLES[b]] for b in ("expvid", "exact")))))
    assert text["Half"][0].endswith(" ◐") and not text["Half"][1].endswith("◐")
    assert not any(t.endswith("◐") for t in text["Full"] if t)


def test_the_protocol_card_counts_the_calls_answered():
    card = '{"source": "prediction-file", "verified": false, "frame_times_sha256": {"expvid": "a", "exact": "b"}}'
    row = {"model": "Half", "protocol_status": "declared", "protocol_card": card,
           "expvid.overall": 20.0, "expvid.n_calls": 60, "expvid.n_answered": 30}
    text = protocol_status.card_markdown(row)
    assert "**◐ Answered in part**: ExpVid 30 of 60 calls (30 unanswered)." in text
    assert "**Not answered at all, so no score**: ExAct." in text
    full = protocol_status.card_markdown({**row, "expvid.n_answered": 60, "exact.overall": 1.0})
    assert "Answered in part" not in full and "Not answered at all" not in full
