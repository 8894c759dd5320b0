"""The Plots tab drawn in a real browser, 1400 px wide and on a phone (390x844): few round
ticks on the axis of parameters, every point inside the plot's frame with room to spare (the
largest model, 78 B, once sat cut on its right edge), and legends whose labels are whole
(Vega's own cuts them at 160 px), inside the plot's box, even where a label wraps.

The site is `python app.py` on the embedded default, showing the papers' rows; what to look
for (the models, their labels) is read from the papers' data, not written here."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from site_server import PHONE, WAIT_MS, SiteServer, show_suite
from test_site_layout import open_any_tab

from leaderboard import views

from playwright.sync_api import expect

WIDE = {"width": 1400, "height": 1000}
ROOM_PX = 3  # the least room between a point's edge and the plot's frame


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with SiteServer(tmp_path_factory.mktemp("plots") / "home") as server:
        yield server


@pytest.fixture(scope="module")
def papers() -> pd.DataFrame:
    return views.prepare(views.select_suite(pd.DataFrame(), views.REPORTED_SUITE))


def drawn(page, elem_id: str) -> dict:
    """A drawn plot's parts, in window pixels: its block, Vega's svg, the plot's frame, the
    points, the labels of the x axis (below the frame) and the legend's labels."""
    return page.evaluate("""(id) => {
        const root = document.getElementById(id), svg = root.querySelector('svg.marks');
        const box = (e) => { const b = e.getBoundingClientRect();
                             return {left: b.left, top: b.top, right: b.right, bottom: b.bottom}; };
        const texts = (css) => [...svg.querySelectorAll(css)].map(t => ({text: t.textContent, ...box(t)}));
        const frame = box(svg.querySelector('.role-frame path'));
        return {block: box(root), svg: box(svg), frame,
                points: [...svg.querySelectorAll('g.mark-symbol.role-mark path')].map(box),
                x_labels: texts('.role-axis-label text').filter(t => t.top >= frame.bottom),
                legend: texts('.role-legend-label text')};
    }""", elem_id)


def assert_reads_whole(found: dict, entries: list[str], what: str) -> None:
    """Inside its block, every point inside the frame with room, every legend entry whole."""
    svg, frame = found["svg"], found["frame"]
    assert svg["right"] <= found["block"]["right"] + 1 and svg["bottom"] <= found["block"]["bottom"] + 1, what
    assert found["points"], f"{what}: no point drawn"
    for point in found["points"]:
        assert (point["left"] - frame["left"] >= ROOM_PX and frame["right"] - point["right"] >= ROOM_PX
                and point["top"] - frame["top"] >= ROOM_PX and frame["bottom"] - point["bottom"] >= ROOM_PX), \
            f"{what}: a point at {point} touches the frame {frame}"
    shown = [label["text"] for label in found["legend"]]
    assert not any("…" in text for text in shown), f"{what}: a legend label is cut: {shown}"
    squeeze = lambda text: re.sub(r"\s", "", text)  # noqa: E731 - a wrapped label's lines come back joined
    assert sorted(map(squeeze, shown)) == sorted(map(squeeze, entries)), (what, shown, entries)
    for label in found["legend"]:
        assert label["right"] <= svg["right"] + 1 and label["bottom"] <= svg["bottom"] + 1, \
            f"{what}: the legend label {label['text']!r} lies outside the plot's box"


def add_model(page, label: str) -> None:
    box = page.locator("#plot-models input[role=combobox]")
    box.click()
    box.fill(label)
    page.get_by_role("option", name=label, exact=True).click()
    page.keyboard.press("Escape")


@pytest.mark.parametrize("viewport", [WIDE, PHONE], ids=["1400px", "phone"])
def test_the_plots_read_whole_at_1400_px_and_on_a_phone(browser, site, papers, viewport):
    context = browser.new_context(viewport=viewport)
    try:
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        page.goto(site.url)
        page.locator("#models-table [role=gridcell]").first.wait_for()
        show_suite(page, views.REPORTED_SUITE)
        open_any_tab(page, "Plots")
        expect(page.locator("#score-vs-params g.mark-symbol.role-mark path").first).to_be_attached()
        scatter = drawn(page, "score-vs-params")
        assert 2 <= len(scatter["x_labels"]) <= views.MAX_TICKS, [t["text"] for t in scatter["x_labels"]]
        assert_reads_whole(scatter, [views.REPORTED], "score against size")

        chosen = views.profile_defaults(papers)
        models = list(dict.fromkeys(views.level_profile(papers, chosen)["model"]))
        expect(page.locator("#level-profile .role-legend-label text")).to_have_count(len(models))
        assert_reads_whole(drawn(page, "level-profile"), list(views.legend_names(models)[0].values()), "profile")
        # a row of another paper, with the longest such label: each label now says its paper
        papers_of = {m.rsplit(" (", 1)[-1] for m in models}
        others = [label for label, id in views.model_options(papers)
                  if label.rsplit(" (", 1)[-1] not in papers_of and not views.level_profile(papers, [id]).empty]
        longest = max(others, key=len)
        add_model(page, longest)
        expect(page.locator("#level-profile .role-legend-label text")).to_have_count(len(models) + 1)
        page.wait_for_timeout(500)  # the layout settles
        assert_reads_whole(drawn(page, "level-profile"), [*models, longest], "profile of two papers")
        page.screenshot(path=str(site.home.parent / f"plots-{viewport['width']}.png"), full_page=True)
    finally:
        context.close()
