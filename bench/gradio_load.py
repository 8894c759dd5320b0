"""Light Gradio visitors for bench/site_capacity.py: many in one process, one asyncio loop.

A visitor speaks the queue protocol the page speaks (Gradio's sse_v3, as gradio_client and
the browser do): each listener of a fired event is one POST /gradio_api/queue/join
({data, fn_index, trigger_id, session_hash}), answered with an event id; then one GET of the
session's /gradio_api/queue/data event stream carries every event's process_completed,
and the server closes it once none of the session's events is pending. Like the page, a
visitor keeps every component's value (the first from /config), sends the inputs' values,
and when an output changes a value (or a State, which the server names in
changed_state_ids) it fires that component's change listeners, as the browser does.
Listeners that run only in the browser (js, no backend function) are not sent. Unlike the
browser, the change listeners a round sets off go out when the whole round is back, not as each
result arrives; and a value set to what it already was fires nothing (the browser's Dropdown
may fire a change there: a visitor here can send a little less than a page).

    page = Page(config)                       # /config, read once per app
    visitor = Visitor(page, http, url, log)   # one session; log: a list of Event records
    await visitor.fire("load")                # the page's load listeners and what they set off
    await visitor.fire("select", "tab-leaderboard")
    await visitor.set("filter-source", ["reported"])   # a user's edit: input and change
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

API = "gradio_api"
MAX_CHAIN = 6  # change listeners setting off change listeners: stop after this many rounds


@dataclass
class Event:
    """One listener run: when it was sent, how long until its result came back, its api name."""
    started: float
    seconds: float
    name: str
    ok: bool


class Page:
    """What a visitor needs from an app's /config: components' first values and ids, and
    the backend listeners by (component id, event name)."""

    def __init__(self, config: dict):
        components = config["components"]
        self.values = {c["id"]: c.get("props", {}).get("value") for c in components}
        self.states = {c["id"] for c in components if c["type"] == "state"}
        self.ids = {c["props"]["elem_id"]: c["id"] for c in components if c.get("props", {}).get("elem_id")}
        self.listeners: dict[tuple[Any, str], list[dict]] = defaultdict(list)
        for dep in config["dependencies"]:
            if not dep.get("backend_fn", True):
                continue  # runs in the browser only
            for target, event in dep["targets"]:
                self.listeners[("page" if event == "load" else target, event)].append(dep)

        kinds = defaultdict(list)
        for c in components:
            kinds[c["type"]].append(c["id"])
        self.only = {kind: ids[0] for kind, ids in kinds.items() if len(ids) == 1}  # e.g. the one gr.Timer

    def component(self, name: str) -> int:
        """The component of this elem_id, or the app's only component of this type ("timer")."""
        found = self.ids.get(name, self.only.get(name))
        if found is None:
            raise KeyError(f"no component with elem_id {name!r}, nor a single one of that type, in the app's /config")
        return found


class Visitor:
    """One page open in a browser: its own session and component values."""

    def __init__(self, page: Page, http, url: str, log: list[Event]):
        self.page, self.http, self.url, self.log = page, http, url.rstrip("/"), log
        self.session = uuid.uuid4().hex[:11]
        self.values = dict(page.values)

    async def fire(self, event: str, name: str | None = None) -> None:
        """A component's event (`load`: the page's), then every change it sets off."""
        target = "page" if event == "load" else self.page.component(name)
        await self._run(self.page.listeners[(target, event)], target)

    async def set(self, name: str, value: Any) -> None:
        """A user's edit of a component: its input listeners and change listeners."""
        target = self.page.component(name)
        self.values[target] = value
        await self._run([*self.page.listeners[(target, "input")], *self.page.listeners[(target, "change")]], target)

    async def _run(self, deps: list[dict], trigger) -> None:
        for _ in range(MAX_CHAIN):
            unique = list({d["id"]: d for d in deps}.values())
            if not unique:
                return
            changed = await self._round(unique, trigger)
            deps = [d for cid in changed for d in self.page.listeners[(cid, "change")]]
            trigger = None

    async def _round(self, deps: list[dict], trigger) -> set[int]:
        """Send every listener, read the session's stream until all are done; the components
        whose value they changed."""
        sent = await asyncio.gather(*(self._join(d, trigger) for d in deps))
        waiting = {event_id: (dep, started) for event_id, dep, started in sent}
        changed: set[int] = set()
        async with self.http.stream("GET", f"{self.url}/{API}/queue/data",
                                    params={"session_hash": self.session}) as stream:
            async for line in stream.aiter_lines():
                if not line.startswith("data:"):
                    continue
                message = json.loads(line[5:])
                if message.get("msg") == "close_stream":
                    break
                if message.get("msg") != "process_completed" or message.get("event_id") not in waiting:
                    continue
                dep, started = waiting.pop(message["event_id"])
                ok = bool(message.get("success"))
                self.log.append(Event(started, time.perf_counter() - started, dep.get("api_name") or "", ok))
                if ok:
                    changed |= self._apply(dep, message.get("output") or {})
                if not waiting:
                    break
        for dep, started in waiting.values():  # the stream ended without them
            self.log.append(Event(started, time.perf_counter() - started, dep.get("api_name") or "", False))
        return changed

    async def _join(self, dep: dict, trigger) -> tuple[str, dict, float]:
        data = [None if i in self.page.states else self.values.get(i) for i in dep["inputs"]]
        started = time.perf_counter()
        answer = await self.http.post(f"{self.url}/{API}/queue/join", json={
            "data": data, "event_data": None, "fn_index": dep["id"], "session_hash": self.session,
            "trigger_id": trigger if isinstance(trigger, int) else None})
        answer.raise_for_status()
        return answer.json()["event_id"], dep, started

    def _apply(self, dep: dict, output: dict) -> set[int]:
        changed = set(output.get("changed_state_ids") or ()) & set(dep["outputs"])
        for cid, value in zip(dep["outputs"], output.get("data") or ()):
            if cid in self.page.states:
                continue
            if isinstance(value, dict) and value.get("__type__") == "update":
                if "value" not in value:
                    continue  # gr.skip() or a change of other props only
                value = value["value"]
            if value != self.values.get(cid):
                self.values[cid] = value
                changed.add(cid)
        return changed


def first_table(config: dict) -> dict:
    """The first Dataframe with rows in an app's /config (what its page shows first): its value
    ({"headers", "data"} and the text cells show, "metadata") and its column types."""
    for c in config["components"]:
        props = c.get("props", {}) if c["type"] == "dataframe" else {}
        value = props.get("value")
        if isinstance(value, dict) and value.get("data"):
            return {**{k: value[k] for k in ("headers", "data", "metadata") if value.get(k)},
                    "datatype": props.get("datatype")}
    raise ValueError("no Dataframe with rows in the app's /config")
