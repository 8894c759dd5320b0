"""The Leaderboard tab's protocol parts: the filter and the card panel (Gradio wiring only;
the shaping is results/protocol_status.py).

    protocols = protocol_filter()                       # a gr.Radio, in the filters' row
    card_panel(h, suite, generation, table, initial)    # below the table: picker + card

A row's card opens two ways: pick the row in "Protocol card for", or click the row in
the table (the click picks it in the picker). Every callback is fail-safe (leaderboard/tabs/common.py failsafe).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import gradio as gr
import pandas as pd

from results import protocol_status
from leaderboard import views
from leaderboard.tabs.common import failsafe

if TYPE_CHECKING:
    from leaderboard.tabs.base import BaseHandlers


def protocol_filter() -> gr.Radio:
    return gr.Radio(protocol_status.FILTER_CHOICES, value=protocol_status.DEFAULT_FILTER, label="Protocol",
                    info="Off-protocol rows are never ranked", elem_id="filter-protocol")


def columns_for(columns, protocols: str | None, board: pd.DataFrame | None = None) -> tuple[str, ...]:
    """The chosen columns, plus the Protocol column whenever rows outside the reference
    show (`board`: the suite's rows; None: whenever they may)."""
    chosen = tuple(columns or ())
    marked = board is None or bool(board["protocol_status"].isin(protocol_status.MARKED_STATUSES).any())
    if protocols != protocol_status.REFERENCE_ONLY and marked and views.PROTOCOL not in chosen:
        chosen += (views.PROTOCOL,)
    return chosen


def clicked_id(board: pd.DataFrame, row_value: list[Any] | None) -> str | None:
    """The id of the board row a click in the leaderboard table landed on: the row whose
    Model text and Source text match cells of the clicked row (the table starts with Rank,
    Model and, unless the suite has none, Average: views.leaderboard_view), the best ranked
    first."""
    at = {name: views.ALWAYS_SHOWN.index(name) for name in (views.MODEL, views.AVERAGE)}
    if not row_value or len(row_value) <= at[views.AVERAGE]:
        return None
    model, cells = str(row_value[at[views.MODEL]]), {str(v) for v in row_value}
    found = board[(board["model_text"].astype(str) == model) & views.source_text(board).astype(str).isin(cells)]
    # the same name twice (thinking on and off): the average decides, where the table shows one
    if len(found) > 1 and views.AVERAGE not in views.unfilled_columns(board):
        average = pd.to_numeric(pd.Series([row_value[at[views.AVERAGE]]]), errors="coerce").iloc[0]
        same = found[(pd.to_numeric(found["average"], errors="coerce") - average).abs() < 0.005]
        found = same if len(same) else found
    return str(found.iloc[0]["id"]) if len(found) else None


def card_panel(h: "BaseHandlers", suite: gr.Radio, generation: gr.State, table: gr.Dataframe, initial: str) -> None:
    @failsafe(outputs=2)
    def choices(suite_id: str, chosen: str | None):
        board = h.board(suite_id)
        options = protocol_status.card_options(board, chosen)
        chosen = chosen if chosen in {value for _, value in options} else None
        return gr.Dropdown(choices=options, value=chosen), protocol_status.card_for(board, chosen)

    @failsafe()
    def show(suite_id: str, chosen: str | None) -> str:
        return protocol_status.card_for(h.board(suite_id), chosen)

    @failsafe(outputs=3)
    def clicked(suite_id: str, event: gr.SelectData):
        board = h.board(suite_id)
        row_id = clicked_id(board, getattr(event, "row_value", None))
        if row_id is None:
            return gr.skip(), gr.skip(), gr.skip()
        return (gr.Dropdown(choices=protocol_status.card_options(board, row_id), value=row_id),
                protocol_status.card_for(board, row_id), gr.Accordion(open=True))

    first = h.board(initial)
    with gr.Accordion("Protocol card: how a row's numbers were produced", open=False,
                      elem_id="protocol-panel") as panel:
        picker = gr.Dropdown(protocol_status.card_options(first), value=None, label="Protocol card for",
                             info="Or click a row in the table", elem_id="protocol-pick")
        card = gr.Markdown(protocol_status.card_for(first, None), elem_id="protocol-card")
    gr.on([suite.change, generation.change], choices, [suite, picker], [picker, card], api_name="protocol_choices")
    picker.input(show, [suite, picker], card, api_name="protocol_card")
    # a click carries the row it landed on (gr.SelectData): a browser event, not an API endpoint
    table.select(clicked, [suite], [picker, card, panel], api_visibility="private")
