"""The site with 1,000 results: it loads a page at a time, the pages can be walked, and search
and filters still narrow every row (a search finds a row that is not on the first page).

The home holds the demo suite, its two baselines and 1,000 results derived from a real
baseline result (tests/site_server.py: `prepare_home`, `varied`): ten model families,
every name unique, every third one a prediction file and the rest Hub models, scores
moved at random. The aggregated table is rebuilt from those files, as `rebuild` does
after a schema change, and `python app.py` serves it. (Speed is measured by
bench/site_speed.py, not here.)
"""

from __future__ import annotations

import pytest
from site_server import (
    MODEL_FAMILIES,
    clean_artifacts,
    demo_suite_id,
    model_cell,
    open_leaderboard,
    open_page,
    prepare_home,
    rows,
    scale_model_name,
    search,
    show_suite,
    SiteServer,
    tick,
    wait_rows,
    wait_total,
)

from leaderboard.paging import PAGE_ROWS

RESULTS = 1000
BASELINES = 2
TOTAL = RESULTS + BASELINES
PREDICTION_FILES = sum(1 for i in range(RESULTS) if i % 3 == 0)  # `varied`: every third is a file
LOAD_WAIT_MS = 120_000  # a bound on the first load of a big table, not a speed test

from playwright.sync_api import expect


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    home = prepare_home(tmp_path_factory.mktemp("scale") / "home", results=RESULTS)
    with SiteServer(home) as server:
        yield server


@pytest.fixture(scope="module")
def page(browser, site):
    opened = open_page(browser, site.url)
    open_leaderboard(opened, LOAD_WAIT_MS)
    show_suite(opened, demo_suite_id(site.home))  # the page opens on the papers' rows
    yield opened


def test_the_page_loads_every_result_a_page_at_a_time(page):
    wait_total(page, TOTAL, what=f"{RESULTS} results and {BASELINES} baselines", timeout_ms=LOAD_WAIT_MS)
    assert rows(page) == PAGE_ROWS  # the first page only is sent
    expect(page.locator("#page-info")).to_contain_text(f"Rows 1-{PAGE_ROWS} of {TOTAL:,}")
    page.screenshot(path=str(clean_artifacts("scale") / "leaderboard-1000.png"), full_page=True)


def first_model(page) -> str:
    """The Model cell of the page's first row (its column found by its header)."""
    headers = [h.strip() for h in page.locator("#leaderboard-table [role=columnheader]").all_inner_texts()]
    column = next(i for i, h in enumerate(headers, start=1) if h.startswith("Model"))
    return page.locator(f"#leaderboard-table [role=gridcell][aria-rowindex='2'][aria-colindex='{column}']"
                        ).inner_text().strip()


def test_next_and_previous_walk_the_pages(page):
    wait_total(page, TOTAL, timeout_ms=LOAD_WAIT_MS)
    top = first_model(page)
    page.locator("#page-next").click()
    expect(page.locator("#page-info")).to_contain_text(f"Rows {PAGE_ROWS + 1}-{2 * PAGE_ROWS} of {TOTAL:,}")
    expect(page.locator("#page-number input")).to_have_value("2")
    assert first_model(page) != top
    page.locator("#page-previous").click()
    expect(page.locator("#page-info")).to_contain_text(f"Rows 1-{PAGE_ROWS} of {TOTAL:,}")
    expect(model_cell(page, top)).to_be_visible()


def test_search_finds_a_row_beyond_the_first_page(page):
    wait_total(page, TOTAL, timeout_ms=LOAD_WAIT_MS)
    last = -(-TOTAL // PAGE_ROWS)
    box = page.locator("#page-number input")
    box.fill(str(last))
    box.press("Enter")
    expect(page.locator("#page-info")).to_contain_text(f"page {last} of {last}")
    far = first_model(page)  # a row the first page does not hold
    search(page, far)
    wait_total(page, 1, what=f"only {far}")
    expect(model_cell(page, far)).to_be_visible()
    expect(box).to_have_value("1")  # a new search starts at page 1
    search(page, "")
    wait_total(page, TOTAL, what="every row again")


def test_search_narrows_a_thousand_rows(page):
    wait_total(page, TOTAL, timeout_ms=LOAD_WAIT_MS)
    # one family: every tenth result
    family = MODEL_FAMILIES[3]
    expected = sum(family.lower() in scale_model_name(i).lower() for i in range(RESULTS))
    search(page, family)
    wait_total(page, expected, what=f"the {expected} {family} results")
    assert rows(page) == min(expected, PAGE_ROWS)
    # one exact name: one row, and it is the one drawn
    name = scale_model_name(417)
    search(page, name)
    wait_total(page, 1, what=f"only {name}")
    expect(model_cell(page, name)).to_be_visible()
    search(page, "")
    wait_total(page, TOTAL, what="every row again")


def test_filters_narrow_a_thousand_rows(page):
    wait_total(page, TOTAL, timeout_ms=LOAD_WAIT_MS)
    # prediction files state no weights: type "unspecified"; Hub models are "open"
    tick(page, "filter-type", "unspecified", False)
    wait_total(page, TOTAL - PREDICTION_FILES, what="the rows that are not prediction files")
    tick(page, "filter-type", "open", False)
    wait_total(page, BASELINES, what="the baselines alone")
    wait_rows(page, BASELINES)
    tick(page, "filter-type", "open", True)
    tick(page, "filter-type", "unspecified", True)
    wait_total(page, TOTAL)
    tick(page, "filter-source", "verified", False)
    wait_total(page, 0, what="no rows: the demo suite has no paper-reported rows")
    tick(page, "filter-source", "verified", True)
    wait_total(page, TOTAL)


def test_the_table_scrolls_to_the_last_row_of_its_page(page):
    # virtual scrolling: the rows at the end are drawn when scrolled to
    wait_total(page, TOTAL, timeout_ms=LOAD_WAIT_MS)
    scroller = page.locator("#leaderboard-table .virtual-table-viewport")  # gradio's scrolling box
    scroller.evaluate("element => { element.scrollTop = element.scrollHeight; }")
    expect(page.locator(f"#leaderboard-table [role=row][aria-rowindex='{PAGE_ROWS + 1}']")).to_be_visible()
    assert rows(page) == PAGE_ROWS
