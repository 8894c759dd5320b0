"""The site's callbacks (leaderboard/ui.py Handlers), called directly against a real
local deployment built by worker.suites.first_start in a temporary folder: the
demo suite published, the baselines scored, a real worker finishing submissions."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

import gradio as gr
import pandas as pd
import pytest
from apscheduler.events import EVENT_JOB_ERROR, EVENT_JOB_EXECUTED
from site_server import wait_until
from test_validation import FakeHub, model_payload

from evaluator.baselines import predictions
from worker.loop import Worker, start_in_process, wake
from results import aggregate
from leaderboard import views
from leaderboard.source import TableSource
from leaderboard.ui import Handlers, build_ui, current_user
from leaderboard.tabs.submit import budget_keys
from space_config.settings import Quotas, get_settings
from submissions.errors import TransientStoreError
from submissions.queue import Queue
from submissions.requests import Reason, Status
from submissions.stores import Stores
from submissions.submit import read_calls
from worker.suites import first_start

DEV_USER = "dev-user"
ALL_FILTERS = (list(views.TYPES), list(views.SIZES), list(views.SOURCES), [], [])


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("site") / "home"
    first_start(Stores.local(home))
    return home


@pytest.fixture(scope="module")
def settings(home):
    base = get_settings()
    return dataclasses.replace(base, home=home, store="local", suite="demo", dev_user=DEV_USER, bootstrap_samples=50,
                               quotas=Quotas(per_user=100, per_org=100, pending_per_user=100),
                               worker=dataclasses.replace(base.worker, poll_seconds=3600.0))


@pytest.fixture(scope="module")
def stores(home):
    return Stores.local(home)


@pytest.fixture(scope="module")
def source(stores, settings):
    return TableSource(stores, settings, min_interval=0)


@pytest.fixture(scope="module")
def hub():
    fake = FakeHub()
    fake.add(model_payload("acme/vid-7b"))
    return fake


@pytest.fixture(scope="module")
def handlers(stores, settings, source, hub):
    return Handlers(stores, settings, source, hub=hub)


@pytest.fixture(scope="module")
def suite_id(handlers):
    return handlers.configured_suite()


@pytest.fixture(scope="module")
def calls(stores, suite_id):
    return read_calls(stores.suite, suite_id)


class Profile:
    """What gradio injects for a user signed in with Hugging Face."""

    def __init__(self, username: str):
        self.username = username


def write_file(path: Path, records: list) -> str:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return str(path)


def baseline_file(path: Path, calls: dict, name: str, seed: int) -> str:
    """A complete prediction file for the demo suite (a different one per seed)."""
    records = [{"id": p.id, "response": p.response, **({"context": p.context} if p.context else {})}
               for p in predictions(name, list(calls.values()), seed=seed)]
    return write_file(path, records)


def leaderboard(handlers, suite_id, search="") -> pd.DataFrame:
    return handlers.leaderboard(suite_id, search, *ALL_FILTERS, list(views.DEFAULT_COLUMNS))


# -- signing in ------------------------------------------------------------------------------------------

def test_the_user_comes_from_the_login_else_the_dev_setting(settings):
    assert current_user(Profile("alice"), settings) == "alice"
    assert current_user({"preferred_username": "carol"}, settings) == "carol"
    assert current_user(None, settings) == DEV_USER
    assert current_user(None, dataclasses.replace(settings, dev_user=None)) is None


def test_nobody_signed_in_cannot_submit(stores, settings, source, tmp_path, calls):
    anonymous = Handlers(stores, settings=dataclasses.replace(settings, dev_user=None), source=source)
    before = len(Queue(stores.requests).all())
    message, quota = anonymous.submit_file(baseline_file(tmp_path / "p.jsonl", calls, "random", 901), "m", "", "",
                                           "", False, None, None)
    assert message.startswith("❌") and "Sign in with Hugging Face" in message
    assert "Sign in" in quota
    assert len(Queue(stores.requests).all()) == before
    assert "Not signed in" in anonymous.signed_in(None)


# -- the upload is checked at once ------------------------------------------------------------------------------

def test_a_bad_upload_is_refused_with_every_problem_by_line(handlers, tmp_path, calls, stores):
    first = next(iter(calls))
    path = write_file(tmp_path / "bad.jsonl", [
        {"id": first, "response": "A"},
        "{not json",
        {"id": "no-such-call", "response": "B"},
        {"id": first, "response": "C"},
        {"id": first.replace("/", "//"), "response": 7},
    ])
    message = handlers.check_file(path)
    assert message.startswith("❌") and "bad.jsonl" in message
    for line in ("line 2", "line 3", "line 4", "line 5"):
        assert line in message
    assert "line 1:" not in message
    assert not stores.private.list("predictions")  # checking stores nothing


def test_a_good_upload_says_how_many_predictions_it_holds(handlers, tmp_path, calls, suite_id):
    path = baseline_file(tmp_path / "good.jsonl", calls, "first-option", 1)
    lines = len(Path(path).read_text().splitlines())
    message = handlers.check_file(path)
    assert message.startswith(f"✅ {lines} predictions for {len(calls)} of the {len(calls)} calls of suite "
                              f"`{suite_id}`; ready to submit.")
    records = [json.loads(line) for line in Path(path).read_text().splitlines()]
    in_context = [r["id"] for r in records if "context" in r]
    if in_context:  # more predictions than calls: the message says where the extra ones come from
        assert (f" Of them, {len(in_context)} answer CausalStep's {len(set(in_context))} calls that follow an "
                "earlier step, once for each answer your model gave") in message
    else:
        assert lines == len(calls) and message.endswith("ready to submit.")


def test_the_frames_note_names_the_budgets_in_words(handlers, suite_id):
    budgets = handlers.frames_off("8", suite_id)
    assert budgets, "the demo suite's protocol gives each benchmark its paper's frames, none of them 8"
    note = handlers.frames_note("8", suite_id)
    assert "outside this suite's reference protocol" in note and "ExpVid level 3" in note
    assert not any(key in note for key in budgets if "_" in key)  # no internal key ("expvid_level3")


def test_a_partial_upload_says_what_will_score_as_unanswered(handlers, tmp_path, calls):
    some = list(calls)[:5]
    message = handlers.check_file(write_file(tmp_path / "some.jsonl", [{"id": c, "response": "A"} for c in some]))
    assert message.startswith(f"✅ 5 predictions for 5 of the {len(calls)} calls")
    # what the missing calls do, per benchmark: wrong where the benchmark was answered in part, no score where
    # it was not answered at all (so no Average)
    first = {calls[c].benchmark for c in some}
    assert len(first) == 1, first  # the call list starts with one benchmark
    name = views.TITLES[first.pop()]
    left = sum(call.benchmark in {calls[c].benchmark for c in some} for call in calls.values()) - 5
    assert (f"⚠️ {left} calls have no prediction in benchmarks you answered ({name} {left}): each counts as wrong"
            in message)
    others = [views.TITLES[b] for b in dict.fromkeys(call.benchmark for call in calls.values())
              if views.TITLES[b] != name]
    assert f"No prediction at all in {', '.join(others)}: no score there, so the row has no Average" in message
    full = Path(baseline_file(tmp_path / "full.jsonl", calls, "first-option", 1)).read_text().splitlines()
    dropped = next(i for i, line in enumerate(full) if not json.loads(line)["id"].startswith("causalstep"))
    one = tmp_path / "one.jsonl"
    one.write_text("\n".join(full[:dropped] + full[dropped + 1:]) + "\n")
    one_missing = handlers.check_file(str(one))
    assert "⚠️ 1 call has no prediction in benchmarks you answered" in one_missing
    assert "No prediction at all" not in one_missing
    assert handlers.check_file(None) == ""


# -- submitting --------------------------------------------------------------------------------------------------

def test_a_submission_is_queued_for_the_signed_in_user_only(handlers, stores, tmp_path, calls, suite_id):
    path = baseline_file(tmp_path / "mine.jsonl", calls, "random", 11)
    # The display name reads like another user: it is only a name. The submitter is the login.
    message, quota = handlers.submit_file(path, "submitter: mallory", "7.5", "open", "32", True, None, None)
    assert message.startswith("✅ Submitted"), message
    request_id = message.split("`")[1]
    request = Queue(stores.requests).get(request_id)
    assert request.status == Status.PENDING and request.submitter == DEV_USER
    assert request.suite_id == suite_id and request.model == "submitter: mallory"
    assert request.metadata == {"file_name": "mine.jsonl", "params": "7.5", "open": "yes", "frames": "32",
                                "thinking": "true"}
    assert stores.private.read(request.predictions_path).data == Path(path).read_bytes()
    assert "left in the rolling" in quota

    message, _ = handlers.submit_file(baseline_file(tmp_path / "hers.jsonl", calls, "random", 12), "hers", "",
                                      "not stated", "", False, None, Profile("alice"))
    assert Queue(stores.requests).get(message.split("`")[1]).submitter == "alice"  # the OAuth login wins


def test_the_same_file_twice_is_refused_as_a_duplicate(handlers, tmp_path, calls):
    path = baseline_file(tmp_path / "twice.jsonl", calls, "random", 13)
    assert handlers.submit_file(path, "once", "", "", "", False, None, None)[0].startswith("✅")
    again, _ = handlers.submit_file(path, "again", "", "", "", False, None, None)
    assert again.startswith("❌") and "already submitted" in again


@pytest.mark.parametrize("params, frames, field", [("seven", "", "Parameters"), ("-3", "", "Parameters"),
                                                   ("", "2.5", "Frames"), ("", "0", "Frames")])
def test_bad_form_numbers_are_named(handlers, tmp_path, calls, params, frames, field):
    path = baseline_file(tmp_path / "numbers.jsonl", calls, "random", 14)
    message, _ = handlers.submit_file(path, "numbers", params, "", frames, False, None, None)
    assert message.startswith("❌") and field in message


def budget_fields(**values) -> list[str]:
    """The Hub-model form's frame-budget fields, in the order the tab shows them."""
    return [str(values.get(key, "")) for key in budget_keys()]


def test_a_hub_model_is_queued_pinned_to_its_commit(handlers, stores):
    message, _ = handlers.submit_model("acme/vid-7b", "", "bfloat16", True, None, None, *budget_fields(videommmu=16))
    assert message.startswith("✅"), message
    request = Queue(stores.requests).get(message.split("`")[1])
    assert (request.kind, request.submitter, request.revision) == ("model", DEV_USER, model_payload()["sha"])
    assert (request.frames, request.thinking, request.precision) == (None, True, "bfloat16")
    # the declared budget, and the paper's default for the budgets left blank (a model no paper ran)
    assert request.frame_budgets == {"expvid_level3": 128, "videommmu": 16, "videosimpleqa": 32}
    assert request.frame_budget_notes["videommmu"] == "declared by the model's author"
    assert request.frame_budget_notes["videosimpleqa"] == "the default for a model the paper did not run"
    refused, _ = handlers.submit_model("acme/no-such-model", "main", "bfloat16", False, None, None, *budget_fields())
    assert refused.startswith("❌") and "No model 'acme/no-such-model'" in refused


def test_a_frame_budget_outside_the_papers_range_is_refused_with_the_range(handlers, stores):
    before = len(Queue(stores.requests).all())
    message, _ = handlers.submit_model("acme/vid-7b", "", "bfloat16", False, None, None, *budget_fields(videosimpleqa=64))
    assert message.startswith("❌") and "Video SimpleQA: 64 frames is outside the paper's range 2-32" in message
    typo, _ = handlers.submit_model("acme/vid-7b", "", "bfloat16", False, None, None, *budget_fields(videommmu="lots"))
    assert typo.startswith("❌") and "Video-MMMU lectures" in typo and "whole number" in typo
    assert len(Queue(stores.requests).all()) == before  # nothing queued, no quota spent


# -- from submission to leaderboard row -----------------------------------------------------------------------------

def test_the_worker_finishes_a_submission_and_the_site_shows_it(handlers, stores, settings, source, tmp_path, calls,
                                                               suite_id):
    path = baseline_file(tmp_path / "scored.jsonl", calls, "first-option", 21)
    message, _ = handlers.submit_file(path, "Scored Model", "", "", "", False, None, None)
    request_id = message.split("`")[1]
    generation = source.generation
    Worker(stores, settings).drain()  # earlier tests' submissions too, as the embedded worker would
    assert Queue(stores.requests).get(request_id).status == Status.FINISHED

    assert source.refresh() is True and source.generation > generation
    assert source.refresh() is False  # unchanged: not reloaded
    shown = leaderboard(handlers, suite_id, search="scored model")
    assert list(shown[views.MODEL]) == ["Scored Model"] and shown.iloc[0][views.SOURCE] == views.VERIFIED_FILE
    assert handlers.updated_text().startswith("Results last updated: **20")

    pending, _running, finished, _failed = handlers.queue_tables()
    assert request_id in set(finished["Submission"]) and request_id not in set(pending["Submission"])
    mine = handlers.my_submissions(None).set_index("Submission")
    assert mine.loc[request_id, "Status"] == "FINISHED"
    assert handlers.my_log(None, request_id).endswith(" finished")  # the log opens on demand
    assert request_id in handlers.log_picker(None, None).choices[0]
    theirs = handlers.my_submissions(Profile("someone-else"))
    assert request_id not in set(theirs["Submission"]) and "finished" not in theirs.to_csv()
    assert handlers.my_log(Profile("someone-else"), request_id) == ""  # never someone else's log


def test_a_failure_stays_in_the_queue_with_its_reason(handlers, stores, settings, tmp_path, calls):
    message, _ = handlers.submit_file(baseline_file(tmp_path / "lost.jsonl", calls, "random", 31), "Lost File", "",
                                      "", "", False, None, None)
    request = Queue(stores.requests).get(message.split("`")[1])
    stores.private.delete(request.predictions_path)  # the upload vanished: the worker cannot download it
    Worker(stores, settings).drain()
    failed = handlers.queue_tables()[3].set_index("Submission")
    assert failed.loc[request.id, "Reason"] == Reason.DOWNLOAD.value
    assert "could not download your uploaded prediction file" in failed.loc[request.id, "Message"]
    mine = handlers.my_submissions(None).set_index("Submission")
    assert mine.loc[request.id, "Reason"] == "download" and "FAILED download" in handlers.my_log(None, request.id)


def test_the_embedded_worker_is_woken_by_a_submission(stores, settings, source, tmp_path, calls):
    # It polls hourly: only the wake that follows the submission can get it scored in time.
    scheduler = start_in_process(stores, settings)
    try:
        polled = threading.Event()
        scheduler.add_listener(lambda event: polled.set(), EVENT_JOB_EXECUTED | EVENT_JOB_ERROR)
        wake(scheduler)  # one poll we know ends after the listener is in place: the worker is idle after it
        assert polled.wait(timeout=120), "the embedded worker never polled"
        awake = Handlers(stores, settings, source, lambda: wake(scheduler))
        message, _ = awake.submit_file(baseline_file(tmp_path / "woken.jsonl", calls, "random", 41), "Woken", "", "",
                                       "", False, None, None)
        request_id = message.split("`")[1]
        wait_until("the woken worker to finish the submission",
                   lambda: Queue(stores.requests).get(request_id).status == Status.FINISHED, timeout=120)
    finally:
        scheduler.shutdown(wait=True)
    assert source.refresh() is True
    assert "Woken" in set(awake.leaderboard(awake.configured_suite(), "woken", *ALL_FILTERS, [])[views.MODEL])


# -- the other tabs' callbacks ----------------------------------------------------------------------------------------

def plotted(update: dict) -> pd.DataFrame:
    """The rows a plot's update draws (the data of its Vega-Lite spec)."""
    return pd.DataFrame(json.loads(update["value"].plot)["data"]["values"])


def test_every_view_callback_answers_for_the_demo_suite(handlers, suite_id):
    tables = handlers.benchmarks(suite_id)
    assert len(tables) == 5 and all(len(t) >= 2 for t in tables)
    notes = handlers.benchmark_pages(suite_id)[5:]  # each table's ◐ note: every demo call answered, none shown
    assert len(notes) == 5 and all(n["visible"] is False for n in notes)
    assert set(handlers.by_level(suite_id).columns) >= set(views.LEVEL_ORDER)
    choose = handlers.breakdown_choice(views.DOMAIN_VIEWS)
    key, picker, rank, shown = choose(suite_id, "causalstep-category", None, None)
    assert key.value == "causalstep-category" and picker.value == "ws_norm" and len(shown) >= 2
    assert rank.value == views.OVERALL and shown.columns[3] == "CausalStep overall"
    key, picker, rank, shown = choose(suite_id, "exact-domain", "ws_norm", "Sports")
    assert picker.visible is False and "Sports" in shown.columns
    assert rank.value == "Sports" and shown.columns[3] == "Sports"  # ranked by Sports, shown first
    models, profile, no_profile, score, scatter, no_scatter = handlers.plots(suite_id, ["no-such-id"], "average")
    assert len(models.value) == min(5, len(handlers.board(suite_id)))  # a stale choice falls back to defaults
    assert profile["value"].chart == "line"  # drawn by a Vega-Lite spec (tests/leaderboard/test_plot_specs.py)
    profile = plotted(profile)
    assert set(profile["level"]) <= set(views.LEVEL_ORDER) and len(profile) > 0
    assert no_profile["visible"] is False
    # the placeholder stands in for an empty plot (the baselines state no size)
    assert no_scatter["visible"] is not scatter["visible"] and (scatter["value"] is None) is no_scatter["visible"]
    # paper rows have no average: the plot moves to a score that has points
    models, profile, no_profile, score, scatter, no_scatter = handlers.plots(views.REPORTED_SUITE, [], "average")
    assert score.value != "average" and scatter["visible"] is True and scatter["value"].chart == "scatter"
    assert len(plotted(scatter)) > 5 and {"model", "params_b", "score", "source"} <= set(plotted(scatter).columns)
    assert no_scatter["visible"] is False
    assert plotted(profile).groupby("model").size().min() >= 3  # defaults favour rows with several levels
    shown, placeholder = handlers.level_plot_shown(suite_id, ["no-such-id"])
    assert shown["visible"] is False and placeholder["visible"] is True and "no data yet" in placeholder["value"]


def test_the_paper_rows_are_offered_while_no_official_suite_exists(handlers):
    options = handlers.suite_options()
    # the first page shows real models: the papers' rows, with the demo suite one click away
    assert options[0] == views.REPORTED_SUITE and handlers.default_suite(options) == views.REPORTED_SUITE
    assert handlers.configured_suite() in options
    shown = leaderboard(handlers, views.REPORTED_SUITE)
    assert len(shown) > 50 and shown[views.SOURCE].str.match(r"📄 .+ paper$").all()


def test_a_papers_row_without_an_overall_is_named_under_the_table_not_dropped_unsaid(handlers):
    # ExpVid's human row: levels 1 and 2 only, so no overall; the table would show it blank
    def page(search: str) -> tuple[pd.DataFrame, str]:
        shaped, text, _ = handlers.leaderboard_page(views.REPORTED_SUITE, search, *ALL_FILTERS,
                                                    list(views.DEFAULT_COLUMNS), None, 1)
        return pd.DataFrame(shaped["value"]["data"], columns=shaped["value"]["headers"]), text

    every = len(views.prepare(views.select_suite(handlers.source.snapshot()[1], views.REPORTED_SUITE)))
    shown, text = page("")
    unlisted = "Not listed: Human Performance (ExpVid paper), as its paper gives parts of the score only"
    assert f"Rows 1-{every - 1} of {every - 1} · {unlisted}" in text and "Benchmarks tab" in text
    assert not shown[views.MODEL].str.contains("Human Performance").any()
    assert page("human performance")[1].startswith(f"No rows match. {unlisted}")
    shown, text = page("qwen")  # a search that does not match it says nothing of it
    assert len(shown) and "Not listed" not in text
    _, text, _ = handlers.leaderboard_page(views.REPORTED_SUITE, "", ("open", "closed"), *ALL_FILTERS[1:],
                                        list(views.DEFAULT_COLUMNS), None, 1)
    assert "Not listed" not in text  # nor a filter that leaves human rows out


def test_a_failing_view_keeps_the_page_alive(handlers, suite_id, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(views, "leaderboard_view", broken)
    assert handlers.leaderboard(suite_id, "", *ALL_FILTERS, []) == gr.skip()


def test_the_call_list_download_is_the_suites_with_its_video_files(handlers, stores, suite_id, home, tmp_path):
    folder = home / "suite" / suite_id  # the local suite store's copy of the suite's public folder
    assert (folder / "calls.jsonl").is_file()
    path = Path(handlers.calls_file())
    assert path.name == f"calls-{suite_id}.jsonl"
    downloaded = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    published = [json.loads(line) for line in stores.suite.read(f"{suite_id}/calls.jsonl").data.decode().splitlines()]
    assert [c["id"] for c in downloaded] == [c["id"] for c in published]
    # every frame plan names a file that exists in the suite's public folder
    plans = [plan for call in downloaded for plan in call["frames"]]
    assert plans and all((folder / plan["file"]).is_file() for plan in plans)
    # and the download is what `python -m evaluator template` writes
    template = tmp_path / "template.jsonl"
    done = subprocess.run([sys.executable, "-m", "evaluator", "template", "--suite", str(folder),
                           "--out", str(template)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert path.read_bytes() == template.read_bytes()


def test_the_timer_reports_generation_and_queue_changes(handlers, source, tmp_path, calls):
    text, generation, signature = handlers.tick()
    assert generation == source.generation and text.startswith("Results last updated")
    assert handlers.tick()[2] == signature
    handlers.submit_file(baseline_file(tmp_path / "tick.jsonl", calls, "random", 51), "Tick", "", "", "", False,
                         None, None)
    assert handlers.tick()[2] != signature


def test_the_queue_signature_goes_only_to_a_tab_that_shows_the_queue(handlers):
    """On another tab a change of the signature would refill the Queue tab's tables unseen: the
    timer skips it there, and opening a tab that shows the queue sends it (its change fills the tab)."""
    signature = handlers.queue_signature()
    assert handlers.tick("models")[2] == gr.skip() and handlers.tick("leaderboard")[2] == gr.skip()
    assert handlers.tick("queue")[2] == signature and handlers.tick("submit")[2] == signature
    assert handlers.tab_opened("models") == "models"  # one output: the value itself, never a 1-tuple
    opened, sent = handlers.tab_opened("queue")
    assert opened == "queue" and sent == signature


def test_a_frame_is_shaped_once_and_an_equal_frame_alike():
    """Views are cached per table generation, so every visitor is sent the same frame: its value
    form is made once (each call still gets its own update, which gradio takes apart)."""
    from leaderboard.tabs.common import table

    frame = pd.DataFrame({"Model": ["a", "b"], "Score": [61.2, None]})
    one, two = table(frame), table(frame)
    assert one["value"] is two["value"] and one is not two and one["datatype"] == ["str", "number"]
    assert one["value"]["headers"] == ["Model", "Score"] and one["value"]["data"][0] == ["a", 61.2]
    again = table(frame.copy())
    assert again["value"] is not one["value"] and again["value"]["data"][0] == one["value"]["data"][0]


def test_build_ui_builds_the_tabs_with_stable_ids(stores, settings, source):
    demo = build_ui(stores, settings, source)
    ids = {getattr(block, "elem_id", None) for block in demo.blocks.values()}
    assert {"leaderboard-table", "search", "suite-select", "filter-source", "filter-type", "filter-size",
            "filter-frames", "submit-file", "submit-button", "submit-status", "queue-table", "queue-failed",
            "my-submissions", "last-updated", "download-calls", "quota", "signed-in"} <= ids
    assert {f"bench-{b}" for b in views.BENCHMARKS} <= ids


# -- the table source -----------------------------------------------------------------------------------------------

class RemoteLike:
    """A results store that is not a local folder (as the Hub store is): reads only."""

    def __init__(self, inner, fail: bool = False):
        self.inner_store, self.name, self.fail, self.reads = inner, inner.name, fail, 0

    def read(self, path):
        self.reads += 1
        if self.fail:
            raise TransientStoreError("the Hub answered 503")
        return self.inner_store.read(path)


def test_a_remote_table_is_reloaded_only_when_its_bytes_change(stores, settings, home):
    remote = RemoteLike(stores.results)
    source = TableSource(dataclasses.replace(stores, results=remote), settings, min_interval=0)
    first = source.generation
    assert len(source.frame) >= 2 and source.updated_at is not None
    assert source.refresh() is False and source.generation == first and remote.reads == 2
    table = home / "results" / "leaderboard.parquet"
    table.write_bytes(table.read_bytes())  # rewritten with the same bytes: nothing to reload
    assert source.refresh() is False
    shown = len(source.frame)
    extra = aggregate.read_results(stores.results)[0]
    extra = extra.model_copy(update={"submission": {**extra.submission, "id": "extra-row", "model": "Extra"}})
    aggregate.upsert(stores.results, extra)  # what the worker does after scoring
    assert source.refresh() is True and source.generation == first + 1
    assert len(source.frame) == shown + 1 and "extra-row" in set(source.frame["id"])


def test_an_unreachable_store_keeps_the_last_table_and_says_so(stores, settings):
    remote = RemoteLike(stores.results)
    source = TableSource(dataclasses.replace(stores, results=remote), settings, min_interval=0)
    shown = len(source.frame)
    remote.fail = True
    assert source.refresh() is False and len(source.frame) == shown
    assert "503" in source.error
    text = Handlers(stores, settings, source).updated_text()
    assert "could not be reached" in text
    remote.fail = False
    source.refresh()
    assert source.error is None


def test_checks_are_shared_between_pages(stores, settings):
    remote = RemoteLike(stores.results)
    source = TableSource(dataclasses.replace(stores, results=remote), settings, min_interval=3600)
    reads = remote.reads
    for _ in range(5):
        source.refresh()  # five pages ticking: one look at the store per interval
    assert remote.reads == reads
    source.refresh(force=True)
    assert remote.reads == reads + 1


def test_the_about_tab_states_the_bucket_minimum_and_why(stores, settings, source):
    demo = build_ui(stores, dataclasses.replace(settings, min_bucket_items=7), source)
    texts = {block.elem_id: block.value for block in demo.blocks.values() if isinstance(block, gr.Markdown)}
    assert "fewer than **7** items" in texts["about-buckets"] and "n too small" in texts["about-buckets"]
    assert "one answer was right" in texts["about-buckets"]
    protocol = texts["about-protocol"]
    assert "LEADERBOARD_MIN_BUCKET_ITEMS" in protocol and "use every item" in protocol


def test_the_about_tab_is_an_overview_and_one_sub_tab_a_page(stores, settings, source):
    from leaderboard.tabs import about

    demo = build_ui(stores, settings, source)
    pages = {b.label: [c.elem_id for c in b.children] for b in demo.blocks.values()
             if isinstance(b, gr.Tab) and (b.elem_id or "").startswith("about-page-")}
    assert pages == {"Overview": ["about-overview"], "Protocol": ["about-protocol"],
                     "Judges": ["about-judge", "about-judges"], "Hidden answers": ["about-hidden", "about-buckets"],
                     "Comparing rows": ["about-compare"], "Exports": ["about-exports"],
                     "No-video & cost": ["about-no-video-cost"], "FAQ": ["about-faq"]}
    texts = {block.elem_id: block.value for block in demo.blocks.values() if isinstance(block, gr.Markdown)}
    assert all(f"**{label}**" in texts["about-overview"] for label in pages if label != "Overview")
    # the protocol page opens with links to its sections; the text itself is the file's, whole
    assert "- [Everywhere](#h-everywhere)" in texts["about-protocol"]
    assert "- [Each benchmark's reference protocol](#h-each-benchmarks-reference-protocol)" in texts["about-protocol"]
    assert all(line in texts["about-protocol"] for line in about.PROTOCOL_PATH.read_text().splitlines())


def test_the_about_tab_shows_the_judges_and_the_judges_page(stores, settings, source):
    judges = dataclasses.replace(settings.judges, by_benchmark={"videosimpleqa": "hf:Qwen/Qwen2.5-72B-Instruct"})
    demo = build_ui(stores, dataclasses.replace(settings, judges=judges), source)
    texts = {block.elem_id: block.value for block in demo.blocks.values() if isinstance(block, gr.Markdown)}
    assert "`hf:Qwen/Qwen2.5-72B-Instruct`, an LLM served by Hugging Face Inference Providers" in texts["about-judge"]
    assert "kappa" in texts["about-judge"]
    assert "How free-text answers are judged" in texts["about-judges"] and "LEADERBOARD_JUDGE_FRAMES" in texts[
        "about-judges"]
