"""The Gradio site: tabs wired to `leaderboard.views` (shaping) and `submissions.submit`.

    demo = build_ui(stores, settings, TableSource(stores, settings), scheduler)

Two layers here, both thin:

- `Handlers`: every callback as a plain method the tests call directly. Each one
  turns the views' frames or the submit service's answers into what a component
  shows, and never raises into the UI: an expected error (SubmissionError,
  EvaluatorError) is shown as its own message, anything else as a generic message
  with the traceback in the site's log.
- `build_ui` and one `_<tab>_tab` function per tab: layout and event wiring only.

Freshness: one gr.Timer per page asks `TableSource.refresh()` every REFRESH_SECONDS
and writes the table's generation into a gr.State; the views re-render when that
value changes (and when the suite changes). The queue works the same way with a
signature of the requests. Views are cached per (table generation, suite, view), so
many open pages share one computation; the Leaderboard tab's pages (leaderboard/paging.py)
are cached shaped, per (generation, suite, filters, columns, page), in a cache of their own.
On first render only the Leaderboard's first page is built; every other tab fills when it
is opened, and refills on a new suite or table only while it is the open tab. Uploaded
files are validated in a process of their own (leaderboard/checking.py).
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import gradio as gr
import pandas as pd

from evaluator.errors import EvaluatorError
from leaderboard import api, compare_tab, disclosure, downloads_tab, markup, paging, protocol_tab, views
from leaderboard.checking import FileChecker
from leaderboard.source import QueueSource, TableSource
from space_config.settings import get_settings
from submissions.errors import SubmissionError
from submissions.submit import (
    Identity,
    published_suites,
    read_calls,
    remaining_quota,
    resolve_suite_id,
    submit_model,
    submit_predictions,
)

if TYPE_CHECKING:
    from space_config.settings import Settings
    from submissions.stores import Stores
    from submissions.validation import HubClient

log = logging.getLogger("leaderboard.ui")

ROOT = Path(__file__).resolve().parent.parent
PROTOCOL_PATH = ROOT / "docs" / "protocol.md"
FAQ_PATH = ROOT / "docs" / "faq.md"
COMPARE_PATH = ROOT / "docs" / "compare.md"
EXPORTS_PATH = ROOT / "docs" / "exports.md"
CITATIONS_PATH = ROOT / "leaderboard" / "citations.bib"

TITLE = "Video Reasoning Leaderboard"
REFRESH_SECONDS = 5.0  # how often an open page asks whether the table or the queue changed
LOG_TAIL_LINES = 20
CACHE_ENTRIES = 128  # views kept per process (a view is a small frame)
GENERIC_ERROR = ("Something went wrong on our side. The maintainers have the details in the site's log; "
                 "please try again in a moment.")

HEADER = f"""# 🎬 {TITLE}
Video-language models on **ExpVid**, **CausalStep**, **ExAct**, **Video-MMMU** and **Video SimpleQA**,
scored by our worker against answers the public never sees (**✓ verified**), beside the numbers the
papers report (**📄 reported**). One suite is shown at a time: scores from different suites or judges
are not comparable."""

HIDDEN_ANSWERS = """## How the answers stay hidden
- The public suite (questions, videos, the call list) and its answer key are stored apart. The answer
  key lives in a private store that only the evaluation worker can read; this website is never given
  access to it.
- Prompts in the call list never contain an answer. Video SimpleQA's sub-questions name earlier hops'
  answers, so they are never published: only the worker asks them.
- Error messages name the file, line and field that is wrong, never the expected answer. A prediction
  file gets no per-item feedback, only the aggregated scores.
- Logs and uploaded prediction files are private; each submitter sees the tail of their own logs under
  *Queue → My submissions*, nobody else's."""

# Passed to launch() (gradio 6 takes css there): log tails keep their line breaks.
CSS = ("#queue-failed [role=gridcell] span { white-space: pre-wrap; }\n"
       # tables in the page's own font: monospace made every cell and badge wider
       "[role=grid] [role=gridcell], [role=grid] [role=columnheader] { font-family: var(--font); }\n"
       # long headers ("Video SimpleQA") wrap rather than widen or clip their column
       "#leaderboard-table [role=columnheader] span.header, #by-level-table [role=columnheader] span.header "
       "{ white-space: normal; overflow: visible; text-overflow: clip; overflow-wrap: break-word; }\n"
       # status and progress never wrap (My submissions: columns 3-4; Running: column 6)
       "#my-submissions [role=gridcell][aria-colindex='3'] span, "
       "#my-submissions [role=gridcell][aria-colindex='4'] span, "
       "#queue-running [role=gridcell][aria-colindex='6'] span { white-space: nowrap; }")

RANKING_NOTE = """**✓ verified**: scored by our worker on this suite. **📄 ... paper**: the number printed in that
benchmark's paper (that paper's own setup; reported rows are never ranked). **baseline**: a
built-in baseline. A score reads **61.20 ±1.79**: the score and half the width of its 95% bootstrap interval over
videos (the Columns menu has the exact bounds). Rows are sorted by the average of the five overall scores (shown
only when all five exist; its interval combines the five), then by the mean of the overall scores a row has;
a row with all five scores ranks above every row without.
**Rank** is 1 + the number of rows whose whole interval lies above this row's: rows with equal scores share a
rank, and every row whose interval overlaps the leader's ranks 1 with it, because their difference may be
noise. **Band** groups rows to read as tied: the best row not yet in a band leads one, and each next row joins it
while its interval overlaps the leader's. Rows are ranked only against rows of the same judge, and only rows that
share the suite's **reference protocol** are shown and ranked by default: "All protocols" (the Protocol filter)
shows the others, marked ≠, unranked. The **Protocol card** under the table (or a click on a row) says how a row's
numbers were produced; the Compare tab tests the difference of two rows directly."""

PREDICTION_STEPS = """1. Download the call list: one JSON record per call (its prompt, the video and the frame times
   to show).
2. Answer every call with your model and write one JSON line per call:
   `{"id": "<the call's id>", "response": "<your model's output>"}`, optionally with `"confidence": 0-100`
   (Video SimpleQA). A CausalStep call answered in context holds a placeholder for your model's previous
   answer: fill it with your model's own answer and add `"context": "<that answer's label>"`.
3. Upload the file: it is checked at once, and every problem is listed with its line."""

PLACEHOLDER_FAQ = "*The FAQ is not written yet (`docs/faq.md`).*"
PLACEHOLDER_BIB = "% The BibTeX entries of the five papers are not added yet (leaderboard/citations.bib)."


# -- who is signed in --------------------------------------------------------------------------------

def on_space() -> bool:
    """Running as a Hugging Face Space: only then is gr.LoginButton shown, whose OAuth
    routes need a Space (locally gradio would demand a stored HF token)."""
    return get_settings().on_space


def current_user(profile: Any, settings: Settings) -> str | None:
    """The signed-in Hugging Face user: the OAuth profile gradio injects; off a Space
    (local development and tests) `settings.dev_user` (LEADERBOARD_DEV_USER), which the
    settings never set on a Space. Never a form field."""
    if profile is not None:
        username = getattr(profile, "username", None)
        if username is None and hasattr(profile, "get"):
            username = profile.get("preferred_username")
        if isinstance(username, str) and username.strip():
            return username.strip()
    return settings.dev_user or None


# -- small helpers --------------------------------------------------------------------------------------

def _warn(message: str) -> None:
    try:
        gr.Warning(markup.escape(message))  # a toast renders HTML; the message may quote user input
    except Exception:  # noqa: BLE001 - outside an event (tests) there is no page to warn
        log.warning("%s", message)


def _skip(outputs: int):
    return gr.skip() if outputs == 1 else tuple(gr.skip() for _ in range(outputs))


def failsafe(outputs: int = 1):
    """For callbacks that fill components: on an error keep what is shown (gr.skip) and
    tell the reader in a toast; an exception never breaks the page."""
    def decorate(fn):
        @functools.wraps(fn)
        def run(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except (SubmissionError, EvaluatorError) as e:
                _warn(str(e))
            except Exception:  # logged with its traceback, shown generically
                log.exception("callback %s failed", fn.__name__)
                _warn(GENERIC_ERROR)
            return _skip(outputs)
        return run
    return decorate


def status(message: str, ok: bool) -> str:
    """A status from plain text, which may quote the submitter's file or form: every line
    escaped (leaderboard.markup), the first as the status line, the others (problems by
    line) as one list. No code block: a quoted fence could close it."""
    first, *rest = [line.strip().removeprefix("- ") for line in message.splitlines() if line.strip()] or [""]
    text = f"{'✅' if ok else '❌'} {markup.escape(first)}"
    return text + "\n\n" + "\n".join(f"- {markup.escape(line)}" for line in rest) if rest else text


def done(markdown: str) -> str:
    """A success status from the site's own Markdown (anything quoted in it already escaped)."""
    return f"✅ {markdown}"


def datatypes(frame: pd.DataFrame) -> list[str]:
    return ["number" if pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])
            else "str" for c in frame.columns]


def _with_shown_text(frame: pd.DataFrame) -> pd.DataFrame | dict:
    """The frame, or, when some cells are hidden buckets, Gradio's value form with their
    "n too small" text as display values: the data stays numbers, so columns still sort
    as numbers (the hidden cells with the missing ones)."""
    shown = views.shown_text(frame)
    if not shown.notna().any(axis=None):
        return frame
    data = frame.astype(object).where(frame.notna(), None).to_numpy().tolist()
    # no "styling" matrix: the table reads it as optional, and every cell of it is more to send
    return {"headers": [str(c) for c in frame.columns], "data": data,
            "metadata": {"display_value": shown.to_numpy().tolist()}}


def table(frame: pd.DataFrame) -> dict:
    """An update of a Dataframe: the value and its column types (numbers sort as numbers).
    gr.update, not a gr.Dataframe(...): a component would convert the value once more."""
    return gr.update(value=_with_shown_text(frame), datatype=datatypes(frame))


def fitted(frame: pd.DataFrame) -> dict:
    """table(), with fixed column widths: the default Leaderboard and By level columns fit a
    1280 px window (wider choices scroll, the model pinned)."""
    return {**table(frame), "column_widths": views.column_widths(list(frame.columns))}


def as_tables(fn, shape: Callable[[pd.DataFrame], dict] = table):
    """Wire a handler returning frames (the tests read those) so each frame reaches its
    gr.Dataframe as `shape` makes it (table, or fitted); anything else (gr.skip, updates)
    passes through."""
    def convert(value):
        return shape(value) if isinstance(value, pd.DataFrame) else value

    @functools.wraps(fn)
    def run(*args, **kwargs):
        out = fn(*args, **kwargs)
        return tuple(convert(v) for v in out) if isinstance(out, tuple) else convert(out)
    return run


def optional_number(text: str | float | None, what: str, integer: bool) -> float | int | None:
    """A form's optional positive number; ValueError naming the field otherwise."""
    if text is None or not str(text).strip():
        return None
    try:
        value = float(str(text).strip())
    except ValueError:
        value = -1.0
    if not value > 0 or value == float("inf") or (integer and not value.is_integer()):
        kind = "a whole number" if integer else "a number"
        raise ValueError(f"{what}: give {kind} above 0 (you wrote {str(text).strip()[:40]!r}), or leave it empty.")
    return int(value) if integer else value


NO_LEVELS = ("**Per-level profile**: no data yet. No chosen result has a per-level score (ExpVid, Video-MMMU "
             "or CausalStep).")
NO_POINTS = ("**Score against size**: no data yet. No result in this view states its parameter count (a "
             "prediction file can give it when submitted).")


def plot_or_placeholder(frame, placeholder: str) -> tuple:
    """(the plot's update, its placeholder's update): an empty plot is hidden and the
    placeholder says why, instead of an empty frame with a stray legend."""
    if not isinstance(frame, pd.DataFrame):
        return frame, gr.skip()  # a failed view: leave both as they are
    empty = frame.empty
    return gr.update(value=frame, visible=not empty), gr.update(value=placeholder if empty else "", visible=empty)


def picker_choices(options: Sequence[str]) -> list[tuple[str, str]]:
    """(label, suite id) for the suite picker."""
    return [(views.suite_label(o), o) for o in options]


def _read_text(path: Path, placeholder: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return placeholder


_CHECKER = FileChecker()  # one validation pool per site process, started with the site (build_ui)


# -- the callbacks -------------------------------------------------------------------------------------

class Handlers:
    """Every callback of the site. Views are cached per table generation and suite."""

    def __init__(self, stores: Stores, settings: Settings, source: TableSource, scheduler=None,
                 hub: HubClient | None = None, queue: QueueSource | None = None, checker: FileChecker | None = None):
        self.stores = stores
        self.settings = settings
        self.source = source
        self.scheduler = scheduler
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

    def suite_options(self) -> list[str]:
        """Looked up once per table generation (listing the suite store costs a Hub call)."""
        def options() -> list[str]:
            try:
                published = published_suites(self.stores.suite)
            except Exception as e:  # noqa: BLE001 - the results table still names its suites
                log.warning("could not list the published suites: %s", e)
                published = []
            return views.suite_choices(self.source.suites, published, self.configured_suite())
        return list(self._cached((self.source.generation, "suites"), options))

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

    # -- Leaderboard tab ------------------------------------------------------------------------

    @failsafe()
    def leaderboard(self, suite: str, search: str, types: Sequence[str], sizes: Sequence[str],
                    sources: Sequence[str], frames: Sequence[str] | None, judges: Sequence[str] | None,
                    columns: Sequence[str], protocols: str | None = None) -> pd.DataFrame:
        filters = views.Filters(search=search or "", types=tuple(types or ()), sizes=tuple(sizes or ()),
                                sources=tuple(sources or ()), frames=tuple(frames or ()), judges=tuple(judges or ()),
                                protocols=protocols)
        rows = views.filter_rows(self.leaderboard_rows(suite), filters)
        return views.leaderboard_view(rows, protocol_tab.columns_for(columns, protocols))

    def leaderboard_rows(self, suite: str) -> pd.DataFrame:
        """views.leaderboard_table of the suite, cached: filters only pick from it."""
        board = self.board(suite)
        return self._view(board, ("leaderboard", suite), lambda: views.leaderboard_table(board))

    @failsafe(outputs=3)
    def leaderboard_page(self, suite: str, search: str, types: Sequence[str], sizes: Sequence[str],
                         sources: Sequence[str], frames: Sequence[str] | None, judges: Sequence[str] | None,
                         columns: Sequence[str], protocols: str | None = None,
                         page: float | None = 1) -> tuple[dict, str, int]:
        """What the page shows: one page (paging.PAGE_ROWS rows) of the filtered view, shaped
        for the Dataframe, the line under it and the page number (clamped). Each step is
        cached under the table's generation: a view asked for again costs a lookup."""
        board = self.board(suite)
        generation = board.attrs["generation"]
        filters = paging.view_filters(search, types, sizes, sources, frames, judges, protocols)
        wanted = set(protocol_tab.columns_for(columns, protocols))
        chosen = tuple(c for c in views.OPTIONAL_COLUMNS if c in wanted)
        filtered: list[pd.DataFrame] = []  # the filtered rows, computed at most once per call, kept by no cache

        def rows() -> pd.DataFrame:
            if not filtered:
                filtered.append(views.filter_rows(self.leaderboard_rows(suite), filters))
            return filtered[0]
        count = self._pages.get((generation, "count", suite, filters), lambda: len(rows()))
        number = paging.clamp_page(page, paging.page_count(count))

        def shape() -> tuple[dict, str]:
            part = paging.page_of(rows(), number)
            return fitted(views.leaderboard_view(part.rows, chosen)), paging.page_text(part)
        shaped, text = self._pages.get((generation, "page", suite, filters, chosen, number), shape)
        return dict(shaped), text, number  # a copy: gradio pops the value out of an update

    def first_page(self, suite: str, search: str, types: Sequence[str], sizes: Sequence[str],
                   sources: Sequence[str], frames: Sequence[str] | None, judges: Sequence[str] | None,
                   columns: Sequence[str], protocols: str | None = None) -> tuple[dict, str, int]:
        """A changed filter, search, column choice or suite starts again at page 1."""
        return self.leaderboard_page(suite, search, types, sizes, sources, frames, judges, columns, protocols, 1)

    @failsafe()
    def suite_from_link(self, request: gr.Request | None = None):
        """`?suite=<id>` in the page's address opens that suite (a link to one suite's board)."""
        wanted = (request.query_params.get("suite") if request is not None else None) or None
        return gr.update(value=wanted) if wanted in self.suite_options() else gr.skip()

    @failsafe(outputs=2)
    def filter_options(self, suite: str, frames: Sequence[str] | None, judges: Sequence[str] | None):
        """The frames and judge choices present in this suite (kept selections that still exist)."""
        board = self.board(suite)
        frame_values, judge_values = self._view(board, ("filter-choices", suite),
                                                lambda: (views.frame_choices(board), views.judge_choices(board)))
        return (gr.Dropdown(choices=frame_values, value=[f for f in frames or () if f in frame_values],
                            multiselect=True),
                gr.Dropdown(choices=judge_values, value=[j for j in judges or () if j in judge_values],
                            multiselect=True))

    # -- Benchmarks, By level, By domain, By hop ------------------------------------------------------

    @failsafe(outputs=len(views.BENCHMARKS))
    def benchmarks(self, suite: str) -> tuple:
        board = self.board(suite)
        return tuple(self._view(board, ("bench", suite, b), lambda b=b: views.benchmark_view(board, b))
                     for b in views.BENCHMARKS)

    @failsafe()
    def by_level(self, suite: str) -> pd.DataFrame:
        board = self.board(suite)
        return self._view(board, ("level", suite), lambda: views.by_level_view(board))

    def breakdown_metrics(self, suite: str, key: str) -> list[str]:
        board = self.board(suite)
        return self._view(board, ("metrics", suite, key), lambda: views.breakdown_metrics(board, key))

    @failsafe()
    def breakdown(self, suite: str, key: str, metric: str | None) -> pd.DataFrame:
        board = self.board(suite)
        metrics = self.breakdown_metrics(suite, key)
        metric = metric if metric in metrics else (metrics[0] if metrics else None)
        return self._view(board, ("breakdown", suite, key, metric), lambda: views.breakdown_view(board, key, metric))

    @failsafe(outputs=2)
    def breakdown_choice(self, suite: str, key: str, metric: str | None):
        """The metric picker for this breakdown (hidden when each group holds one number) and the table."""
        metrics = self.breakdown_metrics(suite, key)
        metric = metric if metric in metrics else (metrics[0] if metrics else None)
        picker = gr.Dropdown(choices=[(views.metric_label(m), m) for m in metrics], value=metric,
                             visible=bool(metrics))
        return picker, self.breakdown(suite, key, metric)

    # -- Plots ---------------------------------------------------------------------------------------

    @failsafe(outputs=6)
    def plots(self, suite: str, chosen: Sequence[str] | None, benchmark: str):
        """The model picker (kept choices that still exist, else views.profile_defaults),
        the per-level profile and its placeholder, the score picker and the
        score-vs-parameters plot and its placeholder (on a score with no points, e.g. the
        average of paper rows, the first score that has some)."""
        board = self.board(suite)
        options = views.model_options(board)
        ids = {value for _, value in options}
        chosen = [c for c in chosen or () if c in ids] or views.profile_defaults(board)
        scores = [value for _, value in views.plot_benchmarks()]
        points = self.params_plot(suite, benchmark)
        if isinstance(points, pd.DataFrame) and points.empty:
            for candidate in scores:
                found = self.params_plot(suite, candidate)
                if isinstance(found, pd.DataFrame) and not found.empty:
                    benchmark, points = candidate, found
                    break
        return (gr.Dropdown(choices=options, value=chosen, multiselect=True), *self.level_plot_shown(suite, chosen),
                gr.Dropdown(choices=views.plot_benchmarks(), value=benchmark), *plot_or_placeholder(points, NO_POINTS))

    @failsafe()
    def level_plot(self, suite: str, chosen: Sequence[str] | None) -> pd.DataFrame:
        return views.level_profile(self.board(suite), list(chosen or ()))

    @failsafe(outputs=2)
    def level_plot_shown(self, suite: str, chosen: Sequence[str] | None) -> tuple:
        return plot_or_placeholder(self.level_plot(suite, chosen), NO_LEVELS)

    @failsafe()
    def params_plot(self, suite: str, benchmark: str) -> pd.DataFrame:
        board, benchmark = self.board(suite), benchmark or "average"
        return self._view(board, ("params", suite, benchmark), lambda: views.score_vs_params(board, benchmark))

    @failsafe(outputs=2)
    def params_plot_shown(self, suite: str, benchmark: str) -> tuple:
        return plot_or_placeholder(self.params_plot(suite, benchmark), NO_POINTS)

    # -- freshness ----------------------------------------------------------------------------------

    def updated_text(self) -> str:
        source = self.source
        written = source.updated_at.strftime("%Y-%m-%d %H:%M:%S UTC") if source.updated_at else "never (no results yet)"
        checked = source.checked_at.strftime("%H:%M:%S UTC") if source.checked_at else "not yet"
        text = f"Results last updated: **{written}** · checked {checked}"
        if source.error:
            text += " · ⚠️ the results store could not be reached; showing the last table read"
        return text

    def queue_signature(self) -> str:
        """Changes whenever anything shown in the Queue tab changes."""
        parts = [f"{r.id}:{r.status.value}:{r.progress.done}/{r.progress.total}:{r.attempt}:{r.log_path}"
                 for r in self.queue.requests()]
        return hashlib.sha256("|".join(parts).encode()).hexdigest()

    def tick(self) -> tuple[str, int, str]:
        """The timer: (last-updated text, table generation, queue signature). Views
        re-render only when the generation or the signature moved."""
        try:
            self.source.refresh()
            return self.updated_text(), self.source.generation, self.queue_signature()
        except Exception:  # a tick must never break the page
            log.exception("refresh failed")
            return _skip(3)

    @failsafe()
    def suite_picker(self) -> gr.Radio:
        """New suites appear in the picker when the table gains them (the choice stays)."""
        return gr.Radio(choices=picker_choices(self.suite_options()))

    # -- Queue tab ------------------------------------------------------------------------------------

    @failsafe(outputs=4)
    def queue_tables(self) -> tuple:
        shown = views.queue_view(self.queue.requests())
        return shown.pending, shown.running, shown.finished, shown.failed

    def _read_log(self, request_state: tuple) -> Callable[[str], str | None]:
        def read(path: str) -> str | None:
            key = (path, request_state)
            if key not in self._logs:
                found = self.stores.private.read(path)
                if len(self._logs) > 1000:
                    self._logs.clear()
                self._logs[key] = found.data.decode("utf-8", errors="replace") if found else None
            return self._logs[key]
        return read

    @failsafe()
    def my_submissions(self, profile: gr.OAuthProfile | None) -> pd.DataFrame:
        """The signed-in user's own requests, newest first; nobody else's."""
        return views.my_submissions(self.queue.requests(), current_user(profile, self.settings))

    @failsafe()
    def log_picker(self, profile: gr.OAuthProfile | None, chosen: str | None) -> gr.Dropdown:
        """The user's own submissions to pick a log from (the choice stays while it exists)."""
        mine = self.my_submissions(profile)
        ids = list(mine["Submission"])
        labels = [f"{model} · {status} · {sid}" for sid, model, status in
                  zip(ids, mine["Model"], mine["Status"])]
        return gr.Dropdown(choices=list(zip(labels, ids)), value=chosen if chosen in ids else None)

    @failsafe()
    def my_log(self, profile: gr.OAuthProfile | None, submission: str | None) -> str:
        """The end of the log of one of the user's own submissions (views.my_log)."""
        user = current_user(profile, self.settings)
        requests = [r for r in self.queue.requests() if r.id == submission]
        # A log is read again only when its request moved (status, progress, attempt).
        state = tuple((r.id, r.status.value, r.progress.done, r.attempt, r.log_path) for r in requests)
        return views.my_log(requests, user, submission, self._read_log(state), LOG_TAIL_LINES)

    # -- Submit tab -------------------------------------------------------------------------------------

    def account(self, profile: gr.OAuthProfile | None) -> tuple[str, str]:
        """Who is signed in, and their remaining quota."""
        return self.signed_in(profile), self.quota(profile)

    def signed_in(self, profile: gr.OAuthProfile | None) -> str:
        user = current_user(profile, self.settings)
        if user and profile is None:
            return f"Signed in as **{markup.escape(user)}** (local development: LEADERBOARD_DEV_USER)."
        if user:
            return f"Signed in as **{markup.escape(user)}**."
        if on_space():
            return "Not signed in. Use **Sign in with Hugging Face** to submit."
        return ("Not signed in. Signing in with Hugging Face works on the Space; to submit on a local copy, "
                "start it with `LEADERBOARD_DEV_USER=<your name>`.")

    def quota(self, profile: gr.OAuthProfile | None) -> str:
        user = current_user(profile, self.settings)
        if not user:
            return "Sign in to see how many submissions you have left."
        try:
            q = remaining_quota(self.stores, self.settings, Identity(user))
        except Exception:  # the quota is information, not a gate (submit checks it again)
            log.exception("could not compute the quota of %s", user)
            return "Your remaining quota could not be read right now."
        used, pending = q["per_user"], q["pending"]
        text = (f"**{used['remaining']} of {used['limit']}** submissions left in the rolling {q['window_days']}-day "
                f"window; **{pending['remaining']} of {pending['limit']}** waiting or running at once.")
        if used["remaining"] == 0 and used["frees_at"]:
            text += f" The next slot frees at {used['frees_at'][:16].replace('T', ' ')} UTC."
        return text

    def calls_for(self, suite_id: str) -> dict:
        """The suite's call list (read_calls keeps it per store version: a changed list is re-read)."""
        return read_calls(self.stores.suite, suite_id)

    def check_file(self, file: str | None) -> str:
        """Validate an upload at once: every problem by line, or how many predictions it holds."""
        if not file:
            return ""
        try:
            suite_id = resolve_suite_id(self.stores, self.settings)
            checked = self.checker.check(file, self.stores.suite, suite_id, self.settings)
        except (SubmissionError, EvaluatorError) as e:
            return status(str(e), ok=False)
        except Exception:
            log.exception("validating an upload failed")
            return status(GENERIC_ERROR, ok=False)
        if not checked.ok:
            return status(checked.message, ok=False)
        text = f"{checked.predictions} predictions for {checked.calls} calls of suite `{suite_id}`; ready to submit."
        if checked.missing:
            text += f" {checked.missing} calls have no prediction: they will score as unanswered."
        return done(text)

    def _submitted(self, request) -> str:
        if self.scheduler is not None:
            try:
                from evaluator.worker import wake

                wake(self.scheduler)  # the embedded worker looks now, not at its next poll
            except Exception:  # it will look at its next poll anyway
                log.exception("could not wake the embedded worker")
        self.queue.requests(fresh=True)
        return done(f"Submitted: `{request.id}` ({markup.escape(request.model)}) is queued as PENDING on suite "
                    f"`{request.suite_id}`. Follow it under Queue → My submissions; once scored, its row is on "
                    f"the Leaderboard under Show → \"{markup.escape(views.suite_label(request.suite_id))}\".")

    def _submit(self, profile, do: Callable[[Identity], Any]) -> tuple[str, str]:
        user = current_user(profile, self.settings)
        if not user:
            return status("Sign in with Hugging Face to submit.", ok=False), self.quota(profile)
        try:
            message = self._submitted(do(Identity(user)))
        except (SubmissionError, EvaluatorError) as e:
            message = status(str(e), ok=False)
        except Exception:
            log.exception("a submission by %s failed", user)
            message = status(GENERIC_ERROR, ok=False)
        return message, self.quota(profile)

    def submit_file(self, file: str | None, name: str, params: str, weights: str, frames: str, thinking: bool,
                    profile: gr.OAuthProfile | None) -> tuple[str, str]:
        """Queue an uploaded prediction file; the submitter is the signed-in user."""
        if not file:
            return status("Choose a prediction file to upload first.", ok=False), self.quota(profile)
        try:
            size = optional_number(params, "Parameters (billions)", integer=False)
            count = optional_number(frames, "Frames per video", integer=True)
        except ValueError as e:
            return status(str(e), ok=False), self.quota(profile)
        metadata = {"file_name": Path(file).name[:200]}
        if size is not None:
            metadata["params"] = f"{size:g}"
        if weights in ("open", "closed"):
            metadata["open"] = "yes" if weights == "open" else "no"
        if count is not None:
            metadata["frames"] = str(count)
        if thinking:
            metadata["thinking"] = "true"
        return self._submit(profile, lambda who: self._submit_checked(who, Path(file), name, metadata))

    def _submit_checked(self, who: Identity, file: Path, name: str, metadata: dict) -> Any:
        """Validate in the checker's process, then queue (submit_predictions skips the second
        validation when the file still has the hash that was validated)."""
        suite_id = resolve_suite_id(self.stores, self.settings)
        checked = self.checker.check(file, self.stores.suite, suite_id, self.settings)
        if not checked.ok:
            raise SubmissionError(checked.message)
        return submit_predictions(self.stores, self.settings, who, file, name, suite_id=suite_id, metadata=metadata,
                                  checked_sha256=checked.sha256)

    def submit_model(self, model: str, revision: str, precision: str, frames: str, thinking: bool,
                     profile: gr.OAuthProfile | None) -> tuple[str, str]:
        """Queue a Hub model pinned to the commit its revision resolves to."""
        try:
            count = optional_number(frames, "Frames", integer=True)
        except ValueError as e:
            return status(str(e), ok=False), self.quota(profile)
        form = {"model": model or "", "revision": revision or "main", "precision": precision, "frames": count,
                "thinking": bool(thinking)}
        return self._submit(profile, lambda who: submit_model(self.stores, self.settings, who, form, hub=self.hub))

    @failsafe()
    def calls_file(self) -> str:
        """The submission suite's call list as a local file for gr.DownloadButton."""
        suite_id = resolve_suite_id(self.stores, self.settings)
        path = Path(tempfile.gettempdir()) / "video-reasoning-leaderboard" / f"calls-{suite_id}.jsonl"
        if not path.exists():  # suite ids carry a content hash: an existing file is current
            found = self.stores.suite.read(f"{suite_id}/calls.jsonl")
            if found is None:
                raise EvaluatorError(f"Suite {suite_id} has no call list (calls.jsonl) in the suite store.")
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_suffix(f".{os.getpid()}.part")
            partial.write_bytes(found.data)
            partial.replace(path)
        return str(path)


# -- layout ---------------------------------------------------------------------------------------------

def _fill_when_open(tab: gr.Tab, tab_id: str, opened: gr.State, suite: gr.Radio, generation: gr.State, fn,
                    inputs: list, outputs: list, api_name: str, triggers: Sequence = ()) -> None:
    """A tab other than the Leaderboard fills when it is opened (and on `triggers`, its own
    controls); a new suite or table refills it only while it is the open tab, so browsing the
    Leaderboard never ships the other tabs' tables (each holds every row)."""
    gr.on([tab.select, *triggers], fn, inputs, outputs, api_name=api_name)

    def refill(shown: str | None, *args):
        return fn(*args) if shown == tab_id else _skip(len(outputs))
    gr.on([suite.change, generation.change], refill, [opened, *inputs], outputs, api_visibility="private")


def _leaderboard_tab(h: Handlers, suite: gr.Dropdown, generation: gr.State, initial: str) -> None:
    with gr.Tab("Leaderboard", id="leaderboard", elem_id="tab-leaderboard"):
        with gr.Row():
            search = gr.Textbox(label="Search models", placeholder="name; another name", scale=2, elem_id="search",
                                info="Separate several names with ';'")
            sources = gr.CheckboxGroup(list(views.SOURCES), value=list(views.SOURCES), label="Verified or reported",
                                       elem_id="filter-source")
            sizes = gr.CheckboxGroup(list(views.SIZES), value=list(views.SIZES), label="Size (parameters)",
                                     scale=2, elem_id="filter-size")
        with gr.Row():
            types = gr.CheckboxGroup(list(views.TYPES), value=list(views.TYPES), label="Model type", scale=3,
                                     elem_id="filter-type")
            board = h.board(initial)
            frames = gr.Dropdown(views.frame_choices(board), value=[], multiselect=True, label="Frames",
                                 info="Empty: any", elem_id="filter-frames")
            judges = gr.Dropdown(views.judge_choices(board), value=[], multiselect=True, label="Judge",
                                 info="Empty: any", elem_id="filter-judge")
            protocols = protocol_tab.protocol_filter()
        with gr.Accordion("Columns", open=False):
            columns = gr.CheckboxGroup(list(views.OPTIONAL_COLUMNS), value=list(views.DEFAULT_COLUMNS),
                                       label="Columns shown", elem_id="columns")
        # The first page only is inlined in the page's /config (small whatever the results).
        shaped, text, number = h.leaderboard_page(initial, "", views.TYPES, views.SIZES, views.SOURCES, None, None,
                                                  views.DEFAULT_COLUMNS, protocols.value, 1)
        # No client-side search box: it would search only the page sent; the search above covers every row.
        shown = gr.Dataframe(shaped["value"], datatype=shaped["datatype"], interactive=False,
                             column_widths=shaped["column_widths"], show_search="none",
                             pinned_columns=3, max_height=640, label="Leaderboard", elem_id="leaderboard-table",
                             buttons=["copy", "fullscreen"])
        with gr.Row():
            previous = gr.Button("◀ Previous", size="sm", scale=0, min_width=110, elem_id="page-previous")
            page = gr.Number(number, precision=0, minimum=1, label="Page", show_label=False, scale=0,
                             min_width=80, container=False, elem_id="page-number")
            following = gr.Button("Next ▶", size="sm", scale=0, min_width=110, elem_id="page-next")
            info = gr.Markdown(text, elem_id="page-info")
        protocol_tab.card_panel(h, suite, generation, shown, initial)
        gr.Markdown(RANKING_NOTE, elem_id="leaderboard-note")
    inputs = [suite, search, types, sizes, sources, frames, judges, columns, protocols]
    outputs = [shown, info, page]
    gr.on([suite.change, generation.change, search.change, types.change, sizes.change, sources.change,
           frames.change, judges.change, columns.change, protocols.change], h.first_page, inputs, outputs,
          trigger_mode="always_last", api_name="leaderboard")
    gr.on([page.submit, page.blur], h.leaderboard_page, [*inputs, page], outputs, trigger_mode="always_last",
          api_name="leaderboard_page")
    # the buttons move the page number in the browser, then ask for that page
    for button, step in ((previous, -1), (following, 1)):
        button.click(h.leaderboard_page, [*inputs, page], outputs, trigger_mode="always_last",
                     js=f"(...a) => {{ a[a.length - 1] = Math.max(1, (Number(a[a.length - 1]) || 1) + ({step})); "
                        f"return a; }}", api_visibility="private")
    gr.on([suite.change, generation.change], h.filter_options, [suite, frames, judges], [frames, judges],
          api_name="filter_options")


def _benchmark_tabs(h: Handlers, suite: gr.Dropdown, generation: gr.State, opened: gr.State) -> None:
    with gr.Tab("Benchmarks", id="benchmarks", elem_id="tab-benchmarks") as tab:
        gr.Markdown("Every metric of each benchmark; the About tab says how each one is computed.")
        tables = []
        with gr.Tabs():
            for name in views.BENCHMARKS:
                with gr.Tab(views.TITLES[name], id=f"bench-{name}"):
                    tables.append(gr.Dataframe(interactive=False, show_search="filter", pinned_columns=2,
                                               max_height=640, label=views.TITLES[name], elem_id=f"bench-{name}"))
    _fill_when_open(tab, "benchmarks", opened, suite, generation, as_tables(h.benchmarks), [suite], tables,
                    "benchmarks")


def _level_tab(h: Handlers, suite: gr.Dropdown, generation: gr.State, opened: gr.State) -> None:
    with gr.Tab("By level", id="by-level", elem_id="tab-by-level") as tab:
        gr.Markdown("ExpVid's three levels (perception, procedure, reasoning), Video-MMMU's three tracks "
                    "(perception, comprehension, adaptation) and CausalStep's descriptive (DUA) versus causal "
                    "(ICRA) accuracy.")
        shown = gr.Dataframe(interactive=False, show_search="filter", pinned_columns=2, max_height=640,
                             label="By level", elem_id="by-level-table")
    _fill_when_open(tab, "by-level", opened, suite, generation, as_tables(h.by_level, fitted), [suite], [shown],
                    "by_level")


def _breakdown_tab(h: Handlers, suite: gr.Dropdown, generation: gr.State, opened: gr.State, title: str,
                   keys: Sequence[str], slug: str, note: str) -> None:
    with gr.Tab(title, id=f"by-{slug}", elem_id=f"tab-by-{slug}") as tab:
        gr.Markdown(note)
        with gr.Row():
            key = gr.Dropdown([(views.BREAKDOWNS[k].title, k) for k in keys], value=keys[0], label="Breakdown",
                              elem_id=f"{slug}-select")
            metric = gr.Dropdown([], value=None, label="Value shown", visible=False, elem_id=f"{slug}-metric")
        shown = gr.Dataframe(interactive=False, show_search="filter", pinned_columns=2, max_height=640,
                             label=title, elem_id=f"by-{slug}-table")
    _fill_when_open(tab, f"by-{slug}", opened, suite, generation, as_tables(h.breakdown_choice),
                    [suite, key, metric], [metric, shown], f"by_{slug}", triggers=[key.change])
    metric.input(as_tables(h.breakdown), [suite, key, metric], shown, api_name=f"by_{slug}_value")


def _plots_tab(h: Handlers, suite: gr.Dropdown, generation: gr.State, opened: gr.State) -> None:
    with gr.Tab("Plots", id="plots", elem_id="tab-plots") as tab:
        models = gr.Dropdown([], value=[], multiselect=True, label="Models in the per-level profile",
                             elem_id="plot-models")
        # No fixed height: with one, the legend falls below the rotated labels and is cut off.
        profile = gr.LinePlot(x="level", y="score", color="model", sort=views.LEVEL_ORDER, y_lim=[0, 100],
                              x_title="level", y_title="score (%)", label="Per-level profile", x_label_angle=-30,
                              elem_id="level-profile")
        no_profile = gr.Markdown(visible=False, elem_id="level-profile-empty")
        benchmark = gr.Dropdown(views.plot_benchmarks(), value="average", label="Score", elem_id="plot-benchmark")
        scatter = gr.ScatterPlot(x="params_b", y="score", color="source", tooltip=["model", "params_b", "score"],
                                 x_title="parameters (billions)", y_title="score (%)", label="Score against size",
                                 elem_id="score-vs-params",
                                 caption="One point per result that states its parameter count (papers' rows, "
                                         "Hub models, prediction files that give it).")
        no_scatter = gr.Markdown(visible=False, elem_id="score-vs-params-empty")
    _fill_when_open(tab, "plots", opened, suite, generation, h.plots, [suite, models, benchmark],
                    [models, profile, no_profile, benchmark, scatter, no_scatter], "plots")
    models.input(h.level_plot_shown, [suite, models], [profile, no_profile], api_name="level_plot")
    benchmark.input(h.params_plot_shown, [suite, benchmark], [scatter, no_scatter], api_name="params_plot")


def _submit_tab(h: Handlers) -> tuple[gr.Markdown, gr.Markdown, gr.Tab, gr.DownloadButton]:
    settings = h.settings
    with gr.Tab("Submit", id="submit", elem_id="tab-submit") as tab:
        with gr.Row():
            if on_space():
                gr.LoginButton(elem_id="login")
            signed = gr.Markdown(elem_id="signed-in")
        quota = gr.Markdown(elem_id="quota")
        target = h.configured_suite()
        gr.Markdown(f"Submissions are evaluated on {views.suite_label(target) if target else 'the site’s suite'}; "
                    "its answers are never published. A submission that fails for our reasons (download, worker "
                    "crash) does not count against your quota.", elem_id="submit-suite")
        with gr.Tabs():
            with gr.Tab("Prediction file", id="submit-predictions"):
                gr.Markdown(PREDICTION_STEPS, elem_id="submit-steps")
                download = gr.DownloadButton("Download the call list (calls.jsonl)", elem_id="download-calls")
                with gr.Row():
                    name = gr.Textbox(label="Model name (shown on the leaderboard)", elem_id="submit-name")
                    params = gr.Textbox(label="Parameters (billions, optional)", placeholder="e.g. 7",
                                        elem_id="submit-params")
                    weights = gr.Radio(["open", "closed", "not stated"], value="not stated", label="Weights",
                                       elem_id="submit-open")
                    frames = gr.Textbox(label="Frames per video (optional)", placeholder="e.g. 32",
                                        elem_id="submit-frames")
                    thinking = gr.Checkbox(label="Thinking mode", value=False, elem_id="submit-thinking")
                upload = gr.File(label="Prediction file (JSON Lines)", file_types=[".jsonl", ".json"],
                                 type="filepath", elem_id="submit-file")
                send = gr.Button("Submit prediction file", variant="primary", elem_id="submit-button")
                # No math: KaTeX would read "$$" in a quoted value, escaped or not.
                result = gr.Markdown(elem_id="submit-status", latex_delimiters=[])
            with gr.Tab("Hub model", id="submit-model"):
                gr.Markdown("A public model on the Hugging Face Hub, pinned to the commit its revision resolves "
                            "to now. It needs a license, safetensors weights and a config transformers can load.")
                with gr.Row():
                    model = gr.Textbox(label="Model id (org/name)", elem_id="model-id")
                    revision = gr.Textbox(label="Revision (branch, tag or commit)", value="main",
                                          elem_id="model-revision")
                    precision = gr.Dropdown(list(settings.model_rules.precisions),
                                            value=settings.model_rules.precisions[0], label="Precision",
                                            elem_id="model-precision")
                    model_frames = gr.Textbox(label="Frames (optional; default: the suite's budgets)",
                                              placeholder="e.g. 32", elem_id="model-frames")
                    model_thinking = gr.Checkbox(label="Thinking mode", value=False, elem_id="model-thinking")
                send_model = gr.Button("Submit model", variant="primary", elem_id="submit-model-button")
                # each sub-tab its own status: a file's refusal is not shown under the model form
                model_result = gr.Markdown(elem_id="submit-model-status", latex_delimiters=[])
    # Anyone may check a file before signing in; a small limit keeps big uploads from crowding the site.
    upload.upload(h.check_file, [upload], result, api_name="check_file", concurrency_limit=2)
    upload.clear(lambda: "", None, result, api_visibility="private")
    send.click(h.submit_file, [upload, name, params, weights, frames, thinking], [result, quota],
               concurrency_limit=4, api_name="submit_file")
    send_model.click(h.submit_model, [model, revision, precision, model_frames, model_thinking],
                     [model_result, quota], concurrency_limit=4, api_name="submit_model")
    return signed, quota, tab, download


def _queue_tab(h: Handlers, signature: gr.State) -> None:
    with gr.Tab("Queue", id="queue", elem_id="tab-queue"):
        gr.Markdown("Every submission and where it stands; failures stay here with their reason. "
                    "Tables refresh by themselves.")
        with gr.Accordion("Failed", open=True):
            failed = gr.Dataframe(pd.DataFrame(columns=list(views.FAILED_COLUMNS)), interactive=False, wrap=True,
                                  label="Failed", elem_id="queue-failed",
                                  column_widths=["17%", "13%", "9%", "10%", "12%", "10%", "29%"])
        with gr.Accordion("Running", open=True):
            running = gr.Dataframe(pd.DataFrame(columns=list(views.RUNNING_COLUMNS)), interactive=False,
                                   label="Running", elem_id="queue-running")
        with gr.Accordion("Pending", open=True):
            pending = gr.Dataframe(pd.DataFrame(columns=list(views.PENDING_COLUMNS)), interactive=False,
                                   label="Pending", elem_id="queue-table")
        with gr.Accordion("Finished", open=False):
            finished = gr.Dataframe(pd.DataFrame(columns=list(views.FINISHED_COLUMNS)), interactive=False,
                                    label="Finished", elem_id="queue-finished")
        with gr.Accordion("My submissions", open=True):
            mine = gr.Dataframe(pd.DataFrame(columns=list(views.MINE_COLUMNS)), interactive=False, wrap=True,
                                label="My submissions", elem_id="my-submissions",
                                column_widths=["19%", "14%", "10%", "13%", "9%", "22%", "13%"])
            with gr.Row():
                # custom values: the API may name a submission; my_log shows only the caller's own
                chosen = gr.Dropdown([], value=None, label="Show the log of", scale=1, elem_id="log-pick",
                                     allow_custom_value=True)
                shown_log = gr.Code("", language=None, label="Log (last lines)", interactive=False, scale=3,
                                    wrap_lines=True,
                                    elem_id="my-log", max_lines=LOG_TAIL_LINES)
    signature.change(h.queue_tables, None, [pending, running, finished, failed], api_name="queue_tables")
    signature.change(h.my_submissions, None, mine, api_name="my_submissions")
    signature.change(h.log_picker, [chosen], chosen, api_name="log_picker")
    gr.on([chosen.change, signature.change], h.my_log, [chosen], shown_log, api_name="my_log")


def _about_tab(h: Handlers) -> None:
    judge = h.settings.judge
    judge_text = (f"an LLM judge, `{judge[4:]}`, with our own grading prompts" if judge.startswith("llm:")
                  else f"`{judge}`, a deterministic matcher (normalised text, numbers to the gold's precision, "
                       f"refusal detection)")
    with gr.Tab("About", id="about", elem_id="tab-about"):
        gr.Markdown(f"## The judge\nExpVid level 3 and Video SimpleQA answers are graded by {judge_text} "
                    f"(LEADERBOARD_JUDGE). Every result names its judge; results from different judges are not "
                    f"comparable.\n\n{HIDDEN_ANSWERS}", elem_id="about-judge")
        gr.Markdown(f"## Small buckets\nOn this site a breakdown bucket with fewer than "
                    f"**{h.settings.min_bucket_items}** items (LEADERBOARD_MIN_BUCKET_ITEMS) is published as "
                    f"\"{disclosure.REASON} (n=...)\" instead of a score: a bucket of one item would tell its "
                    f"submitter whether that one answer was right. Overall scores always use every item.",
                    elem_id="about-buckets")
        gr.Markdown(_read_text(PROTOCOL_PATH, "*docs/protocol.md is missing.*"), elem_id="about-protocol")
        gr.Markdown(_read_text(COMPARE_PATH, "*docs/compare.md is missing.*"), elem_id="about-compare")
        gr.Markdown(_read_text(EXPORTS_PATH, "*docs/exports.md is missing.*"), elem_id="about-exports")
        gr.Markdown(_read_text(ROOT / "docs" / "no_video_and_cost.md", ""), elem_id="about-no-video-cost")
        gr.Markdown(_read_text(FAQ_PATH, PLACEHOLDER_FAQ), elem_id="about-faq")  # the file has its heading


def _citation_tab() -> None:
    with gr.Tab("Citation", id="citation", elem_id="tab-citation"):
        gr.Markdown("Please cite the benchmarks' papers when you use these results.")
        gr.Code(_read_text(CITATIONS_PATH, PLACEHOLDER_BIB), language=None, label="BibTeX", interactive=False,
                elem_id="citations", buttons=["copy"])


def build_ui(stores: Stores, settings: Settings, source: TableSource, scheduler=None, *,
             hub: HubClient | None = None) -> gr.Blocks:
    """The site. `scheduler` is the embedded worker (evaluator.worker.start_in_process),
    woken after each submission; `hub` replaces the Hub client (tests)."""
    h = Handlers(stores, settings, source, scheduler, hub=hub)
    h.checker.warm()
    options = h.suite_options()
    initial = h.default_suite(options)
    with gr.Blocks(title=TITLE) as demo:
        gr.Markdown(HEADER)
        with gr.Row():
            suite = gr.Radio(picker_choices(options), value=initial, label="Show", elem_id="suite-select", scale=3,
                             info="Results are ranked within one suite only")
            updated = gr.Markdown(h.updated_text(), elem_id="last-updated")
        generation = gr.State(source.generation)
        signature = gr.State(None)  # None: the first tick always fills the Queue tab
        opened = gr.State("leaderboard")  # the open tab (tabs other than the Leaderboard fill when opened)
        with gr.Tabs() as tabs:
            _leaderboard_tab(h, suite, generation, initial)
            _benchmark_tabs(h, suite, generation, opened)
            _level_tab(h, suite, generation, opened)
            _breakdown_tab(h, suite, generation, opened, "By domain", views.DOMAIN_VIEWS, "domain",
                           "Scores per discipline, domain, activity or category.")
            _breakdown_tab(h, suite, generation, opened, "By hop", views.HOP_VIEWS, "hop",
                           "Video SimpleQA by hop count and its sub-questions per hop (worker runs only), "
                           "CausalStep accuracy by position in the reasoning chain.")
            _plots_tab(h, suite, generation, opened)
            compare_tab.build(h, suite, generation)
            signed, quota, submit_tab, download = _submit_tab(h)
            _queue_tab(h, signature)
            snapshots = downloads_tab.build(h, suite, generation, signature)
            _about_tab(h)
            _citation_tab()
        for tab in tabs.children:  # which tab is open, for _fill_when_open
            if isinstance(tab, gr.Tab):
                tab.select(lambda shown=tab.id: shown, None, opened, show_progress="hidden", api_visibility="private")
        timer = gr.Timer(REFRESH_SECONDS)
        refresh = [updated, generation, signature]
        gr.on([demo.load, timer.tick], h.tick, None, refresh, show_progress="hidden", api_name="tick")
        generation.change(h.suite_picker, None, suite, api_name="suite_picker")
        demo.load(h.suite_from_link, None, suite, api_visibility="private")
        gr.on([demo.load, submit_tab.select], h.account, None, [signed, quota], api_name="account")
        gr.on([demo.load, submit_tab.select], h.calls_file, None, download, api_name="calls_file")
    demo.api_routes = api.routes(snapshots, h.configured_suite)  # app.py serves them beside the page
    return demo
