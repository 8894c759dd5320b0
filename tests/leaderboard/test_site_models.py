"""The first page, Models, in a real browser at 1280x800 and on a phone (390x844): one row
per model across the five benchmarks, ranked, linked to the Hub, fitting the first screen;
and a screenshot of every tab at both sizes (test-artifacts/screenshots/sizes/).

The site is `python app.py` on the embedded default (demo suite, its baselines scored),
the papers' rows from each benchmark's reported.json. Which models to look for is read from the
reviewed identity table (leaderboard/reported_data/models.json), not written here."""

from __future__ import annotations

import re

import pytest
from site_server import (
    DESK,
    PHONE,
    WAIT_MS,
    SiteServer,
    clean_artifacts,
    open_leaderboard,
    open_tab,
    show_suite,
    write_baseline_predictions,
)

from leaderboard import models, views

from playwright.sync_api import expect

TABS = ["Models", "Leaderboard", "Benchmarks", "By level", "By domain", "By hop", "Plots", "Compare", "Submit",
        "Queue", "Downloads", "About", "Citation"]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with SiteServer(tmp_path_factory.mktemp("models") / "home") as server:
        yield server


def open_page(browser, site, viewport):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(site.url)
    page.locator("#models-table [role=gridcell]").first.wait_for()
    page.wait_for_timeout(500)  # column widths are applied with the rows
    return context, page


def on_screen_rows(page) -> list[list[str]]:
    """The cells of every data row wholly inside the window, as the reader sees them."""
    return page.evaluate("""() => [...document.querySelectorAll('#models-table [role=row]')]
        .filter(r => r.querySelector('[role=gridcell]'))
        .filter(r => { const b = r.getBoundingClientRect(); return b.top >= 0 && b.bottom <= innerHeight; })
        .map(r => [...r.querySelectorAll('[role=gridcell]')].map(c => c.innerText.trim()))""")


def search(page, text: str) -> None:
    page.locator("#models-search textarea, #models-search input").first.fill(text)


def model_rows(page, name: str) -> list[list[str]]:
    """Rows whose Model cell is exactly `name` (after a search for it)."""
    search(page, name)
    expect(page.locator("#models-table [role=gridcell]", has_text=name).first).to_be_visible()
    page.wait_for_timeout(300)
    return [r for r in on_screen_rows(page) if len(r) > 1 and r[1] == name]


def two_named(table: models.ModelTable) -> models.Identity:
    """A model two papers print under different names."""
    return next(i for i in table.identities if i.kind == "model" and len({n for _, ns in i.names for n in ns}) > 1
                and len(i.names) > 1 and len({ns[0] for _, ns in i.names}) > 1)


def test_the_first_screen_ranks_at_least_ten_models(browser, site):
    context, page = open_page(browser, site, DESK)
    shown = on_screen_rows(page)
    assert len(shown) >= 10, f"only {len(shown)} rows on the first screen at 1280x800"
    baselines = {i.display for i in models.load_models().identities if i.kind != "model"}
    for row in shown:  # a rank in every ranked row; a human or random row says it is not ranked
        assert re.fullmatch(r"\d+|—|demo|≠", row[0]), row  # demo, ≠: our runs not comparable with the papers'
        assert (row[0] == "—") == (row[1] in baselines), row
    ranks = [int(r[0]) for r in shown if r[0].isdigit()]
    assert ranks == sorted(ranks)
    expect(page.locator("#models-note")).to_contain_text("how this ranks: under the table")
    page.locator("#models-legend-box .label-wrap").first.click()
    expect(page.locator("#models-legend")).to_contain_text("No Average of papers' numbers")
    context.close()


def test_the_suite_picker_shows_off_models_without_moving_the_tab_bar(browser, site):
    """Every tab but Models picks a suite; the picker sits in the title's line, so opening a
    tab neither moves the tab bar nor the rows under it. On Models a model's name keeps to one
    line at 1280 px (the table has room to spare there)."""
    context, page = open_page(browser, site, DESK)
    bar = page.locator("#tab-models-button")
    top = bar.bounding_box()["y"]
    expect(page.locator("#suite-select")).to_be_hidden()
    name = page.locator("#models-table [role=gridcell][aria-colindex='2']", has_text="Gemini 2.5 Flash (thinking)")
    height, line = name.first.evaluate("c => { const s = c.querySelector('span') || c; "
                                       "return [s.offsetHeight, parseFloat(getComputedStyle(s).lineHeight)]; }")
    assert height < 1.5 * line, f"the name wraps: {height}px for lines of {line}px"
    for tab in ["Leaderboard", "By level", "Models", "Compare"]:
        open_tab(page, tab)
        if tab == "Models":
            expect(page.locator("#suite-select")).to_be_hidden()
        else:
            expect(page.locator("#suite-select")).to_be_visible()
        assert bar.bounding_box()["y"] == top, f"the tab bar moved on opening {tab}"
    context.close()


def test_one_row_per_model_across_papers_and_variants_apart(browser, site):
    context, page = open_page(browser, site, DESK)
    table = models.load_models()
    model = two_named(table)
    found = model_rows(page, model.display)
    assert len(found) == 1, f"{model.display}: {found}"
    filled = [cell for cell in found[0][2:7] if cell]
    assert len(filled) == len(model.names), (model.names, found[0])  # one cell per paper that reports it
    assert all("📄" in cell for cell in filled)
    # thinking on and off: two rows, two names
    pair = next((a, b) for a in table.identities for b in table.identities
                if a.name == b.name and a.thinking is True and b.thinking is False)
    search(page, pair[0].name)
    page.wait_for_timeout(500)
    names = [r[1] for r in on_screen_rows(page)]
    assert pair[0].display in names and pair[1].display in names and pair[0].display != pair[1].display
    context.close()


def test_a_model_name_links_to_its_hub_page(browser, site):
    context, page = open_page(browser, site, DESK)
    model = next(i for i in models.load_models().identities if i.hub_id and i.names)
    search(page, model.display)
    link = page.locator("#models-table a", has_text=model.display).first
    expect(link).to_have_attribute("href", f"https://huggingface.co/{model.hub_id}")
    context.close()


def test_on_a_phone_a_score_shows_without_scrolling_and_headers_stay_short(browser, site):
    context, page = open_page(browser, site, PHONE)
    cell = page.locator("#models-table [role=gridcell][aria-colindex='3']").first
    box = cell.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
    tallest = page.evaluate("""() => Math.max(...[...document.querySelectorAll('[role=columnheader] span.header')]
        .filter(s => s.offsetParent !== null)
        .map(s => s.offsetHeight / parseFloat(getComputedStyle(s).lineHeight || 20)))""")
    assert tallest <= 3.05, f"a header cell is {tallest:.1f} lines tall"
    assert page.locator("#models-table").bounding_box()["y"] < PHONE["height"]  # the table starts on screen one
    context.close()


def open_any_tab(page, name: str) -> None:
    """A tab by its name; on a narrow screen the tabs that do not fit sit behind a "..." menu."""
    visible = page.get_by_role("tab", name=name, exact=True).locator("visible=true")
    if visible.count():
        visible.first.click()
        return
    page.get_by_role("button", name="More tabs").locator("visible=true").first.click()
    page.locator(".overflow-dropdown button", has_text=re.compile(f"^{re.escape(name)}$")
                 ).locator("visible=true").first.click()


@pytest.mark.parametrize("size", ["desk", "phone"])
def test_every_tab_at_both_sizes(browser, site, size):
    folder = clean_artifacts(f"screenshots/sizes-{size}")
    context, page = open_page(browser, site, DESK if size == "desk" else PHONE)
    for name in TABS:
        open_any_tab(page, name)
        page.wait_for_timeout(800)
        page.screenshot(path=str(folder / f"{name.lower().replace(' ', '-')}-{size}.png"), full_page=True)
    context.close()


def rank_of(page, model: str) -> str:
    """The Rank cell of the Leaderboard row of `model`."""
    row = page.locator("#leaderboard-table [role=row]", has=page.locator("[role=gridcell]", has_text=model)).first
    return row.locator("[role=gridcell]").first.inner_text().strip()


def test_a_declared_frame_count_off_the_protocol_is_warned_shown_and_correctable(browser, site, tmp_path):
    """Frames per video = 8 on a suite whose protocol gives each benchmark its paper's frames:
    a warning before submitting, a success message and a My submissions line that say where
    the row is, the row shown (marked, unranked) under the default filter, and a correction
    in place that ranks it, with no new upload: its form starts from what was declared, so
    clearing the frames keeps the parameters stated."""
    predictions = write_baseline_predictions(site.home, tmp_path / "declared.jsonl", name="random", seed=5)
    model = "Declared Frames Model"
    context, page = open_page(browser, site, DESK)
    open_tab(page, "Submit")
    page.locator("#submit-frames textarea").fill("8")
    page.locator("#submit-params textarea").fill("7")
    expect(page.locator("#submit-frames-note")).to_contain_text("outside this suite's reference protocol")
    page.locator("#submit-file input[type=file]").set_input_files(str(predictions))
    expect(page.locator("#submit-status")).to_contain_text("ready to submit")
    page.locator("#submit-name textarea").fill(model)
    page.locator("#submit-button").click()
    expect(page.locator("#submit-status")).to_contain_text("≠ frames")
    submission = re.search(r"\b([0-9]{8}T[0-9]{6}-[0-9a-f]{10})\b", page.locator("#submit-status").inner_text())
    assert submission

    open_leaderboard(page)
    show_suite(page, site.suite_id())
    cell = page.locator("#leaderboard-table [role=gridcell]", has_text=model).first
    expect(cell).to_be_visible(timeout=120_000)  # scored, and shown under the default filter
    assert rank_of(page, model) == "≠"
    open_tab(page, "Models")  # shown there too, marked the same, and ranked nowhere
    found = model_rows(page, model)
    assert [r[0] for r in found] == ["≠"] and "✓≠" in " ".join(found[0]), found
    open_tab(page, "Queue")
    expect(page.locator("#my-submissions")).to_contain_text("not ranked", timeout=WAIT_MS)

    page.locator("#correct-settings .label-wrap").first.click()
    page.locator("#correct-pick input[role=combobox]").click()
    page.get_by_role("option", name=re.compile(re.escape(submission.group(1)))).click()
    expect(page.locator("#correct-frames textarea")).to_have_value("8")  # what was declared
    expect(page.locator("#correct-params textarea")).to_have_value("7")
    page.locator("#correct-frames textarea").fill("")
    page.locator("#correct-button").click()
    expect(page.locator("#correct-status")).to_contain_text("Corrected")
    expect(page.locator("#correct-status")).to_contain_text(
        "parameters 7 B, weights not stated, frames as the call list gives them, thinking off")
    open_tab(page, "Leaderboard")
    expect(page.locator("#leaderboard-table [role=gridcell]", has_text=model).first).to_be_visible()
    deadline = 120
    while rank_of(page, model) == "≠" and deadline > 0:  # scored again, then the table refreshes
        page.wait_for_timeout(1000)
        deadline -= 1
    assert re.fullmatch(r"\d+", rank_of(page, model)), rank_of(page, model)
    open_tab(page, "Models")  # ranked on the demo suite's own board; on Models, beside the papers', not
    expect(page.locator("#models-table [role=gridcell]", has_text="✓≠")).to_have_count(0, timeout=WAIT_MS)
    assert [r[0] for r in model_rows(page, model)] == ["demo"]
    context.close()


def picker_options(page, elem_id: str) -> list[str]:
    box = page.locator(f"#{elem_id} input[role=combobox]")
    box.click()
    names = [o.get_attribute("aria-label") for o in page.get_by_role("option").all()]
    box.press("Escape")
    return names


@pytest.mark.parametrize("tab,picker,table", [("By domain", "domain-select", "by-domain-table"),
                                              ("By hop", "hop-select", "by-hop-table")])
def test_no_breakdown_renders_empty_without_a_message(browser, site, tab, picker, table):
    """Every breakdown a picker offers, on the papers' page and on the demo suite, shows
    scores (or hidden-bucket notes) or a line saying why it has none; the one opened
    first has data where any of them does."""
    context, page = open_page(browser, site, DESK)
    for suite in (views.REPORTED_SUITE, site.suite_id()):
        show_suite(page, suite)
        open_tab(page, tab)
        page.locator(f"#{table} [role=gridcell]").first.wait_for()
        names = picker_options(page, picker)
        assert names, f"{tab}: nothing offered on {suite}"
        with_data = []
        for name in names:
            box = page.locator(f"#{picker} input[role=combobox]")
            box.click()
            box.fill(name)
            box.press("Enter")  # the filtered list's first option: the one named
            expect(box).to_have_value(name)
            page.wait_for_timeout(1000)
            texts = [t.strip() for t in page.locator(f"#{table} [role=gridcell]").all_inner_texts()]
            scored = any(re.fullmatch(r"-?\d+\.\d\d.*|n too small.*|hidden with.*", t) for t in texts)
            said = any(t.startswith("Nothing to show for") for t in texts)
            assert scored or said, f"{tab} / {name} on {suite}: an empty table without a message: {texts[:12]}"
            with_data.append(scored)
        if any(with_data):
            assert with_data[0], f"{tab} on {suite} opens on {names[0]}, which has no data"
        open_leaderboard(page)
    context.close()
