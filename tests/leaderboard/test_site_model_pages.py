"""The models' Hub pages on the real site, in headless chromium: `python app.py` in a subprocess
(tests/site_server.py) whose Hugging Face Hub is the stand-in (tests/hub_standin.py) and whose
signed-in user (LEADERBOARD_DEV_USER) has a finished, published model run.

- Queue → My submissions: clicking the run's row picks it and opens the section; the button,
  once the Hub fails (the stand-in's fault switch), says so and stays usable; clicked again it
  opens the pull request and shows its link; a third click shows the same link and opens nothing;
- Models: the model's own `.eval_results` results, read in by the scan, show as rows reported by
  the model's authors, with their badge and a link to their source, and beside the model's
  verified score in its row, never ranked.

Screenshots: test-artifacts/screenshots/model-pages-*.png.
"""

from __future__ import annotations

import pytest
from site_server import ARTIFACTS, DEV_USER, VIEWPORT, WAIT_MS, SiteServer, open_page
from site_server import model_cell, open_tab
from test_model_pages import DATASET, MODEL, OWNER, SITE_URL, authors_files, model_repo, prepare_model_run

from leaderboard import author_results, eval_results
from submissions.stores import Stores

from playwright.sync_api import expect

SHOTS = ARTIFACTS / "screenshots"


@pytest.fixture(scope="module")
def hub():
    from conftest import running_standin

    with running_standin() as standin:  # one for the module: the site and its browser share it
        yield standin


@pytest.fixture(scope="module")
def site(tmp_path_factory, hub):
    """The home with DEV_USER's published model run; the model's repo with its owners' own results,
    scanned in; the site with DEV_USER's Hugging Face token (HF_TOKEN, as off a Space)."""
    home = tmp_path_factory.mktemp("site-model-pages") / "home"
    submission = prepare_model_run(home, user=DEV_USER)
    model_repo(hub)
    authors_files(hub)
    results = Stores.local(home).results
    author_results.save(results, author_results.scan(hub.api(), [MODEL], eval_results.Site(DATASET, SITE_URL, OWNER)))
    env = hub.env() | {"HF_TOKEN": hub.add_user(DEV_USER), "LEADERBOARD_HUB_OWNER": OWNER,
                       "LEADERBOARD_SITE_URL": SITE_URL}
    with SiteServer(home, env=env) as server:
        yield server, submission


@pytest.fixture(scope="module")
def page(browser, site):
    opened = open_page(browser, site[0].url, VIEWPORT)
    opened.locator("#models-table [role=gridcell]").first.wait_for()
    yield opened


def test_the_authors_results_show_with_their_badge_and_source_and_are_never_ranked(page):
    page.locator("#models-search textarea, #models-search input").first.fill("video-7b")
    table = page.locator("#author-table")
    link = table.locator("a[href='https://example.org/acme-report']")
    expect(link).to_be_visible()
    expect(link).to_have_text("Tech report")
    expect(table).to_contain_text("✍ model's authors")
    expect(table).to_contain_text("47.50")
    expect(page.locator("#author-note")).to_contain_text("2 results the models' authors report")
    expect(page.locator("#models-note")).to_contain_text("✍ the model's authors'")
    row = page.locator("#models-table [role=row]", has_text=MODEL).first
    expect(row).to_contain_text("✍ 47.50")  # beside the verified score, the one sorted by
    expect(row).to_contain_text("✓")
    # a run on the demo suite (here also off the paper's frames): shown, never ranked beside the papers'
    assert row.locator("[role=gridcell]").first.inner_text().strip() in ("demo", "≠")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "model-pages-authors.png"), full_page=True)


def test_the_button_opens_the_pull_request_once_and_survives_a_hub_failure(page, site, hub):
    _, submission = site
    open_tab(page, "Queue")
    cell = model_cell(page, submission, "my-submissions")
    expect(cell).to_be_visible(timeout=WAIT_MS)
    cell.click()  # the row picks the run and opens the section
    expect(page.locator("#hub-pick input")).to_have_value(f"{MODEL} · {site[0].suite_id()} · {submission}")
    button = page.locator("#hub-pr-button")
    status = page.locator("#hub-pr-status")

    hub.fail_next(1, 503, kind="commit")
    button.click()
    expect(status).to_contain_text("The Hub did not complete the request (503)")
    expect(status).to_contain_text("Your result stays published")
    expect(button).to_be_enabled()
    assert hub.discussions(MODEL) == []

    button.click()
    link = status.locator("a")
    expect(link).to_have_attribute("href", f"{hub.endpoint}/{MODEL}/discussions/1")
    expect(status).to_contain_text("opened on acme/video-7b")
    expect(button).to_be_enabled()
    page.screenshot(path=str(SHOTS / "model-pages-pull-request.png"), full_page=True)

    button.click()
    expect(status).to_contain_text("already open: nothing new was opened")
    expect(link).to_have_attribute("href", f"{hub.endpoint}/{MODEL}/discussions/1")
    assert len(hub.discussions(MODEL)) == 1 and hub.discussions(MODEL)[0].author == DEV_USER
    files = hub.files(MODEL, "refs/pr/1", "model")
    assert any(path.startswith(".eval_results/") for path in files)
