"""The By level, By domain and By hop tabs: breakdown columns of the prepared board."""

from __future__ import annotations

from collections.abc import Sequence

import gradio as gr
import pandas as pd

from leaderboard import views
from leaderboard.tabs.base import BaseHandlers
from leaderboard.tabs.common import as_tables, failsafe, fill_when_open, fitted


class BreakdownHandlers(BaseHandlers):
    """The By level, By domain and By hop tabs' callbacks."""

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


def build_level(h: BreakdownHandlers, suite: gr.Dropdown, generation: gr.State, opened: gr.State) -> None:
    with gr.Tab("By level", id="by-level", elem_id="tab-by-level") as tab:
        gr.Markdown("ExpVid's three levels (perception, procedure, reasoning), Video-MMMU's three tracks "
                    "(perception, comprehension, adaptation) and CausalStep's descriptive (DUA) versus causal "
                    "(ICRA) accuracy.")
        shown = gr.Dataframe(interactive=False, show_search="filter", pinned_columns=2, max_height=640,
                             label="By level", elem_id="by-level-table")
    fill_when_open(tab, "by-level", opened, suite, generation, as_tables(h.by_level, fitted), [suite], [shown],
                   "by_level")


def build_breakdown(h: BreakdownHandlers, suite: gr.Dropdown, generation: gr.State, opened: gr.State, title: str,
                   keys: Sequence[str], slug: str, note: str) -> None:
    with gr.Tab(title, id=f"by-{slug}", elem_id=f"tab-by-{slug}") as tab:
        gr.Markdown(note)
        with gr.Row():
            key = gr.Dropdown([(views.BREAKDOWNS[k].title, k) for k in keys], value=keys[0], label="Breakdown",
                              elem_id=f"{slug}-select")
            metric = gr.Dropdown([], value=None, label="Value shown", visible=False, elem_id=f"{slug}-metric")
        shown = gr.Dataframe(interactive=False, show_search="filter", pinned_columns=2, max_height=640,
                             label=title, elem_id=f"by-{slug}-table")
    fill_when_open(tab, f"by-{slug}", opened, suite, generation, as_tables(h.breakdown_choice),
                   [suite, key, metric], [metric, shown], f"by_{slug}", triggers=[key.change])
    metric.input(as_tables(h.breakdown), [suite, key, metric], shown, api_name=f"by_{slug}_value")
