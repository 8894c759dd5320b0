"""The Benchmarks tab: one table per benchmark with every metric."""

from __future__ import annotations

import gradio as gr
import pandas as pd

from evaluator.benchmarks import BENCHMARKS
from leaderboard import views
from leaderboard.tabs.base import BaseHandlers
from leaderboard.tabs.common import RANK_PX, as_tables, failsafe, fill_when_open, partial_note, table

# Pixel widths: Rank and Model stay in view while the metrics scroll sideways (on a phone, and
# on a wide screen for ExpVid's twenty columns); a metric's header wraps onto two lines.
WIDTHS = {views.RANK: RANK_PX, views.MODEL: 156, views.SOURCE: 150, "95% CI": 112, views.FRAMES: 72,
          views.JUDGE: 150, views.DATE: 100}
METRIC_WIDTH = 96


class BenchmarkHandlers(BaseHandlers):
    """The Benchmarks tab's callbacks."""

    @failsafe()
    def first_benchmark_tab(self, suite: str):
        """On a suite that holds only some benchmarks, open on the first it holds (a suite of
        all five keeps the reader's own choice of sub-tab)."""
        held = views.suite_benchmarks(self.board(suite))
        return gr.Tabs(selected=f"bench-{held[0]}") if held and len(held) < len(views.BENCHMARKS) else gr.skip()

    @failsafe(outputs=len(views.BENCHMARKS))
    def benchmarks(self, suite: str) -> tuple:
        """One table per benchmark; a benchmark the suite does not hold says so instead."""
        board = self.board(suite)
        held = views.suite_benchmarks(board)
        return tuple(self._view(board, ("bench", suite, b), lambda b=b: views.benchmark_view(board, b))
                     if b in held or not held else
                     pd.DataFrame({"": [f"This suite holds no {views.TITLES[b]} questions: pick another suite "
                                        f"under Show to see its rows."]})
                     for b in views.BENCHMARKS)

    @failsafe(outputs=2 * len(views.BENCHMARKS))
    def benchmark_pages(self, suite: str) -> tuple:
        """Each benchmark's table (benchmarks), then each one's ◐ note, shown where its table marks a score."""
        tables = self.benchmarks(suite)
        return (*tables, *(partial_note(t) for t in tables))


def build(h: BenchmarkHandlers, suite: gr.Dropdown, generation: gr.State, opened: gr.State) -> None:
    with gr.Tab("Benchmarks", id="benchmarks", elem_id="tab-benchmarks") as tab:
        gr.Markdown("Every metric of each benchmark; the About tab says how each one is computed. A paper's rows "
                    "are ranked among that paper's models only, on the benchmark's overall score (\"3 📄\"; papers "
                    "print no intervals: read a point or two apart as a tie); our verified rows among themselves, "
                    "as on the Leaderboard: on the score ± half the 95% CI's width (the bounds themselves need not "
                    "be centred on the score).", elem_id="benchmarks-note")
        tables, notes = [], []
        with gr.Tabs(elem_id="benchmark-tabs") as inner:
            for name in views.BENCHMARKS:
                with gr.Tab(views.TITLES[name], id=f"bench-{name}"):
                    # what its Overall is (CausalStep's, a chain score, can be below both of its parts)
                    gr.Markdown(f"**Overall**: {BENCHMARKS[name].HEADLINE}.", elem_id=f"{name}-headline")
                    # its own ◐ note, above the table as the tab's note is (not "bench-…": that id pins columns)
                    notes.append(gr.Markdown(visible=False, elem_id=f"{name}-partial-note"))
                    tables.append(gr.Dataframe(interactive=False, show_search="filter", pinned_columns=2,
                                               max_height=640, label=views.TITLES[name], elem_id=f"bench-{name}"))
    fill_when_open(tab, "benchmarks", opened, suite, generation, as_tables(h.benchmark_pages, shaped), [suite],
                   tables + notes, "benchmarks")
    gr.on([tab.select, suite.change], h.first_benchmark_tab, [suite], inner, show_progress="hidden",
          api_visibility="private")


def shaped(frame: pd.DataFrame) -> dict:
    """The table update with its column widths; a one-line note spans the table."""
    widths = [f"{WIDTHS.get(c, METRIC_WIDTH)}px" for c in frame.columns] if views.RANK in frame.columns else ["100%"]
    return {**table(frame), "column_widths": widths}
