"""Capacity of the site's server: the most browsing events a second it sustains with p95 latency
under 1 s, beside a bare Gradio app measured the same way in the same run.

The server runs pinned to one core and the load generator to another (taskset; without
taskset, or on one core, both run unpinned and the bench says so), so what is measured is
the server, not the clients. The load generator is one process: light visitors on one
asyncio loop (bench/gradio_load.py) speaking Gradio's queue protocol as the page does
(POST /gradio_api/queue/join, then the session's /gradio_api/queue/data stream) and firing
change listeners when an output changes a value, as the browser does.

A visitor of the site: opens the page (its load listeners and the first tab's select, and
what they set off), opens the Leaderboard tab, picks the results' suite, changes a filter
(verified rows only), goes to page 2, opens the Benchmarks tab, and the page's timer ticks
once. A visitor of the bare app (two tabs, one Dataframe filled on load with the rows the
site's first page shows, one Dropdown filter; bench/bare_app.py) does the same where it
means anything: opens the page, opens the second tab, changes the filter (tabs and paging
of the bare table happen in the browser). Visitors arrive evenly at the rate that offers
the wanted events a second, think 0.5 s between actions; each listener run is an event and
its latency runs from its POST to its result on the stream.

Each step offers a rate for --seconds; it is sustained when the events' p95 is under 1 s,
none failed, and the events sent reach 90% of those offered. The rate grows 1.5x a step
until one is not sustained, then is bisected --bisect times. Printed: each app's highest
sustained rate, the ratio, and the goal: the site at least 60% of the bare app's rate; and
the server's CPU per event and the load generator's CPU use at each step.

Usage: python bench/site_capacity.py [--results 1000] [--seconds 12] [--bisect 3] [--start 8]
Takes a few minutes. Exit status 1 when the goal is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from gradio_load import Event, Page, Visitor, first_table
from site_server import SiteServer, demo_suite_id, prepare_home

GOAL = 0.6  # the site's sustained events a second, at least this share of the bare app's
P95_LIMIT = 1.0  # seconds
THINK = 0.5  # seconds between a visitor's actions
TICK_SECONDS = 5.0  # the page's gr.Timer (leaderboard/tabs/common.py REFRESH_SECONDS)
SITE_ENV = {"LEADERBOARD_EMBEDDED_WORKER": "0"}  # the site alone, as on the Space
SERVER_CORE, CLIENT_CORE = 0, 1
# Gradio's own settings that app.py makes for the site; the bare app gets them too, so the
# two differ by what the site does on top of Gradio.
GRADIO_ENV = {"GRADIO_ANALYTICS_CACHE_FREQUENCY": "1000"}


@dataclass
class Step:
    offered: float
    sent: float
    p95: float
    failed: int
    server_cpu: float  # share of one core
    client_cpu: float
    cpu_per_event: float  # server seconds
    slowest: str = ""  # the listeners with the highest median latency, where the step is not sustained

    @property
    def sustained(self) -> bool:
        return self.p95 < P95_LIMIT and not self.failed and self.sent >= 0.9 * self.offered

    def line(self) -> str:
        return (f"      offered {self.offered:7.1f} ev/s   sent {self.sent:7.1f} ev/s   p95 {self.p95 * 1000:7.0f} ms   "
                f"failed {self.failed:3d}   server {self.server_cpu:4.0%} of its core "
                f"({self.cpu_per_event * 1000:5.1f} ms CPU an event)   load generator {self.client_cpu:4.0%}   "
                f"{'sustained' if self.sustained else 'NOT sustained'}"
                + ("" if self.sustained or not self.slowest else f"\n        slowest (median): {self.slowest}"))


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))] if ordered else 0.0


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pin(pid: int, core: int) -> bool:
    """Every thread of `pid` on `core` (taskset -a); False when that cannot be done."""
    if shutil.which("taskset") is None or (os.cpu_count() or 1) < 2:
        return False
    return subprocess.run(["taskset", "-a", "-p", "-c", str(core), str(pid)], capture_output=True).returncode == 0


# -- visitors ---------------------------------------------------------------------------------------------

async def site_visitor(visitor: Visitor, suite: str) -> None:
    await visitor.fire("load")
    await visitor.fire("select", "tab-models")  # the browser selects the first tab as it mounts
    for action in (lambda: visitor.fire("select", "tab-leaderboard"), lambda: visitor.set("suite-select", suite),
                   lambda: visitor.set("filter-source", ["verified"]), lambda: visitor.set("page-number", 2),
                   lambda: visitor.fire("select", "tab-benchmarks"), lambda: visitor.fire("tick", "timer")):
        await asyncio.sleep(THINK)
        await action()


def bare_visitor(word: str):
    async def visit(visitor: Visitor, _suite: str) -> None:
        await visitor.fire("load")
        await asyncio.sleep(THINK)
        await visitor.fire("select", "bare-tab-0")  # nothing on the server: shown to keep the same pauses
        await asyncio.sleep(THINK)
        await visitor.set("bare-filter", word)
    return visit


# -- one step of offered load --------------------------------------------------------------------------------

async def offer(app: App, rate: float, seconds: float) -> Step:
    """Visitors arrive evenly at `rate` / (events a visitor sends) a second; once the first
    ones are done (the load is steady) the events sent over the next `seconds` count."""
    import httpx

    log: list[Event] = []
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=200)
    async with httpx.AsyncClient(timeout=httpx.Timeout(60.0), limits=limits) as http:
        every = app.events / rate
        began = time.perf_counter()
        window_start = began + app.alone + 1.0
        window_end = window_start + seconds
        tasks, cpu, mine = [], None, None
        while (now := time.perf_counter()) < window_end:
            if cpu is None and now >= window_start:
                cpu, mine = cpu_seconds(app.pid), time.process_time()
            if now >= began + len(tasks) * every:
                tasks.append(asyncio.create_task(app.script(Visitor(app.page, http, app.url, log), app.suite)))
            wake = min(began + len(tasks) * every, window_start if cpu is None else window_end)
            await asyncio.sleep(max(0.0, wake - time.perf_counter()))
        cpu, mine = cpu_seconds(app.pid) - cpu, time.process_time() - mine
        _, late = await asyncio.wait(tasks, timeout=60)
        for task in late:
            task.cancel()
    counted = [e for e in log if window_start <= e.started < window_end]
    failed = (sum(not e.ok for e in counted) + len(late)
              + sum(t.done() and not t.cancelled() and t.exception() is not None for t in tasks))
    return Step(rate, len(counted) / seconds, percentile([e.seconds for e in counted], 95), failed, cpu / seconds,
                mine / seconds, cpu / max(1, len(counted)), slowest(counted))


def slowest(events: list[Event], shown: int = 3) -> str:
    by_name: dict[str, list[float]] = {}
    for e in events:
        by_name.setdefault(e.name, []).append(e.seconds)
    medians = sorted(((statistics.median(v), k) for k, v in by_name.items()), reverse=True)[:shown]
    return ", ".join(f"{name} {m * 1000:.0f} ms" for m, name in medians)


@dataclass
class App:
    """One app under load: its server, its visitor, and where the search for its capacity is."""
    name: str
    server: SiteServer
    script: object
    suite: str
    rate: float
    bisections: int
    events: int = 0
    alone: float = 0.0  # seconds a lone visitor takes
    low: float = 0.0  # the highest offered rate sustained
    high: float | None = None  # the lowest not sustained
    best: float = 0.0  # the most events a second sent at a sustained rate
    done: bool = False

    def __post_init__(self):
        self.url, self.pid = self.server.url, self.server.process.pid
        self.page = Page(json.loads(urllib.request.urlopen(self.url + "config", timeout=60).read()))
        self.steps: list[Step] = []

    async def calibrate(self) -> None:
        """One visitor alone, twice (the first warms the server's caches): its events and seconds."""
        import httpx

        async with httpx.AsyncClient(timeout=60) as http:
            for _ in range(2):
                log: list[Event] = []
                began = time.perf_counter()
                await self.script(Visitor(self.page, http, self.url, log), self.suite)
                self.alone = time.perf_counter() - began
        if not log or not all(e.ok for e in log):
            raise RuntimeError(f"{self.name}: a lone visitor's events failed: {[(e.name, e.ok) for e in log]}")
        self.events = len(log)

    def record(self, step: Step) -> None:
        """Grow the rate 1.5x a step until one is not sustained, then bisect (geometric mean)."""
        self.steps.append(step)
        if step.sustained:
            self.low, self.best = max(self.low, step.offered), max(self.best, step.sent)
        else:
            self.high = step.offered if self.high is None else min(self.high, step.offered)
        if self.high is None:
            self.rate *= 1.5
        elif not self.low:  # even the first rate was too much
            self.rate = self.high / 2
            self.done = self.rate < 0.5
        elif self.bisections:
            self.bisections -= 1
            self.rate = (self.low * self.high) ** 0.5
        else:
            self.done = True

    def cpu_per_event(self) -> float:
        """Server CPU seconds an event, the median over the steps (a steadier figure than the rate)."""
        values = sorted(s.cpu_per_event for s in self.steps if s.sent)
        return values[len(values) // 2] if values else 0.0


def search(apps: list[App], seconds: float, max_steps: int) -> None:
    """The apps' searches take turns, a step each: a busy moment on this shared machine falls
    on both."""
    for app in apps:
        asyncio.run(app.calibrate())
        print(f"    {app.name}: a visitor sends {app.events} events over {app.alone:.1f} s alone")
    while not all(app.done for app in apps):
        for app in apps:
            if not app.done:
                step = asyncio.run(offer(app, app.rate, seconds))
                print(f"    {app.name:<6}" + step.line())
                app.record(step)
                app.done |= len(app.steps) >= max_steps


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--results", type=int, default=1000, help="results in the site's home besides the baselines")
    p.add_argument("--seconds", type=float, default=10.0, help="how long each step is measured (after its ramp)")
    p.add_argument("--bisect", type=int, default=3, help="bisections after the first rate not sustained")
    p.add_argument("--start", type=float, default=8.0, help="the first rate offered, events a second")
    p.add_argument("--max-steps", type=int, default=30, help="steps at most for each app")
    args = p.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    pinned = pin(os.getpid(), CLIENT_CORE)
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        print(f"preparing a leaderboard of {args.results} results...")
        home = prepare_home(Path(tmp) / "home", results=args.results)
        site = stack.enter_context(SiteServer(home, dev_user=None, env=SITE_ENV))
        config = json.loads(urllib.request.urlopen(site.url + "config", timeout=60).read())
        table = Path(tmp) / "table.json"
        table.write_text(json.dumps(first_table(config)), encoding="utf-8")
        bare = stack.enter_context(SiteServer(Path(tmp) / "bare", dev_user=None, script="bench/bare_app.py",
                                              env={"BARE_TABLE": str(table), "BARE_TABS": "Models|Leaderboard",
                                                   **GRADIO_ENV}))
        for server in (site, bare):
            pinned &= pin(server.process.pid, SERVER_CORE)
        print(placement(pinned))
        apps = [App("site", site, site_visitor, demo_suite_id(home), args.start, args.bisect),
                App("bare", bare, bare_visitor(bare_word(bare.url)), "", args.start, args.bisect)]
        search(apps, args.seconds, args.max_steps)
    return report(*apps)


def report(site: App, bare: App) -> int:
    ratio = site.best / bare.best if bare.best else 0.0
    ok = ratio >= GOAL
    for app in (site, bare):
        cpu = app.cpu_per_event()
        print(f"    {app.name}: {app.best:6.1f} events/s sustained ({app.best * 60 / app.events:6.0f} visitors a minute "
              f"of {app.events} events each); server CPU {cpu * 1000:.1f} ms an event, so one free core would "
              f"serve at most {1 / cpu if cpu else 0:.0f} events/s")
    minute = site.events - 1 + round(60 / TICK_SECONDS)  # its one timer tick is a minute's
    print(f"    a site visitor who stays a minute sends about {minute} events (the above and the page's timer "
          f"every {TICK_SECONDS:g} s): at the rate sustained here one core keeps up with about "
          f"{site.best * 60 / minute:.0f} such visitors on the site at once")
    cpu_ratio = bare.cpu_per_event() / site.cpu_per_event() if site.cpu_per_event() else 0.0
    print(f"    sustained with p95 < {P95_LIMIT:g} s: the site {site.best:.1f} events/s, the bare Gradio app "
          f"{bare.best:.1f} events/s   ratio {ratio:.2f}   (goal >= {GOAL:g})   {'OK' if ok else 'MISSED'}   "
          f"(by CPU an event: {cpu_ratio:.2f})")
    return 0 if ok else 1


def bare_word(url: str) -> str:
    """The bare app's filter choice other than "all" (its first)."""
    config = json.loads(urllib.request.urlopen(url + "config", timeout=60).read())
    choices = next(c["props"]["choices"] for c in config["components"] if c.get("props", {}).get("elem_id") == "bare-filter")
    return choices[1][1] if len(choices) > 1 else choices[0][1]


def placement(pinned: bool) -> str:
    if pinned:
        return (f"(server pinned to core {SERVER_CORE}, load generator to core {CLIENT_CORE} with taskset; other "
                f"processes on this machine may still run on both)")
    why = "taskset is missing" if shutil.which("taskset") is None else f"{os.cpu_count()} core(s) or taskset refused"
    return f"(NOT pinned: {why}; the server and the load generator share the cores, so the rates are lower bounds)"


if __name__ == "__main__":
    sys.exit(main())
