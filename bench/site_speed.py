"""Speed of the website, measured in this run against `python app.py` on loopback.

Each figure is a ratio against a baseline measured in the same run, printed beside its goal.
The sites run without their embedded worker (LEADERBOARD_EMBEDDED_WORKER=0, as on the Space:
workers run elsewhere), so the server's CPU is the site's own.

(a) first rows     navigation start until the first page's table draws a data row, in headless Debian
                   chromium (a fresh browser context each load, so nothing is cached; the first load,
                   which warms the server, is not counted), for the site's first page (the Models tab)
                   beside a bare Gradio app (bench/bare_app.py) with the same tabs and one Dataframe
                   holding the same rows, cell texts and column types, filled on page load (demo.load),
                   with none of the site's CSS, theme or widths: the floor of a Gradio page showing
                   that table. Goal: at most 1.2x the bare app, at each size.
                   Where the rest goes, printed under each size: a third app, "the copied app", is the
                   bare one with copies of the site's other tabs (BARE_MIRROR: every component of the
                   site's tabs but the first, same type, layout, visibility and first value, and their listeners,
                   doing nothing); each load is traced (Chromium's trace: the thread time of the page's
                   renderer main thread until the first rows) and the server's CPU over the load read
                   from /proc. The share of the site's extra CPU over the bare app that the copied app
                   spends too is Gradio's own work for components nobody sees yet: Gradio 6's page
                   builds its tree of every component in the config, twice, matching each component
                   against every listener, and fetches the script of every component type it holds
                   (the page's server deep-copies and walks the whole config for each page), while the
                   components of tabs not open are never drawn. The three apps run side by side and
                   their loads take turns (the order reversed each round), so the machine's other work
                   hits all of them; with --results-small and --results-large results. Median of --loads.
                   On a shared 2-core machine the first-rows medians move by about 0.1x from run to run;
                   the CPU figures much less.
                   Measured while looking for the rest (1,000 results, 7-21 loads a run, throwaway variants
                   of the site's config, not part of this bench): before the site held back the components
                   of types its first page does not draw (tabs/common.py, defer_unseen_types: accordions,
                   buttons, plots, files... of the other tabs start hidden and show on the first switch of
                   tabs), it stood at 1.22-1.37x here; holding them back took 1.29x to 1.15x in a 21-load
                   run beside the old code (server CPU -60 ms a load, page -50 ms), as much as hiding every
                   component of the other tabs, while hiding only containers around them gained nothing (the
                   page fetches the script of every visible component, whatever its parent); leaving out the
                   first tab's authors' table or one of its Markdown blocks changed nothing beyond the
                   noise. Now 1.13-1.20x (three runs), and most of what the site spends above the bare app
                   (58-103% in those runs) the copied app spends too; with the other tabs' contents left out
                   of the config altogether the site came within 0.99-1.09x of the bare app (four runs).
                   Going there needs the other tabs built only when opened (gr.render), and in Gradio 6
                   listeners made in a render are not in the app's API: /leaderboard, /submit_file,
                   /my_submissions and the other endpoints of those tabs would leave it, and each tab would
                   wait for the server the first time it opens.
(b) server CPU     CPU time of the server process (user + system, /proc) per /leaderboard call with
                   the default filters, --cpu-calls calls in a row from one client, on homes of
                   --cpu-sizes results. Goal: the largest at most 2x the smallest.
(c) concurrency    latency of /leaderboard (the call the page makes when the search box or a
                   filter changes; default filters) through gradio_client, on the --results-small
                   home: one user alone (2 x --calls calls in a row), then --users users at once, each
                   in its own process with its own client, released together, --calls calls each.
                   No goal: both include gradio_client's own overhead (it polls for results in 50 ms
                   steps), and the users' processes share this machine's cores with the server, so the
                   ratio measures the clients as much as the site (it prints both floors). How many
                   visitors the site serves is bench/site_capacity.py's figure, with its goal: the
                   server on one core, one light load generator on the other.

Usage: python bench/site_speed.py [--results-small 1000] [--results-large 10000] [--loads 7]
                                  [--users 50] [--calls 10] [--cpu-sizes 100,1000,10000] [--cpu-calls 100]
Needs /usr/bin/chromium for (a) (`make bench` installs it); without it (a) is skipped.
Takes several minutes: building the 10,000-result home alone takes about a minute.
Exit status 1 when a goal of (a) or (b) is missed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from gradio_load import first_table
from site_server import (
    NO_BROWSER,
    VIEWPORT,
    SiteServer,
    chromium_path,
    demo_suite_id,
    launch_chromium,
    prepare_home,
)

RENDER_GOAL = 1.2  # first rows, x the bare Gradio app showing the same rows
CPU_GOAL = 2.0  # server CPU per call, most results / fewest
SITE_ENV = {"LEADERBOARD_EMBEDDED_WORKER": "0"}  # the site alone, as on the Space
# Gradio's own settings that app.py makes for the site; the bare app gets them too
GRADIO_ENV = {"GRADIO_ANALYTICS_CACHE_FREQUENCY": "1000"}
FIRST_TABLE = {"site": "models-table", "bare": "bare-table", "copied": "bare-table"}  # each page's first table
# What the trace of a load records: the renderer's tasks with their thread time, and navigation start
TRACE_CATEGORIES = ["disabled-by-default-devtools.timeline", "blink.user_timing", "__metadata"]

# Runs in the page before any of its scripts: records performance.now() (ms since navigation
# start) the first time the table `#<id>` lays out a data cell with text. Measured in the page,
# so playwright's own round trips are not in it.
FIRST_ROWS_SCRIPT = """
(table) => {
  const check = () => {
    if (window.__rowsVisibleAt !== undefined) return;
    for (const cell of document.querySelectorAll(`#${table} [role=gridcell]`)) {
      const box = cell.getBoundingClientRect();
      if (box.width > 0 && box.height > 0 && cell.textContent.trim()) {
        window.__rowsVisibleAt = performance.now();
        observer.disconnect();
        return;
      }
    }
  };
  const observer = new MutationObserver(check);
  observer.observe(document, {childList: true, subtree: true, attributes: true, characterData: true});
}
"""


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def verdict(ok: bool) -> str:
    return "OK" if ok else "MISSED"


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0-100)."""
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


# -- (a) time to the first rows --------------------------------------------------------------------

@dataclass
class Load:
    """One page load: seconds to the first rows, and the CPU seconds spent meanwhile by the page's
    renderer main thread (None when the trace lacks the page's navigation) and by the app's server."""
    rows: float
    page_cpu: float | None
    server_cpu: float


def render_once(browser, app: SiteServer, table: str) -> Load:
    """Navigation start to the first data row drawn in `#table`, in a fresh browser context
    (nothing cached), traced."""
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        page.add_init_script(f"({FIRST_ROWS_SCRIPT})({json.dumps(table)})")
        browser.start_tracing(page=page, categories=TRACE_CATEGORIES)
        try:
            before = server_cpu_seconds(app.process.pid)
            page.goto(app.url)
            page.wait_for_function("window.__rowsVisibleAt !== undefined", timeout=120_000)
            server = server_cpu_seconds(app.process.pid) - before
            rows = page.evaluate("window.__rowsVisibleAt") / 1000
        finally:
            trace = browser.stop_tracing()
        return Load(rows, main_thread_cpu(trace, app.url, rows), server)
    finally:
        context.close()


def main_thread_cpu(trace: bytes, url: str, until: float) -> float | None:
    """CPU seconds of the renderer main thread that loaded `url`, from its navigation start to
    `until` seconds later: the thread time of its tasks (RunTask; one that crosses the end counts
    pro rata), from a Chromium trace. None when the trace has no navigation to `url`."""
    events = json.loads(trace)
    events = events.get("traceEvents", []) if isinstance(events, dict) else events
    start = next((e for e in events if e.get("name") == "navigationStart"
                  and e.get("args", {}).get("data", {}).get("documentLoaderURL") == url), None)
    if start is None:
        return None
    thread, begin = (start["pid"], start["tid"]), start["ts"]
    stop = begin + until * 1e6
    tasks = sorted((e for e in events if e.get("name") == "RunTask" and e.get("ph") == "X"
                    and (e["pid"], e["tid"]) == thread), key=lambda e: e["ts"])
    cpu, end = 0.0, -math.inf
    for task in tasks:
        if task["ts"] < end:
            continue  # runs inside the task before it
        end = task["ts"] + task.get("dur", 0)
        inside = min(end, stop) - max(task["ts"], begin)
        if inside > 0:
            cpu += task.get("tdur", 0) * inside / max(task.get("dur", 0), 1)
    return cpu / 1e6


def site_and_bare(stack: contextlib.ExitStack, home: Path) -> dict[str, SiteServer]:
    """The site on `home`, a bare Gradio app with the site's tabs and its first table's rows, and
    that bare app with copies of the site's other tabs (their components and listeners)."""
    site = stack.enter_context(SiteServer(home, dev_user=None, env=SITE_ENV))
    with urllib.request.urlopen(site.url + "config", timeout=60) as response:
        config = json.loads(response.read())
    tabs = [c["props"]["label"] for c in config["components"] if c["type"] == "tabitem" and
            (c["props"].get("elem_id") or "").startswith("tab-")]
    table = home.parent / f"{home.name}-first-table.json"
    table.write_text(json.dumps(first_table(config)), encoding="utf-8")
    mirror = home.parent / f"{home.name}-site-config.json"
    mirror.write_text(json.dumps(config), encoding="utf-8")
    env = {"BARE_TABLE": str(table), "BARE_TABS": "|".join(tabs), **GRADIO_ENV}
    bare = stack.enter_context(SiteServer(home.parent / f"{home.name}-bare", dev_user=None, script="bench/bare_app.py",
                                          env=env))
    tabs_copied = stack.enter_context(SiteServer(home.parent / f"{home.name}-copied", dev_user=None,
                                                 script="bench/bare_app.py", env={**env, "BARE_MIRROR": str(mirror)}))
    return {"site": site, "bare": bare, "copied": tabs_copied}


def render_series(homes: dict[int, Path], loads: int) -> bool:
    """Each size's three apps (site_and_bare) run at once and their loads take turns, in an order
    reversed every round, so a busy moment on this shared machine falls on all of them."""
    from playwright.sync_api import sync_playwright

    print(f"(a) first rows of the first page (navigation start -> first data row drawn), the site's Models tab "
          f"beside a bare Gradio app with the same tabs and rows, median of {loads} loads taking turns, "
          f"headless chromium")
    ok = True
    for size, home in homes.items():
        with sync_playwright() as p, contextlib.ExitStack() as stack:  # the stack (browser, sites) closes first
            apps = site_and_bare(stack, home)
            browser = launch_chromium(p)
            stack.callback(browser.close)
            runs: dict[str, list[Load]] = {name: [] for name in apps}
            for name, app in apps.items():  # warms each server (imports, caches); not counted
                render_once(browser, app, FIRST_TABLE[name])
            for turn in range(loads):
                for name in (list(apps) if turn % 2 == 0 else list(apps)[::-1]):
                    runs[name].append(render_once(browser, apps[name], FIRST_TABLE[name]))
            configs = {name: config_figures(app.url) for name, app in apps.items()}
        rows = {name: statistics.median(load.rows for load in loaded) for name, loaded in runs.items()}
        ratio = rows["site"] / rows["bare"]
        line = (f"    {size:>6} results: the site {ms(rows['site'])}, the bare app {ms(rows['bare'])}   ratio "
                f"{ratio:5.2f}x   /config {kib(configs['site'][0])} and {kib(configs['bare'][0])}")
        ok &= ratio <= RENDER_GOAL
        print(line + f"   (goal <= {RENDER_GOAL:g}x)   {verdict(ratio <= RENDER_GOAL)}")
        print(where_it_goes(runs, rows, configs))
    return ok


def where_it_goes(runs: dict[str, list[Load]], rows: dict[str, float], configs: dict[str, tuple]) -> str:
    """The lines under a size's figure: each app's CPU until its first rows (the page's main
    thread, the server), how much of the site's extra CPU over the bare app the copied app (the
    bare one with copies of the site's other tabs) spends too, and each /config."""
    page = {n: median_of([load.page_cpu for load in loaded]) for n, loaded in runs.items()}
    server = {n: statistics.median(load.server_cpu for load in loaded) for n, loaded in runs.items()}
    total = {n: page[n] + server[n] for n in runs}
    extra, copied = total["site"] - total["bare"], total["copied"] - total["bare"]
    share = f"{copied / extra:.0%}" if extra > 0 else "-"
    cpu = ", ".join(f"{label} {page[n] * 1000:.0f} + {server[n] * 1000:.0f} ms" for n, label in
                    (("site", "the site"), ("bare", "the bare app"), ("copied", "the copied app")))
    sizes = "; ".join(f"{label} {configs[n][1]} components, {configs[n][2]} listeners, {kib(configs[n][0]).strip()}"
                      for n, label in (("site", "the site"), ("bare", "the bare app"), ("copied", "the copied app")))
    return (f"{'':20}CPU until the first rows, page main thread + server: {cpu}\n"
            f"{'':20}the copied app (the bare one with copies of the site's other tabs) {ms(rows['copied']).strip()}, "
            f"{rows['copied'] / rows['bare']:.2f}x the bare app; of the site's extra CPU over the bare app "
            f"({extra * 1000:.0f} ms) the copied app spends {share} ({copied * 1000:.0f} ms): Gradio's work for "
            f"components not shown yet\n{'':20}/config: {sizes}")


def median_of(values: list[float | None]) -> float:
    """Median of the values measured (0 when none was)."""
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else 0.0


def config_figures(url: str) -> tuple[int, int, int]:
    """Size of the page's /config (every component's first value, the first table's rows
    included), its number of components and of listeners."""
    with urllib.request.urlopen(url + "config", timeout=60) as response:
        raw = response.read()
    config = json.loads(raw)
    return len(raw), len(config.get("components", [])), len(config.get("dependencies", []))


def kib(n: int) -> str:
    return f"{n / 1024:6.0f} KiB"


# -- calls through gradio_client ---------------------------------------------------------------

ENDPOINT = "/leaderboard"  # what the page calls when the search box or a filter changes


def one_call(client, suite: str) -> float:
    """One leaderboard view of the results' suite with the page's default filters (page 1)."""
    start = time.perf_counter()
    answer = client.predict(suite=suite, search="", api_name=ENDPOINT)
    took = time.perf_counter() - start
    table = answer[0] if isinstance(answer, tuple | list) else answer  # (table, the line under it, page)
    table = table.get("value", table) if isinstance(table, dict) else None  # a Dataframe or its update
    if not isinstance(table, dict) or not table.get("data"):
        raise RuntimeError(f"{ENDPOINT} answered without rows: {str(answer)[:300]}")
    return took


def server_cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (/proc/<pid>/stat, fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# -- (b) server CPU per call ---------------------------------------------------------------------

def cpu_series(homes: dict[int, Path], calls: int) -> bool:
    from gradio_client import Client

    print(f"(b) server CPU per {ENDPOINT} call (default filters, page 1), {calls} calls in a row, one client")
    per_call = {}
    for size, home in homes.items():
        with SiteServer(home, dev_user=None, env=SITE_ENV) as site:
            client = Client(site.url, verbose=False)
            suite = demo_suite_id(home)
            for _ in range(5):  # warm: the board and the page are built and cached by the first call
                one_call(client, suite)
            before = server_cpu_seconds(site.process.pid)
            for _ in range(calls):
                one_call(client, suite)
            per_call[size] = (server_cpu_seconds(site.process.pid) - before) / calls
        print(f"    {size:>6} results + baselines     {ms(per_call[size])} CPU a call")
    smallest, largest = min(per_call), max(per_call)
    ratio = per_call[largest] / per_call[smallest]
    ok = ratio <= CPU_GOAL
    print(f"    ratio {ratio:5.2f}x  ({largest} results / {smallest})   (goal <= {CPU_GOAL:g}x)   {verdict(ok)}")
    return ok


# -- (c) latency under many users, each in its own process -----------------------------------------

def gradio_floor(site: SiteServer, calls: int) -> float:
    """Server CPU per call of /tick (reads two cached values): what Gradio's queue costs per
    event whatever the event does, the least a /leaderboard call can cost."""
    from gradio_client import Client

    client = Client(site.url, verbose=False)
    client.predict(api_name="/tick")
    before = server_cpu_seconds(site.process.pid)
    for _ in range(calls):
        client.predict(api_name="/tick")
    return (server_cpu_seconds(site.process.pid) - before) / calls


def user_process(url: str, suite: str, calls: int, connecting, start, out) -> None:
    """One user: its own process and client; connects (one user at a time: a client reads the
    app's config and API description, which is not what is measured), waits for the others,
    then makes `calls` calls."""
    try:
        from gradio_client import Client

        with connecting:
            client = Client(url, verbose=False, httpx_kwargs={"timeout": 300})
            one_call(client, suite)  # connected and warm before the clock starts, like a page already open
        start.wait()
        began = time.time()
        times = [one_call(client, suite) for _ in range(calls)]
        out.put((os.getpid(), began, time.time(), times))
    except BaseException as e:  # noqa: BLE001 - reported by the parent
        start.abort()
        out.put(f"{type(e).__name__}: {e}")


def single_user(url: str, suite: str, calls: int) -> list[float]:
    from gradio_client import Client

    client = Client(url, verbose=False)
    one_call(client, suite)  # warm
    return [one_call(client, suite) for _ in range(calls)]


def concurrent_users(url: str, suite: str, users: int, calls: int) -> tuple[list[float], float]:
    """`users` processes, each its own gradio_client, released together, `calls` calls each:
    every call's latency, and the seconds from the release to the last call's end."""
    spawn = multiprocessing.get_context("spawn")
    connecting, start, out = spawn.Lock(), spawn.Barrier(users), spawn.Queue()
    procs = [spawn.Process(target=user_process, args=(url, suite, calls, connecting, start, out))
             for _ in range(users)]
    for proc in procs:
        proc.start()
    answers = [out.get(timeout=900) for _ in procs]
    for proc in procs:
        proc.join(timeout=60)
    errors = [a for a in answers if isinstance(a, str)]
    if errors:
        raise RuntimeError(f"{len(errors)} of {users} users failed; first: {errors[0]}")
    pids = {a[0] for a in answers}
    if len(pids) != users or os.getpid() in pids:
        raise RuntimeError(f"{users} users ran in {len(pids)} processes; each needs its own")
    span = max(a[2] for a in answers) - min(a[1] for a in answers)
    return [t for a in answers for t in a[3]], span


def latency_series(home: Path, size: int, users: int, calls: int) -> None:
    suite = demo_suite_id(home)  # the results are in the demo suite; the page opens on the papers' rows
    with SiteServer(home, dev_user=None, env=SITE_ENV) as site:
        cpu, mine = server_cpu_seconds(site.process.pid), time.process_time()
        alone = single_user(site.url, suite, calls * 2)
        server_alone = (server_cpu_seconds(site.process.pid) - cpu) / (len(alone) + 1)
        client_alone = (time.process_time() - mine) / (len(alone) + 1)
        floor_call = gradio_floor(site, calls * 2)
        cpu = server_cpu_seconds(site.process.pid)
        together, wall = concurrent_users(site.url, suite, users, calls)
        server_together = (server_cpu_seconds(site.process.pid) - cpu) / (users * (calls + 1))
    median, p95_alone, p95_together = statistics.median(alone), percentile(alone, 95), percentile(together, 95)
    ratio = p95_together / median
    print(f"(c) {ENDPOINT} through gradio_client, {size} results + baselines, loopback")
    print(f"    1 user, {len(alone)} calls:   median {ms(median)}   p95 {ms(p95_alone)}")
    print(f"    {users} users at once ({users} processes), {len(together)} calls:   p95 {ms(p95_together)}   "
          f"median {ms(statistics.median(together))}")
    print(f"    ratio {ratio:6.1f}x  (p95 under {users} users / single-user median)   (no goal: the clients share the "
          f"cores, see the floors; bench/site_capacity.py measures how many visitors the site serves)")
    cores = os.cpu_count() or 1
    print(f"    CPU a call: the server {ms(server_alone)} alone, {ms(server_together)} under {users} users "
          f"(connections included), {ms(floor_call)} for Gradio's own work on an event that does nothing "
          f"(/tick); a gradio_client user {ms(client_alone)}. The {len(together)} calls took {wall:.1f} s on "
          f"{cores} cores")
    clients = users * client_alone / cores
    server = users * floor_call  # one Python process: its Python work runs on one core at a time
    print(f"    floors: the users' own CPU keeps the {users}-user latency above {users} x "
          f"{ms(client_alone).strip()} / {cores} cores = {ms(clients).strip()} ({clients / median:.1f}x the "
          f"single-user median); Gradio's per-event work alone above {users} x {ms(floor_call).strip()} = "
          f"{ms(server).strip()} ({server / median:.1f}x)")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--results-small", type=int, default=1000)
    p.add_argument("--results-large", type=int, default=10000)
    p.add_argument("--loads", type=int, default=7)
    p.add_argument("--users", type=int, default=50)
    p.add_argument("--calls", type=int, default=10, help="calls per user in (c)")
    p.add_argument("--cpu-sizes", default="100,1000,10000", help="homes measured in (b), comma-separated")
    p.add_argument("--cpu-calls", type=int, default=100)
    p.add_argument("--only", default="abc", help="which parts to run (letters a, b, c)")
    args = p.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # each figure shows as soon as it is measured
    cpu_sizes = [int(n) for n in args.cpu_sizes.split(",") if n.strip()]
    sizes = sorted({*((args.results_small, args.results_large) if "a" in args.only else ()),
                    *(cpu_sizes if "b" in args.only else ()), *((args.results_small,) if "c" in args.only else ())})
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        print(f"preparing leaderboards of {', '.join(map(str, sizes))} results...")
        homes = {size: prepare_home(Path(tmp) / f"home-{size}", results=size) for size in sizes}
        if "a" in args.only:
            if chromium_path() is None:
                print(f"(a) skipped: {NO_BROWSER}")
            else:
                ok &= render_series({n: homes[n] for n in (args.results_small, args.results_large)}, args.loads)
        if "b" in args.only:
            ok &= cpu_series({n: homes[n] for n in cpu_sizes}, args.cpu_calls)
        if "c" in args.only:
            latency_series(homes[args.results_small], args.results_small, args.users, args.calls)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
