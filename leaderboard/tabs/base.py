"""The handlers' shared core: the suites, the cached board and views (per table
generation), the suite picker and the freshness tick. Each tab's handlers subclass it
(leaderboard/tabs/<tab>.py); leaderboard/ui.py's Handlers combines them."""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import gradio as gr
import pandas as pd

from leaderboard import paging, views
from leaderboard.checking import FileChecker
from leaderboard.source import QueueSource, TableSource
from leaderboard.tabs.common import CACHE_ENTRIES, failsafe, picker_choices, skip
from submissions.errors import NotFoundError, SubmissionError
from submissions.suites import named_suite, published_suites, resolve_suite_id, suite_manifest

if TYPE_CHECKING:
    from space_config.settings import Settings
    from submissions.stores import Stores
    from submissions.validation import HubClient

log = logging.getLogger("leaderboard.ui")

QUEUE_TABS = ("queue", "submit", "downloads")  # tabs whose contents follow the queue (its signature)
_CHECKER = FileChecker()  # one validation pool per site process, started with the site (build_ui)


class BaseHandlers:
    """What every tab's callbacks need. Views are cached per table generation and suite."""

    def __init__(self, stores: Stores, settings: Settings, source: TableSource, wake: Callable[[], None] | None = None,
                 hub: HubClient | None = None, queue: QueueSource | None = None, checker: FileChecker | None = None):
        self.stores = stores
        self.settings = settings
        self.source = source
        self.wake = wake  # the embedded worker's: look at the queue now (None: no worker in this process)
        self.hub = hub
        self.queue = queue or QueueSource(stores, max_age=source.min_interval)
        self._cache: OrderedDict[tuple, Any] = OrderedDict()
        self._cache_lock = threading.Lock()
        self._pages = paging.Lru()  # the Leaderboard tab's shaped pages, apart from the views they come from
        self._logs: dict[tuple, str | None] = {}  # (log path, request state) -> log text
        self.checker = checker or _CHECKER  # prediction files are validated in its process, not here

    # -- suites and the cached board --------------------------------------------------------

    def configured_suite(self) -> str | None:
        """The suite submissions go to (LEADERBOARD_SUITE), or None if it is not published."""
        def resolve() -> str | None:
            try:
                return resolve_suite_id(self.stores, self.settings)
            except SubmissionError as e:
                log.warning("%s", e)
                return None
        return self._cached((self.source.generation, "configured"), resolve)

    def published(self) -> list[str]:
        """The suites in the suite store, looked up once per table generation (listing the
        store costs a Hub call); [] when it cannot be listed (not kept: the next call tries again)."""
        try:
            return list(self._cached((self.source.generation, "published"),
                                     lambda: published_suites(self.stores.suite)))
        except Exception as e:  # noqa: BLE001 - the results table still names its suites
            log.warning("could not list the published suites: %s", e)
            return []

    def suite_options(self) -> list[str]:
        return list(self._cached((self.source.generation, "suites"), lambda: views.suite_choices(
            self.source.suites, self.published(), self.configured_suite())))

    def suite_named(self, name: str) -> str | None:
        """The id of the published suite of this name or id (the newest of a name), or None;
        the manifests are read once per table generation."""
        published = self.published()
        if name in published:
            return name
        manifests = self._cached((self.source.generation, "manifests"),
                                 lambda: {s: suite_manifest(self.stores.suite, s) for s in published})
        return named_suite(name, manifests)

    def wake_worker(self) -> None:
        """The embedded worker looks at the queue now, not at its next poll."""
        if self.wake is not None:
            try:
                self.wake()
            except Exception:  # it will look at its next poll anyway
                log.exception("could not wake the embedded worker")

    def submission_suite(self, page_suite: str | None) -> str:
        """Where a submission made while `page_suite` is shown goes: that suite when it is
        published (a visitor submits to the board they are looking at), else the site's
        suite (the papers' rows take no submissions); NotFoundError when there is none."""
        if page_suite and page_suite in self.published():
            return page_suite
        configured = self.configured_suite()
        if configured is None:
            raise NotFoundError(f"Suite '{self.settings.suite}' (LEADERBOARD_SUITE) is not published: submissions "
                                f"cannot be taken now.")
        return configured

    def default_suite(self, options: Sequence[str] | None = None) -> str:
        """The first page: an official suite when one exists, else the papers' rows
        (views.suite_choices puts that one first)."""
        options = list(options) if options is not None else self.suite_options()
        return options[0]

    def _cached(self, key: tuple, compute: Callable[[], Any]) -> Any:
        """`compute()` once per key; keys start with a table generation, so a reload
        makes every view new while the old entries age out."""
        with self._cache_lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        value = compute()
        with self._cache_lock:
            self._cache[key] = value
            while len(self._cache) > CACHE_ENTRIES:
                self._cache.popitem(last=False)
        return value

    def board(self, suite: str) -> pd.DataFrame:
        """The suite's prepared rows (views.prepare), shared by every view and page."""
        generation, frame = self.source.snapshot()

        def build() -> pd.DataFrame:
            board = views.prepare(views.select_suite(frame, suite))
            board.attrs["generation"] = generation  # the views made from it are cached under it
            return board
        return self._cached((generation, "board", suite), build)

    def _view(self, board: pd.DataFrame, key: tuple, compute: Callable[[], Any]) -> Any:
        """A view of `board`, cached under the generation the board was built from."""
        return self._cached((board.attrs["generation"], *key), compute)

    @failsafe()
    def suite_from_link(self, request: gr.Request | None = None):
        """`?suite=<id>` in the page's address opens that suite's Leaderboard (a link to one
        suite's board): the suite picked here; the page then opens its tab (ui.OPEN_LINKED_SUITE)."""
        wanted = (request.query_params.get("suite") if request is not None else None) or None
        if wanted not in self.suite_options():
            return gr.skip()
        return gr.update(value=wanted)

    # -- freshness ----------------------------------------------------------------------------------

    def updated_text(self) -> str:
        source = self.source
        written = source.updated_at.strftime("%Y-%m-%d %H:%M:%S UTC") if source.updated_at else "never (no results yet)"
        checked = source.checked_at.strftime("%H:%M:%S UTC") if source.checked_at else "not yet"
        text = f"Results last updated: **{written}**  \nchecked {checked}"
        if source.error:
            text += " · ⚠️ the results store could not be reached; showing the last table read"
        return text

    def queue_signature(self) -> str:
        """Changes whenever anything shown in the Queue tab changes."""
        parts = [f"{r.id}:{r.status.value}:{r.progress.done}/{r.progress.total}:{r.attempt}:{r.log_path}"
                 for r in self.queue.requests()]
        return hashlib.sha256("|".join(parts).encode()).hexdigest()

    def tick(self, opened: str | None = None) -> tuple[str, int, str]:
        """The timer: (last-updated text, table generation, queue signature). Views
        re-render only when the generation or the signature moved. The signature is sent
        only while a tab that follows the queue is open (`opened`, the open tab; None: always):
        elsewhere its change would refill tables nobody sees (tab_opened sends it on opening one)."""
        try:
            self.source.refresh()
            follows = opened is None or opened in QUEUE_TABS
            return self.updated_text(), self.source.generation, self.queue_signature() if follows else gr.skip()
        except Exception:  # a tick must never break the page
            log.exception("refresh failed")
            return skip(3)

    def tab_opened(self, tab_id: str) -> str | tuple:
        """A tab was opened: which one (fill_when_open reads it), and, for a tab that follows the
        queue, the queue's signature now: its change fills that tab's tables. (The suite picker
        hides on Models by the site's CSS, in the browser: tabs/common.py.)"""
        if tab_id not in QUEUE_TABS:
            return tab_id  # the one output: gradio would store a 1-tuple as the tuple itself
        try:
            return tab_id, self.queue_signature()
        except Exception:  # the tab shows what it had; the next tick tries again
            log.exception("could not read the queue")
            return tab_id, gr.skip()

    @failsafe()
    def suite_picker(self) -> gr.Radio:
        """New suites appear in the picker when the table gains them (the choice stays)."""
        return gr.Radio(choices=picker_choices(self.suite_options()))
