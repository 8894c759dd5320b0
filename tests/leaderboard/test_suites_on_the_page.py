"""Suites as a maintainer publishes them: a store with the demo suite and an official suite
of three benchmarks, published with `python -m evaluator publish-suite`. Publishing scores
the baselines (the new board is never empty, its Average is over its three benchmarks);
LEADERBOARD_SUITE takes a suite's name or id and a site whose setting names neither does
not start; submissions go to the suite on the page, and a file built for another suite is
refused in one line; each view opens on a benchmark the suite holds. The last test drives
a real site in a real browser."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from site_server import (
    open_leaderboard,
    open_page,
    open_tab,
    prepare_home,
    ROOT,
    SiteServer,
    WAIT_MS,
)

from evaluator.benchmarks import BENCHMARKS
from evaluator.benchmarks.common import Secret
from evaluator.suite import build_suite
from results import aggregate
from leaderboard import views
from leaderboard.source import TableSource
from leaderboard.views.submit_notes import videos_text
from leaderboard.ui import Handlers
from space_config.settings import get_settings
from submissions.errors import NotFoundError
from submissions.queue import Queue
from submissions.stores import Stores
from submissions.suites import published_suites, resolve_suite_id

THREE = ("exact", "videommmu", "videosimpleqa")
PUBLISHED: dict[str, str] = {}  # what `publish-suite` printed


def cli(*args: str, home: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evaluator", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, env={**os.environ, "LEADERBOARD_HOME": str(home), "LEADERBOARD_STORE": "local",
                                            **env})


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """The embedded default's store (demo suite, its baselines) plus an official suite of
    three benchmarks, published the maintainer's way."""
    base = tmp_path_factory.mktemp("two-suites")
    home = prepare_home(base / "home")
    secret = Secret.new()
    build_suite(base / "official", "official", "v1", [BENCHMARKS[b].demo(secret) for b in THREE], None, secret)
    published = cli("publish-suite", str(base / "official"), home=home)
    assert published.returncode == 0, published.stderr
    PUBLISHED["output"] = published.stdout
    return home


@pytest.fixture(scope="module")
def stores(home):
    return Stores.local(home)


@pytest.fixture(scope="module")
def official(stores):
    return next(s for s in published_suites(stores.suite) if s.startswith("official-"))


@pytest.fixture(scope="module")
def demo(stores):
    return next(s for s in published_suites(stores.suite) if s.startswith("demo-"))


@pytest.fixture
def settings(home, monkeypatch):
    monkeypatch.setenv("LEADERBOARD_HOME", str(home))
    monkeypatch.setenv("LEADERBOARD_DEV_USER", "tester")
    get_settings.cache_clear()
    yield get_settings()
    get_settings.cache_clear()


@pytest.fixture
def handlers(stores, settings):
    return Handlers(stores, settings, TableSource(stores, settings))


def baseline_file(home: Path, suite_id: str, out: Path, name: str = "first-option") -> Path:
    made = cli("baseline", "--suite", str(home / "suite" / suite_id), "--name", name, "--out", str(out), home=home)
    assert made.returncode == 0, made.stderr
    return out


def test_publishing_a_suite_scores_the_baselines_on_it(home, stores, official):
    assert f"published suite {official} to the local store at {home} (LEADERBOARD_HOME)" in PUBLISHED["output"]
    assert "scored the built-in baselines on it (random, first-option)" in PUBLISHED["output"]
    table = aggregate.load_table(stores.results)
    rows = table[table["suite_id"] == official]
    assert sorted(rows["model"]) == ["Baseline: first-option", "Baseline: random"]
    # Average is defined over the suite's own three benchmarks, and says which they are
    assert rows["average"].notna().all() and set(rows["average_of"]) == {",".join(THREE)}
    for _, row in rows.iterrows():
        expected = sum(row[f"{b}.overall"] for b in THREE) / 3
        assert row["average"] == pytest.approx(expected, abs=0.01)


def test_the_site_suite_is_named_by_name_or_id_and_an_unknown_one_is_refused(stores, settings, official, demo):
    assert resolve_suite_id(stores, dataclasses.replace(settings, suite="official")) == official
    assert resolve_suite_id(stores, dataclasses.replace(settings, suite=official)) == official
    assert resolve_suite_id(stores, dataclasses.replace(settings, suite="demo")) == demo
    with pytest.raises(NotFoundError) as refused:
        resolve_suite_id(stores, dataclasses.replace(settings, suite="offical"))
    assert f"official ({official})" in str(refused.value) and f"demo ({demo})" in str(refused.value)


def test_a_site_whose_suite_names_no_published_suite_does_not_start(home, official):
    started = subprocess.run([sys.executable, "app.py"], cwd=ROOT, capture_output=True, text=True, timeout=600,
                             env={**os.environ, "LEADERBOARD_HOME": str(home), "LEADERBOARD_STORE": "local",
                                  "LEADERBOARD_SUITE": "offical", "GRADIO_SERVER_PORT": "1"})
    assert started.returncode != 0
    assert "The site cannot start: Suite 'offical' (LEADERBOARD_SUITE) is not in the" in started.stderr
    assert f"official ({official})" in started.stderr and "Traceback" not in started.stderr


def test_submissions_go_to_the_suite_on_the_page(home, handlers, official, demo, tmp_path):
    for_official = baseline_file(home, official, tmp_path / "official.jsonl")
    # on the official suite's page the file is checked against that suite, and queued there
    assert "official" in handlers.target_text(official) and official in handlers.target_text(official)
    checked = handlers.check_file(str(for_official), official)
    assert checked.startswith("✅") and f"calls of suite `{official}`" in checked, checked
    message, _ = handlers.submit_file(str(for_official), "On the page's suite", "", "", "", False, official, None)
    assert message.startswith("✅"), message
    request = Queue(handlers.stores.requests).get(message.split("`")[1])
    assert request.suite_id == official
    # on the demo suite's page the same file is refused in one line naming the suite it was built for
    refused = handlers.check_file(str(for_official), demo)
    assert refused.startswith("❌") and f"answers the calls of suite 'official' ({official})" in refused
    assert "unknown call id" not in refused and refused.count("\n") <= 1
    # the papers' rows take no submissions: the site's own suite does, and the line says so
    assert demo in handlers.target_text(views.REPORTED_SUITE)
    assert "papers' reported results" in handlers.target_text(views.REPORTED_SUITE)
    assert official in Path(handlers.calls_file(official)).name
    # the line says where the suite's videos are: the call list's file paths are inside that folder
    folder = Path(re.search(r"videos are in the folder `([^`]+)` on this machine", handlers.target_text(official))[1])
    first = json.loads(Path(handlers.calls_file(official)).read_text().splitlines()[0])
    assert first["frames"][0]["file"] and (folder / first["frames"][0]["file"]).is_file()


def test_on_the_hub_the_submit_line_links_the_suites_dataset_folder():
    settings = dataclasses.replace(get_settings(), store="hub", hub_owner="org", hub_prefix="vrl")
    text = videos_text(settings, None, "full-v1-abc")  # on the Hub the store is not asked
    assert "[org/vrl-suite](https://huggingface.co/datasets/org/vrl-suite/tree/main/full-v1-abc)" in text
    assert 'hf download org/vrl-suite --repo-type dataset --include "full-v1-abc/*"' in text


def test_every_view_opens_on_a_benchmark_the_suite_holds(handlers, official):
    board = handlers.board(official)
    assert views.suite_benchmarks(board) == list(THREE)
    assert "holds 3 of the 5 benchmarks (ExAct, Video-MMMU and Video SimpleQA)" in handlers.suite_note(official)
    tables = dict(zip(views.BENCHMARKS, handlers.benchmarks(official)))
    assert "This suite holds no ExpVid questions" in tables["expvid"].iloc[0, 0]
    baselines = {"Baseline: random", "Baseline: first-option"}
    assert baselines <= set(tables["exact"][views.MODEL])
    key, _, rank, shown = handlers.breakdown_choice(views.DOMAIN_VIEWS)(official, "expvid-discipline", None, None)
    assert key.value == "exact-domain" and "expvid-discipline" not in [v for _, v in key.choices]
    assert rank.value == views.OVERALL and baselines <= set(shown[views.MODEL])
    hop_key, _, _, hops = handlers.breakdown_choice(views.HOP_VIEWS)(official, None, None, None)
    assert hop_key.value.startswith("videosimpleqa") and len(hops) >= 2
    rank, level = handlers.level_choice(official, None)
    assert rank.value.startswith("Video-MMMU") and level.columns[3] == rank.value
    assert not [c for c in level.columns if c.startswith(("ExpVid", "CausalStep"))]  # only the suite's own levels
    assert handlers.first_benchmark_tab(official).selected == "bench-exact"
    shaped, _, _, _ = handlers.table(official, "", views.TYPES, views.SIZES, views.SOURCES, None, None,
                                     views.DEFAULT_COLUMNS)
    headers = list(shaped["value"]["headers"])
    assert not [c for c in headers if c.startswith(("ExpVid", "CausalStep"))]
    assert "ExAct" in headers and "Video SimpleQA" in headers
    # every paper's rows stay one click away, and the API takes a suite's name too
    assert views.REPORTED_SUITE in handlers.suite_options() and handlers.suite_options()[0] == official
    assert handlers.suite_named("official") == official and handlers.suite_named("nope") is None


# -- in a real browser --------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def site(home):
    with SiteServer(home, env={"LEADERBOARD_DEV_USER": "tester"}) as server:
        yield server


def test_a_file_for_the_official_suite_is_accepted_on_its_page(browser, site, home, official, demo, tmp_path):
    from playwright.sync_api import expect

    predictions = baseline_file(home, official, tmp_path / "for-official.jsonl", name="random")
    page = open_page(browser, site.url)
    # an official suite exists: the Leaderboard opens on it, and Submit targets it
    open_leaderboard(page)
    expect(page.locator("#suite-select input[type=radio]:checked")).to_have_value(official)
    open_tab(page, "Submit")
    expect(page.locator("#submit-suite")).to_contain_text(official)
    page.locator("#submit-file input[type=file]").set_input_files(str(predictions))
    expect(page.locator("#submit-status")).to_contain_text(f"calls of suite {official}", timeout=WAIT_MS)
    expect(page.locator("#submit-status")).to_contain_text("ready to submit")
    # on the demo suite's page the same file is refused in one line naming the official suite
    page.goto(f"{site.url}?suite={demo}")  # a new page load: bounded like open_page's, not by expect's 5 s
    expect(page.locator("#suite-select input[type=radio]:checked")).to_have_value(demo, timeout=WAIT_MS)
    open_tab(page, "Submit")
    expect(page.locator("#submit-suite")).to_contain_text(demo)
    page.locator("#submit-file input[type=file]").set_input_files(str(predictions))
    expect(page.locator("#submit-status")).to_contain_text("answers the calls of suite 'official'", timeout=WAIT_MS)
    expect(page.locator("#submit-status")).not_to_contain_text("unknown call id")
