"""Protocol cards (evaluator/protocol.py, leaderboard/protocol_card.py): what every result
records about how its numbers were produced, how it compares with the suite's reference
protocol, and what the leaderboard ranks by default.

A model-id request runs a real tiny VLM through the worker on the demo suite (CPU), and
its published card must hold every field; prediction files, baselines, other scoring
options and results written before cards are scored or read for real."""

from __future__ import annotations

import dataclasses
import json

import av
import pandas as pd
import pytest
import transformers

from evaluator import CODE_VERSION, prompts
from evaluator.baselines import predictions
from evaluator.judges import get_judge
from evaluator.predictions import as_responses
from evaluator.protocol import REFERENCE_FIELDS, ProtocolCard, deviations, model_card, reference_for
from evaluator.records import ScoringOptions
from evaluator.result import Result
from evaluator.scoring import make_result, score_responses
from leaderboard import aggregate, protocol_card, views
from leaderboard.tabs import protocol as protocol_tab

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

    published = json.loads(stores.results.read(f"{request.id}.json").data)  # the public result file
    card = ProtocolCard.model_validate(published["protocol"])
    for name in CARD_FIELDS:
        assert getattr(card, name) not in (None, "", {}), f"the card's {name} is empty"
    suite = load_suite(stores.suite.local_folder(suite_id))
    benchmarks = set(suite.manifest["benchmarks"])
    assert card.source == "model-run" and card.verified and card.suite_id == suite_id
    assert card.code_version == CODE_VERSION and card.schema_version == 1
    assert card.frames["exact"] == 2 and card.frames["videommmu_question_only"] == 1  # the override, per budget
    assert "re-planned: 2 uniform frames" in card.frame_sampling
    assert set(card.frame_times_sha256) == set(card.prompts_sha256) == benchmarks
    assert set(card.prompt_templates) == {f"{b}.{t}" for b in benchmarks for t in prompts.templates(b)}
    assert card.resolution == "native size; expvid: square 224x224"
    assert card.decoder.startswith(f"PyAV {av.__version__} (libavcodec ")
    assert (card.backend, card.backend_version, card.dtype) == ("transformers", transformers.__version__, "float32")
    assert card.generation == {"decoding": "greedy", "max_new_tokens": 3, "thinking": False,
                              "enable_thinking": None}  # transformers: the chat template is told nothing
    assert card.judge == {"id": "normalized-match@2", "kind": "normalized-match", "revision": "2"}
    assert card.scoring == dataclasses.asdict(ScoringOptions())

    # 2 frames a call instead of the suite's budgets (which also rewrites the prompts' frame
    # times) and 3 new tokens: three score-changing differences from the suite's reference
    reference = reference_for(suite)
    assert all(card.frame_times_sha256[b] != reference["frame_times_sha256"][b] for b in ("exact", "expvid"))
    assert card.deviations == ["frames", "prompts", "generation"]

    row = aggregate.load_table(stores.results).set_index("id").loc[request.id]
    assert row["protocol_status"] == protocol_card.DIFFERS and row["protocol_hash"] == card.hash
    assert row["protocol_deviations"] == "frames, prompts, generation"
    shown = protocol_card.card_markdown(row.to_dict() | {"id": request.id})
    for value in (card.decoder, transformers.__version__, "float32", card.hash, "normalized-match@2",
                  "Differs from the suite's reference protocol in: frames, prompts, generation"):
        assert value in shown
    log = stores.private.read(f"logs/{request.id}.log").data.decode()
    assert f"protocol {card.hash}: differs from the suite's reference in frames, prompts, generation" in log


def test_a_run_with_the_reference_settings_has_no_deviation(demo_suite):
    """The same card builder, given the settings a worker at its defaults records."""
    suite, _ = demo_suite
    settings = {"backend": {"backend": "vllm"}, "dtype": "bfloat16", "max_new_tokens": 1024, "decoding": "greedy",
                "resize": "native size", "benchmark_resize": {"expvid": "square 224x224"},
                "frame_budgets": suite.manifest["frame_budgets"], "thinking": False,
                "frame_decoder": {"decoder": "PyAV 1 (libavcodec 2): seek..."}}
    request = type("R", (), {"frames": None})()
    card = model_card(suite, request, "vllm", settings, get_judge("normalized-match"), ScoringOptions())
    assert card.deviations == [] and protocol_card.status_of(card) == protocol_card.REFERENCE
    # a thinking run's reference budget is 4,096 tokens: 1,024 there is a difference
    thinking = model_card(suite, request, "vllm", settings | {"thinking": True}, get_judge("normalized-match"),
                          ScoringOptions())
    assert thinking.deviations == ["generation"] and thinking.hash != card.hash
    # the frame override re-plans the calls: the frame-times hash moves
    eight = model_card(suite, type("R", (), {"frames": 8})(), "vllm", settings, get_judge("normalized-match"),
                       ScoringOptions())
    assert "frames" in eight.deviations
    # the dtype is the model's own choice, recorded but not a difference
    assert model_card(suite, request, "vllm", settings | {"dtype": "float16"}, get_judge("normalized-match"),
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
                        options=ScoringOptions(causalstep_restart="algo")),
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
    assert protocol_card.status_of(card) == protocol_card.DECLARED
    shown = protocol_card.card_markdown(aggregate.result_row(results["file"]))
    assert "declared, not verified" in shown and "not stated (prediction file)" in shown
    # a declared frame count the call list does not have is a difference
    assert results["declared16"].protocol.deviations == ["frames"]
    assert results["algo"].protocol.deviations == ["scoring"]
    assert results["baseline"].protocol.verified and results["baseline"].protocol.deviations == []


def test_deviations_compare_only_the_score_changing_fields(results, demo_suite):
    suite, _ = demo_suite
    card = results["file"].protocol.model_copy(deep=True)
    reference = reference_for(suite)
    card.code_version, card.prompt_templates = "9.9", {}
    assert deviations(card, reference) == []  # recorded, but not part of the protocol
    card.resolution = "longer side at most 448 px"
    card.generation = {"decoding": "sampling", "max_new_tokens": 1024}
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
    assert row["protocol_status"] == protocol_card.UNKNOWN and pd.isna(row["protocol_card"])
    assert "Protocol unknown" in protocol_card.card_markdown(row.to_dict())


def test_the_default_ranking_keeps_only_the_reference_and_a_filter_shows_the_rest(results, demo_suite):
    suite, _ = demo_suite
    table = aggregate.build_table(list(results.values()))
    board = views.prepare(views.select_suite(table, suite.id))
    status = dict(zip(board["id"], board["protocol_status"]))
    assert status == {"base": "reference", "file": "declared", "f16": "differs", "algo": "differs", "old": "unknown"}
    ranked = dict(zip(board["id"], board["rank"]))
    assert all(pd.isna(ranked[i]) for i in ("f16", "algo", "old"))  # never ranked
    assert all(not pd.isna(ranked[i]) for i in ("base", "file"))

    default = views.filter_rows(views.leaderboard_table(board), views.Filters(protocols=protocol_card.REFERENCE_ONLY))
    assert sorted(default["Model"]) == ["Baseline: first-option", "File Model"]
    shown_all = views.filter_rows(views.leaderboard_table(board), views.Filters(protocols=protocol_card.ALL_PROTOCOLS))
    assert len(shown_all) == 5
    columns = protocol_tab.columns_for(views.DEFAULT_COLUMNS, protocol_card.ALL_PROTOCOLS)
    marked = dict(zip(shown_all["Model"], views.leaderboard_view(shown_all, columns)[views.PROTOCOL]))
    assert marked == {"Baseline: first-option": "✓ reference", "File Model": "reference (declared)",
                      "Sixteen Frames": "≠ frames", "Other Restart": "≠ scoring", "Old Model": "? protocol unknown"}
    assert views.PROTOCOL not in protocol_tab.columns_for(views.DEFAULT_COLUMNS, protocol_card.REFERENCE_ONLY)


def test_papers_rows_are_their_own_protocol(results):
    official = "official-v1-0123456789ab"
    copy = results["baseline"].model_copy(update={"suite_id": official})
    board = views.prepare(views.select_suite(aggregate.build_table([copy]), official))
    papers = board[board["source"] == "reported"]
    assert len(papers) and set(papers["protocol_status"]) == {protocol_card.PAPER}
    kept = views.filter_rows(board, views.Filters(protocols=protocol_card.REFERENCE_ONLY))
    assert set(kept["id"]) == set(board["id"])  # papers' rows stay on the default page (never ranked)
    assert "Paper's own protocol" in protocol_card.card_for(board, papers.iloc[0]["id"])


def test_a_click_on_a_table_row_finds_its_card(results, demo_suite):
    suite, _ = demo_suite
    board = views.prepare(views.select_suite(aggregate.build_table(list(results.values())), suite.id))
    shown = views.leaderboard_view(views.leaderboard_table(board))
    for position in range(len(shown)):
        row_value = list(shown.iloc[position])
        found = protocol_tab.clicked_id(board, row_value)
        assert board.set_index("id").loc[found, "model_text"] == row_value[views.ALWAYS_SHOWN.index(views.MODEL)]
    assert protocol_tab.clicked_id(board, ["1", "1", "No Such Model", "✓ verified"]) is None
    options = dict((v, k) for k, v in protocol_card.card_options(board))
    assert options["f16"].endswith("≠ frames")


def test_a_model_name_cannot_inject_markup_into_its_card(results):
    row = aggregate.result_row(results["file"]) | {"model": "Evil [click](https://x.test) <img src=x>"}
    shown = protocol_card.card_markdown(row)
    assert "<img" not in shown and "](" not in shown and "Evil" in shown


def test_the_card_picker_offers_a_bounded_number_of_rows_plus_the_clicked_one(results, demo_suite):
    suite, _ = demo_suite
    many = [results["baseline"].model_copy(update={"submission": {**results["baseline"].submission, "id": f"r{i:04d}",
                                                                  "model": f"Model {i}"}})
            for i in range(protocol_card.PICKER_ROWS + 20)]
    board = views.prepare(views.select_suite(aggregate.build_table(many), suite.id))
    assert len(protocol_card.card_options(board)) == protocol_card.PICKER_ROWS
    last = str(board.iloc[-1]["id"])
    offered = [value for _, value in protocol_card.card_options(board, last)]
    assert len(offered) == protocol_card.PICKER_ROWS + 1 and offered[-1] == last


def test_the_reference_runner_settings_are_the_workers_defaults():
    from evaluator import protocol
    from evaluator.runners import model

    assert protocol.REFERENCE_SQUARE == model.BENCHMARK_SQUARE
    assert protocol.REFERENCE_MAX_NEW_TOKENS == model.DEFAULT_MAX_NEW_TOKENS
    assert protocol.REFERENCE_MAX_NEW_TOKENS_THINKING == model.DEFAULT_MAX_NEW_TOKENS_THINKING
    assert model.RunnerSettings().benchmark_resize  # the papers' sizes are on by default
