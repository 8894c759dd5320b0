"""Speed of the website, measured in this run against `python app.py` on loopback.

(a) first render   navigation start until the Leaderboard tab's table draws its first row,
                   in headless Debian chromium (a fresh browser context each load, so nothing
                   is cached; the first load, which warms the server, is not counted), with
                   --results-small and with --results-large results; each printed beside the
                   same measurement on a leaderboard holding only the two built-in baselines,
                   with the ratio, and the size of the page's /config (the first table is
                   inlined there). Median of --loads.
(b) concurrency    latency of /leaderboard (the call the page makes when the search box or a
                   filter changes; default filters: every row) through gradio_client, on the
                   --results-small home: one user alone (2 x --calls calls in a row), then
                   --users users at once (threads, each its own client, --calls calls each).
                   Printed: the single user's median and p95, the concurrent p95 and median,
                   and the ratio of the concurrent p95 to the single-user median. Both include
                   gradio_client's own overhead (it polls for results in 50 ms steps).

Usage: python bench/site_speed.py [--results-small 1000] [--results-large 10000] [--loads 5]
                                  [--users 50] [--calls 10]
Needs /usr/bin/chromium for (a) (`make bench` installs it); without it (a) is skipped.
Takes a few minutes: building the 10,000-result home alone takes about a minute.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from site_server import (
    NO_BROWSER,
    VIEWPORT,
    SiteServer,
    chromium_path,
    demo_suite_id,
    launch_chromium,
    prepare_home,
)

TABLE_CELLS = "#leaderboard-table [role=gridcell]"

# Runs in the page before any of its scripts: records performance.now() (ms since navigation
# start) the first time a cell of the leaderboard table is laid out with text in it, so the
# figure does not include playwright's own round trips.
FIRST_ROWS_SCRIPT = """
(() => {
  const selector = %r;
  const check = () => {
    if (window.__rowsVisibleAt !== undefined) return;
    for (const cell of document.querySelectorAll(selector)) {
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
})();
"""


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0-100)."""
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


# -- (a) time to first render ----------------------------------------------------------------

def first_render(url: str, loads: int) -> float:
    """Median seconds from navigation start to the first visible table row, over `loads`
    page loads, each in a fresh browser context."""
    from playwright.sync_api import sync_playwright

    times = []
    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            for _ in range(loads + 1):  # the first load warms the server (imports, caches); not counted
                context = browser.new_context(viewport=VIEWPORT)
                page = context.new_page()
                page.add_init_script(FIRST_ROWS_SCRIPT % TABLE_CELLS)
                page.goto(url)
                page.wait_for_function("window.__rowsVisibleAt !== undefined", timeout=120_000)
                times.append(page.evaluate("window.__rowsVisibleAt") / 1000)
                context.close()
        finally:
            browser.close()
    return statistics.median(times[1:])


def render_series(homes: dict[int, Path], loads: int) -> None:
    print(f"(a) time to first render of the Leaderboard tab (navigation start -> first row drawn), "
          f"median of {loads} loads, headless chromium")
    baseline = None
    for size, home in homes.items():
        with SiteServer(home, dev_user=None) as site:
            took = first_render(site.url, loads)
            weight = config_bytes(site.url)
        if baseline is None:
            baseline = took
            print(f"    baselines only (2 rows)         {ms(took)}                        /config {kib(weight)}")
        else:
            print(f"    {size:>6} results + baselines     {ms(took)}   ratio {took / baseline:5.2f}x "
                  f"the baselines-only page   /config {kib(weight)}")


def config_bytes(url: str) -> int:
    """Size of the page's /config (every component's first value, the first table included)."""
    with urllib.request.urlopen(url + "config", timeout=60) as response:
        return len(response.read())


def kib(n: int) -> str:
    return f"{n / 1024:8.0f} KiB"


# -- (b) latency under 50 users ------------------------------------------------------------------

ENDPOINT = "/leaderboard"  # what the page calls when the search box or a filter changes


def one_call(client, suite: str) -> float:
    """One leaderboard view of the results' suite with the page's default filters (every row)."""
    start = time.perf_counter()
    answer = client.predict(suite=suite, search="", api_name=ENDPOINT)
    took = time.perf_counter() - start
    table = answer.get("value", answer) if isinstance(answer, dict) else None  # a Dataframe or its update
    if not isinstance(table, dict) or not table.get("data"):
        raise RuntimeError(f"{ENDPOINT} answered without rows: {str(answer)[:300]}")
    return took


def single_user(url: str, suite: str, calls: int) -> list[float]:
    from gradio_client import Client

    client = Client(url, verbose=False)
    one_call(client, suite)  # warm: the board of the suite is built and cached by the first call
    return [one_call(client, suite) for _ in range(calls)]


def concurrent_users(url: str, suite: str, users: int, calls: int) -> list[float]:
    """`users` threads, each its own gradio_client, released together, `calls` calls each."""
    from gradio_client import Client

    clients = [Client(url, verbose=False) for _ in range(users)]
    start = threading.Barrier(users)
    latencies: list[float] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def user(client) -> None:
        start.wait()
        try:
            mine = [one_call(client, suite) for _ in range(calls)]
        except BaseException as e:  # noqa: BLE001 - reported after every thread ended
            with lock:
                errors.append(e)
            return
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=user, args=(c,)) for c in clients]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise RuntimeError(f"{len(errors)} of {users} users failed; first: {errors[0]!r}")
    return latencies


def latency_series(home: Path, size: int, users: int, calls: int) -> None:
    suite = demo_suite_id(home)  # the results are in the demo suite; the page opens on the papers' rows
    with SiteServer(home, dev_user=None) as site:
        alone = single_user(site.url, suite, calls * 2)
        together = concurrent_users(site.url, suite, users, calls)
    median, p95_alone, p95_together = statistics.median(alone), percentile(alone, 95), percentile(together, 95)
    print(f"(b) {ENDPOINT} through gradio_client, {size} results + baselines, loopback")
    print(f"    1 user, {len(alone)} calls:   median {ms(median)}   p95 {ms(p95_alone)}")
    print(f"    {users} users at once, {len(together)} calls:   p95 {ms(p95_together)}   "
          f"median {ms(statistics.median(together))}")
    print(f"    ratio {p95_together / median:6.1f}x  (p95 under {users} users / single-user median)")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--results-small", type=int, default=1000)
    p.add_argument("--results-large", type=int, default=10000)
    p.add_argument("--loads", type=int, default=5)
    p.add_argument("--users", type=int, default=50)
    p.add_argument("--calls", type=int, default=10, help="calls per user in (b)")
    args = p.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # each figure shows as soon as it is measured
    with tempfile.TemporaryDirectory() as tmp:
        print(f"preparing leaderboards of 0, {args.results_small} and {args.results_large} results...")
        homes = {size: prepare_home(Path(tmp) / f"home-{size}", results=size)
                 for size in (0, args.results_small, args.results_large)}
        if chromium_path() is None:
            print(f"(a) skipped: {NO_BROWSER}")
        else:
            render_series(homes, args.loads)
        latency_series(homes[args.results_small], args.results_small, args.users, args.calls)
    return 0


if __name__ == "__main__":
    sys.exit(main())
