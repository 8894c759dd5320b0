"""The Leaderboard tab: filters, columns, the paged table, the protocol card below it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gradio as gr
import pandas as pd

from leaderboard import paging, views
from results import coverage
from leaderboard.tabs import protocol_panel
from leaderboard.tabs.base import BaseHandlers
from leaderboard.tabs.common import failsafe, fitted

RANKING_NOTE = """- **✓ verified run**: a model we ran from its Hub ID on this suite and scored. **✓ verified
  file**: a prediction file we scored on this suite against answers its submitter never sees; the submitter
  ran the model, so its settings are as they declared them. **baseline**: one of our built-in baselines (random
  choice, first option), ranked with the suite's rows as a yardstick.
- **📄 … paper**: the number printed in that benchmark's paper, with that paper's own setup. A paper's rows are
  ranked only among themselves ("3 📄"), starting again at 1 for each paper, never with verified rows. Papers
  print no intervals, so these ranks order the printed numbers only: read a point or two apart as a tie.
  ExpVid's and CausalStep's papers print no overall score: theirs is computed from the paper's numbers
  (About → Protocol). A paper's row with no overall score (ExpVid's human row, levels 1 and 2 only) is not
  listed here, and the line under the table names it; By level and the Benchmarks tab show its parts.
- **61.20 ±1.79**: the score and half the width of its 95% bootstrap interval over videos ("95% CI" under
  Filters and columns shows the bounds).
- **Order**: by the Average of the overall scores of the suite's benchmarks (unless the line above the table
  says otherwise; shown only where a row has them all, and its interval combines theirs), then by the mean of
  the scores a row has. A row with every score comes before every row without (its Average reads "— 2 missing":
  two benchmarks without a score).
- **Rank** is 1 + the number of rows whose whole interval (score ± the half width shown, not the bounds of "95%
  CI", which a skewed resampling can put off centre) lies above this row's: rows with equal scores share a
  rank, and every row whose interval overlaps the leader's ranks 1 with it, as their difference may be noise.
  **Band** groups rows to read as tied: the best row not yet in a band leads one, and each next row joins while
  its interval overlaps the leader's.
- **Who is ranked together**: rows of the same judge, at each benchmark's **reference protocol** (its paper's
  frames, resolution, decoding and runs; frame budgets a paper let each model choose count as the protocol).
  Other rows are shown, never ranked: **≠** in the Rank cell and what differs in the Protocol column (**?**
  when unknown); the Protocol filter can hide them.
- The **Protocol card** under the table (or a click on a row) says how a row's numbers were produced and where
  our protocol differs from each paper's. The Compare tab tests the difference of two rows.
- """ + coverage.PARTIAL_NOTE
TYPES_INFO = ("open: public weights · closed: weights not public · baseline: our built-in runs (random choice, first "
              "option) · human, random: a paper's people or chance · unspecified: a prediction file that did not say")
COLUMNS_INFO = ("\"(no video)\": the same model asked the same questions with black frames (model-id runs; "
                "About explains) · 95% CI: a score's interval bounds · GPU-s, TTFT, Tokens/s, GPU: what a run cost")


class LeaderboardHandlers(BaseHandlers):
    """The Leaderboard tab's callbacks: one page of the filtered view at a time (leaderboard/paging.py)."""

    @failsafe()
    def leaderboard(self, suite: str, search: str, types: Sequence[str], sizes: Sequence[str],
                    sources: Sequence[str], frames: Sequence[str] | None, judges: Sequence[str] | None,
                    columns: Sequence[str], protocols: str | None = None) -> pd.DataFrame:
        filters = views.Filters(search=search or "", types=tuple(types or ()), sizes=tuple(sizes or ()),
                                sources=tuple(sources or ()), frames=tuple(frames or ()), judges=tuple(judges or ()),
                                protocols=protocols)
        rows = views.filter_rows(self.leaderboard_rows(suite), filters)
        return views.leaderboard_view(rows, protocol_panel.columns_for(columns, protocols, self.board(suite)))

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
        wanted = set(protocol_panel.columns_for(columns, protocols, board))
        held = self._view(board, ("held", suite), lambda: views.suite_benchmarks(board))
        chosen = views.held_columns(tuple(c for c in views.OPTIONAL_COLUMNS if c in wanted), held)
        unfilled = self._view(board, ("unfilled", suite), lambda: views.unfilled_columns(board))
        filtered: list[pd.DataFrame] = []  # the filtered rows, computed at most once per call, kept by no cache

        def rows() -> pd.DataFrame:
            if not filtered:
                filtered.append(views.filter_rows(self.leaderboard_rows(suite), filters))
            return filtered[0]
        count = self._pages.get((generation, "count", suite, filters), lambda: len(rows()))
        number = paging.clamp_page(page, paging.page_count(count))

        def shape() -> tuple[dict, str]:
            part = paging.page_of(rows(), number)
            unlisted = views.unlisted_text(views.filter_rows(views.unlisted(board), filters))
            return fitted(views.leaderboard_view(part.rows, chosen, unfilled)), paging.page_text(part, unlisted)
        shaped, text = self._pages.get((generation, "page", suite, filters, chosen, number), shape)
        return dict(shaped), text, number  # a copy: gradio pops the value out of an update

    @failsafe(outputs=4)
    def table(self, suite: str, search: str, types: Sequence[str], sizes: Sequence[str],
              sources: Sequence[str], frames: Sequence[str] | None, judges: Sequence[str] | None,
              columns: Sequence[str], protocols: str | None = None, page: float | None = 1,
              shown_for: Any = None) -> tuple[dict, str, int, Any]:
        """The table for the controls as they are now: the page asked for, or page 1 when a
        filter, the search, the columns or the suite changed since the page shown (`shown_for`,
        the key this returns, kept per visitor). Every control feeds this one callback, so a
        visitor's requests run one after another and the last one decides what is shown."""
        key = paging.view_key(suite, search, types, sizes, sources, frames, judges, columns, protocols)
        asked = page if key == shown_for else 1
        shaped, text, number = self.leaderboard_page(suite, search, types, sizes, sources, frames, judges, columns,
                                                     protocols, asked)
        # The number box is left alone when it already says this page: a number typed while
        # this call ran is then read by the next call, not overwritten.
        return shaped, text, gr.skip() if page == number else number, key

    @failsafe()
    def suite_note(self, suite: str) -> str:
        """The line above the table: what Average means where the suite lacks some benchmarks."""
        return views.average_note(self.board(suite))

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


def build(h: LeaderboardHandlers, suite: gr.Dropdown, generation: gr.State, initial: str) -> None:
    with gr.Tab("Leaderboard", id="leaderboard", elem_id="tab-leaderboard"):
        search = gr.Textbox(label="Search models", placeholder="Search models (name; another name)",
                            show_label=False, container=False,
                            elem_id="search")
        # folded: the rows start on the first screen; every filter covers every page
        with gr.Accordion("Filters and columns", open=False, elem_id="filters"):
            with gr.Row():
                sources = gr.CheckboxGroup(list(views.SOURCES), value=list(views.SOURCES),
                                           label="Verified or reported", elem_id="filter-source")
                sizes = gr.CheckboxGroup(list(views.SIZES), value=list(views.SIZES), label="Size (parameters)",
                                         scale=2, elem_id="filter-size")
            with gr.Row():
                types = gr.CheckboxGroup(list(views.TYPES), value=list(views.TYPES), label="Model type", scale=3,
                                         elem_id="filter-type", info=TYPES_INFO)
                board = h.board(initial)
                frames = gr.Dropdown(views.frame_choices(board), value=[], multiselect=True, label="Frames",
                                     info="Empty: any", elem_id="filter-frames")
                judges = gr.Dropdown(views.judge_choices(board), value=[], multiselect=True, label="Judge",
                                     info="Empty: any", elem_id="filter-judge")
                protocols = protocol_panel.protocol_filter()
            columns = gr.CheckboxGroup(list(views.OPTIONAL_COLUMNS), value=list(views.DEFAULT_COLUMNS),
                                       label="Columns shown", elem_id="columns", info=COLUMNS_INFO)
        note = gr.Markdown(h.suite_note(initial), elem_id="suite-note")
        # The first page only is inlined in the page's /config (small whatever the results).
        shaped, text, number = h.leaderboard_page(initial, "", views.TYPES, views.SIZES, views.SOURCES, None, None,
                                                  views.DEFAULT_COLUMNS, protocols.value, 1)
        # No client-side search box: it would search only the page sent; the search above covers every row.
        shown = gr.Dataframe(shaped["value"], datatype=shaped["datatype"], interactive=False,
                             column_widths=shaped["column_widths"], show_search="none",
                             pinned_columns=2, max_height=640, label="Leaderboard", elem_id="leaderboard-table",
                             buttons=["copy", "fullscreen"])
        with gr.Row():
            previous = gr.Button("◀ Previous", size="sm", scale=0, min_width=110, elem_id="page-previous")
            page = gr.Number(number, precision=0, minimum=1, label="Page", show_label=False, scale=0,
                             min_width=80, container=False, elem_id="page-number")
            following = gr.Button("Next ▶", size="sm", scale=0, min_width=110, elem_id="page-next")
            info = gr.Markdown(text, elem_id="page-info")
        protocol_panel.card_panel(h, suite, generation, shown, initial)
        with gr.Accordion("How rows are ranked, and what the marks mean", open=False, elem_id="leaderboard-note-box"):
            gr.Markdown(RANKING_NOTE, elem_id="leaderboard-note")
        # which rows the table shows (per visitor): a change of it starts again at page 1
        shown_for = gr.State(paging.view_key(initial, "", views.TYPES, views.SIZES, views.SOURCES, None, None,
                                             views.DEFAULT_COLUMNS, protocols.value))
    inputs = [suite, search, types, sizes, sources, frames, judges, columns, protocols]
    # One listener for every control: two listeners writing the table could finish out of
    # order (an older page drawn over a newer search). The buttons only move the number.
    gr.on([suite.change, generation.change, search.change, types.change, sizes.change, sources.change,
           frames.change, judges.change, columns.change, protocols.change, page.change], h.table,
          [*inputs, page, shown_for], [shown, info, page, shown_for], trigger_mode="always_last",
          api_name="leaderboard")
    for button, step in ((previous, -1), (following, 1)):
        button.click(None, page, page, js=f"(p) => Math.max(1, (Number(p) || 1) + ({step}))",
                     api_visibility="private")
    gr.on([suite.change, generation.change], h.filter_options, [suite, frames, judges], [frames, judges],
          api_name="filter_options")
    gr.on([suite.change, generation.change], h.suite_note, [suite], note, show_progress="hidden",
          api_visibility="private")
    gr.on(None, search_from_link, None, search, api_visibility="private")  # on load only: no inputs


def search_from_link(request: gr.Request | None = None):
    """`?model=<name>` in the page's address (the link a model's Hub page gives to its row here,
    with `?suite=`) fills the search box; without it the box stays as it is."""
    wanted = (request.query_params.get("model") if request is not None else None) or ""
    return gr.update(value=wanted.strip()[:200]) if wanted.strip() else gr.skip()
