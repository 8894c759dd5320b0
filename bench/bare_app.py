"""A bare Gradio app: the floor the site's speed is measured against (bench/site_speed.py,
bench/site_capacity.py). No handler of ours, only what any Gradio leaderboard does.

Tabs titled as BARE_TABS says (titles separated by "|"); the first holds a Dropdown filter
and one Dataframe filled on page load (demo.load) from BARE_TABLE, a JSON file of
{"headers": [...], "data": [[...], ...]} and optionally "metadata" (the text cells show)
and "datatype" (the benches write the site's own first table there, so both pages carry the
same rows and cells); the filter keeps the rows whose second column starts with the word
picked. The other tabs hold a line of text each. Nothing else: no CSS, theme or widths.

    BARE_TABLE=table.json BARE_TABS="Models|Leaderboard" GRADIO_SERVER_PORT=7861 python bench/bare_app.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import gradio as gr

ALL = "all"


def read_table(path: str) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def first_word(value) -> str:
    return str(value).replace("[", " ").replace("-", " ").split(" ", 1)[0].strip() or "?"


def build(table: dict, tabs: list[str]) -> gr.Blocks:
    headers, data = table["headers"], table["data"]
    shown = (table.get("metadata") or {}).get("display_value")
    key = 1 if len(headers) > 1 else 0
    words = [first_word(row[key]) for row in data]
    choices = [ALL, *sorted(set(words))[:30]]

    def value(rows: list[int] | None = None) -> dict:
        """The table (the rows picked), in Gradio's value form, with the cells' texts where given."""
        keep = range(len(data)) if rows is None else rows
        out = {"headers": headers, "data": [data[i] for i in keep]}
        if shown:
            out["metadata"] = {"display_value": [shown[i] for i in keep]}
        return out

    def fill() -> dict:
        return value()

    def filtered(word: str) -> dict:
        return value(None if word == ALL else [i for i, w in enumerate(words) if w == word])

    with gr.Blocks(title="Bare Gradio app") as demo:
        with gr.Tabs():
            with gr.Tab(tabs[0], id="first", elem_id="bare-tab-first"):
                choice = gr.Dropdown(choices, value=ALL, label="Filter", elem_id="bare-filter")
                table_shown = gr.Dataframe(interactive=False, datatype=table.get("datatype") or "str", label=tabs[0],
                                           elem_id="bare-table")
            for i, title in enumerate(tabs[1:]):
                with gr.Tab(title, id=f"tab-{i}", elem_id=f"bare-tab-{i}"):
                    gr.Markdown(f"The {title} tab.")
        demo.load(fill, None, table_shown, api_name="fill")
        choice.change(filtered, choice, table_shown, api_name="filter")
    return demo


def main() -> None:
    tabs = [t for t in os.environ.get("BARE_TABS", "Table|Other").split("|") if t]
    demo = build(read_table(os.environ["BARE_TABLE"]), tabs)
    demo.queue(default_concurrency_limit=8).launch(  # as app.py launches the site
        server_name=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"),
        server_port=int(os.environ.get("GRADIO_SERVER_PORT", "7861")))


if __name__ == "__main__":
    main()
