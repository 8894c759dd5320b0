"""The Models tab, the first page: one row per model across the five benchmarks
(leaderboard/views/models.py), ranked within the column picked in "Rank by"; below it, the
results the models' own authors report on their Hub pages (leaderboard/views/authors.py),
never ranked."""

from __future__ import annotations

import gradio as gr
import pandas as pd

from leaderboard import views
from leaderboard.author_results import AuthorSource
from leaderboard.tabs.base import BaseHandlers
from leaderboard.tabs.common import RANK_PX, failsafe, table
from leaderboard.views import authors as author_views
from leaderboard.views import models as model_views

# Score columns keep a width that shows "61.20 ✓ · 📄 58.10" on two lines at most, the
# model column a readable name; a phone (390 px) shows Rank, Model and one whole score
# column, and scrolls the others under Rank and Model, which stay in view. A wide screen has room to
# spare: there the site's CSS (tabs/common.py) widens Model so that a name keeps to one line.
WIDTHS = {views.RANK: f"{RANK_PX}px", views.MODEL: "156px"}
SCORE_WIDTH = "108px"


class ModelsHandlers(BaseHandlers):
    """The Models tab's callbacks."""

    def authors(self) -> AuthorSource:
        """The models' authors' results as last scanned (one reader per handlers object)."""
        if getattr(self, "_authors", None) is None:
            self._authors = AuthorSource(self.stores.results)
        return self._authors

    def model_rows(self) -> list[model_views.ModelRow]:
        """Every model, the papers' rows with the verified rows of the suite submissions go to
        (an official suite's board holds both) and the authors' own results, cached per table
        generation and scan."""
        papers = self.board(views.REPORTED_SUITE)
        configured = self.configured_suite()
        verified = self.board(configured) if configured else None
        source = self.authors()
        report = source.get()
        return self._view(papers, ("models", configured, source.version),
                          lambda: model_views.model_rows(papers, verified, authors=report.rows))

    @failsafe(outputs=2)
    def authors_table(self, search: str = "") -> tuple[dict, str]:
        """The authors' own results (never ranked), searched as the models are, and the line above."""
        report = self.authors().get()
        shown = author_views.author_view(report.rows, search or "")
        update = table(shown)
        update["datatype"] = ["markdown" if c in author_views.MARKDOWN_COLUMNS else k
                              for c, k in zip(shown.columns, update["datatype"])]
        return update, author_views.author_note(len(report.rows), report.scanned_at)

    @failsafe(outputs=3)
    def models_table(self, search: str = "", sort_by: str | None = None) -> tuple[dict, dict, str]:
        """The table, the "Rank by" choices (with the one used) and the line above the table."""
        rows = self.model_rows()
        shown = model_views.model_view(rows, sort_by, search or "")
        choices = model_views.sort_choices(rows)
        return (shaped(shown), gr.update(choices=[(f"Rank by {c}", c) for c in choices], value=shown.attrs["sort_by"]),
                self.models_note(shown))

    def models_note(self, shown: pd.DataFrame) -> str:
        return model_views.models_note(shown, views.is_official(self.configured_suite()))

    @failsafe()
    def models_legend(self) -> str:
        configured = self.configured_suite()
        where = views.suite_label(configured) if configured else "no suite yet"
        return model_views.models_legend(where, views.is_official(configured))


def shaped(shown: pd.DataFrame) -> dict:
    """The table update: numbers that sort as numbers, their "61.20 ✓" text shown, the
    model a link (Markdown)."""
    update = table(shown)
    update["datatype"] = ["markdown" if c == views.MODEL else t for c, t in zip(shown.columns, update["datatype"])]
    update["column_widths"] = [WIDTHS.get(c, SCORE_WIDTH) for c in shown.columns]
    return update


def build(h: ModelsHandlers, generation: gr.State) -> None:
    with gr.Tab("Models", id="models", elem_id="tab-models"):
        first, choices, note = h.models_table("", None)
        with gr.Row(equal_height=True):
            search = gr.Textbox(label="Search models", placeholder="Search models (name; another name)",
                                show_label=False, container=False,
                                scale=3, elem_id="models-search")
            sort_by = gr.Dropdown(choices.get("choices", []), value=choices.get("value"), label="Rank by",
                                  show_label=False, container=False, scale=1, elem_id="models-sort")
        shown_note = gr.Markdown(note, elem_id="models-note")
        shown = gr.Dataframe(first.get("value"), datatype=first.get("datatype"),
                             column_widths=first.get("column_widths"), interactive=False, show_search="none",
                             pinned_columns=2, max_height=900, wrap=True, label="Models", show_label=False,
                             elem_id="models-table", buttons=[])
        with gr.Accordion("How this page ranks", open=False, elem_id="models-legend-box"):
            legend = gr.Markdown(h.models_legend(), elem_id="models-legend")
        with gr.Accordion("Which papers' rows each model joins", open=False, elem_id="models-names-box"):
            gr.Markdown(model_views.names_table(), elem_id="models-names")
        gr.Markdown("### Reported by the models' authors", elem_id="author-heading")
        first_authors, authors_note = h.authors_table("")
        shown_authors_note = gr.Markdown(authors_note, elem_id="author-note")
        shown_authors = gr.Dataframe(first_authors.get("value"), datatype=first_authors.get("datatype"),
                                     interactive=False, show_search="none", wrap=True,
                                     label="Reported by the models' authors", show_label=False,
                                     elem_id="author-table", buttons=[], max_height=400)
    gr.on([search.change, sort_by.change, generation.change], h.models_table, [search, sort_by],
          [shown, sort_by, shown_note], trigger_mode="always_last", api_name="models")
    generation.change(h.models_legend, None, legend, api_visibility="private")
    gr.on([search.change, generation.change], h.authors_table, [search], [shown_authors, shown_authors_note],
          trigger_mode="always_last", api_name="author_results")
