"""The Leaderboard tab's pages and cache (leaderboard/paging.py, Handlers.leaderboard_page),
against a real local home: the demo suite, its baselines and more results than one page
holds (tests/site_server.py: prepare_home), the aggregated table rebuilt on disk.

Every row is on exactly one page, in rank order; a page past the end is the last page; a
search finds rows on any page; a repeated view is served from the cache (the same object),
and a real rewrite of the table file makes every view new."""

from __future__ import annotations

import dataclasses
import random

import pytest
from site_server import prepare_home, varied

from results import aggregate
from leaderboard import paging, views
from leaderboard.source import TableSource
from leaderboard.ui import Handlers
from space_config.settings import get_settings
from submissions.stores import Stores

RESULTS = 2 * paging.PAGE_ROWS + 37  # three pages, the last one short
ALL = (list(views.TYPES), list(views.SIZES), list(views.SOURCES), [], [])


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return prepare_home(tmp_path_factory.mktemp("paging") / "home", results=RESULTS)


@pytest.fixture(scope="module")
def stores(home):
    return Stores.local(home)


@pytest.fixture(scope="module")
def handlers(home, stores):
    settings = dataclasses.replace(get_settings(), home=home, store="local", suite="demo", dev_user=None)
    return Handlers(stores, settings, TableSource(stores, settings, min_interval=0))


@pytest.fixture(scope="module")
def suite(handlers):
    return handlers.configured_suite()


def page(handlers, suite, number, search="", columns=views.DEFAULT_COLUMNS):
    """(model names shown, the line under the table, the page number) of one page."""
    table, text, shown = handlers.leaderboard_page(suite, search, *ALL, list(columns), page=number)
    value = table["value"]
    if not isinstance(value, dict):  # a plain frame: no cell shows other text (an empty table)
        return list(value[views.MODEL]), text, shown
    model = value["headers"].index(views.MODEL)
    return [row[model] for row in value["data"]], text, shown


def test_every_row_is_on_exactly_one_page_in_rank_order(handlers, suite):
    whole = handlers.leaderboard(suite, "", *ALL, list(views.DEFAULT_COLUMNS))
    assert len(whole) == RESULTS + 2  # and the two baselines
    pages = paging.page_count(len(whole))
    assert pages == 3
    seen = []
    for number in range(1, pages + 1):
        names, text, shown = page(handlers, suite, number)
        assert shown == number
        assert len(names) == (paging.PAGE_ROWS if number < pages else len(whole) - 2 * paging.PAGE_ROWS)
        first = (number - 1) * paging.PAGE_ROWS + 1
        assert text.startswith(f"Rows {first:,}-{first + len(names) - 1:,} of {len(whole):,}")
        seen.extend(names)
    assert seen == list(whole[views.MODEL])  # every row once, in the order of the whole view


def test_a_page_past_the_end_or_garbage_is_clamped(handlers, suite):
    last, _, number = page(handlers, suite, 99)
    assert number == 3 and last == page(handlers, suite, 3)[0]
    for wrong in (None, "", "two", -4, 0):
        assert page(handlers, suite, wrong)[2] == 1


def test_a_changed_view_starts_again_at_page_one(handlers, suite):
    """The table callback keeps the page asked for while the view stays the same, and goes
    back to page 1 when a filter, the search, the columns or the suite change."""
    columns = list(views.DEFAULT_COLUMNS)
    table, text, number, key = handlers.table(suite, "", *ALL, columns, None, 2, None)
    assert number == 1 and "page 1 of 3" in text  # first call: no view shown yet
    table, text, number, same = handlers.table(suite, "", *ALL, columns, None, 2, key)
    assert "page 2 of 3" in text and same == key
    assert number == {"__type__": "update"}  # the box already says 2: left alone (a number typed meanwhile stays)
    table, text, number, key = handlers.table(suite, "", *ALL, columns, None, 3, key)
    assert "page 3 of 3" in text and len(table["value"]["data"]) < paging.PAGE_ROWS
    table, text, number, other = handlers.table(suite, "", *ALL, columns[:-1], None, 3, key)
    assert number == 1 and other != key and len(table["value"]["data"]) == paging.PAGE_ROWS


def test_search_finds_a_row_that_is_not_on_the_first_page(handlers, suite):
    first_page = set(page(handlers, suite, 1)[0])
    later = next(n for n in page(handlers, suite, 3)[0] if n not in first_page)
    names, text, _ = page(handlers, suite, 1, search=later.upper())  # either case
    assert names == [later] and text == "Rows 1-1 of 1"
    assert page(handlers, suite, 1, search="no such model")[1] == "No rows match."


def test_a_repeated_view_is_served_from_the_cache(handlers, suite):
    one = handlers.leaderboard_page(suite, " ", *ALL, list(views.DEFAULT_COLUMNS), page=2)
    # the same view, its choices in another order and the search with spaces: the same cached entry
    types, sizes, sources, frames, judges = ALL
    two = handlers.leaderboard_page(suite, "", list(reversed(types)), sizes, sources, frames, judges,
                                    list(reversed(views.DEFAULT_COLUMNS)), page="2")
    assert one[0] is not two[0]  # a copy each time: gradio pops the value out of an update
    assert one[0]["value"] is two[0]["value"] and one[1:] == two[1:]


def test_a_rewritten_table_file_makes_every_view_new(handlers, stores, suite):
    source = handlers.source
    before = page(handlers, suite, 1)
    cached = handlers.leaderboard_page(suite, "", *ALL, list(views.DEFAULT_COLUMNS), page=1)[0]["value"]
    # a new result that outscores every other row, written as the worker writes one: its
    # file, then the aggregated table rebuilt (a new file replacing the old)
    base = next(r for r in aggregate.read_results(stores.results) if r.submission.get("kind") == "baseline")
    best = varied(base, RESULTS + 1, random.Random(1))
    best.submission["model"] = "Paging-Leader-99B"
    for metrics in best.scores.values():
        for name, value in metrics.items():
            if isinstance(value, float) and not name.endswith(("_ci_low", "_ci_high")):
                metrics[name] = 100.0
    stores.results.write(f"{best.submission['id']}.json", best.model_dump_json().encode())
    aggregate.rebuild(stores.results)
    assert source.refresh()  # the file's stamp changed: reloaded
    after = page(handlers, suite, 1)
    assert handlers.leaderboard_page(suite, "", *ALL, list(views.DEFAULT_COLUMNS), page=1)[0]["value"] is not cached
    assert "Paging-Leader-99B" in after[0] and "Paging-Leader-99B" not in before[0]
    assert f"of {RESULTS + 3:,}" in after[1]
    assert not source.refresh()  # unchanged since: nothing reloaded, the cache stays
    assert len(page(handlers, suite, 3)[0]) == RESULTS + 3 - 2 * paging.PAGE_ROWS  # the last page gained it


def test_a_flood_of_searches_evicts_only_pages_never_the_board(handlers, suite):
    board = handlers.board(suite)
    for i in range(paging.PAGES_KEPT + 20):  # more distinct views than the page cache keeps
        handlers.leaderboard_page(suite, f"flood-{i}", *ALL, list(views.DEFAULT_COLUMNS), page=1)
    assert len(handlers._pages) == paging.PAGES_KEPT
    assert handlers.board(suite) is board  # the board every view is cut from was kept
