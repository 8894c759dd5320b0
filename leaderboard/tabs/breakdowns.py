"""The By level, By domain and By hop tabs: breakdown columns of the prepared board, each
ranked by the score a reader picks (its benchmark's overall by default), and offering only
the breakdowns of the benchmarks the suite holds."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import gradio as gr
import pandas as pd

from leaderboard import views
from leaderboard.tabs.base import BaseHandlers
from leaderboard.tabs.common import as_tables, failsafe, fill_when_open, fitted, partial_note


def hidden_note(minimum: int) -> str:
    """What the two texts in place of a group's score mean (results/disclosure.py decides)."""
    return (f" A cell reading \"n too small (n=…)\" is a group of fewer than {minimum} items, published without "
            "its score (a group of one would tell whether that answer was right); \"hidden with others\" is a group "
            "big enough to show, hidden so that a hidden one cannot be worked out from the published scores, or "
            "where this file differs from an earlier near-identical one of its submitter on only a few answers.")


def note_frame(text: str) -> pd.DataFrame:
    """A table holding one line, where a view has nothing to show, so the page says why."""
    return pd.DataFrame({"": [text]})


def with_note(fn):
    """Wire a handler whose last output is a table so that the tab's ◐ note follows that table."""
    @functools.wraps(fn)
    def run(*args, **kwargs):
        out = fn(*args, **kwargs)
        return (*out, partial_note(out[-1]))
    return run


class BreakdownHandlers(BaseHandlers):
    """The By level, By domain and By hop tabs' callbacks."""

    @failsafe()
    def by_level(self, suite: str, rank_by: str | None = None) -> pd.DataFrame:
        board = self.board(suite)
        if not views.level_rank_choices(board):
            return note_frame(f"This suite holds none of {views.in_words([views.TITLES[b] for b in views.LEVELED])}, "
                              "the benchmarks with levels.")
        return self._view(board, ("level", suite, rank_by), lambda: views.by_level_view(board, rank_by))

    @failsafe(outputs=2)
    def level_choice(self, suite: str, rank_by: str | None):
        """The By level tab's "Rank by" picker for this suite, and the table."""
        choices = views.level_rank_choices(self.board(suite))
        rank_by = rank_by if rank_by in choices else (choices[0] if choices else None)
        return gr.Dropdown(choices=choices, value=rank_by, visible=bool(choices)), self.by_level(suite, rank_by)

    def breakdown_keys(self, suite: str, keys: Sequence[str]) -> list[str]:
        """Of `keys`, the breakdowns of the benchmarks this suite holds."""
        board = self.board(suite)
        held = set(views.suite_benchmarks(board))
        offered = [k for k in keys if views.BREAKDOWNS[k].column.split(".", 1)[0] in held]
        # those with data first: the one opened by default shows something
        return sorted(offered, key=lambda k: not views.breakdown_has_data(board, k))

    def breakdown_metrics(self, suite: str, key: str) -> list[str]:
        board = self.board(suite)
        return self._view(board, ("metrics", suite, key), lambda: views.breakdown_metrics(board, key))

    @failsafe()
    def breakdown(self, suite: str, key: str, metric: str | None, rank_by: str | None = None) -> pd.DataFrame:
        board = self.board(suite)
        if key not in views.BREAKDOWNS:
            return note_frame("This suite holds no benchmark with a breakdown here.")
        if not views.breakdown_has_data(board, key):
            return note_frame(views.empty_breakdown_reason(board, key))
        metrics = self.breakdown_metrics(suite, key)
        metric = metric if metric in metrics else (metrics[0] if metrics else None)
        return self._view(board, ("breakdown", suite, key, metric, rank_by),
                          lambda: views.breakdown_view(board, key, metric, rank_by))

    def breakdown_choice(self, keys: Sequence[str]):
        """The handler for one tab's pickers: its breakdowns on this suite (the chosen one kept
        when the suite has it), the metric picker (hidden when each group holds one number),
        the rank picker, and the table."""
        @failsafe(outputs=4)
        def choose(suite: str, key: str | None, metric: str | None, rank_by: str | None):
            offered = self.breakdown_keys(suite, keys)
            key = key if key in offered else (offered[0] if offered else None)
            picker = gr.Dropdown(choices=[(views.BREAKDOWNS[k].title, k) for k in offered], value=key)
            if key is None:
                hidden = gr.Dropdown(choices=[], value=None, visible=False)
                return picker, hidden, hidden, self.breakdown(suite, "", None)
            metrics = self.breakdown_metrics(suite, key)
            metric = metric if metric in metrics else (metrics[0] if metrics else None)
            ranks = views.breakdown_rank_choices(self.board(suite), key, metric)
            rank_by = rank_by if rank_by in [v for _, v in ranks] else views.OVERALL
            return (picker, gr.Dropdown(choices=[(views.metric_label(m), m) for m in metrics], value=metric,
                                        visible=bool(metrics)),
                    gr.Dropdown(choices=ranks, value=rank_by, visible=True),
                    self.breakdown(suite, key, metric, rank_by))
        return choose


def build_level(h: BreakdownHandlers, suite: gr.Dropdown, generation: gr.State, opened: gr.State) -> None:
    with gr.Tab("By level", id="by-level", elem_id="tab-by-level") as tab:
        gr.Markdown(f"Each benchmark's levels ({views.levels_in_words()}). Rows are ranked by the column you "
                    "pick, shown first (levels carry no interval: only equal scores tie)."
                    + hidden_note(h.settings.min_bucket_items))
        note = gr.Markdown(visible=False, elem_id="by-level-partial-note")  # partial_note
        rank_by = gr.Dropdown([], value=None, label="Rank by", elem_id="by-level-rank")
        shown = gr.Dataframe(interactive=False, show_search="filter", pinned_columns=2, max_height=640,
                             label="By level", elem_id="by-level-table")
    fill_when_open(tab, "by-level", opened, suite, generation, as_tables(with_note(h.level_choice), fitted),
                   [suite, rank_by], [rank_by, shown, note], "by_level", triggers=[rank_by.input])


def build_breakdown(h: BreakdownHandlers, suite: gr.Dropdown, generation: gr.State, opened: gr.State, title: str,
                    keys: Sequence[str], slug: str, note: str) -> None:
    with gr.Tab(title, id=f"by-{slug}", elem_id=f"tab-by-{slug}") as tab:
        gr.Markdown(note + " Rows are ranked by the score you pick, shown first: the benchmark's overall score "
                    "(ranked with its interval, as on the Leaderboard) or one group's (no interval: only equal "
                    "scores tie)." + hidden_note(h.settings.min_bucket_items))
        partial = gr.Markdown(visible=False, elem_id=f"by-{slug}-partial-note")  # partial_note
        with gr.Row():
            # no value until filled: the suite's first breakdown with data is picked then
            key = gr.Dropdown([(views.BREAKDOWNS[k].title, k) for k in keys], value=None, label="Breakdown",
                              elem_id=f"{slug}-select")
            metric = gr.Dropdown([], value=None, label="Value shown", visible=False, elem_id=f"{slug}-metric")
            rank_by = gr.Dropdown([], value=None, label="Rank by", elem_id=f"{slug}-rank")
        shown = gr.Dataframe(interactive=False, show_search="filter", pinned_columns=2, max_height=640,
                             label=title, elem_id=f"by-{slug}-table")
    fill_when_open(tab, f"by-{slug}", opened, suite, generation, as_tables(with_note(h.breakdown_choice(keys))),
                   [suite, key, metric, rank_by], [key, metric, rank_by, shown, partial], f"by_{slug}",
                   triggers=[key.input, metric.input, rank_by.input])
