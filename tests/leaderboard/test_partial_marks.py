"""The ◐ mark beyond the Leaderboard: a row that left some of a benchmark's calls unanswered
(results/coverage.py) reads "20.00 ◐" in the Benchmarks, By level, By domain and By hop tables
and in the plots' model names, and each tab shows the note that explains the mark only beside
a table or plot that carries it."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from leaderboard import views
from leaderboard.tabs import breakdowns as breakdown_tab
from leaderboard.tabs import common
from leaderboard.tabs import plots as plot_tab
from results import coverage


def _board(answered: int = 30) -> pd.DataFrame:
    """Two prepared rows: "Half" answered `answered` of ExpVid's 60 calls, "Full" all of them;
    both answered every ExAct call."""
    rows = [{"id": name.lower(), "model": name, "source": "predictions", "kind": "predictions", "suite_id": "demo-v1",
             "params": params, "expvid.overall": score, "expvid.level1": score, "expvid.level2": score + 5,
             "expvid.n_calls": 60, "expvid.n_answered": calls,
             "expvid.by_discipline": json.dumps({"Biology": {"overall": score}, "Chemistry": {"overall": score + 1}}),
             "exact.overall": 30.0, "exact.n_calls": 22, "exact.n_answered": 22,
             "exact.by_domain": json.dumps({"Sports": 30.0})}
            for name, calls, score, params in (("Half", answered, 20.0, "7"), ("Full", 60, 40.0, "13"))]
    return views.prepare(pd.DataFrame(rows))


def _texts(shown: pd.DataFrame, column: str) -> dict[str, str]:
    """{model: the cell's text} of one column, as the site shows it."""
    return dict(zip(shown[views.MODEL], views.display_text(shown)[column]))


def test_the_benchmark_tables_mark_the_scores_of_a_row_answered_in_part():
    shown = views.benchmark_view(_board(), "expvid")
    assert _texts(shown, "Overall") == {"Half": "20.00 ◐", "Full": "40.00"}
    assert _texts(shown, "Level 2") == {"Half": "25.00 ◐", "Full": "45.00"}  # every score of the benchmark
    assert _texts(shown, "Calls")["Half"] == "60" and _texts(shown, "Answered")["Half"] == "30"  # counts stay bare
    assert shown["Overall"].dtype == np.float64  # still numbers: the column sorts as numbers
    assert views.partial_note(shown) == coverage.PARTIAL_NOTE
    full = views.benchmark_view(_board(), "exact")  # both rows answered every ExAct call
    assert not any("◐" in (t or "") for t in views.display_text(full).to_numpy().ravel())
    assert views.partial_note(full) == ""


def test_the_level_and_breakdown_tables_mark_that_benchmarks_cells():
    level = views.by_level_view(_board())
    assert _texts(level, "ExpVid L1") == {"Half": "20.00 ◐", "Full": "40.00"}
    assert _texts(level, "ExpVid L2") == {"Half": "25.00 ◐", "Full": "45.00"}
    assert level["ExpVid L1"].dtype == np.float64 and views.partial_note(level) == coverage.PARTIAL_NOTE
    domain = views.breakdown_view(_board(), "expvid-discipline")
    for column in ("ExpVid overall", "Biology", "Chemistry"):
        assert _texts(domain, column)["Half"].endswith(" ◐") and "◐" not in _texts(domain, column)["Full"]
    ranked = views.breakdown_view(_board(), "expvid-discipline", rank_by="Biology")  # a group ranks, shown first
    assert _texts(ranked, "Biology") == {"Half": "20.00 ◐", "Full": "40.00"}
    exact = views.breakdown_view(_board(), "exact-domain")
    assert views.partial_note(exact) == "" and views.display_text(exact)["Sports"].tolist() == ["30.00", "30.00"]
    answered = views.by_level_view(_board(answered=60))
    assert views.partial_note(answered) == ""
    assert views.display_text(answered)["ExpVid L1"].tolist() == ["40.00", "20.00"]


def test_the_tabs_show_the_note_only_beside_a_marked_table():
    shown = common.partial_note(views.by_level_view(_board()))
    assert shown["visible"] is True and shown["value"] == coverage.PARTIAL_NOTE
    assert common.partial_note(views.by_level_view(_board(answered=60)))["visible"] is False
    wired = breakdown_tab.with_note(lambda: ("picker", views.by_level_view(_board())))()
    assert len(wired) == 3 and wired[-1]["visible"] is True


def test_the_plots_name_a_model_that_left_calls_unanswered():
    profile = views.level_profile(_board(), ["half", "full"])
    assert set(profile["model"]) == {"Half ◐", "Full"} and views.partial_note(profile) == coverage.PARTIAL_NOTE
    points = views.score_vs_params(_board(), "expvid")
    assert dict(zip(points["model"], points["score"])) == {"Half ◐": 20.0, "Full": 40.0}
    spec = views.score_vs_params_spec(points)
    assert {p["model"] for p in spec["data"]["values"]} == {"Half ◐", "Full"}  # the tooltip's name
    plot, note = plot_tab.plot_or_placeholder(points, plot_tab.NO_POINTS, views.score_vs_params_spec, "scatter")
    assert plot["visible"] is True and note["visible"] is True and note["value"] == coverage.PARTIAL_NOTE
    exact = views.score_vs_params(_board(), "exact")  # every ExAct call answered: no mark, no note
    assert set(exact["model"]) == {"Half", "Full"} and views.partial_note(exact) == ""
    _, note = plot_tab.plot_or_placeholder(exact, plot_tab.NO_POINTS, views.score_vs_params_spec, "scatter")
    assert note["visible"] is False
    full = views.level_profile(_board(answered=60), ["half", "full"])
    assert set(full["model"]) == {"Half", "Full"} and views.partial_note(full) == ""
