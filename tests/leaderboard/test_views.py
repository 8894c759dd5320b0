"""The site's views (leaderboard/views/): pure pandas over a table built by
aggregate.build_table from real results (the demo suite scored with the built-in
baselines), plus the papers' reported rows."""

from __future__ import annotations

import json
from datetime import timedelta

import numpy as np
import pandas as pd
import pytest

from conftest import min_bucket_items
from evaluator.baselines import predictions
from evaluator.judges import get_judge
from evaluator.predictions import as_responses
from evaluator.records import ScoringOptions
from evaluator.scoring import make_result, score_responses
from results import aggregate
from leaderboard import views
from leaderboard.reported import reported_rows
from submissions.requests import Failure, Progress, Reason, Request, Status, utcnow

OFFICIAL = "official-v1-0123456789ab"


def _score(suite, key, name: str, *, worker_run: bool = False, only: str | None = None):
    calls = [c for c in suite.calls + (key.hidden_calls if worker_run else []) if only is None or c.benchmark == only]
    responses = as_responses(predictions(name, calls, seed=3))
    return score_responses(suite, key, responses, get_judge("normalized-match"), ScoringOptions(),
                           worker_run=worker_run, bootstrap_samples=50)


@pytest.fixture(scope="module")
def results(demo_suite):
    """Real results on the demo suite with varied submission metadata, and copies of
    two of them on an official suite."""
    suite, key = demo_suite
    judge = get_judge("normalized-match")
    worker_scores = _score(suite, key, "random", worker_run=True)  # sub-questions asked: subqa breakdowns
    file_scores = _score(suite, key, "first-option")
    exact_only = _score(suite, key, "first-option", only="exact")  # one benchmark: no average

    def result(scores, submission, runner=None):
        return make_result(suite, *scores, judge, ScoringOptions(), submission, runner=runner)

    out = [
        result(worker_scores, {"id": "run-hub", "kind": "model", "model": "acme/Vid-7B", "submitter": "alice",
                               "thinking": True, "frames": 32, "metadata": {"params_billions": "7.62"}},
               runner={"name": "vllm"}),
        result(file_scores, {"id": "run-file", "kind": "predictions", "model": "Closed Giant", "submitter": "bob",
                             "metadata": {"open": "no", "params": "120", "frames": "16", "thinking": "true"}}),
        result(file_scores, {"id": "run-baseline", "kind": "baseline", "model": "Baseline: first-option",
                             "submitter": "leaderboard"}, runner={"name": "baseline:first-option"}),
        result(exact_only, {"id": "run-partial", "kind": "predictions", "model": "Only ExAct", "submitter": "carol",
                            "metadata": {"params": "30B"}}),
    ]
    official = [r.model_copy(update={"suite_id": OFFICIAL,
                                     "submission": {**r.submission, "id": "official-" + r.submission["id"]}})
                for r in out[:2]]
    return out + official


@pytest.fixture(scope="module")
def table(results):
    # Every demo bucket shown (a minimum of 1 item), so these tests see the view shaping on
    # real values; hidden small buckets have their own tests (tests/results/test_disclosure.py).
    with min_bucket_items(1):
        return aggregate.build_table(results)


@pytest.fixture(scope="module")
def demo_id(demo_suite):
    return demo_suite[0].id


@pytest.fixture(scope="module")
def board(table, demo_id):
    return views.prepare(views.select_suite(table, demo_id))


@pytest.fixture(scope="module")
def official_board(table):
    return views.prepare(views.select_suite(table, OFFICIAL))


def row(board: pd.DataFrame, id: str) -> pd.Series:
    found = board[board["id"] == id]
    assert len(found) == 1, f"{id}: {len(found)} rows"
    return found.iloc[0]


# -- suites ---------------------------------------------------------------------------------------

def test_a_demo_suite_shows_its_own_rows_and_no_paper_rows(table, demo_id):
    rows = views.select_suite(table, demo_id)
    assert sorted(rows["id"]) == ["run-baseline", "run-file", "run-hub", "run-partial"]
    assert set(rows["source"]) == {"verified"}


def test_an_official_suite_gets_the_papers_rows_and_never_the_demo_rows(table):
    rows = views.select_suite(table, OFFICIAL)
    verified = rows[rows["source"] == "verified"]
    assert sorted(verified["id"]) == ["official-run-file", "official-run-hub"]
    paper = rows[rows["source"] == "reported"]
    assert len(paper) == len(reported_rows(OFFICIAL)) > 50
    assert set(paper["suite_id"]) == {OFFICIAL}
    assert not rows["id"].isin(["run-hub", "run-file", "run-baseline", "run-partial"]).any()


def test_the_paper_pseudo_suite_shows_only_paper_rows(table):
    rows = views.select_suite(table, views.REPORTED_SUITE)
    assert set(rows["source"]) == {"reported"}
    assert set(rows["suite_id"]) == {views.REPORTED_SUITE}


def test_suite_choices_open_on_the_papers_rows_until_an_official_suite_exists(demo_id):
    assert views.suite_choices([demo_id], [demo_id], demo_id) == [views.REPORTED_SUITE, demo_id]
    with_official = views.suite_choices([demo_id, OFFICIAL], [], demo_id)
    # official first; every paper's rows stay one click away (an official suite may hold only some benchmarks)
    assert with_official == [OFFICIAL, views.REPORTED_SUITE, demo_id]
    assert views.suite_choices([], [], None) == [views.REPORTED_SUITE]


# -- the leaderboard ----------------------------------------------------------------------------------

def test_badges_tell_verified_reported_and_baseline_apart(board, official_board):
    # a model we ran and a prediction file we scored are both verified, and say which they are
    assert row(board, "run-hub")["badge"] == views.VERIFIED_RUN == "✓ verified run"
    assert row(board, "run-file")["badge"] == views.VERIFIED_FILE == "✓ verified file"
    assert row(board, "run-baseline")["badge"] == views.BASELINE
    paper = official_board[official_board["source"] == "reported"]
    assert set(paper["badge"]) == {views.REPORTED}
    sources = views.leaderboard_view(official_board)[views.SOURCE]
    assert set(sources.str.split(" ").str[0]) == {"✓", "📄"}
    assert "📄 ExAct paper" in set(sources)  # which paper a number comes from


def test_average_exists_only_with_all_five_overalls(board, table):
    partial = row(board, "run-partial")
    assert np.isnan(partial["average"]) and not np.isnan(partial["exact.overall"])
    full = row(board, "run-hub")
    overalls = [full[f"{b}.overall"] for b in views.BENCHMARKS]
    assert full["average"] == pytest.approx(round(sum(overalls) / 5, 2))
    # the empty Average says why: four of the five benchmarks have no score
    shown = views.leaderboard_table(board).set_index(views.MODEL)[f"{views.AVERAGE} ±"]
    assert shown["Only ExAct"] == "— 4 missing"
    assert shown["acme/Vid-7B"].startswith(f"{full['average']:.2f}") and "missing" not in shown["acme/Vid-7B"]


def test_rows_are_sorted_by_average_then_by_the_mean_of_the_overalls_they_have(official_board):
    ranked = official_board
    # only verified rows are ranked, in order, within their judge; reported rows have no rank
    verified = ranked[ranked["source_kind"] == "verified"]
    for _, group in verified.groupby("judge_text"):
        ranks = list(group["rank"].dropna())
        assert ranks[0] == 1 and ranks == sorted(ranks)  # ranks never go down the table
        assert all(r <= position for position, r in enumerate(ranks, 1))  # ties share, never skip ahead
    assert ranked.loc[ranked["source_kind"] == "reported", "rank"].isna().all()
    assert len(verified) >= 2
    with_average = ranked[ranked["average"].notna()]
    assert len(with_average) == 2
    assert list(with_average.index) == [0, 1]  # rows with an average come first
    assert with_average["average"].is_monotonic_decreasing
    rest = ranked[ranked["average"].isna()]
    # then the verified rows without an average, then the papers' rows grouped by paper
    assert list(rest["paper_order"]) == sorted(rest["paper_order"])
    for _, group in rest.groupby("paper_order"):
        means = group[[f"{b}.overall" for b in views.BENCHMARKS]].mean(axis=1)
        known = means.notna()
        assert means[known].is_monotonic_decreasing
        assert not known[known.idxmin():].any()  # rows without any overall come last


def test_a_score_cell_shows_its_interval_and_scores_stay_numbers(board):
    shown = views.leaderboard_view(board)
    assert not set(views.CI_COLUMNS) & set(shown.columns)  # no column of its own by default
    assert pd.api.types.is_float_dtype(shown["ExpVid"]) and pd.api.types.is_float_dtype(shown[views.AVERAGE])
    text = views.shown_text(shown)
    at = shown.index[shown[views.MODEL] == "acme/Vid-7B"][0]
    source = row(board, "run-hub")
    half = (source["expvid.overall_ci_high"] - source["expvid.overall_ci_low"]) / 2
    assert text.loc[at, "ExpVid"] == f"{source['expvid.overall']:.2f} ±{half:.2f}"
    assert text.loc[at, views.AVERAGE].startswith(f"{source['average']:.2f} ±")
    partial = shown.index[shown[views.MODEL] == "Only ExAct"][0]
    assert np.isnan(shown.loc[partial, "ExpVid"]) and text.loc[partial, "ExpVid"] is None
    bounds = views.leaderboard_view(board, [*views.DEFAULT_COLUMNS, "ExpVid 95% CI"])
    assert bounds.loc[at, "ExpVid 95% CI"] == \
        f"[{source['expvid.overall_ci_low']:.2f}, {source['expvid.overall_ci_high']:.2f}]"  # two decimals, as scores


def test_equal_scores_share_a_rank_and_overlapping_intervals_tie_with_the_leader():
    score = pd.Series([70.0, 69.0, 69.0, 50.0, 49.0, 10.0])
    half = pd.Series([2.0, 0.5, 0.5, 0.0, 0.0, 0.0])
    ranks = views.interval_ranks(score, half, np.zeros(6), pd.Series(["j"] * 6), pd.Series([True] * 6))
    # 69 ±0.5 overlaps 70 ±2: tied with the leader; 50 and 49 are surely below both
    assert list(ranks) == [1, 1, 1, 4, 5, 6]


def test_the_correction_form_starts_from_what_was_declared():
    from leaderboard.tabs.submit import declared_metadata

    for declared in ({}, {"params": "7", "open": "yes", "frames": "8", "thinking": "true"}, {"open": "no"},
                     {"params": "0.5"}):
        assert declared_metadata(*views.declared_fields({**declared, "hub_id": "a/b"})) == declared
    assert views.declared_fields({}) == ("", "not stated", "", False)
    assert views.declared_summary({"params": "7", "open": "no", "thinking": "true"}) == \
        "parameters 7 B, weights closed, frames as the call list gives them, thinking on"


def test_a_finished_submissions_place_says_when_its_rank_is_shared():
    board = pd.DataFrame({"id": ["lead", "close", "mine", "far", "paper"],
                          "ranked": [True, True, True, True, False], "rank": pd.array([1, 1, 1, 4, None], "Int64"),
                          "judge_text": ["j"] * 5, "protocol_text": [""] * 5})
    tied = views.place_text(board, "mine")
    assert tied.startswith("On the Leaderboard: rank 1 of 4, shared with 2 other rows whose 95% intervals overlap")
    assert "by score alone yours is 3rd of these 3" in tied  # the last of the three sharing rank 1, not first place
    assert views.place_text(board, "far") == "On the Leaderboard: rank 4 of 4."
    assert views.place_text(board, "gone").startswith("Scored; its row appears")
    board["expvid.n_calls"], board["expvid.n_answered"] = [60] * 5, [60, 60, 60, 13, None]
    assert views.place_text(board, "far") == ("On the Leaderboard: rank 4 of 4. Answered in part (◐): ExpVid 13 of "
                                              "60 calls (47 unanswered), counted as wrong.")
    assert "◐" not in views.place_text(board, "mine")
    board["exact.n_calls"], board["exact.n_answered"] = [22, 22, 22, None, 22], [22, 22, 22, None, 22]
    assert views.place_text(board, "far").endswith("No answer at all in ExAct: no score there, so no Average, and "
                                                   "the row comes after every row that has one.")
    assert "No answer" not in views.place_text(board, "mine")
    # a row without an Average is placed after every row with one, not by intervals with them: it says so
    board["average"] = [70.0, 69.5, 69.0, None, None]
    assert views.place_text(board, "far").startswith(
        "On the Leaderboard: rank 4 of 4 (3 rows with an Average come first; after them, rows are placed by the "
        "mean of the scores each has).")
    assert views.place_text(board, "mine").startswith("On the Leaderboard: rank 1 of 4, shared with 2 other rows")


def test_ranks_stay_within_a_judge_and_skip_paper_rows():
    score = pd.Series([80.0, 60.0, 70.0, 90.0])
    ranks = views.interval_ranks(score, pd.Series([0.0] * 4), np.zeros(4), pd.Series(["a", "a", "b", "b"]),
                                 pd.Series([True, True, True, False]))
    assert list(ranks.astype(object)) == [1, 2, 1, pd.NA]


def test_a_row_with_all_five_scores_ranks_above_a_partial_one():
    ranks = views.interval_ranks(pd.Series([40.0, 90.0]), pd.Series([0.0, 0.0]), np.array([1, 0]),
                                 pd.Series(["j", "j"]), pd.Series([True, True]))
    assert list(ranks) == [1, 2]


def test_model_metadata_columns(board):
    shown = views.leaderboard_view(board, views.OPTIONAL_COLUMNS).set_index(views.MODEL)
    assert shown.loc["acme/Vid-7B", views.PARAMS] == pytest.approx(7.62)
    assert shown.loc["acme/Vid-7B", views.FRAMES] == 32
    assert shown.loc["acme/Vid-7B", views.TYPE] == "open"  # a Hub model: public weights
    assert shown.loc["acme/Vid-7B", views.THINKING] == "on"
    assert shown.loc["acme/Vid-7B", views.RUNNER] == "vllm"
    assert shown.loc["acme/Vid-7B", views.JUDGE].startswith("normalized-match")
    assert shown.loc["Closed Giant", views.TYPE] == "closed"  # the file's submitter said so
    assert shown.loc["Closed Giant", views.FRAMES] == 16
    assert shown.loc["Closed Giant", views.THINKING] == "on"
    assert shown.loc["Baseline: first-option", views.TYPE] == "baseline"
    assert shown.loc["Only ExAct", views.TYPE] == "unspecified"
    assert shown.loc["Only ExAct", views.PARAMS] == 30
    assert len(shown.loc["acme/Vid-7B", views.DATE]) == 10


def test_paper_rows_keep_their_open_closed_human_and_random_kinds(official_board):
    kinds = set(official_board.loc[official_board["source"] == "reported", "model_type"])
    assert kinds == {"open", "closed", "human", "random"}
    shown = views.leaderboard_view(official_board, [views.RUNNER, views.PAPER])
    paper_rows = shown[shown[views.SOURCE].str.startswith("📄")]
    assert set(paper_rows[views.RUNNER]) == {"paper"} and paper_rows[views.PAPER].str.len().gt(0).all()


@pytest.mark.parametrize("text, billions", [("7.62", 7.62), ("7B", 7.0), ("500M", 0.5), ("7615616512", 7.615616512),
                                            ("72 b", 72.0), ("about seven", None), (None, None)])
def test_parameter_counts_are_read_from_what_submitters_write(text, billions):
    got = views.params_billions(pd.DataFrame({"params": [text]}))[0]
    assert (np.isnan(got) if billions is None else got == pytest.approx(billions))


def test_size_buckets():
    sizes = views.size_bucket(pd.Series([3.0, 10.0, 40.0, 40.5, np.nan]))
    assert list(sizes) == ["<10B", "10-40B", "10-40B", ">40B", "unknown"]


def test_column_choice_keeps_the_fixed_order_and_the_identity_columns(board):
    shown = views.leaderboard_view(board, [views.DATE, "CausalStep", "no such column"])
    assert list(shown.columns) == [views.RANK, views.MODEL, views.AVERAGE, "CausalStep", views.SOURCE, views.BAND, views.DATE]
    default = views.leaderboard_view(board)  # the scores beside Model (a phone shows the first), the rest after
    assert list(default.columns) == [views.RANK, views.MODEL, views.AVERAGE, *views.SCORE_COLUMNS, views.SOURCE,
                                     views.BAND, *views.META_DEFAULT]
    assert views.AVERAGE not in views.leaderboard_view(board, leave_out=[views.AVERAGE])
    # Protocol (what a ≠ Rank means) beside the scores, in view, not after every other column
    marked = views.leaderboard_view(board, [*views.DEFAULT_COLUMNS, views.DATE, views.PROTOCOL])
    assert list(marked.columns) == [views.RANK, views.MODEL, views.AVERAGE, *views.SCORE_COLUMNS, views.PROTOCOL,
                                    views.SOURCE, views.BAND, *views.META_DEFAULT, views.DATE]
    everything = views.leaderboard_view(board, views.OPTIONAL_COLUMNS)
    assert views.SUBMITTER in everything and set(everything[views.SUBMITTER]) >= {"alice", "bob"}


# -- filters ----------------------------------------------------------------------------------------------

def models(rows: pd.DataFrame) -> list[str]:
    return sorted(rows["model"])


def test_search_matches_model_names_case_insensitively_and_several_terms(board):
    assert models(views.filter_rows(board, views.Filters(search="vid-7"))) == ["acme/Vid-7B"]
    assert models(views.filter_rows(board, views.Filters(search="giant; ONLY"))) == ["Closed Giant", "Only ExAct"]
    assert models(views.filter_rows(board, views.Filters(search="  "))) == models(board)
    assert views.filter_rows(board, views.Filters(search="nothing like it")).empty
    # one model spelled as another paper spells it: spaces, dashes and dots aside
    assert models(views.filter_rows(board, views.Filters(search="vid 7b"))) == ["acme/Vid-7B"]
    assert models(views.filter_rows(board, views.Filters(search="ClosedGiant"))) == ["Closed Giant"]
    assert views.filter_rows(board, views.Filters(search="vid 8b")).empty


def test_filters_by_type_size_frames_and_source(board, official_board):
    assert models(views.filter_rows(board, views.Filters(types=("closed",)))) == ["Closed Giant"]
    assert models(views.filter_rows(board, views.Filters(sizes=(">40B",)))) == ["Closed Giant"]
    assert models(views.filter_rows(board, views.Filters(sizes=("unknown",)))) == ["Baseline: first-option"]
    assert models(views.filter_rows(board, views.Filters(frames=("16", "32")))) == ["Closed Giant", "acme/Vid-7B"]
    assert models(views.filter_rows(board, views.Filters(frames=(views.SUITE_DEFAULT_FRAMES,)))) == \
        ["Baseline: first-option", "Only ExAct"]
    assert views.filter_rows(board, views.Filters(types=())).empty  # nothing ticked: nothing shown
    reported = views.filter_rows(official_board, views.Filters(sources=("reported",)))
    assert set(reported["source"]) == {"reported"} and len(reported) == len(reported_rows(OFFICIAL))
    humans = views.filter_rows(official_board, views.Filters(types=("human",)))
    assert len(humans) > 0 and humans["model"].str.contains("Human").all()


def _ranks(column) -> list:
    """Ranks comparable with ==: reported rows have none (NA becomes 0 here)."""
    return pd.Series(column).astype("Int64").fillna(0).tolist()


def test_filtering_never_renumbers_ranks(official_board):
    kept = views.filter_rows(official_board, views.Filters(search="qwen"))
    assert len(kept) > 3
    assert _ranks(kept["rank"]) == _ranks(official_board.loc[kept.index, "rank"])
    assert _ranks(views.leaderboard_view(kept)[views.RANK]) == _ranks(kept["rank"])


def test_the_precomputed_leaderboard_table_filters_like_the_board(official_board):
    table = views.leaderboard_table(official_board)
    chosen = views.Filters(search="qwen; gemini", types=("open", "closed"), sizes=(">40B", "unknown"))
    expected = views.leaderboard_view(views.filter_rows(official_board, chosen), views.OPTIONAL_COLUMNS)
    got = views.leaderboard_view(views.filter_rows(table, chosen), views.OPTIONAL_COLUMNS)
    assert len(got) > 5
    pd.testing.assert_frame_equal(got, expected)


def test_filter_choices_list_what_the_suite_holds(board, official_board):
    assert views.frame_choices(board) == ["16", "32", views.SUITE_DEFAULT_FRAMES]
    assert views.frame_choices(official_board)[-1] == views.UNSTATED_FRAMES
    assert "o3 (paper)" in views.judge_choices(official_board)


# -- per-benchmark, level, domain, hop views ------------------------------------------------------------------

@pytest.mark.parametrize("benchmark", views.BENCHMARKS)
def test_each_benchmark_tab_has_every_design_metric(board, benchmark):
    shown = views.benchmark_view(board, benchmark)
    for metric in views.METRICS[benchmark]:
        assert views.metric_label(metric) in shown.columns, metric
    assert {"95% CI", views.FRAMES, views.JUDGE, views.DATE} <= set(shown.columns)
    assert shown["Overall"].is_monotonic_decreasing
    ranks = list(shown[views.RANK].dropna())
    assert ranks[0] == 1 and ranks == sorted(ranks)
    expected = 4 if benchmark == "exact" else 3  # the ExAct-only row appears in ExAct alone
    assert len(shown) == expected


def test_benchmark_values_are_the_tables(board):
    shown = views.benchmark_view(board, "causalstep").set_index(views.MODEL)
    hub = row(board, "run-hub")
    for metric in ("csr", "amcl", "dua", "icra"):
        assert shown.loc["acme/Vid-7B", views.metric_label(metric)] == hub[f"causalstep.{metric}"]


def test_by_level_view(board):
    shown = views.by_level_view(board).set_index(views.MODEL)
    assert list(shown.columns[2:]) == views.LEVEL_ORDER
    hub = row(board, "run-hub")
    assert shown.loc["acme/Vid-7B", "ExpVid L2"] == hub["expvid.level2"]
    assert shown.loc["acme/Vid-7B", "Video-MMMU Adaptation"] == hub["videommmu.adaptation"]
    assert shown.loc["acme/Vid-7B", "CausalStep Causal (ICRA)"] == hub["causalstep.icra"]
    assert "Only ExAct" not in shown.index  # ExAct has no levels


def test_a_breakdown_expands_to_one_column_per_group(board):
    hub = row(board, "run-hub")
    disciplines = json.loads(hub["expvid.by_discipline"])
    shown = views.breakdown_view(board, "expvid-discipline").set_index(views.MODEL)
    assert shown.columns[2] == "ExpVid overall"  # the score the rank follows, beside it
    assert list(shown.columns[3:]) == sorted(disciplines, key=str.lower)
    level1 = views.breakdown_view(board, "expvid-discipline", "level1").set_index(views.MODEL)
    for name, cell in disciplines.items():
        for view, metric in ((shown, "overall"), (level1, "level1")):
            got = view.loc["acme/Vid-7B", name]
            assert np.isnan(got) if cell[metric] is None else got == cell[metric], (name, metric)
    assert views.breakdown_metrics(board, "expvid-discipline")[0] == "overall"
    assert views.breakdown_metrics(board, "exact-domain") == []  # one number per domain


def test_breakdown_ranks_follow_the_score_beside_them(board):
    """Two ranked rows in one order by Video-MMMU's overall and the other way on one
    discipline: ranked by that discipline, its order and ranks follow it."""
    two = board[board["id"].isin(["run-hub", "run-baseline"])].copy()
    hub, other = (two["id"] == "run-hub").to_numpy(), (two["id"] == "run-baseline").to_numpy()
    two.loc[hub, "videommmu.overall"], two.loc[other, "videommmu.overall"] = 60.0, 40.0
    two.loc[hub, "videommmu.by_discipline"] = json.dumps({"Art": 51.89, "Science": 70.0})
    two.loc[other, "videommmu.by_discipline"] = json.dumps({"Art": 52.78, "Science": 30.0})
    for column in ("videommmu.overall_ci_low", "videommmu.overall_ci_high"):
        two[column] = two["videommmu.overall"]  # no interval: strict order
    assert two["ranked"].all()
    overall = views.breakdown_view(two, "videommmu-discipline")
    assert list(overall[views.MODEL]) == ["acme/Vid-7B", "Baseline: first-option"] and list(overall[views.RANK]) == [1, 2]
    assert overall.columns[3] == "Video-MMMU overall"
    art = views.breakdown_view(two, "videommmu-discipline", rank_by="Art")
    assert list(art[views.MODEL]) == ["Baseline: first-option", "acme/Vid-7B"]  # 52.78 above 51.89
    assert list(art[views.RANK]) == [1, 2] and art.columns[3] == "Art" and list(art["Art"]) == [52.78, 51.89]
    assert views.breakdown_rank_choices(two, "videommmu-discipline")[:2] == [("Video-MMMU overall", views.OVERALL),
                                                                              ("Art", "Art")]
    level = views.by_level_view(two, rank_by="Video-MMMU Adaptation")
    assert level.columns[3] == "Video-MMMU Adaptation"
    scores = list(level["Video-MMMU Adaptation"])
    assert scores == sorted(scores, reverse=True)


def test_a_judge_is_named_only_where_one_graded(board):
    exact = views.benchmark_view(board, "exact")
    assert set(exact[views.JUDGE]) == {views.NO_JUDGE}  # multiple-choice answers are read by rule
    simpleqa = views.benchmark_view(board, "videosimpleqa")
    assert set(simpleqa[views.JUDGE]) == {"normalized-match@5"}
    only_exact = row(board, "run-partial")
    assert only_exact["judge_text"] == ""  # no judged benchmark: no judge on its row


def test_hop_views(board):
    hub = row(board, "run-hub")
    by_hop = views.breakdown_view(board, "videosimpleqa-hop").set_index(views.MODEL)
    hops = json.loads(hub["videosimpleqa.by_hop"])
    assert [c for c in by_hop.columns[3:]] == [f"{k}-hop" for k in sorted(hops, key=int)]
    assert by_hop.loc["acme/Vid-7B", "2-hop"] == hops["2"]["f_score"]
    subqa = views.breakdown_view(board, "videosimpleqa-subqa")
    assert list(subqa[views.MODEL]) == ["acme/Vid-7B"]  # only a worker run asks the sub-questions
    assert list(subqa.columns[4:]) == sorted(json.loads(hub["videosimpleqa.subqa"]), key=lambda h: int(h[3:]))
    by_count = views.breakdown_view(board, "videosimpleqa-subqa-by-count", "hop1")
    assert all(c.endswith("-hop") for c in by_count.columns[4:])
    chain = views.breakdown_view(board, "causalstep-chain")
    positions = [int(c.split()[-1]) for c in chain.columns[4:]]
    assert positions == sorted(positions) and positions[0] == 1


def test_the_papers_number_valued_breakdowns_expand_too(official_board):
    shown = views.breakdown_view(official_board, "videosimpleqa-category")
    paper = shown[shown[views.SOURCE].str.startswith("📄")].set_index(views.MODEL)
    assert paper.loc["o3", "ENG"] == 63.0
    verified = shown[shown[views.SOURCE].isin([views.VERIFIED_RUN, views.VERIFIED_FILE])]
    assert len(verified) == 2  # verified rows ({category: {f_score...}}) and paper rows ({category: F}) together


def test_a_damaged_breakdown_cell_hides_that_row_only(board):
    damaged = board.copy()
    damaged.loc[damaged["id"] == "run-hub", "exact.by_domain"] = "{not json"
    shown = views.breakdown_view(damaged, "exact-domain")
    assert len(shown) == 4 and shown.iloc[:, 4:].notna().any(axis=1).sum() == 3


# -- plots ----------------------------------------------------------------------------------------------------

def test_level_profile_is_long_model_by_level(board):
    shown = views.level_profile(board, ["run-hub", "run-file", "run-partial"])
    assert list(shown.columns) == ["model", "level", "score"]
    assert set(shown["model"]) == {"acme/Vid-7B", "Closed Giant"}  # named as the table names them
    hub = shown[shown["model"] == "acme/Vid-7B"]
    assert list(hub["level"]) == views.LEVEL_ORDER
    assert hub.set_index("level").loc["ExpVid L1", "score"] == row(board, "run-hub")["expvid.level1"]


def test_score_against_parameters(board, official_board):
    shown = views.score_vs_params(board)
    # the partial row has no average
    assert sorted(shown["model"]) == ["Closed Giant", "acme/Vid-7B"]
    exact = views.score_vs_params(board, "exact")
    assert len(exact) == 3 and set(exact["params_b"]) == {7.62, 120.0, 30.0}
    paper = views.score_vs_params(official_board, "videommmu")
    assert len(paper) > 5 and paper["params_b"].notna().all()
    # a picker names a row as the table does, with its paper: no "(thinking)" the table does not show
    labels = dict(zip(official_board["id"], official_board["label"]))
    for _, r in official_board.iterrows():
        paper_of = str(r["id"]).split("/")[1] if str(r["id"]).startswith("reported/") else None
        assert labels[r["id"]].startswith(r["model_text"] + (f" ({views.TITLES[paper_of]} paper)" if paper_of else ""))
    assert len(set(labels.values())) == len(labels)


def test_profile_defaults_prefer_rows_with_the_most_levels(board, official_board):
    ranked = board.sort_values("rank")
    assert views.profile_defaults(board, 10) == list(ranked.loc[ranked["id"] != "run-partial", "id"])  # no levels
    chosen = views.profile_defaults(official_board)
    by_id = official_board.set_index("id")
    assert chosen[:2] == list(by_id.loc[["official-run-hub", "official-run-file"]].sort_values("rank").index)
    level_counts = by_id.loc[chosen[2:], [column for column, _ in views.LEVELS]].notna().sum(axis=1)
    assert list(level_counts) == [3, 3, 3]  # then the paper rows with a whole benchmark's levels


def test_model_options_are_unique_labels(official_board):
    labels = [label for label, _ in views.model_options(official_board)]
    assert len(labels) == len(set(labels)) == len(official_board)


# -- the queue -------------------------------------------------------------------------------------------------

SECRET_LOG = "line one of a private log\n"


def request(id: str, status: Status, submitter: str = "alice", **fields) -> Request:
    r = Request(id=id, kind="predictions", submitter=submitter, suite_id="demo-x", model=f"model {id}",
                predictions_path=f"predictions/{id}.jsonl", log_path=f"logs/{id}.log", **fields)
    r.status = status
    return r


@pytest.fixture
def requests():
    now = utcnow()
    return [
        request("p-old", Status.PENDING, submitted_at=now - timedelta(hours=2)),
        request("p-new", Status.PENDING, submitted_at=now - timedelta(hours=1), priority=5),
        request("run", Status.RUNNING, "bob", started_at=now, worker_id="w1",
                progress=Progress(done=120, total=286, stage="scored expvid")),
        request("done", Status.FINISHED, finished_at=now),
        request("gone", Status.CANCELLED, "bob", finished_at=now - timedelta(minutes=5)),
        request("bad", Status.FAILED, "bob", finished_at=now,
                failure=Failure(reason=Reason.BAD_PREDICTIONS, message="line 3: unknown id 'x'")),
    ]


def test_queue_shows_four_tables_with_progress_and_failure_reasons(requests):
    q = views.queue_view(requests)
    assert list(q.pending["Submission"]) == ["p-new", "p-old"]  # priority first, as workers claim
    assert list(q.pending["Position"]) == [1, 2]
    assert q.running.iloc[0]["Progress"] == "120/286 scored expvid"
    assert list(q.finished["Submission"]) == ["done", "gone"] and list(q.finished["Status"]) == ["FINISHED",
                                                                                              "CANCELLED"]
    failed = q.failed.iloc[0]
    assert (failed["Submission"], failed["Reason"], failed["Message"]) == ("bad", "bad_predictions",
                                                                           "line 3: unknown id 'x'")


def test_queue_never_shows_file_paths_or_logs(requests):
    q = views.queue_view(requests)
    text = "".join(frame.to_csv() for frame in (q.pending, q.running, q.finished, q.failed))
    assert "predictions/" not in text and "logs/" not in text and "private log" not in text


def test_my_submissions_read_only_my_own_logs(requests):
    read = []

    def read_log(path):
        read.append(path)
        return "".join(f"{SECRET_LOG.strip()} {i}\n" for i in range(30))

    mine = views.my_submissions(requests, "ALICE")
    assert set(mine["Submission"]) == {"p-old", "p-new", "done"}
    assert "Log" not in " ".join(mine.columns)  # logs open on demand, one at a time
    tail = views.my_log(requests, "ALICE", "done", read_log, tail_lines=5).splitlines()
    assert tail == [f"{SECRET_LOG.strip()} {i}" for i in range(25, 30)]
    fresh = request("fresh", Status.PENDING)
    fresh.log_path = None  # never started: no log to read
    assert views.my_log([fresh], "alice", "fresh", read_log).startswith("(no log yet")
    for other in ("run", "gone", "bad"):  # bob's: never read for alice
        assert views.my_log(requests, "ALICE", other, read_log) == ""
    assert all(path.split("/")[-1][:-4] == "done" for path in read)
    bobs = views.my_submissions(requests, "bob")
    assert bobs.set_index("Submission").loc["bad", "Reason"] == "bad_predictions"
    assert views.my_submissions(requests, None).empty and views.my_log(requests, None, "done", read_log) == ""


def test_a_submitters_log_leaves_the_jobs_own_output_to_the_maintainers(requests):
    """The dispatcher keeps a Hugging Face Job's output (a traceback, say) in the request's log
    for the maintainers; its submitter reads the log without it, told that it is kept."""
    log = ("2026-11-26T12:00:00Z worker disp: scoring\n"
           "2026-11-26T12:00:05Z dispatcher d: job j1 (cpu-upgrade, worker w) ended ERROR: exit code 1\n"
           "2026-11-26T12:00:05Z -- the job's output (3 of 3 lines) --\n"
           "2026-11-26T12:00:05Z | Traceback (most recent call last):\n"
           "2026-11-26T12:00:05Z |   File \"/app/worker.py\", line 3\n"
           "2026-11-26T12:00:05Z | ValueError: LEADERBOARD_MIN_BUCKET_ITEMS must be a whole number\n"
           "2026-11-26T12:00:05Z -- end of the job's output --\n"
           "2026-11-26T12:00:05Z FAILED internal: The evaluation job stopped with an error\n")
    shown = views.my_log(requests, "alice", "done", lambda path: log)
    assert "Traceback" not in shown and "LEADERBOARD_MIN_BUCKET_ITEMS" not in shown and "| " not in shown
    assert "ended ERROR" in shown and "FAILED internal" in shown
    assert "2026-11-26T12:00:05Z (the job's own output is kept for the maintainers)" in shown
    assert views.for_the_submitter("no job output here\n") == "no job output here\n"

