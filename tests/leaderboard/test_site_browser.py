"""The site in a real browser: headless Debian chromium driven by playwright, against
`python app.py` running in a subprocess on a temporary home (tests/site_server.py).

What a visitor does: the page opens on the papers' reported rows (real models), the demo
suite's verified rows one click away; every tab and benchmark sub-tab opens (a screenshot
of each goes to test-artifacts/screenshots/<tab>.png); the default table fits a 1280 px
window; ties share a rank; an empty plot says so; search, the source and type filters and
the suite picker change the rows; a prediction file uploaded in the Submit tab is checked
at once, queued, scored by the site's own worker and shows up on every open tab without a
reload; a malformed file gets a line-numbered error; logs open on demand.

Row counts come from the grid's aria-rowcount: Gradio's Dataframe draws only the rows in
view (virtual scrolling) but states how many it holds there.
"""

from __future__ import annotations

import json
import re

import pytest
from site_server import (
    DESK,
    PHONE,
    SiteServer,
    VIEWPORT,
    WAIT_MS,
    cells,
    clean_artifacts,
    model_cell,
    open_leaderboard,
    open_tab,
    overflow_px,
    rows,
    search,
    show_suite,
    tick,
    wait_rows,
    write_baseline_predictions,
)

from playwright.sync_api import Page, expect

REPORTED_SUITE = "official (paper-reported)"  # leaderboard.views.REPORTED_SUITE: the papers' rows
SCORED_WAIT_MS = 240_000  # upload -> scored by the embedded worker -> on the leaderboard

TABS = ["Leaderboard", "Benchmarks", "By level", "By domain", "By hop", "Plots", "Submit", "Queue", "About",
        "Citation"]
# sub-tab title -> benchmark name (its table is #bench-<name>)
BENCHMARK_TABS = {"ExpVid": "expvid", "CausalStep": "causalstep", "ExAct": "exact", "Video-MMMU": "videommmu",
                  "Video SimpleQA": "videosimpleqa"}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with SiteServer(tmp_path_factory.mktemp("site") / "home") as server:
        yield server


@pytest.fixture(scope="module")
def screenshots():
    return clean_artifacts("screenshots")


@pytest.fixture
def page(browser, site):
    context = browser.new_context(viewport=VIEWPORT)
    opened = context.new_page()
    opened.set_default_timeout(WAIT_MS)
    opened.goto(site.url)
    open_leaderboard(opened)
    yield opened
    context.close()


def reported_models() -> list[str]:
    """The model names of the paper-reported pseudo-suite with an overall score, read from the
    data files (a paper's row without one is shown under By level only)."""
    from leaderboard import views
    from leaderboard.reported import reported_rows

    return [str(r["model"]) for r in reported_rows(REPORTED_SUITE)
            if any(r.get(f"{b}.overall") is not None for b in views.BENCHMARKS)]


# -- the tests ----------------------------------------------------------------------------------------------

def test_the_first_page_shows_the_papers_models_and_the_demo_is_one_click_away(page, site):
    papers = len(reported_models())
    wait_rows(page, papers, what=f"the {papers} paper-reported rows")
    expect(page.locator("#suite-select input[type=radio]:checked")).to_have_value(REPORTED_SUITE)
    # grouped by paper, in the benchmarks' order: the first rows are the ExpVid paper's
    expect(cells(page, "leaderboard-table").filter(has_text=re.compile(r"^\s*📄 ExpVid paper\s*$")).first
           ).to_be_visible()
    search(page, "gpt-4o")
    wait_rows(page, lambda n: n >= 1, what="GPT-4o's reported rows")
    expect(model_cell(page, "GPT-4o")).to_be_visible()
    search(page, "")
    expect(page.locator("#last-updated")).to_contain_text("Results last updated")
    show_suite(page, site.suite_id())
    wait_rows(page, 2, what="the demo suite's two baselines")
    expect(model_cell(page, "Baseline: random")).to_be_visible()
    expect(model_cell(page, "Baseline: first-option")).to_be_visible()


def test_the_default_table_fits_1280_px_with_intervals_in_the_cells(browser, site, screenshots):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(site.url)
    for suite in (REPORTED_SUITE, site.suite_id()):
        show_suite(page, suite)
        open_leaderboard(page)
        page.wait_for_timeout(500)  # column widths are applied with the rows
        assert overflow_px(page) <= 0, f"the {suite} table scrolls sideways at 1280 px"
    # a score cell reads "score ±half-interval"; both demo baselines' intervals overlap: both rank 1
    expect(cells(page, "leaderboard-table").filter(has_text=re.compile(r"^\s*\d+\.\d\d ±\d+\.\d\d\s*$")).first
           ).to_be_visible()
    ranks = [page.locator(f"#leaderboard-table [role=gridcell][aria-rowindex='{r}'][aria-colindex='1']").inner_text()
             for r in (2, 3)]
    assert [r.strip() for r in ranks] == ["1", "1"], ranks
    page.locator("#leaderboard-note-box .label-wrap").first.click()
    expect(page.locator("#leaderboard-note")).to_contain_text("share a rank")
    page.screenshot(path=str(screenshots / "leaderboard-1280.png"), full_page=True)
    open_tab(page, "By level")
    cells(page, "by-level-table").first.wait_for()
    page.wait_for_timeout(500)
    assert overflow_px(page, "by-level-table") <= 0, "the By level table scrolls sideways at 1280 px"
    page.screenshot(path=str(screenshots / "by-level-1280.png"), full_page=True)
    context.close()


def test_every_tab_and_benchmark_tab_opens(page, site, screenshots):
    page.screenshot(path=str(screenshots / "leaderboard.png"), full_page=True)
    show_suite(page, site.suite_id())
    for name in TABS[1:]:
        open_tab(page, name)
        check_tab(page, name, screenshots)
    open_tab(page, "Leaderboard")
    assert rows(page) >= 2
    expected = ["leaderboard", *(slug(t) for t in TABS[2:]), *(f"benchmarks-{slug(b)}" for b in BENCHMARK_TABS)]
    missing = [name for name in expected if not (screenshots / f"{name}.png").exists()]
    assert not missing, f"no screenshot of {missing}"


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def check_tab(page: Page, name: str, screenshots) -> None:
    """What each tab must show once opened, then its screenshot."""
    if name == "Benchmarks":
        for bench, benchmark in BENCHMARK_TABS.items():
            open_tab(page, bench)
            table_id = f"bench-{benchmark}"
            wait_rows(page, lambda n: n >= 2, table_id, "both baselines")
            expect(model_cell(page, "Baseline: random", table_id)).to_be_visible()
            page.screenshot(path=str(screenshots / f"benchmarks-{slug(bench)}.png"), full_page=True)
        return
    if name == "By level":
        wait_rows(page, lambda n: n >= 2, "by-level-table", "both baselines")
    elif name == "By domain":
        wait_rows(page, lambda n: n >= 2, "by-domain-table", "both baselines")
    elif name == "By hop":
        wait_rows(page, lambda n: n >= 2, "by-hop-table", "both baselines")
        # the demo's small groups are hidden, and the tab says what the texts in their place mean
        expect(page.locator("#by-hop-table")).to_contain_text("n too small")
        expect(page.locator("#tab-by-hop")).to_contain_text(
            "is a group big enough to show, hidden so that a hidden one cannot be worked out")
    elif name == "Plots":
        # vega draws the per-level profile of the top models (the two baselines): one line each
        expect(page.locator("#plot-models")).to_contain_text("Baseline: random")
        expect(page.locator("#level-profile g.mark-line path").nth(1)).to_be_attached()
        # the baselines state no parameter count: the plot gives way to a placeholder that says so
        expect(page.locator("#score-vs-params-empty")).to_contain_text("no data yet")
        expect(page.locator("#score-vs-params")).to_be_hidden()
    elif name == "Submit":
        expect(page.locator("#submit-file")).to_be_visible()
        expect(page.locator("#submit-button")).to_be_visible()
        expect(page.locator("#signed-in")).to_contain_text("site-test-user")
    elif name == "Queue":
        expect(page.locator("#queue-table")).to_be_visible()
        expect(page.locator("#my-submissions")).to_be_visible()
    elif name == "About":  # it opens on the overview of its pages (each page: the test below)
        expect(page.locator("#about-overview")).to_contain_text("Hidden answers")
    elif name == "Citation":
        expect(page.locator("#citations")).to_contain_text("@")
    page.screenshot(path=str(screenshots / f"{slug(name)}.png"), full_page=True)


ABOUT_PAGES = {  # the About tab's sub-tabs: (its Markdown's elem_id, a line of its text)
    "Protocol": ("about-protocol", "How every score is computed"),
    "Judges": ("about-judges", "How free-text answers are judged"),
    "Hidden answers": ("about-hidden", "How the answers stay hidden"),
    "Comparing rows": ("about-compare", "Rank bands"),
    "Exports": ("about-exports", "Open exports"),
    "No-video & cost": ("about-no-video-cost", "the blind pass"),
    "FAQ": ("about-faq", "How do I submit?"),
}


def open_site_tab(page: Page, name: str) -> None:
    """open_tab, also on a phone, where the site's tabs that do not fit are behind a menu."""
    page.get_by_role("tab").first.wait_for()  # the page is drawn
    if not page.get_by_role("tab", name=name, exact=True).is_visible():
        page.get_by_role("button", name="More tabs").first.click()
        page.locator(".overflow-dropdown button", has_text=name).first.click()
    open_tab(page, name)


def test_the_about_tab_lists_its_pages_and_each_opens_its_text(browser, site, screenshots):
    for name, viewport in (("1280", DESK), ("phone", PHONE)):
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        page.goto(site.url)
        open_site_tab(page, "About")
        for label in ABOUT_PAGES:
            expect(page.locator("#about-overview")).to_contain_text(label)
            # the sub-tabs wrap onto more lines rather than hide behind a menu, even on a phone
            expect(page.get_by_role("tab", name=label, exact=True)).to_be_visible()
        page.screenshot(path=str(screenshots / f"about-{name}.png"))
        for label, (elem_id, text) in ABOUT_PAGES.items():
            open_tab(page, label)
            expect(page.locator(f"#{elem_id}")).to_be_visible()
            expect(page.locator(f"#{elem_id}")).to_contain_text(text)
            expect(page.locator("#about-overview")).to_be_hidden()
        check_protocol_contents(page, screenshots, name)
        context.close()


def check_protocol_contents(page: Page, screenshots, name: str) -> None:
    """The Protocol page's contents: each link has its heading, and a click scrolls to it."""
    open_tab(page, "Protocol")
    links = page.locator("#about-protocol ul").first.get_by_role("link")
    expect(links.first).to_be_visible()
    hrefs = links.evaluate_all("links => links.map(a => a.getAttribute('href'))")
    assert len(hrefs) >= 5 and all(h.startswith("#") for h in hrefs), hrefs
    for href in hrefs:
        expect(page.locator(f"#about-protocol [id='{href[1:]}']")).to_have_count(1)
    page.screenshot(path=str(screenshots / f"about-protocol-{name}.png"))
    heading = page.get_by_role("heading", name="Video-MMMU", exact=True)
    expect(heading).not_to_be_in_viewport()
    page.locator("#about-protocol").get_by_role("link", name="Video-MMMU", exact=True).click()
    expect(heading).to_be_in_viewport()


def test_suite_picker_switches_between_the_papers_rows_and_the_demo_suite(page, site):
    papers = len(reported_models())
    show_suite(page, site.suite_id())
    demo_rows = wait_rows(page, lambda n: 2 <= n != papers, what="the demo suite's rows")
    assert papers != demo_rows
    show_suite(page, REPORTED_SUITE)
    wait_rows(page, papers, what=f"the {papers} paper-reported rows")
    expect(page.locator("#leaderboard-table")).to_contain_text("📄 ExpVid paper")


def one_decimal_expvid_score() -> tuple[str, float]:
    """A paper row's ExpVid score printed with one decimal (52.8): the case where two tabs
    could write it differently. (model, score)."""
    from leaderboard.reported import reported_rows

    found = [(str(r["model"]), r["expvid.overall"]) for r in reported_rows(REPORTED_SUITE)
             if isinstance(r.get("expvid.overall"), float) and len(repr(r["expvid.overall"]).split(".")[1]) == 1]
    assert found, "the ExpVid paper prints no score with one decimal"
    return max(found, key=lambda pair: pair[1])  # the best such row: near the top of the ExpVid table


def round_ticks(page: Page, elem_id: str) -> list[str]:
    """The numbers written on a plot's axes, once drawn, each checked to be round: at most two
    decimals ("11", "0.5", "20"), never Vega's padded "11.000000"."""
    expect(page.locator(f"#{elem_id} svg text").first).to_be_attached()
    texts = page.locator(f"#{elem_id} svg text").all_text_contents()
    numbers = [t.strip() for t in texts if re.fullmatch(r"\s*-?[\d.,]+\s*", t)]
    assert numbers, f"no axis labels in #{elem_id}"
    assert all(re.fullmatch(r"-?\d+(\.\d{1,2})?", n) for n in numbers), (elem_id, numbers)
    return numbers


def test_a_score_reads_the_same_on_the_leaderboard_and_the_benchmarks_tab_and_plot_axes_are_round(page,
                                                                                                    screenshots):
    model, score = one_decimal_expvid_score()
    written = f"{score:.2f}"  # "52.80": two decimals, as the Leaderboard has always shown scores
    show_suite(page, REPORTED_SUITE)
    search(page, model)
    wait_rows(page, lambda n: n >= 1, what=f"{model}'s rows")
    exact = re.compile(rf"^\s*{re.escape(written)}\s*$")
    expect(cells(page, "leaderboard-table").filter(has_text=exact).first).to_be_visible()
    open_tab(page, "Benchmarks")
    open_tab(page, "ExpVid")
    wait_rows(page, lambda n: n >= 3, "bench-expvid", "the ExpVid paper's rows")
    expect(cells(page, "bench-expvid").filter(has_text=exact).first).to_be_visible()
    shown = [t.strip() for t in cells(page, "bench-expvid").all_inner_texts()]
    assert f"{score:g}" not in shown, f"{score:g} is written without its second decimal"
    # every number the drawn rows show is a score with two decimals or a whole count
    assert all(re.fullmatch(r"\d+(\.\d\d)?", t) for t in shown if re.fullmatch(r"[\d.]+", t)), shown
    page.screenshot(path=str(screenshots / "benchmarks-two-decimals.png"), full_page=True)

    open_tab(page, "Plots")
    for plot in ("level-profile", "score-vs-params"):
        round_ticks(page, plot)
    page.screenshot(path=str(screenshots / "plots-axes.png"), full_page=True)


def test_search_narrows_the_rows(page):
    show_suite(page, REPORTED_SUITE)
    models = reported_models()
    wait_rows(page, len(models))
    expected = sum("qwen" in m.lower() for m in models)
    assert 0 < expected < len(models)  # the data can show a narrowing
    search(page, "qwen")
    wait_rows(page, expected, what=f"the {expected} rows whose model name contains 'qwen'")
    # two terms separated by ';' match either
    both = sum(("qwen" in m.lower()) or ("gemini" in m.lower()) for m in models)
    search(page, "qwen; gemini")
    wait_rows(page, both, what=f"the {both} rows matching qwen or gemini")
    search(page, "")
    wait_rows(page, len(models), what="every row again")


def test_source_and_type_filters_change_the_rows(page):
    show_suite(page, REPORTED_SUITE)
    total = wait_rows(page, len(reported_models()))
    tick(page, "filter-source", "reported", False)
    wait_rows(page, 0, what="no rows: this suite has only paper-reported rows")
    tick(page, "filter-source", "reported", True)
    wait_rows(page, total)
    # the papers' human and random baselines are types of their own
    tick(page, "filter-type", "human", False)
    tick(page, "filter-type", "random", False)
    from leaderboard import views
    from leaderboard.reported import reported_rows

    people_or_chance = sum(r["row_kind"] in ("human", "random") for r in reported_rows(REPORTED_SUITE)
                           if any(r.get(f"{b}.overall") is not None for b in views.BENCHMARKS))
    wait_rows(page, total - people_or_chance, what=f"{total - people_or_chance} rows without human/random rows")
    # each type and optional column is explained where it is picked
    expect(page.locator("#filter-type")).to_contain_text("unspecified: a prediction file that did not say")
    expect(page.locator("#columns")).to_contain_text("the same model asked the same questions with black frames")


def test_a_malformed_file_gets_a_line_numbered_error(page, tmp_path, site):
    good = write_baseline_predictions(site.home, tmp_path / "good.jsonl")
    lines = good.read_text().splitlines()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([lines[0], "{this is not json", *lines[1:3]]) + "\n")
    open_tab(page, "Submit")
    page.locator("#submit-file input[type=file]").set_input_files(str(bad))
    status = page.locator("#submit-status")
    expect(status).to_contain_text("❌")
    expect(status).to_contain_text(re.compile(r"line 2\b"))
    open_tab(page, "Hub model")  # the file's refusal stays with the file form
    expect(page.locator("#submit-model-status")).not_to_contain_text("❌")
    expect(page.locator("#submit-status")).to_be_hidden()


def test_an_upload_whose_answers_name_no_option_is_warned_before_it_is_sent(page, tmp_path, site):
    good = write_baseline_predictions(site.home, tmp_path / "good.jsonl")
    records = [json.loads(line) for line in good.read_text().splitlines()]
    exact = [r for r in records if r["id"].startswith("exact/")]
    for r in exact:
        r["response"] = "The answer is A."  # ExAct's options are numbered 1-5
    lettered = tmp_path / "lettered.jsonl"
    lettered.write_text("".join(json.dumps(r) + "\n" for r in records))
    open_tab(page, "Submit")
    page.locator("#submit-file input[type=file]").set_input_files(str(lettered))
    status = page.locator("#submit-status")
    expect(status).to_contain_text("ready to submit")
    expect(status).to_contain_text(f"answers (ExAct {len(exact)}) the answer reader finds no option")
    expect(status.locator("code").filter(has_text="\\boxed{B}")).to_be_visible()


def test_an_uploaded_prediction_file_reaches_the_leaderboard(page, tmp_path, site, screenshots):
    predictions = write_baseline_predictions(site.home, tmp_path / "predictions.jsonl", name="first-option")
    model = "Browser Upload Model"
    open_tab(page, "Submit")
    page.locator("#submit-file input[type=file]").set_input_files(str(predictions))
    status = page.locator("#submit-status")
    expect(status).to_contain_text("ready to submit")  # checked at once, before anything counts
    page.locator("#submit-name textarea").fill(model)
    page.locator("#submit-params textarea").fill("11")
    page.locator("#submit-button").click()
    expect(status).to_contain_text("Submitted")
    submission = re.search(r"\b([0-9]{8}T[0-9]{6}-[0-9a-f]{10})\b", status.inner_text())
    assert submission, status.inner_text()
    page.screenshot(path=str(screenshots / "submit-done.png"), full_page=True)

    # the Queue tab lists it (pending, running or already finished, and under My submissions)
    open_tab(page, "Queue")
    expect(model_cell(page, submission.group(1), "my-submissions")).to_be_visible(timeout=WAIT_MS)
    expect(page.locator("#tab-queue")).to_contain_text(model)

    # the worker scores it; the open page picks the new table up by itself, on every tab
    open_tab(page, "Leaderboard")
    show_suite(page, site.suite_id())
    expect(model_cell(page, model)).to_be_visible(timeout=SCORED_WAIT_MS)
    for tab, table in (("By level", "by-level-table"), ("By domain", "by-domain-table")):
        open_tab(page, tab)
        expect(model_cell(page, model, table)).to_be_visible(timeout=WAIT_MS)
    open_tab(page, "Benchmarks")
    open_tab(page, "ExAct")
    expect(model_cell(page, model, "bench-exact")).to_be_visible(timeout=WAIT_MS)
    finished = cells(page, "my-submissions")
    open_tab(page, "Queue")
    expect(finished.filter(has_text="FINISHED").first).to_be_visible(timeout=WAIT_MS)
    # the log opens on demand, for the submitter's own submission
    page.locator("#log-pick input[role=combobox]").click()
    page.get_by_role("option", name=re.compile(re.escape(submission.group(1)))).click()  # "model · status · id"
    expect(page.locator("#my-log")).to_contain_text("finished", timeout=WAIT_MS)
    status_cell = finished.filter(has_text="FINISHED").first
    # the status word on one line (the row itself may be taller: the message beside it wraps)
    lines = status_cell.evaluate("e => { const r = document.createRange(); r.selectNodeContents(e.querySelector('span')); "
                                 "return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size; }")
    assert lines == 1, f"the status wraps onto {lines} lines"
    page.screenshot(path=str(screenshots / "queue-after-submit.png"), full_page=True)
    # it states 11 B parameters: the one point against size, between the round ticks of a log axis
    # (5, 10, 20; a lone point once made a one-value axis that Vega wrote "11.000000")
    open_tab(page, "Plots")
    assert {"5", "10"} <= set(round_ticks(page, "score-vs-params"))
    page.screenshot(path=str(screenshots / "plots-one-point.png"), full_page=True)
