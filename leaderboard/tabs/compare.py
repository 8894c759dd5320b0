"""The Compare tab: pick two verified rows, see A − B per benchmark and bucket with a
paired bootstrap interval and p-values corrected for the number of scores compared, and
whether the two rows' protocols differ (leaderboard/compare.py and
leaderboard/compare_protocol.py do the work).

    compare = CompareHandlers(h)          # h: leaderboard.ui.Handlers (board, stores, settings, cache)
    compare.choices(suite, a, b)          # the two pickers' updates and the status line's
    compare.compare(suite, a, b)          # (status Markdown, the comparison frame)
    build(h, suite, generation)           # the tab's layout and wiring, inside build_ui's gr.Tabs

The callbacks never raise into the page: a refusal (CompareRefused) is shown as its
own message in the status line; anything else as a generic message, logged.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import gradio as gr
import pandas as pd

from leaderboard import compare as logic
from results import markup
from leaderboard import compare_protocol
from leaderboard.tabs.common import datatypes, fill_when_open
from leaderboard.errors import CompareRefused

if TYPE_CHECKING:
    from evaluator.paired import PairedStats
    from leaderboard.tabs.base import BaseHandlers

log = logging.getLogger("leaderboard.compare_tab")

STATS_KEPT = 64  # per-video statistics files kept in memory (a few hundred kB each at full size)
INTRO = ("Pick two verified rows of the suite shown (on the Leaderboard: ✓ verified run or file, or a "
         "baseline; each named here with its protocol status, as the Protocol column gives it). For each benchmark, and each level, task, domain, "
         "category and hop with enough items, the table gives both scores, their difference A − B, its 95% "
         "paired bootstrap interval over videos and whether the difference is significant. Only rows of the "
         "same suite and judge can be compared.")
# The method, folded: a phone then shows the pickers on its first screen
METHOD = ("**n** is how many items a score is taken over, in its benchmark's own unit (a question; ExpVid's "
          "level 3: a blank; CausalStep: a chain of several calls), so it need not match the calls or add up over "
          "a benchmark's parts. CausalStep's accuracy by chain position is not compared: which items a position "
          "holds depends on each model's own chain. Many scores are tested at once, so some would "
          "differ by chance: **p (Holm)** and **p (BH)** correct for that. **Significant (BH)** and the count "
          "above the table use Benjamini-Hochberg (BH p at most 0.05): at most 5% of the differences it calls "
          "significant are expected to be flukes, which suits a scan for where two models differ. Holm's stricter "
          "p keeps the chance of even one fluke at 5%, but with 1,000 resamples it can call nothing significant "
          "once more than 25 scores are compared. "
          "Each row shows its protocol (≠: off the suite's reference); where the two rows' protocols differ, "
          "A − B mixes model and protocol, and the status line and Note say so. "
          + logic.REPORTED_NOTE.split(": ")[0] + ": a paper gives no per-video results. The About tab explains the "
          "method in full.")
PICK_TWO = "Pick two rows to compare."
NONE_HERE = ("Nothing to compare in this view: Compare needs two ✓ verified rows of one suite, and a paper's "
             "reported numbers come without per-video results. Pick a suite under **Show** above.")
ONE_HERE = "This suite has one ✓ verified row so far; Compare needs two."
GENERIC_ERROR = "Something went wrong on our side; the maintainers have the details in the site's log."


class CompareHandlers:
    """The tab's callbacks, as plain methods the tests call."""

    def __init__(self, h: "BaseHandlers"):
        self.h = h
        self._stats: OrderedDict[tuple, PairedStats | None] = OrderedDict()
        self._lock = threading.Lock()

    def _rows(self, suite: str) -> pd.DataFrame:
        board = self.h.board(suite)
        return board[board["source_kind"] == "verified"]

    def choices(self, suite: str, a: str | None, b: str | None) -> tuple[dict, dict, dict]:
        """The verified rows, best first, as (label, id); a choice that left the suite is
        cleared. An empty choice is left alone: this event's inputs may be older than a
        pick the visitor made meanwhile, which must not be undone. The status line says why
        the pickers are empty where the view has fewer than two verified rows (the papers'
        view has none), asks for two rows where none is picked, and is the comparison's otherwise."""
        options = compare_protocol.picker_options(self._rows(suite))
        ids = {i for _, i in options}

        def update(chosen: str | None) -> dict:
            return gr.update(choices=options) if not chosen or chosen in ids else gr.update(choices=options, value=None)
        status = NONE_HERE if not options else ONE_HERE if len(options) == 1 else None if a or b else PICK_TWO
        return update(a), update(b), gr.update(value=status) if status else gr.update()

    def _row(self, suite: str, submission: str) -> dict[str, Any]:
        board = self.h.board(suite)
        found = board[board["id"].astype(str) == submission]
        if found.empty:
            raise CompareRefused(f"{submission} is not a row of this suite any more; pick another.")
        return found.iloc[0].to_dict()

    def _paired(self, row: dict[str, Any]) -> "PairedStats | None":
        """A row's statistics from the private store, cached per (id, run, created): a
        rerun has a new `created`, so a cached file is never stale."""
        key = (str(row["id"]), str(row.get("run")), str(row.get("created")))
        with self._lock:
            if key in self._stats:
                self._stats.move_to_end(key)
                return self._stats[key]
        stats = logic.load_paired(self.h.stores.private, str(row["id"]))
        with self._lock:
            self._stats[key] = stats
            while len(self._stats) > STATS_KEPT:
                self._stats.popitem(last=False)
        return stats

    def compare(self, suite: str, a: str | None, b: str | None) -> tuple[str, pd.DataFrame]:
        empty = pd.DataFrame(columns=list(logic.COLUMNS))
        if not a or not b:
            return PICK_TWO, empty
        try:
            row_a, row_b = self._row(suite, a), self._row(suite, b)
            logic.check_pair(row_a, row_b)
            minimum = self.h.settings.min_bucket_items
            generation = self.h.board(suite).attrs.get("generation")

            def run() -> tuple[pd.DataFrame, str]:
                stats_a = logic.check_stats(row_a, self._paired(row_a), "Model A")
                stats_b = logic.check_stats(row_b, self._paired(row_b), "Model B")
                gap = compare_protocol.protocol_gap(row_a, row_b)
                hidden = logic.hidden_trees(row_a, row_b)
                frame = logic.mark_protocols(logic.compare(stats_a, stats_b, minimum, hidden), gap)
                return frame, logic.summary(row_a, row_b, frame, stats_a.samples, gap)
            frame, text = self.h._cached((generation, "compare", suite, a, b, minimum), run)
        except CompareRefused as e:
            return f"⚠️ {markup.escape(e)}", empty
        except Exception:  # noqa: BLE001 - logged with its traceback, shown generically
            log.exception("comparing %s and %s failed", a, b)
            return f"⚠️ {GENERIC_ERROR}", empty
        return text, frame


def build(h: "BaseHandlers", suite: gr.Radio, generation: gr.State, opened: gr.State) -> CompareHandlers:
    """The Compare tab, inside build_ui's gr.Tabs; its pickers fill when it is opened."""
    c = CompareHandlers(h)
    with gr.Tab("Compare", id="compare", elem_id="tab-compare") as tab:
        gr.Markdown(INTRO, elem_id="compare-intro")
        with gr.Accordion("How to read the table: n, p, Holm, BH, protocols", open=False,
                          elem_id="compare-method-box"):
            gr.Markdown(METHOD, elem_id="compare-method")
        with gr.Row():
            # side by side where both fit whole, one under the other on a phone (a choice reads
            # "Baseline: first-option · ✓ reference")
            a = gr.Dropdown([], value=None, label="Model A", elem_id="compare-a", min_width=300)
            b = gr.Dropdown([], value=None, label="Model B", elem_id="compare-b", min_width=300)
        status = gr.Markdown(PICK_TWO, elem_id="compare-status", latex_delimiters=[])
        shown = gr.Dataframe(pd.DataFrame(columns=list(logic.COLUMNS)), interactive=False, wrap=True,
                             show_search="filter", max_height=640, label="A − B", elem_id="compare-table",
                             # pixels, shares of 1,200: a phone scrolls the table rather than squeeze it
                             column_widths=[f"{12 * p}px" for p in (10, 12, 4, 7, 7, 6, 11, 5, 7, 6, 9, 16)])
    fill_when_open(tab, "compare", opened, suite, generation, c.choices, [suite, a, b], [a, b, status],
                   "compare_choices")
    gr.on([a.change, b.change], _as_table(c.compare), [suite, a, b], [status, shown], trigger_mode="always_last",
          api_name="compare")
    return c


def _as_table(fn):
    """The frame as a Dataframe update: numbers stay numbers (they sort as numbers) and
    show as leaderboard/compare.py cell_text writes them; missing ones show empty."""
    def run(suite, a, b):
        text, frame = fn(suite, a, b)
        return text, gr.update(value=_shown(frame), datatype=datatypes(frame))
    return run


def _shown(frame: pd.DataFrame) -> pd.DataFrame | dict:
    if frame.empty:
        return frame
    data = frame.astype(object).where(frame.notna(), None).to_numpy().tolist()
    shown = [[logic.cell_text(c, v) for c, v in zip(frame.columns, row)] for row in frame.itertuples(index=False)]
    return {"headers": list(frame.columns), "data": data,
            "metadata": {"display_value": shown, "styling": [[""] * len(frame.columns) for _ in range(len(frame))]}}

