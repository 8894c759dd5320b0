"""Protocol cards in a real browser (named to run after test_site_browser.py, which empties
test-artifacts/screenshots/ when it starts): headless chromium against `python app.py` on a home with
the demo suite, its baselines (the reference protocol), a result scored with other scoring
options (differs) and a result written before results carried a card (unknown).

The default table shows every row and ranks only the reference rows, the others marked; the
Protocol filter can keep the reference rows only; a click on a row opens its card, which lists
where our protocol differs from the papers'. Screenshot: test-artifacts/screenshots/protocol-card.png."""

from __future__ import annotations

import json

import pytest
from site_server import (
    ARTIFACTS,
    WAIT_MS,
    model_cell,
    open_filters,
    open_leaderboard,
    open_page,
    open_tab,
    prepare_home,
    show_suite,
    SiteServer,
    wait_rows,
)

from playwright.sync_api import expect


def _add_results(home) -> None:
    """Two more rows on the demo suite, scored for real: other scoring options, and a
    result file without a card (as written before cards existed)."""
    from evaluator.baselines import predictions
    from evaluator.judges import get_judge
    from evaluator.predictions import as_responses
    from evaluator.records import ScoringOptions
    from evaluator.scoring import make_result, score_responses
    from evaluator.suite import load_answers, load_suite
    from results.aggregate import rebuild
    from site_server import demo_suite_id
    from submissions.stores import Stores

    stores = Stores.local(home)
    suite_id = demo_suite_id(home)
    suite = load_suite(stores.suite.local_folder(suite_id))
    key = load_answers(stores.answers.local_folder(suite_id), suite)
    judge = get_judge("normalized-match")
    options = ScoringOptions(by_benchmark={"causalstep": {"restart": "algo"}})
    scores, counts = score_responses(suite, key, as_responses(predictions("first-option", suite.calls)), judge,
                                     options, bootstrap_samples=20)
    other = make_result(suite, scores, counts, judge, options,
                        {"id": "other-restart", "kind": "predictions", "model": "Other Restart", "submitter": "u"})
    stores.results.write("other-restart.json", other.model_dump_json().encode())
    legacy = json.loads(other.model_dump_json()) | {"options": {}}
    del legacy["protocol"]
    legacy["submission"] = {**legacy["submission"], "id": "old-result", "model": "Old Result"}
    stores.results.write("old-result.json", json.dumps(legacy).encode())
    # a prediction file that skips every other ExpVid call and all of ExAct
    preds = [p for i, p in enumerate(predictions("first-option", suite.calls))
             if p.id.split("/")[0] != "exact" and not (p.id.startswith("expvid/") and i % 2)]
    scores, counts = score_responses(suite, key, as_responses(preds), judge, bootstrap_samples=20)
    half = make_result(suite, scores, counts, judge, ScoringOptions(),
                       {"id": "half-answered", "kind": "predictions", "model": "Half Answered", "submitter": "u"})
    stores.results.write("half-answered.json", half.model_dump_json().encode())
    rebuild(stores.results)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    home = prepare_home(tmp_path_factory.mktemp("protocol") / "home")
    _add_results(home)
    with SiteServer(home) as server:
        yield server


@pytest.fixture(scope="module")
def page(browser, site):
    opened = open_page(browser, site.url)
    open_leaderboard(opened)
    yield opened


def test_every_row_shows_by_default_marked_and_the_filter_keeps_the_reference(page, site):
    show_suite(page, site.suite_id())
    wait_rows(page, 5, what="every row: no row is hidden by default")
    expect(model_cell(page, "≠ scoring")).to_be_visible()
    expect(model_cell(page, "? protocol unknown")).to_be_visible()
    expect(model_cell(page, "✓ reference").first).to_be_visible()

    open_filters(page)
    page.locator("#filter-protocol input[type=radio][value=reference]").click()
    wait_rows(page, 3, what="the two baselines and the prediction file (the reference protocol)")
    expect(model_cell(page, "Other Restart")).to_have_count(0)
    page.locator("#filter-protocol input[type=radio][value=all]").click()
    wait_rows(page, 5, what="every row again")


def test_a_click_on_a_row_opens_its_protocol_card(page, site):
    model_cell(page, "Other Restart").click()
    card = page.locator("#protocol-card")
    expect(card).to_contain_text("Differs from the suite's reference protocol in: scoring", timeout=WAIT_MS)
    for text in ("frame times hash", "prompt template hashes", "normalized-match@5", site.suite_id(),
                 "declared, not verified", "protocol hash", "Where our reference protocol differs from the papers'",
                 "Video SimpleQA, judge: paper o3"):
        expect(card).to_contain_text(text)
    card.scroll_into_view_if_needed()
    ARTIFACTS.joinpath("screenshots").mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "screenshots" / "protocol-card.png"), full_page=True)

    model_cell(page, "Old Result").click()
    expect(card).to_contain_text("Protocol unknown")
    model_cell(page, "Baseline: first-option").click()
    expect(card).to_contain_text("The suite's reference protocol")
    expect(page.locator("#protocol-pick input[role=combobox]")).to_have_value("Baseline: first-option · ✓ reference")


def test_a_row_that_left_calls_unanswered_is_marked_and_its_card_says_how_many(page, site):
    """A prediction file that answered half of ExpVid and none of ExAct: its ExpVid score (the
    unanswered counted wrong) is marked, the mark is explained under the table, and the card
    counts the calls; ExAct has no score, which the card says too."""
    row = page.locator("#leaderboard-table [role=row]").filter(has_text="Half Answered")
    expect(row).to_contain_text("◐")
    model_cell(page, "Half Answered").click()
    card = page.locator("#protocol-card")
    expect(card).to_contain_text("Answered in part", timeout=WAIT_MS)
    expect(card).to_contain_text("unanswered")
    expect(card).to_contain_text("Not answered at all, so no score: ExAct")
    full = page.locator("#leaderboard-table [role=row]").filter(has_text="Baseline: random")
    expect(full).not_to_contain_text("◐")
    page.locator("#leaderboard-note-box").get_by_text("How rows are ranked").click()
    expect(page.locator("#leaderboard-note")).to_contain_text("◐: some of the benchmark's calls were never answered")


def test_the_about_tab_describes_the_card_and_the_filter(page):
    open_tab(page, "About")
    open_tab(page, "Protocol")  # the About tab's page of docs/protocol.md
    about = page.locator("#about-protocol")
    expect(about).to_contain_text("Protocol card")
    expect(about).to_contain_text("reference protocol")
