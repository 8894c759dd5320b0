"""The open exports through the real site: `python app.py` in a subprocess (tests/site_server.py)
on a home where the demo baselines are scored and the signed-in user's model run has finished.

- the JSON endpoint (/api/v1/...) answers over HTTP with the files the worker published;
- in headless chromium, the Downloads tab's buttons download the suite's snapshot and the
  owner's raw outputs, byte for byte what the stores hold (screenshots in
  test-artifacts/screenshots/downloads-*.png), the raw outputs from the site's own route and
  never through Gradio's file cache, and the About tab describes them;
- served to an anonymous visitor or to another signed-in user, the same home gives no raw
  outputs, whatever submission id their API call names;
- served as on a Space (Hugging Face sign-in through Gradio's OAuth session cookie), the raw
  outputs' route answers the owner's session only (401 without one, 403 for someone else's),
  and the owner's signed-in browser downloads them with the button.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from fastapi import FastAPI, Request
from site_server import (
    ARTIFACTS,
    DEV_USER,
    open_leaderboard,
    open_tab,
    show_suite,
    SiteServer,
    VIEWPORT,
    WAIT_MS,
)

from evaluator import raw_outputs
from results import exports, ranking
from leaderboard.downloads import OUTPUTS_PATH
from test_model_pages import prepare_model_run

MODEL = "acme/video-7b"
# A Space's OAuth settings (the Hub sets them where `hf_oauth: true`); the provider is never
# reached: the tests sign sessions in as Gradio's login callback would.
SPACE = {"SYSTEM": "spaces", "SPACE_ID": "org/leaderboard", "OAUTH_CLIENT_ID": "test-client",
         "OAUTH_CLIENT_SECRET": "test-oauth-secret", "OAUTH_SCOPES": "openid profile",
         "OPENID_PROVIDER_URL": "http://127.0.0.1:9"}


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    home = tmp_path_factory.mktemp("downloads") / "home"
    return home, prepare_model_run(home, user=DEV_USER)  # DEV_USER's model run, published by a real worker


@pytest.fixture(scope="module")
def site(home):
    # gradio's file cache of its own, to see that no raw outputs ever land there
    with SiteServer(home[0], env={"GRADIO_TEMP_DIR": str(home[0].parent / "gradio-files")}) as server:
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


def session_cookie(user: str, expires_in: float = 3600) -> dict[str, str]:
    """The Cookie header of a browser where `user` signed in with Hugging Face on the Space:
    signed by gradio.oauth.attach_oauth's own SessionMiddleware with the Space's
    OAUTH_CLIENT_SECRET, holding the `oauth_info` Gradio's login callback stores."""
    import gradio.oauth as oauth
    from starlette.testclient import TestClient

    app = FastAPI()
    with pytest.MonkeyPatch.context() as patch:  # gradio.oauth reads these once, at import
        for name in ("OAUTH_CLIENT_ID", "OAUTH_CLIENT_SECRET", "OAUTH_SCOPES", "OPENID_PROVIDER_URL"):
            patch.setattr(oauth, name, SPACE[name])
        patch.setattr(oauth, "get_space", lambda: SPACE["SPACE_ID"])
        oauth.attach_oauth(app)

    @app.get("/signed-in")
    def signed_in(request: Request) -> dict:
        request.session["oauth_info"] = {
            "access_token": "hf_oauth_token", "token_type": "bearer", "scope": SPACE["OAUTH_SCOPES"],
            "expires_at": int(time.time() + expires_in),
            "userinfo": {"sub": "1", "name": user.title(), "preferred_username": user,
                         "profile": f"https://huggingface.co/{user}", "picture": ""}}
        return {}

    with TestClient(app, base_url="https://testserver") as client:
        return {"Cookie": client.get("/signed-in").headers["set-cookie"].split(";")[0]}  # session=...


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


def test_the_endpoint_carries_each_rows_rank_and_band_ordered_by_rank(site):
    body = get(site.url + f"api/v1/leaderboard.json?suite={site.suite_id()}")[2]
    results = json.loads(body)["results"]
    # the stand-in model run is off the reference protocol: unranked, as the Leaderboard shows it (≠), and last
    assert [(r["model"], r["rank"], r["band"]) for r in results][-1] == (MODEL, None, None)
    ranked = [r for r in results if r["protocol_status"] in ("reference", "declared")]
    assert {r["model"] for r in ranked} == {"Baseline: random", "Baseline: first-option"}
    # the baselines tie where their averages' intervals overlap; the demo suite is drawn from a
    # fresh secret, so whether they do differs from run to run
    frame = exports.read_json(body)[1].to_pandas().set_index("model").loc[[r["model"] for r in ranked]]
    low, high = frame["average"] - ranking.mean_half_width(frame), frame["average"] + ranking.mean_half_width(frame)
    assert frame["average"].is_monotonic_decreasing
    tie = round(high.iloc[1], 6) >= round(low.iloc[0], 6)
    assert [(r["rank"], r["band"]) for r in ranked] == ([(1, 1), (1, 1)] if tie else [(1, 1), (2, 2)])
    assert results[:2] == ranked
    assert list(exports.read_json(body)[1].column_names[:2]) == list(exports.STANDING)


def test_the_papers_rows_download_over_http_with_their_sources(site):
    from leaderboard import reported_export
    from leaderboard.reported import reported_rows

    status, headers, body = get(site.url + "api/v1/reported.json")
    assert status == 200 and headers["content-type"].startswith("application/json")
    assert body == reported_export.document()  # the same bytes the site's code builds
    document = json.loads(body)
    assert [r["id"] for r in document["results"]] == [r["id"] for r in reported_rows("x")]
    for record in document["results"]:
        assert record["paper"]["title"] and record["paper"]["citation"] and record["table"] and record["judge"]
    assert {p["benchmark"] for p in document["papers"]} == {r["benchmark"] for r in document["results"]}
    # the suite picker's name for them answers the same; Parquet they have none
    assert get(site.url + "api/v1/leaderboard.json?suite=official%20(paper-reported)")[2] == body
    status, _, refused = get(site.url + "api/v1/leaderboard.parquet?suite=official%20(paper-reported)")
    assert status == 404 and "reported.json" in json.loads(refused)["error"]
    assert get(site.url + "api/v1/reported.json", {"If-None-Match": headers["etag"]})[0] == 304


def test_the_raw_outputs_route_serves_the_signed_in_owner_only(site, home):
    """Off a Space the signed-in user is LEADERBOARD_DEV_USER for every request (here: the
    owner); the route still answers nobody else's run, and a made-up id the same way."""
    folder, run_id = home
    status, headers, body = get(site.url + f"{OUTPUTS_PATH.lstrip('/')}/{run_id}")
    assert status == 200 and body == stored(folder, "private", raw_outputs.outputs_path(run_id))
    assert headers["content-disposition"] == f'attachment; filename="raw-outputs-acme_video-7b-{run_id}-run1.jsonl"'
    assert "no-store" in headers["cache-control"]
    refused = [get(site.url + f"raw-outputs/{submission}") for submission in ("20250101T000000-0123456789", "x")]
    assert [r[0] for r in refused] == [403, 403]
    assert json.loads(refused[0][2])["error"].replace("20250101T000000-0123456789", "X") == \
        json.loads(refused[1][2])["error"].replace("'x'", "'X'")


# -- as on a Space: the Hugging Face sign-in in Gradio's session cookie ---------------------------------

@pytest.fixture(scope="module")
def space_site(home):
    with SiteServer(home[0], dev_user=None, env=SPACE) as server:
        yield server


@pytest.mark.parametrize("who, expected", [("owner", 200), ("nobody", 401), ("someone-else", 403),
                                           ("owner, expired", 401), ("forged", 401)])
def test_on_a_space_the_raw_outputs_want_the_owners_session(space_site, home, who, expected):
    folder, run_id = home
    cookies = {"owner": lambda: session_cookie(DEV_USER), "nobody": dict,
               "someone-else": lambda: session_cookie("someone-else"),
               "owner, expired": lambda: session_cookie(DEV_USER, expires_in=-60),
               "forged": lambda: {"Cookie": "session=" + session_cookie(DEV_USER)["Cookie"].split("=", 1)[1][::-1]}}
    status, headers, body = get(space_site.url + f"raw-outputs/{run_id}", cookies[who]())
    assert status == expected, body[:300]
    if expected == 200:
        assert body == stored(folder, "private", raw_outputs.outputs_path(run_id))
        assert headers["content-disposition"].startswith("attachment; filename=")
    else:
        error = json.loads(body)["error"]
        assert ("Sign in" in error) if expected == 401 else ("not one of your finished model runs" in error)
        secret = stored(folder, "private", raw_outputs.outputs_path(run_id)).decode().splitlines()[0]
        assert json.loads(secret)["response"][:30] not in body.decode()


# -- the page, in a browser --------------------------------------------------------------------------------------

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
        open_leaderboard(page)
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
        assert info.value.url == site.url + f"raw-outputs/{run_id}"  # the site's own route, not gradio's file=
        assert not list((folder.parent / "gradio-files").rglob("raw-outputs-*"))  # nothing in gradio's cache

        # the papers' rows: their JSON (each row with its paper, table and citation), no Parquet
        show_suite(page, "official (paper-reported)")
        open_tab(page, "Downloads")
        expect(page.locator("#snapshot-info")).to_contain_text("papers' reported rows")
        expect(page.locator("#download-snapshot-parquet")).to_be_disabled()
        expect(page.locator("#download-snapshot-parquet")).to_have_text("No Parquet for the papers' rows (JSON only)")
        button = page.locator("#download-snapshot-json")
        expect(button).to_be_enabled()
        with page.expect_download() as info:
            button.click()
        saved = tmp_path / "papers.json"
        info.value.save_as(saved)
        assert saved.read_bytes() == get(site.url + "api/v1/reported.json")[2]
        assert all(r["paper"]["citation"] and r["table"] for r in json.loads(saved.read_bytes())["results"])
        show_suite(page, suite_id)  # back on a suite (picked on the Downloads tab): its Parquet again
        expect(page.locator("#download-snapshot-parquet")).to_have_text("Download the leaderboard (Parquet)")
        expect(page.locator("#download-snapshot-parquet")).to_be_enabled()

        open_tab(page, "About")
        open_tab(page, "Exports")  # the About tab's page of docs/exports.md
        about = page.locator("#about-exports")
        expect(about).to_contain_text("Open exports")
        expect(about).to_contain_text("/api/v1/leaderboard.json")
        about.scroll_into_view_if_needed()
        about.screenshot(path=str(screenshots / "downloads-about.png"))
    finally:
        context.close()


def test_on_a_space_the_owners_browser_downloads_the_raw_outputs(browser, space_site, home, tmp_path):
    """Signed in on the Space (Gradio's session cookie in the browser), the owner picks the run
    and the button downloads it: the page's callbacks and the route read the same sign-in."""
    from playwright.sync_api import expect

    folder, run_id = home
    context = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
    name, value = session_cookie(DEV_USER)["Cookie"].split("=", 1)
    # as Gradio sets it, less its Secure flag and SameSite=None, which need https (the test serves plain http)
    context.add_cookies([{"name": name, "value": value, "url": space_site.url, "httpOnly": True, "sameSite": "Lax"}])
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    try:
        page.goto(space_site.url)
        open_leaderboard(page)
        open_tab(page, "Downloads")
        expect(page.locator("#outputs-status")).to_contain_text("Pick one of your model runs")
        page.locator("#outputs-pick input[role=combobox]").click()
        page.get_by_role("option", name=f"{MODEL} · run 1 · {run_id}").click()
        expect(page.locator("#download-outputs")).to_be_enabled()
        with page.expect_download() as info:
            page.locator("#download-outputs").click()
        saved = tmp_path / "outputs.jsonl"
        info.value.save_as(saved)
        assert saved.read_bytes() == stored(folder, "private", raw_outputs.outputs_path(run_id))
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
