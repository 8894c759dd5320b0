"""The open exports through the real site: `python app.py` in a subprocess (tests/site_server.py)
on a home where the demo baselines are scored and the signed-in user's model run has finished.

- the JSON endpoint (/api/v1/...) answers over HTTP with the files the worker published;
- in headless chromium, the Downloads tab's buttons download the suite's snapshot and the
  owner's raw outputs, byte for byte what the stores hold (screenshots in
  test-artifacts/screenshots/downloads-*.png), and the About tab describes them;
- served to an anonymous visitor or to another signed-in user, the same home gives no raw
  outputs, whatever submission id their API call names.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from site_server import (
    ARTIFACTS,
    DEV_USER,
    NO_BROWSER,
    VIEWPORT,
    WAIT_MS,
    SiteServer,
    cells,
    chromium_path,
    launch_chromium,
    open_tab,
    show_suite,
)

from evaluator import raw_outputs
from leaderboard import exports

MODEL = "acme/video-7b"


def prepare(home: Path) -> str:
    """The embedded default's first start, then a model run of DEV_USER finished by a real
    worker (its model a stand-in that answers every call); the run's submission id."""
    import dataclasses

    from test_exports import EchoingRunner

    from worker import run as run_module  # the module whose get_runner the worker calls
    from worker.loop import Worker
    from space_config.settings import get_settings
    from submissions.queue import Queue
    from submissions.requests import Request, Status
    from submissions.stores import Stores
    from worker.suites import first_start

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LEADERBOARD_BOOTSTRAP_SAMPLES", "50")
        patch.setattr(run_module, "get_runner", lambda request, settings: EchoingRunner())
        get_settings.cache_clear()
        try:
            stores = Stores.local(home)
            suite_id = first_start(stores)
            request = Queue(stores.requests).add(Request(kind="model", submitter=DEV_USER, suite_id=suite_id,
                                                         model=MODEL, revision="0" * 40, precision="bfloat16"))
            ran = Worker(stores, dataclasses.replace(get_settings())).run_once()
        finally:
            get_settings.cache_clear()
    assert ran.status == Status.FINISHED, ran.failure
    return request.id


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    home = tmp_path_factory.mktemp("downloads") / "home"
    return home, prepare(home)


@pytest.fixture(scope="module")
def site(home):
    with SiteServer(home[0]) as server:
        yield server


def get(url: str, headers: dict | None = None) -> tuple[int, dict, bytes]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def stored(home: Path, store: str, path: str) -> bytes:
    return (home / store / path).read_bytes()


# -- the endpoint, over HTTP --------------------------------------------------------------------------------

def test_the_json_endpoint_serves_the_published_snapshot(site, home):
    folder, _ = home
    suite_id = site.suite_id()
    status, headers, body = get(site.url + "api/v1/index.json")
    assert status == 200 and headers["content-type"].startswith("application/json")
    index = exports.ExportIndex.model_validate_json(body)
    assert [e.suite_id for e in index.suites] == [suite_id] and index.suites[0].rows == 3

    status, headers, body = get(site.url + f"api/v1/leaderboard.json?suite={suite_id}")
    assert status == 200 and body == stored(folder, "results", exports.json_path(suite_id))
    document = json.loads(body)
    assert document["suite_id"] == suite_id and document["table_version"] == index.suites[0].table_version
    assert {r["model"] for r in document["results"]} >= {MODEL, "Baseline: random", "Baseline: first-option"}
    assert get(site.url + "api/v1/leaderboard.json")[2] == body  # the site's own suite when none is named

    tag = headers["etag"]
    assert get(site.url + f"api/v1/leaderboard.json?suite={suite_id}", {"If-None-Match": tag})[0] == 304
    status, headers, parquet = get(site.url + f"api/v1/leaderboard.parquet?suite={suite_id}")
    assert status == 200 and parquet == stored(folder, "results", exports.parquet_path(suite_id))
    assert exports.read_parquet(parquet)[1].equals(exports.read_json(body)[1])

    status, _, body = get(site.url + "api/v1/leaderboard.json?suite=official-v9-000000000000")
    assert status == 404 and json.loads(body)["suites"] == [suite_id]
    status, _, body = get(site.url + "api/v1/leaderboard.json?suite=..%2Fanswers")
    assert status == 400 and "not a suite id" in json.loads(body)["error"]


# -- the page, in a browser --------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def browser():
    pytest.importorskip("playwright.sync_api", reason="the python package playwright is missing: pip install -r "
                                                     "requirements-dev.txt (make test does)")
    if chromium_path() is None:
        pytest.skip(NO_BROWSER)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = launch_chromium(p)
        yield launched
        launched.close()


def test_the_downloads_tab_hands_out_the_snapshot_and_the_owners_raw_outputs(browser, site, home, tmp_path):
    from playwright.sync_api import expect

    folder, run_id = home
    suite_id = site.suite_id()
    screenshots = ARTIFACTS / "screenshots"
    screenshots.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    try:
        page.goto(site.url)
        cells(page, "leaderboard-table").first.wait_for()
        show_suite(page, suite_id)
        open_tab(page, "Downloads")
        expect(page.locator("#snapshot-info")).to_contain_text(suite_id)
        expect(page.locator("#snapshot-info")).to_contain_text("3")
        for kind in ("json", "parquet"):
            button = page.locator(f"#download-snapshot-{kind}")
            expect(button).to_be_enabled()
            with page.expect_download() as info:
                button.click()
            saved = tmp_path / f"snapshot.{kind}"
            info.value.save_as(saved)
            path = exports.json_path(suite_id) if kind == "json" else exports.parquet_path(suite_id)
            assert saved.read_bytes() == stored(folder, "results", path)
            assert info.value.suggested_filename.startswith(f"leaderboard-{suite_id}-")

        # the signed-in owner's model run: pick it, download its raw outputs
        expect(page.locator("#outputs-status")).to_contain_text("Pick one of your model runs")
        page.locator("#outputs-pick input[role=combobox]").click()
        page.get_by_role("option", name=f"{MODEL} · run 1 · {run_id}").click()
        expect(page.locator("#outputs-status")).to_contain_text("calls answered")
        button = page.locator("#download-outputs")
        expect(button).to_be_enabled()
        page.screenshot(path=str(screenshots / "downloads-tab.png"), full_page=True)
        with page.expect_download() as info:
            button.click()
        saved = tmp_path / "outputs.jsonl"
        info.value.save_as(saved)
        assert saved.read_bytes() == stored(folder, "private", raw_outputs.outputs_path(run_id))
        assert info.value.suggested_filename == f"raw-outputs-acme_video-7b-{run_id}-run1.jsonl"

        # the papers' rows have no snapshot: the buttons say so by being off
        show_suite(page, "official (paper-reported)")
        expect(page.locator("#snapshot-info")).to_contain_text("No snapshot")
        expect(page.locator("#download-snapshot-json")).to_be_disabled()

        open_tab(page, "About")
        about = page.locator("#about-exports")
        expect(about).to_contain_text("Open exports")
        expect(about).to_contain_text("/api/v1/leaderboard.json")
        about.scroll_into_view_if_needed()
        about.screenshot(path=str(screenshots / "downloads-about.png"))
    finally:
        context.close()


# -- anyone else ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("visitor", [None, "someone-else"], ids=["anonymous", "another-user"])
def test_nobody_else_gets_the_raw_outputs(home, visitor):
    from gradio_client import Client

    folder, run_id = home
    with SiteServer(folder, dev_user=visitor) as server:
        client = Client(server.url, verbose=False)
        _, note = client.predict(None, api_name="/my_model_runs")
        assert ("Sign in" in note) if visitor is None else ("no finished model run" in note)
        button, note = client.predict(run_id, api_name="/my_raw_outputs")  # the owner's run, named outright
        assert (button or {}).get("value") is None  # no file came back (an update that leaves the button off)
        assert note.startswith("❌") and ("Sign in" in note if visitor is None else "not one of your" in note)
        log = server.log_tail(20000)
    secret = stored(folder, "private", raw_outputs.outputs_path(run_id)).decode().splitlines()[0]
    assert json.loads(secret)["response"][:30] not in str(note) + log
