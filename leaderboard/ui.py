"""The Gradio site: the tabs of leaderboard/tabs/ assembled into one page.

    demo = build_ui(stores, settings, TableSource(stores, settings), wake)

Each tab has its own module in leaderboard/tabs/ (layout, wiring and its callbacks,
which shape nothing themselves: leaderboard.views does): leaderboard, benchmarks,
breakdowns (By level, By domain, By hop), plots, compare, submit, queue, downloads,
about, citation, and protocol (the Leaderboard's protocol filter and card). What they
share is in leaderboard/tabs/common.py (fail-safe callbacks, status lines, tables, CSS)
and leaderboard/tabs/base.py (the suites and the cached board). The tabs never import
this module; it imports them.

- `Handlers`: every callback as a plain method the tests call directly, one class
  combining each tab's handlers. Each one turns the views' frames or the submit
  service's answers into what a component shows, and never raises into the UI: an
  expected error (SubmissionError, EvaluatorError) is shown as its own message, anything
  else as a generic message with the traceback in the site's log.
- `build_ui`: the page, its tabs in order, and the timer.

Freshness: one gr.Timer per page asks `TableSource.refresh()` every REFRESH_SECONDS
and writes the table's generation into a gr.State; the views re-render when that
value changes (and when the suite changes): a page opened from the values built at start
refreshes on its first tick once a newer table is published. The queue works the same way
with a signature of the requests, sent only while a tab that shows the queue (Queue,
Submit, Downloads) is open, and when one is opened. Views are cached per (table
generation, suite, view), so many open pages share one computation, and so are the tables
shaped from them (tabs/common.py); the Leaderboard tab's pages (leaderboard/paging.py)
are cached shaped, per (generation, suite, filters, columns, page), in a cache of their own.
The first tab's rows and the Leaderboard's first page are in the page's configuration
(built at start, no event needed to show them); every other tab fills when it is opened,
and refills on a new suite or table only while it is the open tab. Opening the page sends
the timer's first tick and the two link readers (?suite=, ?model=), nothing else. Components of
a type the first page does not draw (the other tabs' accordions, buttons, plots...) start hidden
and show, in the browser, on the first switch of tabs (tabs/common.py, defer_unseen_types): the
page would fetch every visible component's script before its first rows. Uploaded files are
validated in a process of their own (leaderboard/checking.py).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

import gradio as gr

from leaderboard import api, outputs_api, views
from leaderboard.reported import load_reported
from leaderboard.source import TableSource
from leaderboard.tabs import about, benchmarks, breakdowns, citation, compare, downloads, models, plots, queue, submit
from leaderboard.tabs import leaderboard as leaderboard_tab
from leaderboard.tabs.base import QUEUE_TABS
from leaderboard.tabs.benchmarks import BenchmarkHandlers
from leaderboard.tabs.breakdowns import BreakdownHandlers
from leaderboard.tabs.common import (  # noqa: F401 - also imported from here (app.py, tests)
    CSS, GENERIC_ERROR, REFRESH_SECONDS, TITLE, current_user, datatypes, failsafe, fitted, status, table,
)
from leaderboard.tabs.common import defer_unseen_types, picker_choices
from leaderboard.tabs.leaderboard import LeaderboardHandlers
from leaderboard.tabs.model_pages import ModelPageHandlers
from leaderboard.tabs.models import ModelsHandlers
from leaderboard.tabs.plots import PlotHandlers
from leaderboard.tabs.queue import QueueHandlers
from leaderboard.tabs.submit import SubmitHandlers

if TYPE_CHECKING:
    from space_config.settings import Settings
    from submissions.stores import Stores
    from submissions.validation import HubClient

HEADER = f"""## 🎬 {TITLE}"""
# Tabs that do not fit wrap to another line (a phone: four short lines) rather than hide behind
# a "..." menu, where a phone kept 11 of the 13 out of sight.
TABS_OVERFLOW = "wrap"
BLURB = ("Video-language models on " + views.in_words([f"**{views.TITLES[b]}**" for b in views.BENCHMARKS]) + ": "
         "**✓ verified** by our worker against answers the public never sees, beside the numbers the papers report "
         "(**📄 reported**).")

# Opens the Leaderboard tab when the page's ?suite= names the suite now picked (suite_from_link
# picks it only when it exists)
OPEN_LINKED_SUITE = """(suite) => {
  const wanted = new URLSearchParams(window.location.search).get("suite");
  if (wanted && wanted === suite) document.querySelector("#tab-leaderboard-button")?.click();
}"""


class Handlers(ModelsHandlers, LeaderboardHandlers, BenchmarkHandlers, BreakdownHandlers, PlotHandlers, QueueHandlers,
               SubmitHandlers, ModelPageHandlers):
    """Every callback of the site (each tab's own class in leaderboard/tabs/, sharing
    tabs/base.py's BaseHandlers). Views are cached per table generation and suite."""


def follow_tabs(h: Handlers, tabs: gr.Tabs, shown: list) -> None:
    """On each switch of tabs: which tab is open (fill_when_open), and, for the tabs showing the
    queue, its signature now (its change fills their tables)."""
    opened, signature = shown
    for tab in [t for t in tabs.children if isinstance(t, gr.Tab)]:
        tab.select(functools.partial(h.tab_opened, tab.id), None,
                   [opened, *([signature] if tab.id in QUEUE_TABS else [])],
                   show_progress="hidden", api_visibility="private")


def build_ui(stores: Stores, settings: Settings, source: TableSource, wake: Callable[[], None] | None = None, *,
             hub: HubClient | None = None) -> gr.Blocks:
    """The site. `wake` makes the embedded worker look at the queue now (app.py passes
    worker.loop.wake for the worker it started), called after each submission; `hub`
    replaces the Hub client (tests)."""
    load_reported()  # a papers' table in a wrong shape stops the site here, its message naming the file
    h = Handlers(stores, settings, source, wake, hub=hub)
    h.checker.warm()
    options = h.suite_options()
    initial = h.default_suite(options)
    with gr.Blocks(title=TITLE) as demo:
        # The suite picker serves every tab but Models (the CSS hides it there, in the browser), in the
        # title's line: showing it on a switch of tabs never moves the tab bar or the rows
        with gr.Row(equal_height=True, elem_id="site-header"):
            gr.Markdown(HEADER, elem_id="site-title")
            with gr.Row(elem_id="suite-box"):
                gr.Markdown("Show", elem_id="suite-label")
                suite = gr.Radio(picker_choices(options), value=initial, label="Show (results are ranked within one "
                                 "suite only)", show_label=False, container=False, elem_id="suite-select")
            updated = gr.Markdown(h.updated_text(), elem_id="last-updated")
        gr.Markdown(BLURB, elem_id="site-blurb")
        generation = gr.State(source.generation)
        signature = gr.State(None)  # None: the first tick always fills the Queue tab
        opened = gr.State("models")  # the open tab (tabs other than Models and Leaderboard fill when opened)
        with gr.Tabs(overflow_behavior=TABS_OVERFLOW, elem_id="site-tabs") as tabs:
            models.build(h, generation)
            leaderboard_tab.build(h, suite, generation, initial)
            benchmarks.build(h, suite, generation, opened)
            breakdowns.build_level(h, suite, generation, opened)
            breakdowns.build_breakdown(h, suite, generation, opened, "By domain", views.DOMAIN_VIEWS, "domain",
                                       "Scores per discipline, domain, activity or category.")
            breakdowns.build_breakdown(h, suite, generation, opened, "By hop", views.HOP_VIEWS, "hop",
                                       "Video SimpleQA by hop count and its sub-questions per hop (worker runs only), "
                                       "CausalStep accuracy by position in the reasoning chain.")
            plots.build(h, suite, generation, opened)
            compare.build(h, suite, generation, opened)
            signed, quota, submit_tab, download = submit.build(h, suite)
            queue.build(h, signature)
            download_tab = downloads.build(h, suite, generation, signature, opened)
            about.build(h)
            citation.build()
        follow_tabs(h, tabs, [opened, signature])
        defer_unseen_types(demo, tabs)  # what the first page does not draw waits for the first switch of tabs
        timer = gr.Timer(REFRESH_SECONDS)
        refresh = [updated, generation, signature]
        gr.on([demo.load, timer.tick], h.tick, [opened], refresh, show_progress="hidden", api_name="tick")
        generation.change(h.suite_picker, None, suite, api_name="suite_picker")
        # A ?suite= link: the suite picked, then its Leaderboard opened in the browser, as a click on the
        # tab would (a gr.Tabs update from the server, even a skipped one, has gradio's page copy every
        # component under the tabs, the first table's rows included: seconds on a large table)
        demo.load(h.suite_from_link, None, suite, api_visibility="private").then(
            None, suite, None, js=OPEN_LINKED_SUITE, api_visibility="private")
        # the Submit tab fills when opened (its call list too: submit.build)
        submit_tab.select(h.account, None, [signed, quota], api_name="account")
        # a submission that finishes frees a slot: the quota line follows the queue
        signature.change(h.quota, None, quota, show_progress="hidden", api_visibility="private")
    # app.py serves them beside the page: the open exports, and raw outputs to their submitter only
    demo.api_routes = [*api.routes(download_tab.snapshots, h.configured_suite, h.suite_named),
                       *outputs_api.routes(download_tab.own_outputs, settings)]
    return demo
