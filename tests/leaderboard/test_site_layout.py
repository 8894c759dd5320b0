"""The site's layout in a real browser, on a phone (390x844) and at 1280x800: which columns
stay in view and what a phone shows first in each table; the papers' rows ranked within
their paper on the Benchmarks tab; what the Submit form says about a file and after a
submission; the footer; and the font (the site works offline, one font for every letter).

The site is `python app.py` on the embedded default (demo suite, its baselines scored),
with the papers' rows. Names to look for (columns, papers' rows) are read from the code's
constants and the papers' data, not written here."""

from __future__ import annotations

import json
import re
import urllib.request

import pytest
from site_server import (
    DESK,
    PHONE,
    WAIT_MS,
    SiteServer,
    show_suite,
    write_baseline_predictions,
)

from evaluator.benchmarks import BENCHMARKS
from leaderboard import views
from leaderboard.reported import load_reported

from playwright.sync_api import expect

MAX_HEADER_LINES = 3.05
SCORE = re.compile(r"^\d+\.\d\d")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with SiteServer(tmp_path_factory.mktemp("layout") / "home") as server:
        yield server


@pytest.fixture
def page_at(browser, site):
    """open(viewport) -> a page of the site in a fresh context, its first table drawn."""
    contexts = []

    def open_at(viewport: dict):
        context = browser.new_context(viewport=viewport)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        page.goto(site.url)
        page.locator("#models-table [role=gridcell]").first.wait_for()
        return page
    yield open_at
    for context in contexts:
        context.close()


def open_any_tab(page, name: str) -> None:
    """A tab by its name; on a narrow screen the tabs that do not fit sit behind a "..." menu."""
    visible = page.get_by_role("tab", name=name, exact=True).locator("visible=true")
    if visible.count():
        visible.first.click()
    else:
        page.get_by_role("button", name="More tabs").locator("visible=true").first.click()
        page.locator(".overflow-dropdown button", has_text=re.compile(f"^{re.escape(name)}$")
                     ).locator("visible=true").first.click()
    page.wait_for_timeout(800)  # column widths are applied with the rows


def layout(page, table: str) -> dict:
    """Where a table's headers and its first drawn row's cells are (left and right edges, in
    window pixels), each header's height in lines, and the scrolling box's edges."""
    return page.evaluate("""(id) => {
        const root = document.getElementById(id);
        const box = root.querySelector('.virtual-table-viewport').getBoundingClientRect();
        const edges = (e) => { const b = e.getBoundingClientRect(); return {left: b.left, right: b.right}; };
        const headers = [...root.querySelectorAll('[role=columnheader]')].map(h => {
            const span = h.querySelector('span.header');
            return {text: h.innerText.trim(), ...edges(h),
                    lines: span ? span.offsetHeight / parseFloat(getComputedStyle(span).lineHeight) : 0};
        });
        const row = root.querySelector('[role=row] [role=gridcell]')?.parentElement;
        const cells = row ? [...row.querySelectorAll('[role=gridcell]')].map(c => ({text: c.innerText.trim(),
                                                                                    ...edges(c)})) : [];
        return {headers, cells, left: box.left, right: box.right};
    }""", table)


def scroll_sideways(page, table: str, pixels: int) -> None:
    page.locator(f"#{table} .virtual-table-viewport").evaluate(f"(box) => {{ box.scrollLeft = {pixels}; }}")
    page.wait_for_timeout(300)


def assert_readable(found: dict, table: str) -> None:
    """No header over three lines, no column squeezed under a short word, headers over their cells."""
    for header in found["headers"]:
        assert header["lines"] <= MAX_HEADER_LINES, f"{table}: header {header['text']!r} is {header['lines']:.1f} lines"
        assert header["right"] - header["left"] >= 44, f"{table}: column {header['text']!r} is squeezed"
    for header, cell in zip(found["headers"], found["cells"]):
        assert abs(header["left"] - cell["left"]) <= 1, f"{table}: {header['text']!r} is not over its cells"


def assert_rank_and_model_stay(page, table: str) -> None:
    """Scrolled sideways, Rank and Model (the first two columns) stay where they were; the third moves."""
    before = layout(page, table)
    scroll_sideways(page, table, 400)
    after = layout(page, table)
    assert [h["text"] for h in before["headers"][:2]] == [views.RANK, views.MODEL], before["headers"][:2]
    for part in ("headers", "cells"):
        for was, now in zip(before[part][:2], after[part][:2]):
            assert abs(was["left"] - now["left"]) <= 1, f"{table}: {was['text']!r} scrolled away"
        assert after[part][2]["left"] < before[part][2]["left"] - 100, f"{table}: the third column did not scroll"
    scroll_sideways(page, table, 0)


# -- a phone --------------------------------------------------------------------------------------------------

def test_on_a_phone_every_tab_is_in_view_not_behind_a_menu(page_at):
    page = page_at(PHONE)
    tabs = page.locator("#site-tabs > .tab-wrapper [role=tab]")
    names = tabs.all_inner_texts()
    assert {"Models", "Leaderboard", "Submit", "Downloads", "About", "Citation"} <= set(names), names
    assert page.get_by_role("button", name="More tabs").locator("visible=true").count() == 0
    for i in range(tabs.count()):
        box = tabs.nth(i).bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], (names[i], box)
    bar = page.locator("#site-tabs > .tab-wrapper").bounding_box()
    assert bar["y"] + bar["height"] < page.locator("#models-table").bounding_box()["y"] < PHONE["height"]
    open_any_tab(page, "Citation")  # the last tab opens from the bar itself
    expect(page.get_by_role("tab", name="Citation", exact=True)).to_have_attribute("aria-selected", "true")



@pytest.mark.parametrize("papers", [True, False], ids=["papers", "demo-suite"])
def test_on_a_phone_the_leaderboard_shows_rank_model_and_a_whole_score(page_at, site, papers):
    page = page_at(PHONE)
    show_suite(page, views.REPORTED_SUITE if papers else site.suite_id())
    page.locator("#leaderboard-table [role=gridcell]").first.wait_for()
    page.wait_for_timeout(800)
    found = layout(page, "leaderboard-table")
    names = [h["text"] for h in found["headers"]]
    assert names[:2] == [views.RANK, views.MODEL], names
    third = found["headers"][2]
    assert third["text"] in (views.AVERAGE, *views.SCORE_COLUMNS), names
    assert third["right"] <= found["right"] + 1, f"the first score column ends at {third['right']}, off the table"
    assert third["right"] - third["left"] >= 90, "a score column narrower than a score"
    if papers:  # the papers' rows have no Average and no Band: no empty columns for them
        assert views.AVERAGE not in names and views.BAND not in names, names
    column = page.locator("#leaderboard-table [role=gridcell][aria-colindex='3']")
    assert any(SCORE.match(t.strip()) for t in column.all_inner_texts()), "no score in the column on screen"
    assert_readable(found, "leaderboard-table")
    assert_rank_and_model_stay(page, "leaderboard-table")
    if not papers:  # Band is shown but scrolls with the scores: only Rank and Model stay
        band = names.index(views.BAND)
        scroll_sideways(page, "leaderboard-table", 400)
        moved = layout(page, "leaderboard-table")["headers"][band]
        assert moved["left"] < found["headers"][band]["left"] - 100, "Band stays in view like Rank and Model"


@pytest.mark.parametrize("tab,tables", [
    ("Models", ["models-table"]),
    ("Benchmarks", ["bench-expvid"]),
    ("By level", ["by-level-table"]),
    ("Compare", ["compare-table"]),
    ("Queue", ["queue-failed", "queue-running", "queue-table", "my-submissions"]),
])
def test_on_a_phone_every_table_keeps_readable_columns(page_at, tab, tables):
    page = page_at(PHONE)
    open_any_tab(page, tab)
    for table in tables:
        page.locator(f"#{table} [role=columnheader]").first.wait_for()
        found = layout(page, table)
        assert_readable(found, table)
        if found["cells"] and found["headers"][0]["text"] == views.RANK:
            assert_rank_and_model_stay(page, table)
        if table in ("models-table", "bench-expvid"):  # the headline score beside Model, whole
            assert found["headers"][2]["right"] <= found["right"] + 1, f"{table}: no whole score on screen"
    if tab == "Queue":  # its tables are often empty: the page says what that means
        expect(page.locator("#queue-intro")).to_contain_text("an empty table means no submission is in that state")


# -- the Benchmarks tab ------------------------------------------------------------------------------------


def bench_cells(page, benchmark: str, model: str) -> dict[str, str]:
    """The cells of the row of `model` in a Benchmarks sub-table, by header (the table's filter finds it)."""
    page.get_by_role("tab", name=views.TITLES[benchmark], exact=True).click()
    table = page.locator(f"#bench-{benchmark}")
    table.locator("input[placeholder^='Filter']").fill(model)
    row = table.locator("[role=row]", has=page.locator("[role=gridcell]", has_text=re.compile(
        rf"^\s*{re.escape(model)}\s*$"))).first
    row.wait_for()
    headers = [h.strip() for h in table.locator("[role=columnheader]").all_inner_texts()]
    values = [c.strip() for c in row.locator("[role=gridcell]").all_inner_texts()]
    table.locator("input[placeholder^='Filter']").fill("")
    return dict(zip(headers, values))


def test_a_papers_rows_are_ranked_within_the_paper_and_name_a_judge_only_where_one_graded(page_at):
    page = page_at(DESK)
    show_suite(page, views.REPORTED_SUITE)
    open_any_tab(page, "Benchmarks")
    for paper in load_reported():
        models = [r for r in paper.rows if r.kind == "model" and r.metrics.get("overall") is not None]
        best = max(models, key=lambda r: r.metrics["overall"])
        assert bench_cells(page, paper.benchmark, best.model)[views.RANK] == "1 📄", paper.benchmark
        # above the table: what its Overall is (CausalStep's chain score can be below both of its parts)
        expect(page.locator(f"#{paper.benchmark}-headline")).to_contain_text(
            f"Overall: {BENCHMARKS[paper.benchmark].HEADLINE}")
        worst = min(models, key=lambda r: r.metrics["overall"])
        below = sum(r.metrics["overall"] > worst.metrics["overall"] for r in models)
        assert bench_cells(page, paper.benchmark, worst.model)[views.RANK] == f"{below + 1} 📄", paper.benchmark
        for person in (r for r in paper.rows if r.kind != "model"):  # a human row: shown, never ranked
            shown = bench_cells(page, paper.benchmark, person.model)
            assert shown[views.RANK] == "", (paper.benchmark, person.model, shown[views.RANK])
            if person.metrics.get("overall") is None:  # ExpVid's humans: levels 1 and 2, multiple choice only
                assert shown[views.JUDGE] == views.NO_JUDGE, (paper.benchmark, person.model, shown[views.JUDGE])
        if paper.benchmark == "expvid":  # its level 3 is graded by the paper's LLM judge
            assert bench_cells(page, paper.benchmark, best.model)[views.JUDGE] == paper.judge


# -- the Submit form ---------------------------------------------------------------------------------------------


def test_a_checked_file_says_why_it_holds_more_predictions_than_calls_and_a_submission_empties_the_box(
        page_at, site, tmp_path):
    predictions = write_baseline_predictions(site.home, tmp_path / "layout.jsonl", name="random", seed=11)
    records = [json.loads(line) for line in predictions.read_text().splitlines()]
    in_context = [r["id"] for r in records if "context" in r]
    assert in_context, "the demo suite's CausalStep calls in context are answered in context"
    model = "Layout Check Model"
    page = page_at(DESK)
    open_any_tab(page, "Submit")
    status = page.locator("#submit-status")
    page.locator("#submit-file input[type=file]").set_input_files(str(predictions))
    expect(status).to_contain_text(f"{len(records)} predictions for ")
    expect(status).to_contain_text(f"Of them, {len(in_context)} answer CausalStep's {len(set(in_context))} calls "
                                   "that follow an earlier step")
    page.locator("#submit-name textarea").fill(model)
    page.locator("#submit-button").click()
    expect(status).to_contain_text("Submitted")
    expect(status).to_contain_text("file box emptied")
    expect(page.locator("#submit-file")).not_to_contain_text(predictions.name)  # the file is gone from the form
    page.wait_for_timeout(1000)
    expect(status).to_contain_text("Submitted")  # emptying the box keeps the line saying what happened
    page.locator("#submit-button").click()  # a second click sends nothing
    expect(status).to_contain_text("Choose a prediction file")
    open_any_tab(page, "Queue")
    mine = page.locator("#my-submissions [role=gridcell]", has_text=model)
    expect(mine.first).to_be_visible(timeout=WAIT_MS)
    assert mine.count() == 1, f"{mine.count()} submissions of {model}"


# -- the footer and the font ----------------------------------------------------------------------------------


@pytest.mark.parametrize("viewport", [DESK, PHONE], ids=["desk", "phone"])
def test_the_footer_keeps_only_what_a_visitor_can_use(page_at, viewport):
    page = page_at(viewport)
    footer = page.locator("footer")
    expect(footer).to_contain_text("Built with Gradio")
    text = footer.inner_text()
    assert "Settings" not in text and "Runs" not in text, text
    assert not text.strip().endswith("·"), f"the footer ends with a separator: {text!r}"
    if viewport is DESK:
        expect(footer).to_contain_text("Use via API")


def test_every_letter_comes_from_the_sites_font_and_no_font_server_is_asked(browser, site):
    """Bold text (headers) used to mix two fonts: the bold face shipped with gradio lacked
    most letters, which came from a fallback font. A letter the first font of the stack
    lacks is drawn by the next one, so a text measures the same with two different fallbacks
    only when the site's font draws every letter of it."""
    context = browser.new_context(viewport=DESK)
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    asked = []
    page.on("request", lambda r: asked.append(r.url) if not r.url.startswith((site.url, "data:", "blob:")) else None)
    page.goto(site.url)
    page.locator("#models-table [role=gridcell]").first.wait_for()
    mixed = page.evaluate("""async () => {
        const family = getComputedStyle(document.querySelector('.gradio-container')).getPropertyValue('--font')
            .split(',')[0].trim();
        const text = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnopqrstuvwxyz 0123456789';
        const ctx = document.createElement('canvas').getContext('2d');
        const out = [];
        for (const weight of [400, 600, 700]) {
            await document.fonts.load(`${weight} 20px ${family}`, text);
            const width = (fallback) => { ctx.font = `${weight} 20px ${family}, ${fallback}`;
                                          return ctx.measureText(text).width; };
            if (Math.abs(width('monospace') - width('serif')) > 0.5) out.push(`${family} ${weight}`);
        }
        return out;
    }""")
    assert not mixed, f"letters drawn by a fallback font at: {mixed}"
    assert not asked, f"the page asked other hosts: {asked[:5]}"
    context.close()


def test_the_first_page_holds_back_what_only_other_tabs_draw_until_a_tab_is_opened(page_at, site):
    """Gradio's page fetches the script of every component type its configuration holds visible,
    in tabs not open too: the components of a type the first page does not draw start hidden
    (tabs/common.py, defer_unseen_types) and all show on the first switch of tabs."""
    with urllib.request.urlopen(site.url + "config", timeout=60) as response:
        config = json.loads(response.read())
    kinds = {c["id"]: c["type"] for c in config["components"]}
    visible = {c["id"] for c in config["components"] if c.get("props", {}).get("visible", True) is True}

    def drawn(node, out):
        if node["id"] in kinds and node["id"] not in visible:
            return out
        out.add(node["id"])
        children = node.get("children", [])
        for child in children[:1] if kinds.get(node["id"]) == "tabs" else children:
            drawn(child, out)
        return out
    first = drawn(config["layout"], set())
    first_kinds = {kinds[i] for i in first if i in kinds}
    waiting = sorted({kinds[i] for i in visible - first if kinds[i] not in first_kinds | {"form", "state", "timer"}})
    assert not waiting, f"visible in tabs not open, of types the first page does not draw: {waiting}"

    page = page_at(DESK)
    for name, shown in (("Leaderboard", "#page-next"), ("Queue", "#correct-settings"), ("Citation", "#citations")):
        open_any_tab(page, name)
        expect(page.locator(shown)).to_be_visible(timeout=WAIT_MS)
    open_any_tab(page, "Leaderboard")
    page.locator("#filters").get_by_text("Filters and columns").click()
    expect(page.locator("#columns")).to_be_visible(timeout=WAIT_MS)
