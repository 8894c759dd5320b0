"""What every tab shares: the site's constants and CSS, who is signed in, the fail-safe
decorator for callbacks, status lines, and the frames-to-Dataframe conversions.

Tabs import this module (and leaderboard/tabs/base.py), never leaderboard/ui.py, which
assembles them: so there is no import cycle."""

from __future__ import annotations

import functools
import logging
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import gradio as gr
import pandas as pd
from gradio.layouts import Form

from evaluator.errors import EvaluatorError
from results import markup
from leaderboard import views
from space_config.settings import get_settings
from submissions.errors import SubmissionError

if TYPE_CHECKING:
    from space_config.settings import Settings

log = logging.getLogger("leaderboard.ui")

TITLE = "Video Reasoning Leaderboard"
REFRESH_SECONDS = 5.0  # how often an open page asks whether the table or the queue changed
LOG_TAIL_LINES = 20
CACHE_ENTRIES = 128  # views kept per process (a view is a small frame)
GENERIC_ERROR = ("Something went wrong on our side. The maintainers have the details in the site's log; "
                 "please try again in a moment.")

# Tables whose Rank and Model (their first two columns) stay in view while the rest scrolls
# sideways, and the pixel width of their Rank column (views.column_widths; the Models and
# Benchmarks tabs read it here): Model is pinned where Rank ends.
RANK_PX = views.WIDTHS[views.RANK]
_PINNED_TABLES = "#leaderboard-table, #models-table, #by-level-table, .block[id^='bench-']"
_PINNED = (f":is({_PINNED_TABLES}) :is([role=columnheader], [role=gridcell])"
           ":is([aria-colindex='1'], [aria-colindex='2'])")

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
       "#queue-running [role=gridcell][aria-colindex='6'] span { white-space: nowrap; }\n"
       # the About tab's protocol tables: words wrap whole, the point column keeps its words
       "#about-protocol table td, #about-protocol table th { word-break: normal; overflow-wrap: normal; }\n"
       "#about-protocol table td:first-child { min-width: 9em; }\n"
       # its headings carry ids for its contents list; their link icons (a link that cannot
       # open this sub-tab) would sit on a line of their own
       "#about-protocol .md-header-anchor { display: none; }\n"
       # the first screen is for rows: a one-line title, the update time beside it
       "#site-title h2 { margin: 0; } #last-updated { text-align: right; font-size: var(--text-sm); }\n"
       # ... and the suite picker between them, its choices on one line where the width allows
       "#site-title, #last-updated { flex: 0 0 auto !important; width: auto !important; }\n"
       "#last-updated { margin-left: auto; }\n"
       "#suite-box { flex: 1 1 0 !important; flex-wrap: nowrap; align-items: center; gap: 8px; }\n"
       "body:has(#tab-models-button[aria-selected='true']) #suite-box { display: none !important; }\n"
       "#suite-label { flex: 0 0 auto !important; width: auto !important; min-width: 0 !important; }\n"
       "#suite-label p { margin: 0; font-size: var(--text-sm); font-weight: 700; }\n"
       "#suite-select label { padding: 2px 10px; font-size: var(--text-sm); }\n"
       "#models-note p { margin: 0; font-size: var(--text-sm); }\n"
       # headers wrap between words, never inside one ("S u b m i t t e r")
       "[role=grid] [role=columnheader] span.header { word-break: normal; overflow-wrap: normal; }\n"
       "#models-table [role=columnheader] span.header { white-space: normal; }\n"
       # the pinned columns' cells take their row's background: what scrolls under them stays hidden
       f"{_PINNED} {{ position: sticky; z-index: 3; }}\n"
       f"{_PINNED}[role=gridcell] {{ background: inherit; }}\n"
       f"{_PINNED}[aria-colindex='1'] {{ left: 0; }}\n"
       f"{_PINNED}[aria-colindex='2'] {{ left: {RANK_PX}px; box-shadow: inset -1px 0 0 var(--border-color-primary); }}\n"
       # a long model name wraps rather than hide its end ("... (no thinking)")
       f":is({_PINNED_TABLES}) [role=gridcell][aria-colindex='2'] span "
       "{ white-space: normal; overflow-wrap: anywhere; }\n"
       ".block[id^='bench-'] [role=columnheader] span.header { white-space: normal; }\n"
       # Models on a wide screen: room to spare, so a name keeps to one line and the first screen
       # holds more rows (its widths are set for a phone: tabs/models.py)
       "@media (min-width: 1000px) { #models-table table { width: max-content !important; }\n"
       "  #models-table :is([role=columnheader], [role=gridcell])[aria-colindex='2'] "
       "{ width: 250px !important; min-width: 250px !important; max-width: 250px !important; }\n"
       "  #models-table :is([role=columnheader], [role=gridcell]):not([aria-colindex='1'], [aria-colindex='2']) "
       "{ width: 128px !important; min-width: 128px !important; max-width: 128px !important; } }\n"
       # the footer's last separator, left with nothing after it once the settings link is gone
       "footer .built-with ~ .divider { display: none; }\n"
       # a phone keeps the title and the table; the blurb and the update time are for wide screens
       "@media (max-width: 640px) { #site-blurb, #last-updated { display: none; }\n"
       # ... and a column is never narrower than a short word: the table scrolls sideways instead
       # (header and cells alike, over the widths a table sets; the pinned tables keep theirs, set
       # to show Rank, Model and a score on a phone)
       f"  .block:not({_PINNED_TABLES}) [role=grid] :is([role=columnheader], [role=gridcell]) "
       "{ min-width: 5.5em !important; } }")

# The page's font: Source Sans Pro, which gradio ships (the site needs no font server), in its
# regular and bold files only. Gradio's semibold file holds a few letters, so bold text (headers,
# "ExAct") mixed two fonts and some capitals came out small. Common local fonts follow it.
FONT = (gr.themes.LocalFont("Source Sans Pro", weights=(400, 700)), "DejaVu Sans", "Liberation Sans", "Arial",
        "Helvetica", "sans-serif")
# The footer links to the API page and to gradio: the run history (a visitor's past calls,
# kept in their browser) and the settings page are gradio's developer tools, not the site's.
FOOTER_LINKS = ["api", "gradio"]


def launch_options() -> dict:
    """What app.py passes to launch() besides the server's address: the CSS, theme and footer."""
    return {"css": CSS, "theme": gr.themes.Default(font=FONT), "footer_links": FOOTER_LINKS, "run_history": False}


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


def skip(outputs: int):
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
            return skip(outputs)
        return run
    return decorate


def status(message: str, ok: bool) -> str:
    """A status from plain text, which may quote the submitter's file or form: every line
    escaped (results.markup), the first as the status line, the others (problems by
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
    """The frame, or, when some cells show a text of their own (a hidden bucket's "n too
    small", a score's "52.80": views.display_text), Gradio's value form with those texts as
    display values: the data stays numbers, so columns still sort as numbers (the hidden
    cells with the missing ones)."""
    shown = views.display_text(frame)
    if not shown.notna().any(axis=None):
        return frame
    data = frame.astype(object).where(frame.notna(), None).to_numpy().tolist()
    # no "styling" matrix: the table reads it as optional, and every cell of it is more to send
    return {"headers": [str(c) for c in frame.columns], "data": data,
            "metadata": {"display_value": shown.to_numpy().tolist()}}


def table(frame: pd.DataFrame) -> dict:
    """An update of a Dataframe: the value and its column types (numbers sort as numbers).
    gr.update, not a gr.Dataframe(...): a component would convert the value once more."""
    value, types = _shaped(frame)
    return gr.update(value=value, datatype=list(types))


_SHAPED: OrderedDict[int, tuple[weakref.ref, dict, list[str]]] = OrderedDict()
_SHAPED_LOCK = threading.Lock()
SHAPED_KEPT = 48  # frames whose value form is kept (the views' caches hold the frames themselves)


def _shaped(frame: pd.DataFrame) -> tuple[dict, list[str]]:
    """The frame in Gradio's value form ({"headers", "data"}, and display texts where a cell
    shows one) and its column types, worked out once per frame object: the views are cached per
    table generation, so every visitor after the first is sent the same frame, for a lookup
    here. Never changed once made (gradio reads the value, and copies what it sends)."""
    with _SHAPED_LOCK:
        kept = _SHAPED.get(id(frame))
        if kept is not None and kept[0]() is frame:
            _SHAPED.move_to_end(id(frame))
            return kept[1], kept[2]
    value = _with_shown_text(frame)
    if isinstance(value, pd.DataFrame):  # what gradio would make of the frame, at each call
        value = {"headers": [str(c) for c in frame.columns], "data": frame.to_dict(orient="split")["data"]}
    types = datatypes(frame)
    with _SHAPED_LOCK:
        _SHAPED[id(frame)] = (weakref.ref(frame), value, types)
        while len(_SHAPED) > SHAPED_KEPT:
            _SHAPED.popitem(last=False)
    return value, types


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


def partial_note(frame) -> dict:
    """The update of a table's ◐ note: coverage.PARTIAL_NOTE, shown only while the table marks a
    score (views.partial_note); a failed view leaves it as it is."""
    if not isinstance(frame, pd.DataFrame):
        return gr.skip()
    note = views.partial_note(frame)
    return gr.update(value=note, visible=bool(note))


def picker_choices(options: Sequence[str]) -> list[tuple[str, str]]:
    """(label, suite id) for the suite picker."""
    return [(views.suite_label(o), o) for o in options]


def read_text(path: Path, placeholder: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return placeholder


# -- layout ---------------------------------------------------------------------------------------------

def fill_when_open(tab: gr.Tab, tab_id: str, opened: gr.State, suite: gr.Radio, generation: gr.State, fn,
                   inputs: list, outputs: list, api_name: str, triggers: Sequence = (), **options) -> None:
    """A tab other than the Leaderboard fills when it is opened (and on `triggers`, its own
    controls); a new suite or table refills it only while it is the open tab, so browsing the
    Leaderboard never ships the other tabs' tables (each holds every row). `options`: gr.on's."""
    gr.on([tab.select, *triggers], fn, inputs, outputs, api_name=api_name, **options)

    def refill(shown: str | None, *args):
        return fn(*args) if shown == tab_id else skip(len(outputs))
    gr.on([suite.change, generation.change], refill, [opened, *inputs], outputs, api_visibility="private", **options)


# Shows what defer_unseen_types hid, once, in the browser: on the page's first switch of tabs
# (afterwards it returns nothing, and each component is its own listeners' again)
REVEAL_ONCE = """() => {{
  if (window.__deferredShown) return [];
  window.__deferredShown = true;
  return Array.from({{length: {count}}}, () => ({{__type__: "update", visible: true}}));
}}"""


def defer_unseen_types(root: gr.Blocks, tabs: gr.Tabs) -> list:
    """Gradio's page fetches the script of every component type its configuration holds visible,
    tabs not open included (it draws those only when opened): the first page would wait on the
    scripts of the other tabs' accordions, buttons, plots, files... Each component of a type the
    first page does not draw starts hidden instead, and all are shown, in the browser, when a tab
    is first switched to (before that tab's own listeners answer). Only what starts visible is
    hidden; what a listener shows or hides afterwards is its own (one that hid such a component
    before the first switch of tabs would see it shown again: none does). Returns the components
    hidden."""
    drawn = _first_page(root)
    eager = {block.get_block_name() for block in drawn}
    deferred = [block for block in _descendants(root) if block not in drawn and block.get_block_name() not in eager
                and getattr(block, "visible", None) is True
                and not isinstance(block, gr.Tab | Form | gr.State | gr.Timer)]  # gradio's own forms stay
    for block in deferred:
        block.visible = False
    if deferred:
        tabs.select(None, None, deferred, js=REVEAL_ONCE.format(count=len(deferred)), show_progress="hidden",
                    api_visibility="private")
    return deferred


def _descendants(block) -> list:
    found = []
    for child in getattr(block, "children", None) or []:
        found += [child, *_descendants(child)]
    return found


def _first_page(block, drawn: set | None = None) -> set:
    """The blocks a page opening draws: the visible ones, and in each gr.Tabs only its open tab."""
    drawn = set() if drawn is None else drawn
    if getattr(block, "visible", True) is False:
        return drawn
    drawn.add(block)
    children = list(getattr(block, "children", None) or [])
    if isinstance(block, gr.Tabs) and children:
        opened = [c for c in children if block.selected is not None and getattr(c, "id", None) == block.selected]
        children = opened or children[:1]
    for child in children:
        _first_page(child, drawn)
    return drawn
