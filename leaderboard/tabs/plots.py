"""The Plots tab: the per-level profile and score against size, each with a placeholder when empty."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

import gradio as gr
import pandas as pd
from gradio.components.plot import AltairPlotData

from leaderboard import views
from leaderboard.tabs.base import BaseHandlers
from leaderboard.tabs.common import failsafe, fill_when_open

NO_LEVELS = ("**Per-level profile**: no data yet. No chosen result has a per-level score ("
             + views.in_words([views.TITLES[b] for b in views.LEVELED], "or") + ").")
NO_POINTS = ("**Score against size**: no data yet. No result in this view states its parameter count (a "
             "prediction file can give it when submitted).")


def drawn(frame: pd.DataFrame, spec: Callable[[pd.DataFrame], dict], chart: str) -> AltairPlotData:
    """A gr.Plot's value: the Vega-Lite spec `spec` makes of the frame (views.level_profile_spec,
    views.score_vs_params_spec: ticks, ranges and legend are set there), drawn in the page's
    theme (fonts, colours) as gradio draws a `chart` ("line", "scatter")."""
    return AltairPlotData(chart=chart, plot=json.dumps(spec(frame)))


def plot_or_placeholder(frame, placeholder: str, spec: Callable[[pd.DataFrame], dict], chart: str) -> tuple:
    """(the plot's update, its placeholder's update): the frame drawn (`drawn`), or, empty, the
    plot hidden and the placeholder saying why, instead of an empty frame with a stray legend.
    Under a drawn plot the placeholder explains the ◐ after a model's name, where one has it."""
    if not isinstance(frame, pd.DataFrame):
        return frame, gr.skip()  # a failed view: leave both as they are
    empty, note = frame.empty, views.partial_note(frame)
    return (gr.update(value=None if empty else drawn(frame, spec, chart), visible=not empty),
            gr.update(value=placeholder if empty else note, visible=empty or bool(note)))


class PlotHandlers(BaseHandlers):
    """The Plots tab's callbacks."""

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
                gr.Dropdown(choices=views.plot_benchmarks(), value=benchmark), *self.scatter_shown(points))

    @failsafe()
    def level_plot(self, suite: str, chosen: Sequence[str] | None) -> pd.DataFrame:
        return views.level_profile(self.board(suite), list(chosen or ()))

    @failsafe(outputs=2)
    def level_plot_shown(self, suite: str, chosen: Sequence[str] | None) -> tuple:
        return plot_or_placeholder(self.level_plot(suite, chosen), NO_LEVELS, views.level_profile_spec, "line")

    @failsafe()
    def params_plot(self, suite: str, benchmark: str) -> pd.DataFrame:
        board, benchmark = self.board(suite), benchmark or "average"
        return self._view(board, ("params", suite, benchmark), lambda: views.score_vs_params(board, benchmark))

    @failsafe(outputs=2)
    def params_plot_shown(self, suite: str, benchmark: str) -> tuple:
        return self.scatter_shown(self.params_plot(suite, benchmark))

    @staticmethod
    def scatter_shown(points) -> tuple:
        return plot_or_placeholder(points, NO_POINTS, views.score_vs_params_spec, "scatter")


def build(h: PlotHandlers, suite: gr.Dropdown, generation: gr.State, opened: gr.State) -> None:
    with gr.Tab("Plots", id="plots", elem_id="tab-plots") as tab:
        models = gr.Dropdown([], value=[], multiselect=True, label="Models in the per-level profile",
                             elem_id="plot-models")
        profile = gr.Plot(label="Per-level profile", elem_id="level-profile")  # values: `drawn`
        no_profile = gr.Markdown(visible=False, elem_id="level-profile-empty")  # or the plot's ◐ note
        benchmark = gr.Dropdown(views.plot_benchmarks(), value="average", label="Score", elem_id="plot-benchmark",
                                info="Score against size: one point per result that states its parameter count "
                                     "(papers' rows, Hub models, prediction files that give it).")
        scatter = gr.Plot(label="Score against size", elem_id="score-vs-params")
        no_scatter = gr.Markdown(visible=False, elem_id="score-vs-params-empty")
    fill_when_open(tab, "plots", opened, suite, generation, h.plots, [suite, models, benchmark],
                   [models, profile, no_profile, benchmark, scatter, no_scatter], "plots")
    models.input(h.level_plot_shown, [suite, models], [profile, no_profile], api_name="level_plot")
    benchmark.input(h.params_plot_shown, [suite, benchmark], [scatter, no_scatter], api_name="params_plot")
