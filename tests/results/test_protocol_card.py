"""Protocol cards (evaluator/protocol_card.py, results/protocol_status.py): what every result
records about how its numbers were produced, how it compares with the suite's reference
protocol, and what the leaderboard ranks by default.

A model-id request runs a real tiny VLM through the worker on the demo suite (CPU), and
its published card must hold every field; prediction files, baselines, other scoring
options and results written before cards are scored or read for real."""

from __future__ import annotations

import dataclasses
import json
from types import SimpleNamespace

import av
import pandas as pd
import pytest
import transformers

from evaluator import CODE_VERSION, prompts
from evaluator.baselines import predictions
from evaluator.judges import get_judge
from evaluator.judges.normalized import NormalizedMatchJudge
from evaluator.predictions import as_responses
from evaluator.protocol_card import REFERENCE_FIELDS, ProtocolCard, deviations, model_card, reference_for
from evaluator.records import ScoringOptions
from evaluator.reference import reading_options
from evaluator.result import Result
from evaluator.scoring import make_result, score_responses
from results import aggregate, protocol_status
from leaderboard import views
from leaderboard.tabs import protocol_panel
from submissions.requests import request_log_path

CARD_FIELDS = ("source", "verified", "suite_id", "code_version", "frames", "frame_sampling", "frame_times_sha256",
               "prompts_sha256", "prompt_templates", "resolution", "decoder", "backend", "backend_version", "dtype",
               "generation", "judge", "scoring", "hash")


# -- a model-id run on a tiny model: every field ---------------------------------------------------

@pytest.fixture(scope="module")
def tiny_qwen(tmp_path_factory):
    from tiny_vlms import build_tiny_qwen25vl

    return build_tiny_qwen25vl(tmp_path_factory.mktemp("qwen"))


@pytest.fixture
def deployment(tmp_path, monkeypatch):
    from space_config.settings import get_settings
    from submissions.stores import Stores
    from worker.suites import first_start

    home = tmp_path / "home"
    for name, value in {"LEADERBOARD_HOME": str(home), "LEADERBOARD_STORE": "local",
                        "LEADERBOARD_BOOTSTRAP_SAMPLES": "20"}.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    stores = Stores.local(home)
    yield stores, first_start(stores)
    get_settings.cache_clear()


def test_a_model_id_run_on_a_tiny_model_records_a_card_with_every_field(deployment, tiny_qwen):
    from evaluator.suite import load_suite
    from worker.loop import Worker
    from space_config.settings import get_settings
    from submissions.queue import Queue
    from submissions.requests import Request, Status

    stores, suite_id = deployment
    base = get_settings()
    settings = dataclasses.replace(base, worker=dataclasses.replace(base.worker, backend="transformers",
                                                                    max_new_tokens=3))
    request = Queue(stores.requests).add(Request(kind="model", submitter="maintainer", suite_id=suite_id,
                                                 model=str(tiny_qwen), frames=2, precision="float32"))
    ran = Worker(stores, settings, worker_id="w").run_once()
    assert ran.status == Status.FINISHED, ran.failure

    published = json.loads(stores.results.read(aggregate.result_path(request.id)).data)  # the public result file
    card = ProtocolCard.model_validate(published["protocol"])
    for name in CARD_FIELDS:
        assert getattr(card, name) not in (None, "", {}), f"the card's {name} is empty"
    suite = load_suite(stores.suite.local_folder(suite_id))
    benchmarks = set(suite.manifest["benchmarks"])
    assert card.source == "model-run" and card.verified and card.suite_id == suite_id
    assert card.code_version == CODE_VERSION and card.schema_version == 2
    assert card.frames["exact"] == 2 and card.frames["videommmu_question_only"] == 1  # the override, per budget
    assert "re-planned: 2 uniform frames" in card.frame_sampling
    assert card.frame_budgets["videommmu"] == {"frames": 2, "range": "10-64", "why": "one count for every call (frames)"}
    assert set(card.frame_times_sha256) == set(card.prompts_sha256) == benchmarks
    assert set(card.prompt_templates) == {f"{b}.{t}" for b in benchmarks for t in prompts.templates(b)}
    assert card.resolution == "native size; exact: 796x448; expvid: 224x224"
    assert card.decoder.startswith(f"PyAV {av.__version__} (libavcodec ")
    assert (card.backend, card.backend_version, card.dtype) == ("transformers", transformers.__version__, "float32")
    assert card.generation["thinking"] is False and card.generation["enable_thinking"] is None  # told nothing
    assert card.generation["benchmarks"]["videosimpleqa"] == {"temperature": 1.0, "max_new_tokens": 3, "runs": 3}
    assert card.generation["benchmarks"]["exact"] == {"temperature": 0.0, "max_new_tokens": 3, "runs": 1}
    assert card.runs["videosimpleqa"]["runs"] == 3 and len(card.runs["videosimpleqa"]["overall_per_run"]) == 3
    matcher_id = NormalizedMatchJudge.judge_id  # "normalized-match@<revision>"
    matcher = {"id": matcher_id, "kind": "normalized-match", "revision": matcher_id.split("@")[1]}
    assert card.judge == {**matcher,
                          "by_benchmark": {"expvid": matcher, "videosimpleqa": matcher}}
    assert card.scoring == {"causalstep_restart": "prose", "causalstep_points": "prose",  # CausalStep's protocol reading
                            "grade_truncated_reasoning": False}

    # 2 frames a call instead of the suite's budgets (which also rewrites the prompts' frame
    # times) and 3 new tokens: three score-changing differences from the suite's reference
    reference = reference_for(suite)
    assert all(card.frame_times_sha256[b] != reference["frame_times_sha256"][b] for b in ("exact", "expvid"))
    assert card.deviations == ["frames", "prompts", "generation"]

    row = aggregate.load_table(stores.results).set_index("id").loc[request.id]
    assert row["protocol_status"] == protocol_status.DIFFERS and row["protocol_hash"] == card.hash
    assert row["protocol_deviations"] == "frames, prompts, generation"
    shown = protocol_status.card_markdown(row.to_dict() | {"id": request.id})
    for value in (card.decoder, transformers.__version__, "float32", card.hash, matcher_id,
                  "Differs from the suite's reference protocol in: frames, prompts, generation",
                  "videommmu: 2 (10-64; one count for every call (frames))", "videosimpleqa: 3 runs, overall per run",
                  "Where our reference protocol differs from the papers'", "Video SimpleQA, judge: paper o3"):
        assert value in shown
    log = stores.private.read(request_log_path(request.id)).data.decode()
    assert f"protocol {card.hash}: differs from the suite's reference in frames, prompts, generation" in log


def _run_settings(suite, request, thinking: bool = False, **changes) -> dict:
    """The settings a worker at its defaults records (runners/model.py), the runner's own code
    making the per-benchmark generation and frame budgets."""
    from evaluator.runners.reference_run import frames_asked, generation_plans

    plans = generation_plans(list(suite.manifest["benchmarks"]), thinking)
    return {"backend": {"backend": "vllm"}, "dtype": "bfloat16", "resize": "native size",
            "generation": {name: plan.describe() for name, plan in plans.items()},
            "frame_budgets": frames_asked(suite, request), "thinking": thinking,
            "frame_decoder": {"decoder": "PyAV 1 (libavcodec 2): seek..."}} | changes


def test_a_run_with_the_reference_settings_has_no_deviation(demo_suite):
    """The same card builder, given the settings a worker at its defaults records."""
    suite, _ = demo_suite
    judge = get_judge("normalized-match")
    request = SimpleNamespace(frames=None, frame_budgets={})
    card = model_card(suite, request, "vllm", _run_settings(suite, request), judge, ScoringOptions())
    assert card.deviations == [] and protocol_status.status_of(card) == protocol_status.REFERENCE
    # a thinking run's reference budgets are each protocol's thinking budgets: the plain ones differ
    thinking = model_card(suite, request, "vllm", _run_settings(suite, request) | {"thinking": True}, judge,
                          ScoringOptions())
    assert thinking.deviations == ["generation"] and thinking.hash != card.hash
    assert model_card(suite, request, "vllm", _run_settings(suite, request, thinking=True), judge,
                      ScoringOptions()).deviations == []
    # a frame budget inside its paper's range is the protocol (ranked with the rest); outside, a difference
    chosen = SimpleNamespace(frames=None, frame_budgets={"videommmu": 12, "videosimpleqa": 8})
    budgeted = model_card(suite, chosen, "vllm", _run_settings(suite, chosen), judge, ScoringOptions())
    assert budgeted.deviations == [] and budgeted.hash != card.hash
    assert budgeted.frame_times_sha256["videommmu"] != card.frame_times_sha256["videommmu"]
    assert budgeted.frame_budgets["videosimpleqa"]["frames"] == 8
    wide = SimpleNamespace(frames=None, frame_budgets={"videommmu": 80})
    assert "frames" in model_card(suite, wide, "vllm", _run_settings(suite, wide), judge, ScoringOptions()).deviations
    # one count for every call re-plans fixed budgets too: the frame-times hash moves
    eight = SimpleNamespace(frames=8, frame_budgets={})
    assert "frames" in model_card(suite, eight, "vllm", _run_settings(suite, eight), judge,
                                  ScoringOptions()).deviations
    # the operator's token cap and another frame size are differences; the dtype is not
    capped = _run_settings(suite, request)
    capped["generation"]["expvid"] = capped["generation"]["expvid"] | {"max_new_tokens": 1024}
    assert model_card(suite, request, "vllm", capped, judge, ScoringOptions()).deviations == ["generation"]
    small = _run_settings(suite, request, resize="longer side at most 448 px")
    assert model_card(suite, request, "vllm", small, judge, ScoringOptions()).deviations == ["resolution"]
    assert model_card(suite, request, "vllm", _run_settings(suite, request, dtype="float16"), judge,
                      ScoringOptions()).hash == card.hash


# -- prediction files, baselines, other options, old results -------------------------------------------

def _result(suite, key, submission, options=ScoringOptions(), runner=None):
    responses = as_responses(predictions("first-option", suite.calls))
    scores, counts = score_responses(suite, key, responses, get_judge("normalized-match"), options,
                                     bootstrap_samples=20)
    return make_result(suite, scores, counts, get_judge("normalized-match"), options, submission, runner=runner)


@pytest.fixture(scope="module")
def results(demo_suite):
    suite, key = demo_suite
    legacy = _result(suite, key, {"id": "old", "kind": "predictions", "model": "Old Model"})
    legacy_json = json.loads(legacy.model_dump_json())
    del legacy_json["protocol"]  # a result file written before results carried a card
    return {
        "baseline": _result(suite, key, {"id": "base", "kind": "baseline", "model": "Baseline: first-option"},
                            runner={"name": "baseline:first-option"}),
        "file": _result(suite, key, {"id": "file", "kind": "predictions", "model": "File Model",
                                     "metadata": {"thinking": "true"}}),
        "declared16": _result(suite, key, {"id": "f16", "kind": "predictions", "model": "Sixteen Frames",
                                           "metadata": {"frames": "16"}}),
        "algo": _result(suite, key, {"id": "algo", "kind": "predictions", "model": "Other Restart"},
                        options=ScoringOptions(by_benchmark={"causalstep": {"restart": "algo", "points": "prose"}})),
        "reading": _result(suite, key, {"id": "reading", "kind": "predictions", "model": "Algorithm Reading"},
                           options=reading_options({"causalstep": "algo"})),
        "legacy": Result.model_validate(legacy_json),
    }


def test_a_prediction_file_card_records_what_is_known_and_marks_the_rest_declared(results, demo_suite):
    suite, _ = demo_suite
    card = results["file"].protocol
    reference = reference_for(suite)
    assert card.source == "prediction-file" and not card.verified
    assert card.frame_times_sha256 == reference["frame_times_sha256"]  # the call list it was given
    assert card.prompts_sha256 == reference["prompts_sha256"]
    assert (card.decoder, card.backend, card.dtype, card.generation, card.resolution) == (None,) * 5
    assert card.declared == {"thinking": "true"} and card.deviations == []
    assert protocol_status.status_of(card) == protocol_status.DECLARED
    shown = protocol_status.card_markdown(aggregate.result_row(results["file"]))
    assert "declared, not verified" in shown and "not stated (prediction file)" in shown
    # one run of Video SimpleQA, whose protocol averages three: the card says so, and how to give them
    assert "one run of every benchmark; the reference protocol averages more runs: Video SimpleQA 3" in shown
    assert "averages more runs" not in protocol_status.card_markdown(aggregate.result_row(results["baseline"]))
    # a declared frame count the call list does not have is a difference
    assert results["declared16"].protocol.deviations == ["frames"]
    assert results["algo"].protocol.deviations == ["scoring"]  # a mixed reading: neither of the paper's
    assert results["reading"].protocol.deviations == ["scoring"]  # the other reading: shown, named, unranked
    assert results["reading"].protocol.scoring["causalstep_restart"] == "algo" == \
        results["reading"].protocol.scoring["causalstep_points"]
    assert results["baseline"].protocol.verified and results["baseline"].protocol.deviations == []


def test_deviations_compare_only_the_score_changing_fields(results, demo_suite):
    suite, _ = demo_suite
    card = results["file"].protocol.model_copy(deep=True)
    reference = reference_for(suite)
    card.code_version, card.prompt_templates = "9.9", {}
    assert deviations(card, reference) == []  # recorded, but not part of the protocol
    card.resolution = "longer side at most 448 px"
    card.generation = {"thinking": False, "benchmarks": {"exact": {"temperature": 0.7, "max_new_tokens": 1024,
                                                                    "runs": 1}}}
    assert deviations(card, reference) == ["resolution", "generation"]
    assert set(REFERENCE_FIELDS) == {"frames", "prompts", "resolution", "generation", "scoring"}


def test_a_result_without_a_card_still_renders_as_protocol_unknown(results, tmp_path):
    from submissions.stores import Stores

    legacy = results["legacy"]
    assert legacy.protocol is None
    stores = Stores.local(tmp_path / "home")
    stores.results.write("old.json", json.dumps(json.loads(legacy.model_dump_json()) | {"protocol": None}).encode())
    table = aggregate.rebuild(stores.results)
    row = table.set_index("id").loc["old"]
    assert row["protocol_status"] == protocol_status.UNKNOWN and pd.isna(row["protocol_card"])
    assert "Protocol unknown" in protocol_status.card_markdown(row.to_dict())


def test_every_row_is_shown_by_default_and_only_the_reference_is_ranked(results, demo_suite):
    suite, _ = demo_suite
    table = aggregate.build_table(list(results.values()))
    board = views.prepare(views.select_suite(table, suite.id))
    status = dict(zip(board["id"], board["protocol_status"]))
    assert status == {"base": "reference", "file": "declared", "f16": "differs", "algo": "differs",
                      "reading": "differs", "old": "unknown"}
    ranked = dict(zip(board["id"], board["rank"]))
    assert all(pd.isna(ranked[i]) for i in ("f16", "algo", "reading", "old"))  # never ranked
    assert all(not pd.isna(ranked[i]) for i in ("base", "file"))

    # the default: every row, the off-protocol ones marked in a Protocol column
    assert protocol_status.DEFAULT_FILTER == protocol_status.ALL_PROTOCOLS
    shown_all = views.filter_rows(views.leaderboard_table(board), views.Filters(protocols=protocol_status.DEFAULT_FILTER))
    assert len(shown_all) == 6
    columns = protocol_panel.columns_for(views.DEFAULT_COLUMNS, protocol_status.DEFAULT_FILTER, board)
    marked = dict(zip(shown_all["Model"], views.leaderboard_view(shown_all, columns)[views.PROTOCOL]))
    assert marked == {"Baseline: first-option": "✓ reference", "File Model": "reference (declared)",
                      "Sixteen Frames": "≠ frames", "Other Restart": "≠ scoring", "Algorithm Reading": "≠ scoring",
                      "Old Model": "? protocol unknown"}
    # the filter can keep the reference rows only; then no Protocol column is needed
    only = views.filter_rows(views.leaderboard_table(board), views.Filters(protocols=protocol_status.REFERENCE_ONLY))
    assert sorted(only["Model"]) == ["Baseline: first-option", "File Model"]
    assert views.PROTOCOL not in protocol_panel.columns_for(views.DEFAULT_COLUMNS, protocol_status.REFERENCE_ONLY, board)
    # a board whose rows are all at the reference shows no Protocol column by default
    clean = board[board["protocol_status"].isin(protocol_status.RANKED_STATUSES)]
    assert views.PROTOCOL not in protocol_panel.columns_for(views.DEFAULT_COLUMNS, protocol_status.DEFAULT_FILTER, clean)


def test_papers_rows_are_their_own_protocol(results):
    official = "official-v1-0123456789ab"
    copy = results["baseline"].model_copy(update={"suite_id": official})
    board = views.prepare(views.select_suite(aggregate.build_table([copy]), official))
    papers = board[board["source"] == "reported"]
    assert len(papers) and set(papers["protocol_status"]) == {protocol_status.PAPER}
    kept = views.filter_rows(board, views.Filters(protocols=protocol_status.REFERENCE_ONLY))
    assert set(kept["id"]) == set(board["id"])  # papers' rows stay on the default page (never ranked)
    assert "Paper's own protocol" in protocol_status.card_for(board, papers.iloc[0]["id"])


def test_a_click_on_a_table_row_finds_its_card(results, demo_suite):
    suite, _ = demo_suite
    board = views.prepare(views.select_suite(aggregate.build_table(list(results.values())), suite.id))
    shown = views.leaderboard_view(views.leaderboard_table(board))
    for position in range(len(shown)):
        row_value = list(shown.iloc[position])
        found = protocol_panel.clicked_id(board, row_value)
        assert board.set_index("id").loc[found, "model_text"] == row_value[views.ALWAYS_SHOWN.index(views.MODEL)]
    assert protocol_panel.clicked_id(board, ["1", "1", "No Such Model", "✓ verified"]) is None
    options = dict((v, k) for k, v in protocol_status.card_options(board))
    assert options["f16"].endswith("≠ frames")


def test_a_model_name_cannot_inject_markup_into_its_card(results):
    row = aggregate.result_row(results["file"]) | {"model": "Evil [click](https://x.test) <img src=x>"}
    shown = protocol_status.card_markdown(row)
    assert "<img" not in shown and "](" not in shown and "Evil" in shown


def test_the_card_picker_offers_a_bounded_number_of_rows_plus_the_clicked_one(results, demo_suite):
    suite, _ = demo_suite
    many = [results["baseline"].model_copy(update={"submission": {**results["baseline"].submission, "id": f"r{i:04d}",
                                                                  "model": f"Model {i}"}})
            for i in range(protocol_status.PICKER_ROWS + 20)]
    board = views.prepare(views.select_suite(aggregate.build_table(many), suite.id))
    assert len(protocol_status.card_options(board)) == protocol_status.PICKER_ROWS
    last = str(board.iloc[-1]["id"])
    offered = [value for _, value in protocol_status.card_options(board, last)]
    assert len(offered) == protocol_status.PICKER_ROWS + 1 and offered[-1] == last


def test_the_worker_defaults_are_the_reference_protocol():
    from evaluator.runners import model
    from space_config.settings import WorkerSettings

    assert model.RunnerSettings().benchmark_resize  # the papers' own sizes are on by default
    assert model.RunnerSettings().max_new_tokens is None  # no cap: each protocol's token budget
    assert WorkerSettings().max_new_tokens is None and WorkerSettings().resize_max_side is None
