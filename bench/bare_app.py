"""A bare Gradio app: the floor the site's speed is measured against (bench/site_speed.py,
bench/site_capacity.py). No handler of ours, only what any Gradio leaderboard does.

Tabs titled as BARE_TABS says (titles separated by "|"); the first holds a Dropdown filter
and one Dataframe filled on page load (demo.load) from BARE_TABLE, a JSON file of
{"headers": [...], "data": [[...], ...]} and optionally "metadata" (the text cells show)
and "datatype" (the benches write the site's own first table there, so both pages carry the
same rows and cells); the filter keeps the rows whose second column starts with the word
picked. The other tabs hold a line of text each. Nothing else: no CSS, theme or widths.

    BARE_TABLE=table.json BARE_TABS="Models|Leaderboard" GRADIO_SERVER_PORT=7861 python bench/bare_app.py

BARE_MIRROR=config.json (an app's /config, bench/site_speed.py writes the site's) fills the
other tabs with copies of that app's: every component of its tabs but the first, same type,
layout, visibility and first value (a Dataframe's rows, a Markdown's text), and every listener
of those tabs (same triggers and api names, a function that changes nothing). The first tab
stays the bare one: what this app adds is what any Gradio page with those tabs' components
costs, whoever builds it (bench/site_speed.py prints it beside the site).
"""

from __future__ import annotations

import inspect
import json
import os
from pathlib import Path

import gradio as gr
from gradio.utils import component_or_layout_class

ALL = "all"


def read_table(path: str) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def first_word(value) -> str:
    return str(value).replace("[", " ").replace("-", " ").split(" ", 1)[0].strip() or "?"


def build(table: dict, tabs: list[str], mirror: dict | None = None) -> gr.Blocks:
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
            copies = Mirror(mirror) if mirror else None
            for i, title in enumerate(tabs[1:]):
                with gr.Tab(title, id=f"tab-{i}", elem_id=f"bare-tab-{i}") as tab:
                    if copies is None:
                        gr.Markdown(f"The {title} tab.")
                    else:
                        copies.tab(i + 1, tab)
            if copies is not None:
                copies.listeners()
        demo.load(fill, None, table_shown, api_name="fill")
        choice.change(filtered, choice, table_shown, api_name="filter")
    return demo


# -- BARE_MIRROR: another app's other tabs, copied -------------------------------------------------

LAYOUT = {"tabitem": gr.Tab}  # config type -> class, where the names differ
SKIPPED = {"form"}  # gradio wraps form components in a Form itself: its children are copied in its place
# props that are the component's own business here (ids, keys) or that only the config carries
NOT_COPIED = {"elem_id", "key", "preserved_by_key", "render", "name", "_selectable", "delete_callback"}


class Mirror:
    """Copies of an app's components and listeners (its /config) into this app's other tabs."""

    def __init__(self, config: dict):
        self.components = {c["id"]: c for c in config["components"]}
        self.dependencies = config["dependencies"]
        self.tabs = self._top_tabs(config["layout"])
        self.made: dict[int, object] = {}  # the app's component id -> its copy here
        self.stand_ins: dict[int, gr.State] = {}  # components outside the copied tabs that listeners use

    def _top_tabs(self, node: dict) -> list[dict]:
        if self.components.get(node["id"], {}).get("type") == "tabs":
            return node.get("children", [])
        for child in node.get("children", []):
            found = self._top_tabs(child)
            if found:
                return found
        return []

    def tab(self, index: int, tab: gr.Tab) -> None:
        """The app's tab number `index`: its children, copied into the current tab."""
        if index >= len(self.tabs):
            return
        self.made[self.tabs[index]["id"]] = tab
        for child in self.tabs[index].get("children", []):
            self._copy(child)

    def _copy(self, node: dict) -> None:
        meta = self.components[node["id"]]
        kind, children = meta["type"], node.get("children", [])
        if kind in SKIPPED:
            for child in children:
                self._copy(child)
            return
        cls = LAYOUT.get(kind) or component_or_layout_class(kind)
        block = _make(cls, meta.get("props", {}))
        self.made[node["id"]] = block
        if children:
            with block:
                for child in children:
                    self._copy(child)

    def _block(self, component_id):
        """The copy of a component, or a State standing in for one outside the copied tabs."""
        if component_id in self.made:
            return self.made[component_id]
        if component_id not in self.stand_ins:
            self.stand_ins[component_id] = gr.State()
        return self.stand_ins[component_id]

    def listeners(self) -> None:
        """Each listener of the copied tabs (a trigger, input or output in them): same triggers,
        inputs, outputs and api name, and a function that changes nothing. A trigger outside
        them is its stand-in State's change; one on the page's load is left out (the bare page
        sends nothing on load but its table's fill)."""
        made: dict[int, object] = {}
        for dep in self.dependencies:
            chained = dep.get("trigger_after") is not None
            ids = {t for t, _ in dep["targets"]} | set(dep["inputs"]) | set(dep["outputs"])
            if not ids & set(self.made) and not (chained and dep["trigger_after"] in made):
                continue
            inputs = [self._block(i) for i in dep["inputs"]]
            outputs = [self._block(o) for o in dep["outputs"]]
            options = {"api_name": dep.get("api_name") or False, "show_progress": dep.get("show_progress") or "full"}
            if dep.get("api_visibility") in ("private", "undocumented"):
                options["api_visibility"] = dep["api_visibility"]
            fn = None if not dep.get("backend_fn", True) else _unchanged(len(outputs))
            js = dep.get("js") or None
            if chained and dep["trigger_after"] in made:
                listener = made[dep["trigger_after"]].then(fn, inputs, outputs, js=js, **options)
            else:
                triggers = []
                for target, event in dep["targets"]:
                    if target in self.made and hasattr(self.made[target], event):
                        triggers.append(getattr(self.made[target], event))
                    elif target in self.components and target not in self.made:
                        triggers.append(self._block(target).change)
                if not triggers:
                    continue
                listener = gr.on(triggers, fn, inputs, outputs, js=js, **options)
            made[dep["id"]] = listener


def _unchanged(outputs: int):
    def unchanged(*_args):
        return gr.skip() if outputs == 1 else tuple(gr.skip() for _ in range(outputs))
    return unchanged if outputs else (lambda *_args: None)


def _make(cls, props: dict):
    """An instance of `cls` with the props its constructor takes (a first value that does not
    fit is dropped rather than fail the copy)."""
    accepted = inspect.signature(cls.__init__).parameters
    kwargs = {k: v for k, v in props.items() if k in accepted and k not in NOT_COPIED}
    for drop in ((), ("value",), ("value", "choices")):
        try:
            return cls(**{k: v for k, v in kwargs.items() if k not in drop})
        except Exception:  # noqa: BLE001 - a prop of the other app's own version: try with less
            continue
    return cls()


def main() -> None:
    tabs = [t for t in os.environ.get("BARE_TABS", "Table|Other").split("|") if t]
    mirror = read_table(os.environ["BARE_MIRROR"]) if os.environ.get("BARE_MIRROR") else None
    demo = build(read_table(os.environ["BARE_TABLE"]), tabs, mirror)
    demo.queue(default_concurrency_limit=8).launch(  # as app.py launches the site
        server_name=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"),
        server_port=int(os.environ.get("GRADIO_SERVER_PORT", "7861")))


if __name__ == "__main__":
    main()
