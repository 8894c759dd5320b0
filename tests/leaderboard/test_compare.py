"""Comparing two models: the paired bootstrap interval of A − B equals one computed
independently here with plain loops (same videos, same seed scheme), on a known case
built from the demo suite's answer key; the significance flag; small buckets, papers'
rows and cross-suite or cross-judge pairs refused; bucket statistics agree with the
published breakdowns; the statistics stay in the private store."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from evaluator.judges.normalized import NormalizedMatchJudge
from evaluator.paired import OVERALL, paired_path
from evaluator.paired import record as paired_record
from evaluator.predictions import as_responses
from evaluator.records import Prediction, ScoringOptions, round_half_up
from evaluator.scoring import make_result, score_responses
from evaluator.shards import shard
from leaderboard import compare
from leaderboard.errors import CompareRefused

SAMPLES = 1000
SEED = 0


# -- the known case: which items each model gets right is chosen here -------------------------------------

def exact_predictions(suite, key, right) -> list[Prediction]:
    """ExAct answers: the gold label where right(i) holds, another label elsewhere."""
    gold = {a.id: a.label for a in key.answers["exact"]}
    out = []
    for i, q in enumerate(suite.questions["exact"]):
        label = gold[q.id] if right(i) else ("1" if gold[q.id] != "1" else "2")
        out.append(Prediction(f"exact/{q.id}", label))
    return out


def simpleqa_predictions(suite, key, grade) -> list[Prediction]:
    """Video SimpleQA answers: grade(i) is "correct" (the gold text), "incorrect" or
    "not_attempted" (no prediction at all)."""
    gold = {a.id: a.answer for a in key.answers["videosimpleqa"]}
    out = []
    for i, q in enumerate(q for q in suite.questions["videosimpleqa"] if q.question):
        kind = grade(i)
        if kind != "not_attempted":
            out.append(Prediction(f"videosimpleqa/{q.id}", gold[q.id] if kind == "correct" else "zebra crossing"))
    return out


EXACT_A = lambda i: i % 3 != 0  # noqa: E731 - the known case, read by the independent bootstrap
EXACT_B = lambda i: i % 2 == 0  # noqa: E731
SQA_A = lambda i: ("correct", "correct", "incorrect", "not_attempted")[i % 4]  # noqa: E731
SQA_B = lambda i: ("correct", "not_attempted", "incorrect")[i % 3]  # noqa: E731


def scored(suite, key, predictions, submission_id, judge=None):
    judge = judge or NormalizedMatchJudge()
    collected: dict = {}
    scores, counts = score_responses(suite, key, as_responses(predictions), judge, bootstrap_samples=SAMPLES,
                                     paired=collected)
    result = make_result(suite, scores, counts, judge, ScoringOptions(), {"id": submission_id})
    return result, paired_record(result, collected, SAMPLES, SEED)


@pytest.fixture(scope="module")
def pair(demo_suite):
    suite, key = demo_suite
    a = scored(suite, key, exact_predictions(suite, key, EXACT_A) + simpleqa_predictions(suite, key, SQA_A), "a")
    b = scored(suite, key, exact_predictions(suite, key, EXACT_B) + simpleqa_predictions(suite, key, SQA_B), "b")
    return a, b


# -- the independent paired bootstrap: plain loops -----------------------------------------------------------

def percentile(values: list[float], q: float) -> float:
    """Linear interpolation between the closest ranks (numpy's default method), by hand."""
    ordered = sorted(values)
    position = q / 100 * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def loop_bootstrap(videos: list[str], items_a: list[tuple], items_b: list[tuple], metric) -> tuple[float, float]:
    """items: (video, per-item statistic tuple); metric(list of summed tuples) -> value.
    Each replicate draws how often each of the benchmark's `videos` is taken (a
    multinomial over them in first-appearance order, seeded like evaluator.bootstrap)
    and uses that draw for both models; items of videos not drawn count zero times."""
    rng = np.random.default_rng(SEED)
    n = len(videos)
    diffs = []
    for _ in range(SAMPLES):
        taken = rng.multinomial(n, [1.0 / n] * n)
        weight = {video: int(taken[j]) for j, video in enumerate(videos)}
        values = []
        for items in (items_a, items_b):
            sums = [0.0] * len(items[0][1])
            for video, stats in items:
                for k, s in enumerate(stats):
                    sums[k] += weight[video] * s
            values.append(metric(sums))
        if all(v is not None for v in values):
            diffs.append(values[0] - values[1])
    return percentile(diffs, 2.5), percentile(diffs, 97.5)


def accuracy(sums):
    return 100.0 * sums[0] / sums[1] if sums[1] else None


def f_score(sums):  # [correct, not attempted, items]
    den = 2 * sums[2] - sums[1]
    return 100.0 * 2 * sums[0] / den if den else None


def row(frame: pd.DataFrame, benchmark: str, label: str) -> dict:
    found = frame[(frame[compare.BENCHMARK] == benchmark) & (frame[compare.NUMBER] == label)]
    assert len(found) == 1, f"no single row {benchmark} / {label}"
    position = found.index[0]
    return {**found.iloc[0].to_dict(), "low": frame.attrs["low"][position], "high": frame.attrs["high"][position]}


# -- tests -------------------------------------------------------------------------------------------------

def test_exact_interval_matches_an_independent_paired_bootstrap(pair, demo_suite):
    suite, _ = demo_suite
    (_, a), (_, b) = pair
    questions = suite.questions["exact"]
    videos = list(dict.fromkeys(q.video for q in questions))
    items_a = [(q.video, (1.0 if EXACT_A(i) else 0.0, 1.0)) for i, q in enumerate(questions)]
    items_b = [(q.video, (1.0 if EXACT_B(i) else 0.0, 1.0)) for i, q in enumerate(questions)]
    low, high = loop_bootstrap(videos, items_a, items_b, accuracy)

    got = row(compare.compare(a, b, min_items=0), "ExAct", "Overall")
    assert got[compare.SCORE_A] == round_half_up(100 * sum(EXACT_A(i) for i in range(len(questions))) / len(questions))
    assert (got["low"], got["high"]) == (round_half_up(low), round_half_up(high))
    assert got[compare.INTERVAL] == f"[{round_half_up(low):.2f}, {round_half_up(high):.2f}]"
    assert got[compare.SIGNIFICANT] == ("yes" if low > 0 or high < 0 else "no")


def test_a_bucket_uses_the_benchmarks_draw_of_videos(pair, demo_suite):
    """A bucket's score in a replicate comes from the benchmark's drawn videos that have
    items in the bucket: the same draw as the overall's."""
    suite, _ = demo_suite
    (_, a), (_, b) = pair
    questions = suite.questions["exact"]
    indexed = [(i, q) for i, q in enumerate(questions) if q.category == "tips"]
    videos = list(dict.fromkeys(q.video for q in questions))  # all of ExAct's, not only the bucket's
    items_a = [(q.video, (1.0 if EXACT_A(i) else 0.0, 1.0)) for i, q in indexed]
    items_b = [(q.video, (1.0 if EXACT_B(i) else 0.0, 1.0)) for i, q in indexed]
    low, high = loop_bootstrap(videos, items_a, items_b, accuracy)
    got = row(compare.compare(a, b, min_items=0), "ExAct", "Tips")
    assert (got["low"], got["high"]) == (round_half_up(low), round_half_up(high))


def test_f_score_is_recomputed_in_every_resample(pair, demo_suite):
    """Video SimpleQA's F-score is not a mean of per-video values: the independent loop
    sums [correct, not attempted, items] per video and takes F of the sums."""
    suite, _ = demo_suite
    (result_a, a), (result_b, b) = pair
    questions = [q for q in suite.questions["videosimpleqa"] if q.question]
    videos = list(dict.fromkeys(q.video for q in questions))

    def items(grade):
        return [(q.video, (float(grade(i) == "correct"), float(grade(i) == "not_attempted"), 1.0))
                for i, q in enumerate(questions)]
    low, high = loop_bootstrap(videos, items(SQA_A), items(SQA_B), f_score)
    got = row(compare.compare(a, b, min_items=0), "Video SimpleQA", "Overall")
    # the known case graded as intended: the point scores are the published ones
    assert got[compare.SCORE_A] == result_a.scores["videosimpleqa"]["overall"]
    assert got[compare.SCORE_B] == result_b.scores["videosimpleqa"]["overall"]
    assert (got["low"], got["high"]) == (round_half_up(low), round_half_up(high))


def test_significance_is_the_corrected_p_value(demo_suite, pair):
    """Each compared score has a raw p-value (p ≤ 0.05 only where its interval excludes 0),
    Holm's and Benjamini-Hochberg's over every compared score of the table, and
    Significant (BH) says whether the latter is at most 0.05."""
    from leaderboard import multiple_testing

    suite, key = demo_suite
    right = scored(suite, key, exact_predictions(suite, key, lambda i: True), "all-right")[1]
    wrong = scored(suite, key, exact_predictions(suite, key, lambda i: False), "all-wrong")[1]
    same = scored(suite, key, exact_predictions(suite, key, lambda i: True), "all-right-again")[1]

    clear = row(compare.compare(right, wrong, min_items=0), "ExAct", "Overall")
    assert clear[compare.DIFF] == 100.0 and clear["low"] > 0 and clear[compare.SIGNIFICANT] == "yes"
    assert clear[compare.P_RAW] == pytest.approx(2 / (SAMPLES + 1))  # every resample above 0
    reverse = row(compare.compare(wrong, right, min_items=0), "ExAct", "Overall")
    assert reverse["high"] < 0 and reverse[compare.SIGNIFICANT] == "yes"
    tie = compare.compare(right, same, min_items=0)
    overall = row(tie, "ExAct", "Overall")
    assert (overall[compare.DIFF], overall["low"], overall["high"]) == (0.0, 0.0, 0.0)
    assert overall[compare.SIGNIFICANT] == "no"
    tested = tie[tie[compare.P_RAW].notna()]
    assert len(tested) > 1 and (tested[list(compare.P_COLUMNS)] == 1.0).all().all()  # identical: p 1, adjusted 1

    frame = compare.compare(*[p[1] for p in pair], min_items=0)
    tested = frame[frame[compare.P_RAW].notna()]
    raw = list(tested[compare.P_RAW])
    assert list(tested[compare.P_HOLM]) == multiple_testing.holm(raw)
    assert list(tested[compare.P_BH]) == multiple_testing.benjamini_hochberg(raw)
    assert list(tested[compare.SIGNIFICANT]) == ["yes" if p <= 0.05 else "no" for p in tested[compare.P_BH]]
    assert (frame[compare.P_RAW].isna() == (frame[compare.SIGNIFICANT] == "")).all()
    for p, low, high in zip(frame[compare.P_RAW], frame.attrs["low"], frame.attrs["high"]):
        if p <= 0.05:  # shown bounds are rounded: a bound of 0.00 may be either side
            assert low >= 0 or high <= 0, (p, low, high)
    # the known case has a score whose interval excludes 0 that is not significant once
    # the table's 26 tests are accounted for: what the correction is for
    chance = tested[(tested[compare.P_RAW] <= 0.05) & (tested[compare.SIGNIFICANT] == "no")]
    assert len(chance) and (chance[compare.P_HOLM] > 0.05).all()


def test_the_summary_counts_corrected_results(pair):
    """The summary's count is of Benjamini-Hochberg's significant scores; Holm's and the
    uncorrected count follow it."""
    from leaderboard.compare_protocol import ProtocolGap

    frame = compare.compare(*[p[1] for p in pair], min_items=0)
    tested = frame[frame[compare.P_RAW].notna()]
    raw = int((tested[compare.P_RAW] <= 0.05).sum())
    assert raw == 1 and (tested[compare.P_BH] > 0.05).all()  # one by chance, none after correction
    assert compare.counts(frame) == {"compared": len(tested), "raw": 1, "Holm": 0, "Benjamini-Hochberg": 0}
    rows = [{"id": "a", "label": "Model *a*", "protocol_status": "reference"},
            {"id": "b", "label": "B", "protocol_status": "differs", "protocol_deviations": "scoring"}]
    text = compare.summary(*rows, frame, SAMPLES, ProtocolGap())
    assert f"**0** of {len(tested)} compared scores differ significantly after the Benjamini-Hochberg correction" \
        in text
    assert "Holm's stricter correction (family-wise error 5%): 0" in text and "uncorrected (p ≤ 0.05): 1" in text
    assert "**Model A**: Model &#42;a&#42; [✓ reference]" in text  # the label escaped
    assert "**Model B**: B [≠ scoring]" in text
    # a table with a significant score after correction counts it
    forced = frame.copy()
    forced.loc[tested.index[0], compare.P_BH] = 0.01
    assert f"**1** of {len(tested)}" in compare.summary(*rows, forced, SAMPLES, ProtocolGap())
    assert "unanswered" not in text
    half = rows[1] | {"expvid.n_calls": 60, "expvid.n_answered": 30}
    assert ("**◐ Model B left calls unanswered** (ExpVid 30 of 60 calls (30 unanswered)): each counts as wrong"
            in compare.summary(rows[0], half, frame, SAMPLES, ProtocolGap()))


def test_cells_show_p_values_with_three_decimals():
    assert compare.cell_text(compare.P_RAW, 2 / 1001) == "0.002"
    assert compare.cell_text(compare.P_BH, 1.0) == "1.000"
    assert compare.cell_text(compare.P_HOLM, 0.0002) == "<0.001"
    assert compare.cell_text(compare.SCORE_A, 61.2) == "61.20" and compare.cell_text(compare.N, 12.0) == "12"
    assert compare.cell_text(compare.P_RAW, float("nan")) == compare.cell_text(compare.DIFF, None) == ""


def test_small_buckets_are_refused_and_the_overall_never_is(pair):
    (_, a), (_, b) = pair
    frame = compare.compare(a, b, min_items=10)
    small = frame[frame[compare.N] < 10]
    assert len(small), "the demo suite has buckets under 10 items"
    for _, r in small.iterrows():
        if r[compare.NUMBER] == "Overall":
            assert r[compare.SIGNIFICANT] in ("yes", "no")
            continue
        assert r[compare.NOTE].startswith(f"n too small (n={int(r[compare.N])})")
        assert pd.isna(r[compare.SCORE_A]) and pd.isna(r[compare.DIFF]) and r[compare.INTERVAL] == ""
    big = frame[(frame[compare.N] >= 10) & (frame[compare.NOTE] == "")]
    assert len(big) and (big[compare.SIGNIFICANT].isin(["yes", "no"])).all()
    notes = list(frame[compare.NOTE].str.endswith(": not compared"))
    assert notes == sorted(notes), "the buckets not compared come after every compared one"
    # the same pair with no minimum compares those buckets too
    assert (compare.compare(a, b, min_items=0)[compare.NOTE].str.startswith("n too small")).sum() == 0


def test_a_bucket_either_rows_published_scores_hide_is_not_compared(pair):
    """A bucket big enough to compare, hidden in a row's public scores with a smaller one
    (complementary suppression) or as a near-duplicate file's, stays hidden here too: its
    score and A − B would give it back."""
    import json

    from results import disclosure

    (result_a, a), (_, b) = pair
    def where(frame: pd.DataFrame, i: int) -> tuple[str, tuple[str, ...]]:
        return frame.attrs["benchmark"][i], tuple(frame.attrs["path"][i].split("/"))

    compared = compare.compare(a, b, min_items=10)
    first = next(i for i, (number, note) in enumerate(zip(compared[compare.NUMBER], compared[compare.NOTE]))
                 if number != "Overall" and note == "")  # the first bucket compared
    target, (benchmark, path) = compared.iloc[first], where(compared, first)
    public = disclosure.public(result_a.model_copy(), 10)
    forced = disclosure.suppress(public.scores, 10, close=[[benchmark, *path]])  # as for a near-duplicate
    cells = {f"{name}.{disclosure.SUPPRESSED}": json.dumps(scores[disclosure.SUPPRESSED])
             for name, scores in forced.items() if disclosure.SUPPRESSED in scores}
    hidden = compare.hidden_trees(cells, {})
    frame = compare.compare(a, b, min_items=10, hidden=hidden)
    got = row(frame, target[compare.BENCHMARK], target[compare.NUMBER])
    assert got[compare.NOTE] == f"hidden with others (n={int(target[compare.N])}): not compared"
    assert pd.isna(got[compare.SCORE_A]) and pd.isna(got[compare.DIFF]) and got[compare.INTERVAL] == ""
    # every bucket compared is one both rows publish; everything hidden in row A is refused
    for i, (number, note) in enumerate(zip(frame[compare.NUMBER], frame[compare.NOTE])):
        name, at = where(frame, i)
        tree = json.loads(cells.get(f"{name}.{disclosure.SUPPRESSED}", "{}"))
        if number != "Overall" and disclosure.suppressed_n(tree, at) is not None:
            assert note.endswith(": not compared"), (name, number)
    assert (frame[compare.NOTE] != "").sum() > (compared[compare.NOTE] != "").sum()
    assert compare.hidden_trees({"exact.suppressed": "not json"}, {"expvid.suppressed": None}) == {}


def test_bucket_statistics_give_the_published_breakdown_scores(demo_suite):
    """Each bucket's score from its per-video statistics is the result's own metric there
    (the scorer run on the bucket's items agrees with the full scoring's breakdowns), on
    every benchmark (the random baseline answers them all)."""
    from evaluator.baselines import predictions

    suite, key = demo_suite
    result, stats = scored(suite, key, predictions("random", suite.calls, seed=5), "random")
    assert set(stats.benchmarks) == set(suite.manifest["benchmarks"])
    checked = 0
    for benchmark, buckets in stats.benchmarks.items():
        metrics = result.scores[benchmark]
        for bucket in buckets:
            value = metrics
            for key in bucket.path:
                value = value[key]
            if isinstance(value, dict):  # CausalStep categories, Video SimpleQA hops: their headline
                value = value.get("ws_norm", value.get("f_score"))
            ours = compare.compare_bucket(bucket, bucket, SAMPLES, SEED)[compare.SCORE_A]
            assert (value is None and np.isnan(ours)) or ours == value, (benchmark, bucket.path, ours, value)
            checked += 1
    assert checked > 40
    # CausalStep's levels, the accuracies of its questions asked alone, are compared too
    assert {tuple(b.path) for b in stats.benchmarks["causalstep"]} >= {("dua",), ("icra",)}


def test_pairs_that_cannot_be_compared_are_refused(pair):
    (_, a), (_, b) = pair
    base = {"id": "x", "source": "verified", "suite_id": "demo-v1-abc", "judge_id": "normalized-match", "model": "X"}
    other = base | {"id": "y", "model": "Y"}
    compare.check_pair(base, other)  # same suite and judge: fine
    with pytest.raises(CompareRefused, match="different suites"):
        compare.check_pair(base, other | {"suite_id": "official-v1-def"})
    with pytest.raises(CompareRefused, match="different judges"):
        compare.check_pair(base, other | {"judge_id": "llm:some-model"})
    with pytest.raises(CompareRefused, match="reported rows cannot be compared"):
        compare.check_pair(base, {"id": "reported/exact/gpt-4o", "source": "reported", "suite_id": "demo-v1-abc"})
    with pytest.raises(CompareRefused, match="two different rows"):
        compare.check_pair(base, dict(base))
    # statistics of another suite or judge are refused too, whatever the rows say
    with pytest.raises(CompareRefused, match="different suites or by different judges"):
        compare.compare(a, b.model_copy(update={"suite_id": "official-v1-def"}), min_items=0)
    with pytest.raises(CompareRefused, match="before comparisons existed"):
        compare.check_stats(base, None, "Model A")
    with pytest.raises(CompareRefused, match="run 1"):
        compare.check_stats(base | {"suite_id": a.suite_id, "judge_id": a.judge_id, "run": 2},
                            a.model_copy(update={"run": 1}), "Model A")


def test_a_benchmark_only_one_model_attempted_gets_a_note(demo_suite, pair):
    suite, key = demo_suite
    only_exact = scored(suite, key, exact_predictions(suite, key, EXACT_A), "only-exact")[1]
    frame = compare.compare(only_exact, pair[1][1], min_items=0)
    sqa = row(frame, "Video SimpleQA", "Overall")
    assert sqa[compare.NOTE] == "model A did not attempt this benchmark" and pd.isna(sqa[compare.DIFF])
    assert (frame[compare.BENCHMARK] == "Video SimpleQA").sum() == 1  # one row, not one per bucket
    compared = list(frame[compare.P_RAW].notna())
    assert compared == sorted(compared, reverse=True)  # what was not compared comes after what was


def test_statistics_go_to_the_private_store_only(tmp_path):
    """The embedded first start scores the baselines: their per-video statistics are in
    the private store, and no public file holds any of them."""
    from submissions.stores import Stores
    from worker.suites import baseline_id, first_start

    stores = Stores.local(tmp_path / "home")
    suite_id = first_start(stores)
    stats = compare.load_paired(stores.private, baseline_id("random", suite_id))
    assert stats is not None and stats.suite_id == suite_id and stats.benchmarks["exact"][0].path == list(OVERALL)
    for store in (stores.results, stores.suite, stores.requests):
        leaked = [p for p in store.list() if "paired" in p]
        assert not leaked, f"{store.name} holds {leaked}"
        for path in store.list():
            data = store.read(path).data
            assert b'"reducer"' not in data and stats.benchmarks["exact"][0].videos[0].encode() not in data, path
    assert paired_path("x") == f"paired/{shard('x')}/x.json"  # in the private store, sharded by id


def test_the_worker_writes_the_statistics_and_the_tab_compares_its_row(tmp_path, monkeypatch, demo_dir, demo_suite):
    """A prediction file through the real queue and worker: its per-video statistics
    land beside the staged result (private), and the Compare tab's handler compares its
    row with a baseline's; a paper's row and a row without statistics are refused with
    a reason."""
    import dataclasses

    from evaluator.baselines import predictions
    from evaluator.predictions import write_predictions
    from worker.loop import Worker
    from leaderboard import views
    from leaderboard.tabs.compare import NONE_HERE, PICK_TWO, CompareHandlers
    from leaderboard.source import TableSource
    from leaderboard.ui import Handlers
    from space_config.settings import Quotas, get_settings
    from submissions.stores import Stores
    from submissions.submit import Identity, submit_predictions
    from worker.suites import baseline_id, ensure_baselines

    monkeypatch.setenv("LEADERBOARD_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("LEADERBOARD_BOOTSTRAP_SAMPLES", "1000")
    get_settings.cache_clear()
    try:
        settings = dataclasses.replace(get_settings(), quotas=Quotas(per_user=100, per_org=100, pending_per_user=100))
        suite, _ = demo_suite
        stores = Stores.local(tmp_path / "home")
        stores.suite.upload_folder(suite.id, demo_dir / "suite")
        stores.answers.upload_folder(suite.id, demo_dir / "answers")
        ensure_baselines(stores, suite.id)
        path = tmp_path / "preds.jsonl"
        write_predictions(path, predictions("random", suite.calls, seed=11))
        request = submit_predictions(stores, settings, Identity("alice"), path, "random seed 11", suite_id=suite.id)
        ran = Worker(stores, settings, worker_id="w1").run_once()
        assert ran.status.value == "FINISHED", ran.failure

        stats = compare.load_paired(stores.private, request.id)
        assert stats is not None and stats.run == 1 and stats.samples == 1000 and stats.suite_id == suite.id
        assert stores.results.read(paired_path(request.id)) is None

        handlers = CompareHandlers(Handlers(stores, settings, TableSource(stores, settings)))
        text, frame = handlers.compare(suite.id, request.id, baseline_id("first-option", suite.id))
        assert "**Model A**: random seed 11 [reference (declared)]" in text and "Baseline: first-option" in text
        assert "**Same protocol**" in text and "Benjamini-Hochberg" in text
        assert set(frame[compare.BENCHMARK]) == {"ExpVid", "CausalStep", "ExAct", "Video-MMMU", "Video SimpleQA"}
        overall = frame[frame[compare.NUMBER] == "Overall"]
        assert len(overall) == 5 and overall[compare.SIGNIFICANT].isin(["yes", "no"]).all()
        text, frame = handlers.compare(suite.id, request.id, None)
        assert text == PICK_TWO and frame.empty
        # a row without statistics (scored before comparisons existed) is refused, saying so
        stores.private.delete(paired_path(baseline_id("random", suite.id)))
        handlers = CompareHandlers(Handlers(stores, settings, TableSource(stores, settings)))
        text, frame = handlers.compare(suite.id, request.id, baseline_id("random", suite.id))
        assert "before comparisons existed" in text and frame.empty
        # the pickers offer verified rows only
        a, _, status = handlers.choices(suite.id, request.id, None)
        assert "value" not in status  # three rows to pick from: the status line is the comparison's
        assert {value for _, value in a["choices"]} == {request.id, baseline_id("random", suite.id),
                                                        baseline_id("first-option", suite.id)}
        # each with its protocol status, as the Leaderboard's Protocol column writes it
        assert ("random seed 11 · reference (declared)", request.id) in a["choices"]
        assert ("Baseline: random · ✓ reference", baseline_id("random", suite.id)) in a["choices"]
        assert "value" not in a  # a valid pick is kept
        a, _, _ = handlers.choices(suite.id, "gone", None)
        assert a["value"] is None  # a row no longer in the suite is cleared
        # the papers' view has no verified rows: the status line says where to find some
        a, b, status = handlers.choices(views.REPORTED_SUITE, None, None)
        assert a["choices"] == b["choices"] == [] and status["value"] == NONE_HERE and "**Show**" in NONE_HERE
    finally:
        get_settings.cache_clear()


def videommmu_predictions(suite, key, after, before) -> list[Prediction]:
    """Video-MMMU answers: right where after(i) holds, and for Adaptation items with a
    question-only call, that call right where before(i) holds."""
    gold = {a.id: a for a in key.answers["videommmu"]}

    def answer(q, right: bool) -> str:
        a = gold[q.id]
        if not right:
            return "I cannot tell."
        return a.labels[0] if a.labels else (a.texts[0] if a.texts else f"{a.values[0]:g}")
    out = []
    for i, q in enumerate(suite.questions["videommmu"]):
        out.append(Prediction(f"videommmu/{q.id}", answer(q, after(i))))
        if q.question_only_video:
            out.append(Prediction(f"videommmu/{q.id}/question-only", answer(q, before(i))))
    return out


def test_delta_knowledge_is_recomputed_in_every_resample(demo_suite):
    """Δknowledge = (right after - right before) / (wrong before), over the Adaptation items
    with a question-only call: the independent loop sums both per video and divides."""
    suite, key = demo_suite
    after_a, before_a = (lambda i: i % 2 == 0), (lambda i: i % 4 == 0)
    after_b, before_b = (lambda i: i % 3 != 0), (lambda i: i % 5 == 0)
    result_a, a = scored(suite, key, videommmu_predictions(suite, key, after_a, before_a), "a")
    result_b, b = scored(suite, key, videommmu_predictions(suite, key, after_b, before_b), "b")
    questions = suite.questions["videommmu"]
    videos = list(dict.fromkeys(q.video for q in questions))

    def items(after, before):
        return [(q.video, (float(after(i)) - float(before(i)), 1.0 - float(before(i))))
                for i, q in enumerate(questions) if q.question_only_video]
    low, high = loop_bootstrap(videos, items(after_a, before_a), items(after_b, before_b), accuracy)
    got = row(compare.compare(a, b, min_items=0), "Video-MMMU", "Δknowledge")
    assert got[compare.SCORE_A] == result_a.scores["videommmu"]["delta_knowledge"]  # graded as intended
    assert got[compare.SCORE_B] == result_b.scores["videommmu"]["delta_knowledge"]
    assert (got["low"], got["high"]) == (round_half_up(low), round_half_up(high))
