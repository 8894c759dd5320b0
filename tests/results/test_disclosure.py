"""Small breakdown buckets are never published with a score (results/disclosure.py):
the setting, the public result file and table, the site's views, the papers' rows."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from conftest import min_bucket_items
from evaluator.benchmarks import videommmu
from evaluator.baselines import predictions
from evaluator.judges import get_judge
from evaluator.predictions import as_responses
from evaluator.records import ScoringOptions
from evaluator.result import Result
from evaluator.scoring import make_result, score_responses
from results import aggregate, disclosure
from leaderboard import ui, views
from space_config.settings import get_settings
from submissions.stores import LocalStore

HIDDEN_HOP = {"f_score": 77.77, "correct": 77.77, "incorrect": 22.23, "not_attempted": 0.0, "cga": 77.77}
SHOWN_HOP = {"f_score": 58.33, "correct": 58.33, "incorrect": 41.67, "not_attempted": 0.0, "cga": 58.33}


def one_item_result(id: str = "sub-1") -> Result:
    """Video SimpleQA with a 12-item 2-hop bucket, a 5-item 3-hop one and a 1-item 4-hop one."""
    scores = {"videosimpleqa": {
        "overall": 61.11, "overall_ci95": [40.0, 80.0], "correct": 61.11,
        "by_hop": {"2": dict(SHOWN_HOP), "3": dict(SHOWN_HOP), "4": dict(HIDDEN_HOP)},
        "n_by_hop": {"2": 12, "3": 5, "4": 1},
    }}
    return Result(submission={"id": id, "model": "m", "kind": "predictions", "submitter": "alice"},
                  suite_id="demo-x", judge={"id": "normalized-match", "kind": "normalized-match"},
                  code_version="test", created="2025-01-01T00:00:00+00:00", scores=scores,
                  counts={"videosimpleqa": {"calls": 18, "answered": 18}})


@pytest.fixture
def store(tmp_path) -> LocalStore:
    return LocalStore(tmp_path / "results", "results")


# -- the setting -----------------------------------------------------------------------------------

def test_the_minimum_defaults_to_ten_and_reads_its_variable():
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("LEADERBOARD_MIN_BUCKET_ITEMS", raising=False)
        get_settings.cache_clear()
        assert get_settings().min_bucket_items == 10
    for text, value in (("3", 3), (" 0 ", 0), ("25", 25)):
        with min_bucket_items(text):
            assert get_settings().min_bucket_items == value


@pytest.mark.parametrize("text", ["-1", "ten", "2.5", ""])
def test_an_invalid_minimum_is_a_clear_error(text):
    with min_bucket_items(text), pytest.raises(ValueError) as error:
        get_settings()
    assert "LEADERBOARD_MIN_BUCKET_ITEMS" in str(error.value) and repr(text) in str(error.value)


# -- what is published -------------------------------------------------------------------------------

def test_a_one_item_bucket_is_published_without_its_score(store):
    private = one_item_result()
    with min_bucket_items(10):
        path = aggregate.publish(store, private)
    public = json.loads(store.read(path).data)
    qa = public["scores"]["videosimpleqa"]
    assert qa["by_hop"]["4"] is None and qa["by_hop"]["3"] is None  # 1 and 5 items: below 10
    # ... and the 2-hop bucket, which the overall would otherwise turn into their sum (6 items < 10)
    assert qa["by_hop"]["2"] is None
    assert qa["n_by_hop"] == {"2": 12, "3": 5, "4": 1}  # counts stay
    assert qa["suppressed"] == {"by_hop": {"2": 12, "3": 5, "4": 1}}
    assert public["min_bucket_items"] == 10
    # overall, its interval and whole-benchmark metrics use every item, untouched
    assert (qa["overall"], qa["overall_ci95"], qa["correct"]) == (61.11, [40.0, 80.0], 61.11)
    assert private.scores["videosimpleqa"]["by_hop"]["4"] == HIDDEN_HOP  # the caller's copy is not changed

    row = aggregate.load_table(store).iloc[0]
    assert json.loads(row["videosimpleqa.by_hop"])["4"] is None
    assert json.loads(row["scores_json"])["videosimpleqa"]["by_hop"]["4"] is None
    assert row["videosimpleqa.overall"] == 61.11
    # the hidden bucket's numbers are nowhere in the public file or table (parquet is compressed: read it)
    assert b"77.77" not in store.read(path).data and b"22.23" not in store.read(path).data
    assert "77.77" not in aggregate.load_table(store).to_csv()


def test_the_setting_moves_the_threshold_and_a_bucket_at_the_minimum_is_shown(store):
    # one hidden bucket never alone (the overall less the others would give it); the hidden
    # ones together hold at least the minimum
    everything = {"2": 12, "3": 5, "4": 1}
    for minimum, hidden in ((0, {}), (1, {}), (2, {"3": 5, "4": 1}), (5, {"3": 5, "4": 1}), (6, {"3": 5, "4": 1}),
                            (7, everything), (13, everything)):
        with min_bucket_items(minimum):
            aggregate.publish(store, one_item_result())
        qa = json.loads(store.read(aggregate.result_path("sub-1")).data)["scores"]["videosimpleqa"]
        assert qa.get("suppressed", {}).get("by_hop", {}) == hidden, minimum
        assert {h for h, v in qa["by_hop"].items() if v is None} == set(hidden), minimum


def test_upsert_and_rebuild_publish_the_same_public_form(store):
    with min_bucket_items(10):
        aggregate.upsert(store, one_item_result())
        assert json.loads(aggregate.load_table(store).iloc[0]["videosimpleqa.by_hop"])["4"] is None
        store.write(aggregate.result_path("sub-2"), one_item_result("sub-2").model_dump_json().encode())
        rebuilt = aggregate.rebuild(store).set_index("id")  # a file that was written past `publish`
    assert json.loads(rebuilt.loc["sub-2", "videosimpleqa.by_hop"])["4"] is None


def test_a_higher_minimum_hides_more_of_an_already_public_result():
    low = disclosure.public(one_item_result(), 2)
    assert disclosure.public(low, 2) == low and disclosure.public(low, 1) == low
    high = disclosure.public(low, 7)
    assert high.scores["videosimpleqa"]["suppressed"] == {"by_hop": {"2": 12, "3": 5, "4": 1}}
    assert high.min_bucket_items == 7


def test_a_public_copy_checked_again_hides_what_its_hidden_buckets_would_give_back():
    """A result published before a derived cell went with its bucket (Video-MMMU's knowledge
    gain with a hidden Adaptation track, here hidden as a near-duplicate file's): checked again
    (exports, rebuild), the cell is found exposed and hidden, and the rest stays as it was."""
    # as published: Adaptation hidden, and Perception with it (two tracks hold at least the minimum)
    metrics = {"overall": 30.0, "perception": None, "comprehension": 40.0, "adaptation": None,
               "n_by_track": {"perception": 12, "comprehension": 12, "adaptation": 12},
               "delta_knowledge": 0.0, "adaptation_question_only": 25.0, "wrong_to_right": 0.0,
               "right_to_wrong": 0.0, "n_wrong_to_right": 0, "n_right_to_wrong": 0, "n_right_before": 3,
               "n_wrong_before": 9, "suppressed": {"adaptation": 12, "perception": 12}}
    exposed = disclosure.exposed({"videommmu": metrics}, 10)
    assert {path for _, path in exposed} == {(name,) for name in videommmu.GAIN}
    again = disclosure.suppress({"videommmu": metrics}, 10)["videommmu"]
    assert all(again[name] is None and name in again["suppressed"] for name in videommmu.GAIN)
    assert again["perception"] is None and again["comprehension"] == 40.0 and again["overall"] == 30.0
    assert disclosure.exposed({"videommmu": again}, 10) == []


def test_rebuild_table_publishes_rows_of_an_older_rule_again_under_todays(tmp_path):
    """`python -m evaluator rebuild-table`, in a subprocess on a local store, writes the table
    again from the result files: a row published while a hidden track's knowledge-gain figures
    still showed loses them; its other scores stay."""
    import os
    import subprocess
    import sys

    gain = {"delta_knowledge": 0.0, "adaptation_question_only": 25.0, "wrong_to_right": 0.0,
            "right_to_wrong": 0.0, "n_wrong_to_right": 0, "n_right_to_wrong": 0, "n_right_before": 3,
            "n_wrong_before": 9}
    leaky = {"overall": 30.0, "perception": None, "comprehension": 40.0, "adaptation": None,
             "n_by_track": {"perception": 12, "comprehension": 12, "adaptation": 12}, **gain,
             "suppressed": {"adaptation": 12, "perception": 12}}  # as an older rule published it
    result = one_item_result("old-row").model_copy(update={"scores": {"videommmu": leaky}})
    store = LocalStore(tmp_path / "home" / "results", "results")
    store.write(aggregate.result_path("old-row"), result.model_dump_json().encode())
    env = {**os.environ, "LEADERBOARD_STORE": "local", "LEADERBOARD_HOME": str(tmp_path / "home")}
    ran = subprocess.run([sys.executable, "-m", "evaluator", "rebuild-table"], env=env, capture_output=True,
                         text=True, timeout=120)
    assert ran.returncode == 0 and "written again: 1 rows" in ran.stdout, ran.stderr
    row = aggregate.load_table(store).set_index("id").loc["old-row"]
    assert all(pd.isna(row[f"videommmu.{name}"]) for name in ("delta_knowledge", "wrong_to_right", "n_wrong_before"))
    assert row["videommmu.comprehension"] == 40.0 and row["videommmu.overall"] == 30.0


def test_the_demo_suites_one_item_hop_is_hidden_in_every_breakdown(demo_suite):
    """The issue's case: Video SimpleQA has one 4-hop item in the demo suite."""
    suite, key = demo_suite
    calls = [c for c in suite.calls + key.hidden_calls if c.benchmark == "videosimpleqa"]
    scores = score_responses(suite, key, as_responses(predictions("random", calls, seed=3)),
                             get_judge("normalized-match"), ScoringOptions(), worker_run=True,
                             bootstrap_samples=20)
    private = make_result(suite, *scores, get_judge("normalized-match"), ScoringOptions(), {"id": "demo-run"})
    qa = private.scores["videosimpleqa"]
    assert qa["n_by_hop"]["4"] == 1 and qa["by_hop"]["4"] is not None  # the private result keeps it
    with min_bucket_items(2):
        shown = disclosure.public(private).scores["videosimpleqa"]
    assert shown["by_hop"]["4"] is None and shown["subqa"]["hop4"] is None
    assert shown["by_hop"]["3"] is None  # with it: the overall less the 2-hop bucket would give the 4-hop one
    assert set(shown["subqa_by_hop_count"]["4"].values()) == {None}
    assert shown["by_hop"]["2"] == qa["by_hop"]["2"] and shown["overall"] == qa["overall"]


# -- the site ----------------------------------------------------------------------------------------

@pytest.fixture
def board():
    results = [one_item_result("sub-1"), one_item_result("sub-2")]
    results[1].scores["videosimpleqa"]["by_hop"]["2"]["f_score"] = 20.0
    results[1].scores["videosimpleqa"]["n_by_hop"]["4"] = 10  # the same bucket, big enough in this run
    with min_bucket_items(10):
        table = aggregate.build_table(results)
    return views.prepare(views.select_suite(table, "demo-x"))


def test_the_hop_view_shows_n_too_small_and_still_sorts(board):
    shown = views.breakdown_view(board, "videosimpleqa-hop")
    text = views.shown_text(shown)
    # sub-2's 4-hop bucket has 10 items, hidden with its 5-item 3-hop one; sub-1 hides every hop
    assert sorted(text["4-hop"]) == ["hidden with others (n=10)", "n too small (n=1)"]
    assert list(text["3-hop"]) == ["n too small (n=5)"] * 2
    assert sorted(v for v in text["2-hop"] if v) == ["hidden with others (n=12)"]
    # the hidden cells stay numbers (missing), so the column sorts as numbers
    assert shown["4-hop"].dtype == np.float64 and shown["4-hop"].isna().all()
    assert list(shown["2-hop"].dropna()) == [20.0]


def test_the_ui_sends_the_text_as_display_values_over_numbers(board):
    shown = views.breakdown_view(board, "videosimpleqa-hop")
    update = ui.table(shown)
    value = update["value"]
    column = value["headers"].index("4-hop")
    assert update["datatype"][column] == "number"
    cells = [(row[column], display[column]) for row, display in zip(value["data"], value["metadata"]["display_value"])]
    assert sorted(cells, key=str) == sorted([(None, "n too small (n=1)"),
                                             (None, "hidden with others (n=10)")], key=str)
    # a view with nothing hidden goes out as the plain frame
    assert views.shown_text(views.by_level_view(board)).isna().all(axis=None)


def test_the_benchmark_and_level_views_mark_hidden_scalar_metrics():
    result = one_item_result()
    result.scores["expvid"] = {"overall": 50.0, "level1": 40.0, "level2": 60.0, "level3": 30.0, "tool": 40.0,
                               "n_by_level": {"level1": 3, "level2": 20, "level3": 15}, "n_by_task": {"tool": 3}}
    with min_bucket_items(10):
        board = views.prepare(views.select_suite(aggregate.build_table([result]), "demo-x"))
    level = views.by_level_view(board)
    assert views.shown_text(level).loc[0, "ExpVid L1"] == "n too small (n=3)"
    assert np.isnan(level.loc[0, "ExpVid L1"]) and level.loc[0, "ExpVid L2"] == 60.0
    # the overall is the levels' mean: L3, the smallest shown level, is hidden with L1
    assert views.shown_text(level).loc[0, "ExpVid L3"] == "hidden with others (n=15)"
    bench = views.benchmark_view(board, "expvid")
    assert views.shown_text(bench).loc[0, "Tool"] == "n too small (n=3)" and np.isnan(bench.loc[0, "Tool"])
    assert bench.loc[0, "Overall"] == 50.0



def test_the_papers_rows_keep_their_numbers():
    """Paper rows carry the papers' published numbers, not item counts: nothing to hide."""
    with min_bucket_items(10_000):
        board = views.prepare(views.select_suite(aggregate.build_table([]), "official-v1-0123456789ab"))
        shown = views.breakdown_view(board, "videosimpleqa-category")
    assert shown.iloc[:, 3:].notna().any(axis=None)
    texts = views.shown_text(shown)
    assert texts.drop(columns=[views.RANK]).isna().all(axis=None)  # no score hidden
    assert {t.split()[-1] for t in texts[views.RANK].dropna()} == {"📄"}  # ranked within the paper


def test_derived_cells_are_hidden_with_the_buckets_they_come_from():
    expvid = {"overall": 50.0, "level1": 40.0, "level2": 60.0,
              "by_discipline": {"Bio": {"level1": 40.0, "level2": 60.0, "level3": None, "overall": 50.0}},
              "n_by_discipline": {"Bio": {"level1": 3, "level2": 20, "level3": 0}}}
    shown = disclosure.suppress_benchmark("expvid", expvid, 10)
    # the discipline's overall (a mean of its levels) would give its 3-item level away
    assert shown["by_discipline"]["Bio"] == {"level1": None, "level2": 60.0, "level3": None, "overall": None}
    assert shown["suppressed"] == {"by_discipline": {"Bio": {"level1": 3, "overall": 3}}}

    gain = {"overall": 50.0, "adaptation": 50.0, "delta_knowledge": 20.0, "adaptation_question_only": 25.0,
            "wrong_to_right": 33.33, "right_to_wrong": 0.0, "n_wrong_to_right": 2, "n_right_to_wrong": 0,
            "n_right_before": 2, "n_wrong_before": 6, "n_by_track": {"adaptation": 8}}
    small = disclosure.suppress_benchmark("videommmu", gain, 10)  # 8 adaptation items: all of it goes
    assert all(small[k] is None for k in videommmu.GAIN) and small["adaptation"] is None
    assert set(small["suppressed"].values()) == {8}  # the group's size, not its answer-dependent split
    big = disclosure.suppress_benchmark("videommmu", gain, 3)  # 8 items shown; 2 right before: too few
    assert big["delta_knowledge"] == 20.0 and big["adaptation_question_only"] == 25.0
    assert big["right_to_wrong"] is None and big["n_right_to_wrong"] is None
    # Δknowledge x wrong before = wrong→right - right→wrong: the other transition goes too
    assert big["wrong_to_right"] is None and big["n_wrong_to_right"] is None
