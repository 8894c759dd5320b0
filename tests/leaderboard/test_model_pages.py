"""Verified results onto the models' Hub pages, and the models' own results read back in, against
the Hub stand-in (tests/hub_standin.py, pull requests: tests/standin_prs.py) over real HTTP with
the real huggingface_hub client.

The home is the embedded default's first start plus a model run of DEV_USER finished by a real
worker (its model a stand-in answering every call), so the row is the one the worker published.

- the Queue tab's button (the site's handler, called as Gradio calls it) opens one pull request
  on the model repo whose `.eval_results/*.yaml` files parse and carry the Hub format's fields;
  a second click opens nothing new and shows the same link; a read-only account gets a clear
  message and nothing is written; a Hub failure leaves the result published and the button
  usable again, and the next click opens the pull request;
- the maintainers' command (`python -m evaluator eval-results pr`) does the same with HF_TOKEN;
- the scan (`python -m evaluator eval-results scan`) reads a model's own files into the site's
  author-reported rows: shown with their source link, never ranked, other benchmarks, broken
  results and our own merged results left out.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from huggingface_hub import CommitOperationAdd, HfApi

from results import aggregate
from leaderboard import author_results, eval_results, models, views
from leaderboard.source import TableSource
from leaderboard.ui import Handlers
from leaderboard.views import authors as author_views
from leaderboard.views import models as model_views
from space_config.settings import get_settings
from submissions.queue import Queue
from submissions.requests import Request, Status
from submissions.stores import Stores
from submissions.validation import HubClient

ROOT = Path(__file__).resolve().parents[2]
DEV_USER = "dev-user"
MODEL = "acme/video-7b"
OWNER = "lbowner"  # LEADERBOARD_HUB_OWNER: the benchmark dataset is <owner>/<prefix>-suite
SITE_URL = "https://lbowner-leaderboard.hf.space/"
DATASET = f"{OWNER}/video-reasoning-leaderboard-suite"


# -- the home: a verified model run, published by a real worker -----------------------------------------------

def prepare_model_run(home: Path, user: str = DEV_USER, model: str = MODEL) -> str:
    """The embedded default's first start, then `user`'s model run of `model` finished and
    published by a real worker (the model a stand-in answering every call); its submission id."""
    from test_exports import EchoingRunner

    from worker import run as run_module
    from worker.loop import Worker
    from worker.suites import first_start

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LEADERBOARD_BOOTSTRAP_SAMPLES", "50")
        patch.setattr(run_module, "get_runner", lambda request, settings: EchoingRunner())
        get_settings.cache_clear()
        try:
            stores = Stores.local(home)
            suite_id = first_start(stores)
            request = Queue(stores.requests).add(Request(kind="model", submitter=user, suite_id=suite_id,
                                                         model=model, revision="0" * 40, precision="bfloat16"))
            ran = Worker(stores, dataclasses.replace(get_settings())).run_once()
        finally:
            get_settings.cache_clear()
    assert ran.status == Status.FINISHED, ran.failure
    return request.id


def model_repo(standin, model: str = MODEL) -> None:
    """The model's repo on the stand-in, as its owners made it (a config, no results)."""
    api = standin.api()
    api.create_repo(model, repo_type="model")
    api.upload_file(path_or_fileobj=b'{"architectures": ["VideoModel"]}', path_in_repo="config.json",
                    repo_id=model, repo_type="model")


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    home = tmp_path_factory.mktemp("model-pages") / "home"
    return home, prepare_model_run(home)


@pytest.fixture
def standin(hub_standin):
    """The stand-in Hub with the model's repo on it."""
    model_repo(hub_standin)
    return hub_standin


def handlers(home: Path, standin, token: str | None, user: str = DEV_USER) -> Handlers:
    """The site's handlers on the home, the Hub client pointed at the stand-in, `user` signed in
    (off a Space: LEADERBOARD_DEV_USER) with `token` as their Hugging Face token."""
    settings = dataclasses.replace(get_settings(), home=home, store="local", suite="demo", dev_user=user,
                                   hf_token=token, hub_owner=OWNER, site_url=SITE_URL, on_space=False)
    stores = Stores.local(home)
    return Handlers(stores, settings, TableSource(stores, settings, min_interval=0),
                    hub=HubClient(api=standin.api()))


def row_of(home: Path, submission: str) -> dict:
    table = aggregate.load_table(Stores.local(home).results)
    return table[table["id"] == submission].iloc[0].to_dict()


# -- the button ---------------------------------------------------------------------------------------------

def test_the_button_opens_one_pull_request_whose_files_follow_the_hub_format(home, standin):
    home, submission = home
    h = handlers(home, standin, standin.add_user(DEV_USER))
    choices = h.hub_choices(None, None).choices
    assert [value for _, value in choices] == [submission]

    said, button = h.open_pr(submission, None, None)
    assert said.startswith("✅ Pull request [#1](") and button["interactive"] is True, said
    (pr,) = standin.discussions(MODEL)
    assert pr.is_pull_request and pr.author == DEV_USER and pr.status == "open" and submission in pr.title
    assert f"{standin.endpoint}/{MODEL}/discussions/1" in said
    assert not any(p.startswith(".eval_results/") for p in standin.files(MODEL, repo_type="model")), \
        "a pull request, never a push to main"

    row = row_of(home, submission)
    scored = [b for b in views.BENCHMARKS if row.get(f"{b}.overall") == row.get(f"{b}.overall")]  # not NaN
    files = {p: d for p, d in standin.files(MODEL, "refs/pr/1", "model").items() if p.startswith(".eval_results/")}
    assert sorted(files) == sorted(f".eval_results/{b}.yaml" for b in scored) and scored
    for benchmark in scored:
        (entry,) = yaml.safe_load(files[f".eval_results/{benchmark}.yaml"])
        assert entry["dataset"] == {"id": DATASET, "task_id": benchmark}
        assert entry["value"] == round(row[f"{benchmark}.overall"], 2)
        assert entry["date"] == row["created"][:10]
        assert entry["source"]["name"] == eval_results.SOURCE_NAME and entry["source"]["user"] == OWNER
        assert entry["source"]["url"] == f"{SITE_URL}?suite={row['suite_id']}&model=acme%2Fvideo-7b"
        notes = entry["notes"]
        assert row["suite_id"] in notes and "frames" in notes and "protocol" in notes, notes
        assert ("judge normalized-match" in notes) if benchmark in ("expvid", "videosimpleqa") else \
            ("no judge" in notes), notes
    # the pull request says what it adds and links the row
    assert eval_results.row_link(eval_results.Site(DATASET, SITE_URL, OWNER), row) in pr.description


def test_a_second_click_opens_nothing_new_and_shows_the_same_link(home, standin):
    home, submission = home
    h = handlers(home, standin, standin.add_user(DEV_USER))
    first, _ = h.open_pr(submission, None, None)
    commits = standin.counts["commit"]
    again, button = h.open_pr(submission, None, None)
    assert "already open: nothing new was opened" in again and button["interactive"] is True
    assert f"[#1]({standin.endpoint}/{MODEL}/discussions/1)" in again
    assert len(standin.discussions(MODEL)) == 1 and standin.counts["commit"] == commits


def test_a_merged_pull_request_is_found_and_a_closed_one_is_not(home, standin):
    home, submission = home
    h = handlers(home, standin, standin.add_user(DEV_USER))
    owner = HfApi(endpoint=standin.endpoint, token=standin.add_user("acme"))  # the model's owners
    h.open_pr(submission, None, None)
    owner.change_discussion_status(MODEL, 1, "closed")  # turned down: asking again opens a new one
    said, _ = h.open_pr(submission, None, None)
    assert said.startswith("✅ Pull request [#2](") and [d.status for d in standin.discussions(MODEL)] == [
        "closed", "open"]
    owner.merge_pull_request(MODEL, 2)
    said, _ = h.open_pr(submission, None, None)
    assert "[#2](" in said and "is merged: its scores are on the model page already" in said
    assert len(standin.discussions(MODEL)) == 2
    assert ".eval_results/exact.yaml" in standin.files(MODEL, repo_type="model")


def test_an_account_without_rights_gets_a_clear_message_and_nothing_is_written(home, standin):
    home, submission = home
    before = (standin.files(MODEL, repo_type="model"), len(standin.discussions(MODEL)))
    h = handlers(home, standin, standin.add_user(DEV_USER, role="read"))
    said, button = h.open_pr(submission, None, None)
    assert said.startswith("❌ Your Hugging Face account may not open a pull request on acme/video-7b"), said
    assert "403" in said and "nothing was written" in said and "Traceback" not in said
    assert button["interactive"] is True
    assert (standin.files(MODEL, repo_type="model"), len(standin.discussions(MODEL))) == before


def test_a_hub_failure_leaves_the_result_published_and_the_button_usable_again(home, standin):
    home, submission = home
    h = handlers(home, standin, standin.add_user(DEV_USER))
    standin.fail_next(1, 503, kind="commit")
    said, button = h.open_pr(submission, None, None)
    assert said.startswith("❌ The Hub did not complete the request (503)") and "stays published" in said, said
    assert button["interactive"] is True and standin.discussions(MODEL) == []
    assert row_of(home, submission)["source"] == "verified"  # still on the leaderboard
    assert Queue(Stores.local(home).requests).get(submission).status == Status.FINISHED
    said, _ = h.open_pr(submission, None, None)  # the same button, clicked again
    assert said.startswith("✅ Pull request [#1]("), said
    assert len(standin.discussions(MODEL)) == 1


def test_only_the_submitter_signed_in_may_ask_and_only_for_a_verified_model_run(home, standin):
    home, submission = home
    token = standin.add_user("someone-else")
    said, _ = handlers(home, standin, token, user="someone-else").open_pr(submission, None, None)
    assert said.startswith("❌ Pick one of your own verified model runs")  # never says whose it is
    said, _ = handlers(home, standin, token).open_pr("not-a-submission", None, None)
    assert said.startswith("❌ Pick one of your own verified model runs")
    h = handlers(home, standin, token)
    h.settings = dataclasses.replace(h.settings, dev_user=None)  # nobody signed in
    said, _ = h.open_pr(submission, None, None)
    assert said.startswith("❌ Sign in with Hugging Face")
    assert standin.counts["discussions"] == 0 and standin.discussions(MODEL) == []


# -- the maintainers' commands --------------------------------------------------------------------------------

def cli(home: Path, standin, *args: str, token: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEADERBOARD_") and k != "SPACE_ID"}
    env |= standin.env() | {"LEADERBOARD_HOME": str(home), "LEADERBOARD_HUB_OWNER": OWNER,
                            "LEADERBOARD_SITE_URL": SITE_URL}
    if token is not None:  # "": none at all
        env["HF_TOKEN"] = token
    return subprocess.run([sys.executable, "-m", "evaluator", "eval-results", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_command_opens_the_pull_request_once(home, standin):
    home, submission = home
    done = cli(home, standin, "pr", submission)
    assert done.returncode == 0, done.stderr
    assert f"opened pull request #1 on {MODEL}: {standin.endpoint}/{MODEL}/discussions/1" in done.stdout
    assert standin.discussions(MODEL)[0].author == standin.admin_name
    again = cli(home, standin, "pr", submission)
    assert again.returncode == 0 and "nothing new was opened" in again.stdout
    assert len(standin.discussions(MODEL)) == 1
    missing = cli(home, standin, "pr", "no-such-submission")
    assert missing.returncode == 2 and "has no published result yet" in missing.stderr
    assert "Traceback" not in missing.stderr
    tokenless = cli(home, standin, "pr", submission, token="")
    assert tokenless.returncode == 2 and "error: HF_TOKEN is not set" in tokenless.stderr


def authors_files(standin) -> None:
    """What the model's owners put on their own page: a result on ExAct (the paper's dataset), one
    on our suite's Video SimpleQA, one on another benchmark, a broken one, and one of ours merged."""
    ours = {"dataset": {"id": DATASET, "task_id": "exact"}, "value": 1.0,
            "source": {"url": SITE_URL, "name": eval_results.SOURCE_NAME}}
    files = {
        ".eval_results/exact.yaml": [{"dataset": {"id": "Alexhimself/ExAct", "task_id": "default"}, "value": 47.5,
                                      "date": "2026-01-10", "notes": "32 frames, greedy",
                                      "source": {"url": "https://example.org/acme-report", "name": "Tech report"}}],
        ".eval_results/videosimpleqa.yaml": [{"dataset": {"id": DATASET, "task_id": "videosimpleqa"},
                                              "value": 33.25}],
        ".eval_results/hle.yaml": [{"dataset": {"id": "cais/hle", "task_id": "hle"}, "value": 9.1}],
        ".eval_results/broken.yaml": [{"dataset": {"id": "lmms-lab/VideoMMMU"}, "value": "high"}],
        ".eval_results/ours.yaml": [ours],
    }
    standin.api().create_commit(MODEL, [CommitOperationAdd(p, yaml.safe_dump(v).encode()) for p, v in files.items()],
                                commit_message="Our own results", repo_type="model")


def test_a_scan_reads_the_authors_results_into_rows_never_ranked(home, standin):
    home, submission = home
    authors_files(standin)
    done = cli(home, standin, "scan", "--model", MODEL)
    assert done.returncode == 0, done.stderr
    assert "read 1 models: 2 results" in done.stdout
    assert "broken.yaml result 1: value must be a number" in done.stdout
    known = author_results.known_models(aggregate.load_table(Stores.local(home).results))
    assert MODEL in known and all(i.hub_id in known for i in models.load_models().identities if i.hub_id)
    report = author_results.load(Stores.local(home).results)
    assert [(r["benchmark"], r["value"]) for r in report.rows] == [("exact", 47.5), ("videosimpleqa", 33.25)]
    exact = report.rows[0]
    assert exact["source_url"] == "https://example.org/acme-report" and exact["model"] == MODEL
    assert exact["file_url"].endswith("/.eval_results/exact.yaml")

    h = handlers(home, standin, None)
    shown, note = h.authors_table("video-7b")
    data = shown["value"]["data"] if isinstance(shown["value"], dict) else shown["value"].values.tolist()
    headers = list(shown["value"]["headers"]) if isinstance(shown["value"], dict) else list(shown["value"].columns)
    source = headers.index(author_views.SOURCE_LINK)
    assert "(https://example.org/acme-report)" in data[0][source] and author_views.KIND_BADGE in data[0]
    assert "2 results the models' authors report" in note

    rows = h.model_rows()
    mine = next(r for r in rows if r.identity.hub_id == MODEL)
    assert mine.authors == {"exact": 47.5, "videosimpleqa": 33.25}
    view = model_views.model_view(rows, "ExAct", "video-7b")
    texts = view.attrs["display"]["ExAct"]
    assert texts[0].endswith(f"· {model_views.AUTHOR_MARK} 47.50")
    assert view["ExAct"].iloc[0] == row_of(home, submission)["exact.overall"]  # the verified score is the one ranked


def test_an_author_only_score_is_shown_and_never_ranked(home, standin):
    home, _ = home
    h = handlers(home, standin, None)
    papers, verified = h.board(views.REPORTED_SUITE), h.board(h.configured_suite())
    authors = [{"model": "acme/other-vlm", "benchmark": "causalstep", "value": 99.0}]  # above every paper's number
    view = model_views.model_view(model_views.model_rows(papers, verified, authors=authors), "CausalStep")
    at = model_views.model_names(view).index("acme/other-vlm")
    assert view.attrs["display"]["CausalStep"][at] == f"99.00 {model_views.AUTHOR_MARK}"
    assert view["CausalStep"].isna().iloc[at] and view[views.RANK].isna().iloc[at]  # nothing to sort or rank by
    ranked = view[view[views.RANK].notna()]
    assert len(ranked) and ranked[views.RANK].min() == 1 and ranked["CausalStep"].notna().all()
    assert ranked.index.max() < at  # ranked without it, and before it


def test_reading_files_keeps_our_benchmarks_and_names_what_is_wrong():
    site = eval_results.Site(DATASET, SITE_URL, OWNER)
    text = yaml.safe_dump([
        {"dataset": {"id": "OpenGVLab/ExpVid", "task_id": "level1"}, "value": 40, "date": "2026-02-01",
         "source": {"url": "javascript:alert(1)"}},
        {"dataset": {"id": DATASET, "task_id": "not-a-benchmark"}, "value": 1},
        {"value": 3},
        "just text",
    ])
    entries, problems = eval_results.read_file(text, "m/.eval_results/x.yaml", site)
    assert [(e["benchmark"], e["value"], e["source_url"]) for e in entries] == [("expvid", 40.0, None)]
    assert problems == ["m/.eval_results/x.yaml result 1: source.url 'javascript:alert(1)' is not a web address",
                        "m/.eval_results/x.yaml result 3: dataset.id is missing",
                        "m/.eval_results/x.yaml result 4: a result must be a mapping with dataset and value"]
    assert eval_results.read_file("a: [", "f", site)[1][0].startswith("f: not valid YAML")
    assert eval_results.read_file("42", "f", site) == ([], ["f: expected a list of results"])


def test_the_scan_keeps_a_models_rows_when_the_hub_fails_for_it(home, standin):
    home, _ = home
    authors_files(standin)
    site = eval_results.Site(DATASET, SITE_URL, OWNER)
    api = standin.api()
    first = author_results.scan(api, [MODEL, "nobody/missing"], site)
    assert len(first.rows) == 2 and any("nobody/missing: no such model" in p for p in first.problems)
    standin.fail_next(1, 500, kind="repo_info")
    second = author_results.scan(api, [MODEL], site, previous=first)
    assert second.failed == [MODEL] and second.rows == first.rows
    assert json.loads(second.to_json())["schema_version"] == author_results.SCHEMA_VERSION
