"""Pages of the Leaderboard tab: pure functions, no gradio.

    key = view_key(filters, columns)                 # the same view, however its choices were ordered
    part = page_of(rows, page)                       # Page(rows, number, pages, first, total)
    page_text(part)                                  # "Rows 1-150 of 10,002 · page 1 of 67"

A table of PAGE_ROWS rows or fewer is sent whole; a larger one a page at a time, so
what the server shapes and sends per call does not grow with the results. Search and
the filters run on the server over every row before the page is cut (a search finds a
row on any page); the table's own header sort orders the rows of the page shown.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from leaderboard.views import Filters

PAGE_ROWS = 150  # rows per page; the papers' reported view (about 110 rows) fits on one
PAGES_KEPT = 256  # shaped pages cached per process (each at most PAGE_ROWS rows: tens of MB at most)


@dataclass(frozen=True)
class Page:
    rows: pd.DataFrame  # this page's rows
    number: int  # 1-based, clamped to the pages that exist
    pages: int  # at least 1 (an empty table is one empty page)
    first: int  # 0-based position of the page's first row in the whole view
    total: int  # rows in the whole (filtered) view


def page_count(total: int, size: int = PAGE_ROWS) -> int:
    return max(1, math.ceil(total / size))


def clamp_page(page: float | int | str | None, pages: int) -> int:
    """A page number as a reader or an API caller may send it (None, text, 0, 3.0, 99) -> 1..pages."""
    try:
        number = int(float(page))  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        number = 1
    return min(max(number, 1), pages)


def page_of(rows: pd.DataFrame, page: float | int | str | None = 1, size: int = PAGE_ROWS) -> Page:
    """The `page`-th slice of `size` rows (clamped: past the end gives the last page)."""
    pages = page_count(len(rows), size)
    number = clamp_page(page, pages)
    first = (number - 1) * size
    return Page(rows.iloc[first:first + size], number, pages, first, len(rows))


def page_text(part: Page, unlisted: str = "") -> str:
    """The line under the table: which rows are shown, out of how many, and what matching rows
    the table does not list (`unlisted`, views.unlisted_text)."""
    if part.total == 0:
        return f"No rows match. {unlisted}." if unlisted else "No rows match."
    last = part.first + len(part.rows)
    text = f"Rows {part.first + 1:,}-{last:,} of {part.total:,}"
    if part.pages > 1:
        text += f" · page {part.number} of {part.pages} (search and filters cover every page)"
    return f"{text} · {unlisted}" if unlisted else text


def _choice(values: Sequence[str] | None) -> tuple[str, ...]:
    return tuple(sorted(str(v) for v in values or ()))


def view_filters(search: str | None, types: Sequence[str] | None, sizes: Sequence[str] | None,
                 sources: Sequence[str] | None, frames: Sequence[str] | None,
                 judges: Sequence[str] | None, protocols: str | None = None) -> Filters:
    """The controls' values as Filters, choices in a fixed order (so a cache key does not
    depend on the order the boxes were ticked), the search in lower case without outer
    spaces (it matches either case)."""
    return Filters(search=(search or "").strip().lower(), types=_choice(types), sizes=_choice(sizes),
                   sources=_choice(sources), frames=_choice(frames), judges=_choice(judges),
                   protocols=protocols or None)


def view_key(suite: str, search: str | None, types: Sequence[str] | None, sizes: Sequence[str] | None,
             sources: Sequence[str] | None, frames: Sequence[str] | None, judges: Sequence[str] | None,
             columns: Sequence[str] | None, protocols: str | None = None) -> tuple:
    """What decides which rows and columns the Leaderboard shows (not which page of them):
    when it changes, the table starts again at page 1."""
    return (suite, view_filters(search, types, sizes, sources, frames, judges, protocols),
            tuple(sorted(columns or ())))


class Lru:
    """A bounded map of computed values, least recently used dropped first. The pages have one
    of their own: a flood of distinct searches then evicts only other pages, never the boards
    every default view is cut from."""

    def __init__(self, size: int = PAGES_KEPT):
        self.size = size
        self._items: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = compute()  # outside the lock: a slow miss does not hold up the hits
        with self._lock:
            self._items[key] = value
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value

    def __len__(self) -> int:
        return len(self._items)
