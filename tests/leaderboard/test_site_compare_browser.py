"""The Compare tab in a real browser (headless Debian chromium, `python app.py` in a
subprocess): a visitor picks two verified rows, each shown with its protocol status, and
sees A − B per benchmark and bucket with its interval, its raw and corrected p-values and
significance after the correction; a row off the reference protocol is marked, and its
comparison says the protocols differ and in what; a row without per-video statistics is
refused with its reason; the leaderboard shows the Band column and the About tab explains
both. Screenshots: test-artifacts/screenshots/compare*.png."""

from __future__ import annotations

import re

import pytest
from site_server import (
    ARTIFACTS,
    cells,
    open_leaderboard,
    open_page,
    open_tab,
    prepare_home,
    scale_model_name,
    show_suite,
    SiteServer,
    wait_rows,
)

from playwright.sync_api import expect


OFF_PROTOCOL = "Other Restart"


def _add_off_protocol_row(home) -> None:
    """A prediction file scored with other scoring options (≠ scoring), published with its
    per-video statistics as the worker writes them."""
    from evaluator.baselines import predictions
    from evaluator.judges import get_judge
    from evaluator.paired import paired_path
    from evaluator.paired import record as paired_record
    from evaluator.predictions import as_responses
    from evaluator.records import ScoringOptions
    from evaluator.scoring import make_result, score_responses
    from evaluator.suite import load_answers, load_suite
    from results import aggregate
    from site_server import demo_suite_id
    from submissions.stores import Stores

    stores = Stores.local(home)
    suite_id = demo_suite_id(home)
    suite = load_suite(stores.suite.local_folder(suite_id))
    key = load_answers(stores.answers.local_folder(suite_id), suite)
    judge, options, collected = get_judge("normalized-match"), ScoringOptions(by_benchmark={"causalstep": {"restart": "algo"}}), {}
    scores, counts = score_responses(suite, key, as_responses(predictions("first-option", suite.calls)), judge,
                                     options, paired=collected)
    result = make_result(suite, scores, counts, judge, options, {"id": "other-restart", "kind": "predictions",
                                                                  "model": OFF_PROTOCOL, "submitter": "u"})
    stats = paired_record(result, collected, samples=1000)
    stores.private.write(paired_path(stats.submission_id), stats.model_dump_json().encode())
    aggregate.publish(stores.results, result)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    # the demo suite and its two baselines (with per-video statistics), one result written
    # without them, as a result scored before comparisons existed would be, and one
    # result off the reference protocol (with them)
    home = prepare_home(tmp_path_factory.mktemp("compare") / "home", results=1)
    _add_off_protocol_row(home)
    with SiteServer(home) as server:
        yield server


@pytest.fixture(scope="module")
def page(browser, site):
    opened = open_page(browser, site.url)
    open_leaderboard(opened)
    yield opened


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
    open_tab(page, "Compare")  # the page opens on the papers' numbers: nothing to compare, and it says where to look
    expect(page.locator("#compare-status")).to_contain_text("Pick a suite under Show above")
    show_suite(page, site.suite_id())  # picked while Compare is open: the tab refills at once
    expect(page.locator("#compare-status")).to_contain_text("Pick two rows")
    open_tab(page, "Leaderboard")
    expect(page.locator("#leaderboard-table [role=columnheader]").filter(has_text="Band")).to_be_visible()

    open_tab(page, "Compare")
    expect(page.locator("#compare-status")).to_contain_text("Pick two rows")
    pick(page, "compare-a", "Baseline: random · ✓ reference")
    pick(page, "compare-b", "Baseline: first-option · ✓ reference")
    expect(page.locator("#compare-status")).to_contain_text("Model A")
    expect(page.locator("#compare-status")).to_contain_text("Baseline: first-option")
    expect(page.locator("#compare-status")).to_contain_text("after the Benjamini-Hochberg correction")
    expect(page.locator("#compare-status")).to_contain_text("Same protocol")
    wait_rows(page, lambda n: n >= 20, "compare-table", "a row per benchmark and bucket")
    table = cells(page, "compare-table")
    # the first rows: ExpVid's overall with its interval and whether it is significant
    expect(table.filter(has_text=re.compile(r"^\s*ExpVid\s*$")).first).to_be_visible()
    expect(table.filter(has_text=re.compile(r"^\s*Overall\s*$")).first).to_be_visible()
    expect(table.filter(has_text=re.compile(r"^\s*\[-?\d+\.\d\d, -?\d+\.\d\d\]\s*$")).first).to_be_visible()
    expect(table.filter(has_text=re.compile(r"^\s*(yes|no)\s*$")).first).to_be_visible()
    # the raw p-value and both corrected ones, each a column of its own
    for name in ("p", "p (Holm)", "p (BH)", "Significant (BH)"):
        expect(page.locator("#compare-table").get_by_role("columnheader", name=name, exact=True)).to_be_visible()
    expect(table.filter(has_text=re.compile(r"^\s*(<0\.001|[01]\.\d\d\d)\s*$")).first).to_be_visible()
    page.screenshot(path=str(screenshots / "compare.png"), full_page=True)
    # the table draws only the rows in view: scrolled down, the demo suite's small buckets,
    # refused as everywhere on the site and listed after the compared rows (the summary says so)
    expect(page.locator("#compare-status")).to_contain_text("with too few items to compare are listed last")
    page.locator("#compare-table .virtual-table-viewport").evaluate("e => { e.scrollTop = e.scrollHeight; }")
    expect(table.filter(has_text=re.compile(r"n too small \(n=\d+\): not compared")).last).to_be_visible()
    page.screenshot(path=str(screenshots / "compare-scrolled.png"), full_page=True)

    # a row off the reference protocol: marked in the picker, and the comparison says what differs
    pick(page, "compare-b", f"{OFF_PROTOCOL} · ≠ scoring")
    expect(page.locator("#compare-status")).to_contain_text("Different protocols")
    expect(page.locator("#compare-status")).to_contain_text("causalstep_restart: prose vs algo")
    expect(page.locator("#compare-status")).to_contain_text(f"{OFF_PROTOCOL} [≠ scoring]")
    wait_rows(page, lambda n: n >= 20, "compare-table", "a row per benchmark and bucket")
    # CausalStep's rows (what the scoring options are of) are marked: the table filtered to them
    page.locator("#compare-table .virtual-table-viewport").evaluate("e => { e.scrollTop = 0; }")
    page.locator("#compare-table").get_by_placeholder("Filter...").fill("CausalStep")
    expect(table.filter(has_text=re.compile(r"^\s*≠ protocols differ: scoring\s*$")).first).to_be_visible()
    page.screenshot(path=str(screenshots / "compare-protocols.png"), full_page=True)

    # a row scored before comparisons existed has no per-video statistics: refused, saying so
    pick(page, "compare-b", f"{scale_model_name(0)} · ✓ reference")
    expect(page.locator("#compare-status")).to_contain_text("before comparisons existed")
    wait_rows(page, 0, "compare-table", "an empty table")
    page.screenshot(path=str(screenshots / "compare-refused.png"), full_page=True)

    open_tab(page, "About")
    open_tab(page, "Comparing rows")  # the About tab's page of docs/compare.md
    expect(page.locator("#about-compare")).to_contain_text("paired bootstrap interval")
    expect(page.locator("#about-compare")).to_contain_text("Rank bands")
