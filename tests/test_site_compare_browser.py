"""The Compare tab in a real browser (headless Debian chromium, `python app.py` in a
subprocess): a visitor picks two verified rows and sees A − B per benchmark and bucket
with its interval and significance; a row without per-video statistics is refused with
its reason; the leaderboard shows the Band column and the About tab explains both.
Screenshots: test-artifacts/screenshots/compare*.png."""

from __future__ import annotations

import re

import pytest
from site_server import (
    ARTIFACTS,
    NO_BROWSER,
    VIEWPORT,
    WAIT_MS,
    SiteServer,
    cells,
    chromium_path,
    launch_chromium,
    open_tab,
    prepare_home,
    scale_model_name,
    show_suite,
    wait_rows,
)

pytest.importorskip("playwright.sync_api", reason="the python package playwright is missing: pip install -r "
                                                 "requirements-dev.txt (make test does)")
if chromium_path() is None:
    pytest.skip(NO_BROWSER, allow_module_level=True)

from playwright.sync_api import expect, sync_playwright


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    # the demo suite and its two baselines (with per-video statistics), plus one result
    # written without them, as a result scored before comparisons existed would be
    home = prepare_home(tmp_path_factory.mktemp("compare") / "home", results=1)
    with SiteServer(home) as server:
        yield server


@pytest.fixture(scope="module")
def page(site):
    with sync_playwright() as p:
        browser = launch_chromium(p)
        context = browser.new_context(viewport=VIEWPORT)
        opened = context.new_page()
        opened.set_default_timeout(WAIT_MS)
        opened.goto(site.url)
        cells(opened, "leaderboard-table").first.wait_for()
        yield opened
        browser.close()


def pick(page, elem_id: str, option: str) -> None:
    """Pick an option of one gr.Dropdown from its open list (site_server.choose looks in
    the whole page, where the other picker's list may still be)."""
    box = page.locator(f"#{elem_id} input[role=combobox]")
    box.click()
    page.locator(f"#{elem_id}").get_by_role("option", name=option, exact=True).click()
    expect(box).to_have_value(option)


def test_picking_two_verified_rows_shows_their_differences(page, site):
    screenshots = ARTIFACTS / "screenshots"  # shared with the other browser tests: not emptied here
    screenshots.mkdir(parents=True, exist_ok=True)
    show_suite(page, site.suite_id())
    expect(page.locator("#leaderboard-table [role=columnheader]").filter(has_text="Band")).to_be_visible()

    open_tab(page, "Compare")
    expect(page.locator("#compare-status")).to_contain_text("Pick two rows")
    pick(page, "compare-a", "Baseline: random")
    pick(page, "compare-b", "Baseline: first-option")
    expect(page.locator("#compare-status")).to_contain_text("Model A")
    expect(page.locator("#compare-status")).to_contain_text("Baseline: first-option")
    wait_rows(page, lambda n: n >= 20, "compare-table", "a row per benchmark and bucket")
    table = cells(page, "compare-table")
    # the first rows: ExpVid's overall with its interval and whether it is significant
    expect(table.filter(has_text=re.compile(r"^\s*ExpVid\s*$")).first).to_be_visible()
    expect(table.filter(has_text=re.compile(r"^\s*Overall\s*$")).first).to_be_visible()
    expect(table.filter(has_text=re.compile(r"^\s*\[-?\d+\.\d\d, -?\d+\.\d\d\]\s*$")).first).to_be_visible()
    expect(table.filter(has_text=re.compile(r"^\s*(yes|no)\s*$")).first).to_be_visible()
    page.screenshot(path=str(screenshots / "compare.png"), full_page=True)
    # the table draws only the rows in view: scrolled down, the last benchmark and the
    # demo suite's small buckets, refused as everywhere on the site
    page.locator("#compare-table .virtual-table-viewport").evaluate("e => { e.scrollTop = e.scrollHeight; }")
    expect(table.filter(has_text=re.compile(r"^\s*Video SimpleQA\s*$")).first).to_be_visible()
    expect(table.filter(has_text=re.compile(r"n too small \(n=\d+\): not compared")).first).to_be_visible()
    page.screenshot(path=str(screenshots / "compare-scrolled.png"), full_page=True)

    # a row scored before comparisons existed has no per-video statistics: refused, saying so
    pick(page, "compare-b", scale_model_name(0))
    expect(page.locator("#compare-status")).to_contain_text("before comparisons existed")
    wait_rows(page, 0, "compare-table", "an empty table")
    page.screenshot(path=str(screenshots / "compare-refused.png"), full_page=True)

    open_tab(page, "About")
    expect(page.locator("#about-compare")).to_contain_text("paired bootstrap interval")
    expect(page.locator("#about-compare")).to_contain_text("Rank bands")
