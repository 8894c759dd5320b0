"""The real site in a subprocess, for the browser, client and scale tests and bench/site_speed.py.

    with SiteServer(home) as site:          # `python app.py` on a free port, LEADERBOARD_HOME=home
        page.goto(site.url)

The server is the same `python app.py` a user runs, with its environment pointed at a
temporary home, a development user standing in for the Hugging Face login, and a
worker that polls often (so a submission is scored within seconds). Nothing is
imported from the app into the test process: what the tests see is what a browser sees.

Also here, because the browser, client and scale tests and the bench share them:
    launch_chromium(playwright)         Debian's chromium, headless (chromium_path() is None without it);
                                        tests take conftest.py's `browser` fixture instead
    open_page(browser, url, viewport)   a page in a fresh context, waits bounded, at `url`
    rows(page), wait_rows(page, n), choose/tick/search/open_tab(page, ...)   reading and driving the page
    total_rows(page), wait_total(page, n)   the Leaderboard view's rows over all its pages
    prepare_home(home, results=N)       a home with the demo suite, the baselines and N more results
    wait_until(what, check, timeout)    a bounded poll that says what it waited for when it gives up
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Self, TypeVar

ROOT = Path(__file__).resolve().parent.parent
DEV_USER = "site-test-user"  # the signed-in user of a local (non-Space) run, LEADERBOARD_DEV_USER
START_TIMEOUT = 240.0  # the first start builds the demo suite and scores the baselines
CHROMIUM = Path("/usr/bin/chromium")  # Debian's package; `make test` installs it
# No sandbox (tests run as root in containers), no GPU, and nothing that phones home.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]
ARTIFACTS = ROOT / "test-artifacts"
VIEWPORT = {"width": 1400, "height": 1000}
DESK = {"width": 1280, "height": 800}  # a laptop's window, and a phone's, for the layout checks
PHONE = {"width": 390, "height": 844}
WAIT_MS = 30_000  # the most one UI update may take before a test gives up (a bound, not a speed test)

T = TypeVar("T")


def chromium_path() -> Path | None:
    """Debian's chromium when installed, else None (the browser tests skip with a reason)."""
    return CHROMIUM if CHROMIUM.exists() and os.access(CHROMIUM, os.X_OK) else None


NO_BROWSER = (f"{CHROMIUM} is missing: install Debian's chromium (as root: apt-get update && apt-get install -y "
              f"chromium; `make test` does this) to run the browser tests")


def free_port() -> int:
    """A port nobody listens on now (the OS picks it); the app binds it a moment later."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(what: str, check: Callable[[], T], timeout: float, interval: float = 0.25) -> T:
    """Call `check` until it returns something truthy and return that; after `timeout`
    seconds raise TimeoutError naming `what` (a bound on waiting, not a speed test)."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"gave up after {timeout:.0f} s waiting for {what}")
        time.sleep(interval)


class SiteServer:
    """`python app.py` on a free loopback port with LEADERBOARD_HOME=`home`.
    `dev_user=None` starts it with nobody signed in (an anonymous visitor)."""

    def __init__(self, home: Path, *, dev_user: str | None = DEV_USER, poll_seconds: float = 0.2,
                 env: dict[str, str] | None = None, start_timeout: float = START_TIMEOUT, script: str = "app.py"):
        self.home = Path(home)
        self.script = script
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.log_path = self.home.parent / f"{self.home.name}-site-{self.port}.log"
        self.start_timeout = start_timeout
        self.process: subprocess.Popen | None = None
        self.env = self._environment(dev_user, poll_seconds, env or {})

    def _environment(self, dev_user: str | None, poll_seconds: float, extra: dict[str, str]) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               # a Space id would switch the dev login off; a Hub store would leave the machine
               if k not in ("SPACE_ID", "LEADERBOARD_STORE", "LEADERBOARD_SUITE", "LEADERBOARD_DEV_USER")}
        env.update({
            "LEADERBOARD_HOME": str(self.home),
            "LEADERBOARD_POLL_SECONDS": str(poll_seconds),
            "LEADERBOARD_BOOTSTRAP_SAMPLES": "50",  # intervals are not under test here; scoring gets quick
            "GRADIO_SERVER_PORT": str(self.port),
            "GRADIO_SERVER_NAME": "127.0.0.1",
            "GRADIO_ANALYTICS_ENABLED": "False",
            "HF_HUB_OFFLINE": "1",
            "PYTHONUNBUFFERED": "1",
        })
        if dev_user:
            env["LEADERBOARD_DEV_USER"] = dev_user
        env.update(extra)
        return env

    # -- lifecycle ------------------------------------------------------------------------

    def start(self) -> Self:
        self.home.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "wb")  # noqa: SIM115 - the server's output for its lifetime; closed in stop()
        self.process = subprocess.Popen([sys.executable, self.script], cwd=ROOT, env=self.env, stdout=self._log,
                                        stderr=subprocess.STDOUT)
        try:
            wait_until(f"the site to answer on {self.url}", self._serving, self.start_timeout, interval=0.2)
        except BaseException:
            self.stop()
            raise
        return self

    def _serving(self) -> bool:
        if self.process.poll() is not None:
            raise RuntimeError(f"`python {self.script}` exited with status {self.process.returncode} before serving "
                               f"(LEADERBOARD_HOME={self.home}); its output ends with:\n{self.log_tail()}")
        try:
            with urllib.request.urlopen(self.url + "config", timeout=2) as response:
                return response.status == 200
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            return False

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGINT)  # what Ctrl-C does: gradio and the worker close cleanly
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=15)
        if getattr(self, "_log", None) is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def log_tail(self, chars: int = 4000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return "(no output)"

    # -- what the tests need to know about the home -------------------------------------------

    def suite_id(self) -> str:
        """The demo suite the app published (the folder under LEADERBOARD_HOME/suite/)."""
        return demo_suite_id(self.home)


def demo_suite_id(home: Path) -> str:
    found = sorted(p.name for p in (Path(home) / "suite").glob("demo-*") if (p / "suite.json").exists())
    if not found:
        raise FileNotFoundError(f"no demo suite under {Path(home) / 'suite'}: has the app started on this home?")
    return found[-1]


def write_baseline_predictions(home: Path, out: Path, name: str = "first-option", seed: int = 0) -> Path:
    """A prediction file for the app's demo suite, made the way a submitter makes one:
    `python -m evaluator baseline --suite <suite folder>` (`seed`: the random baseline's)."""
    suite = Path(home) / "suite" / demo_suite_id(home)
    done = subprocess.run([sys.executable, "-m", "evaluator", "baseline", "--suite", str(suite), "--name", name,
                           "--seed", str(seed), "--out", str(out)], check=False, cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"python -m evaluator baseline failed ({done.returncode}): {done.stderr[-2000:]}")
    return Path(out)


# -- a home with many results ---------------------------------------------------------------------

def prepare_home(home: Path, results: int = 0, seed: int = 0) -> Path:
    """The embedded default's first start (demo suite published, baselines scored), done in
    this process, plus `results` more results derived from a real baseline result, with
    varied scores, model names, submitters and kinds, and the aggregated table rebuilt."""
    if str(ROOT) not in sys.path:  # bench/site_speed.py imports this module from outside tests/
        sys.path.insert(0, str(ROOT))
    from results.aggregate import read_results, rebuild
    from submissions.stores import Stores
    from worker.suites import first_start

    home = Path(home)
    stores = Stores.local(home)
    first_start(stores)
    if results:
        base = next(r for r in read_results(stores.results) if r.submission.get("kind") == "baseline")
        rng = random.Random(seed)
        for i in range(results):
            result = varied(base, i, rng)
            stores.results.write(f"{result.submission['id']}.json", result.model_dump_json().encode())
        rebuild(stores.results)
    return home


MODEL_FAMILIES = ["Qwen2.5-VL", "InternVL3", "LLaVA-Video", "VideoLLaMA3", "MiniCPM-V", "Gemma-3", "Phi-4-MM",
                  "Aria", "NVILA", "Kimi-VL"]
SIZES = ["2B", "3B", "7B", "8B", "13B", "32B", "72B"]


def scale_model_name(i: int) -> str:
    """`Qwen2.5-VL-7B scale-00042`: families repeat (so a search narrows to about a tenth),
    the suffix makes every name unique."""
    return f"{MODEL_FAMILIES[i % len(MODEL_FAMILIES)]}-{SIZES[i % len(SIZES)]} scale-{i:05d}"


def varied(base, i: int, rng: random.Random):
    """A copy of the result `base` as if another model had been scored: new id, name,
    submitter, kind, and every score moved by up to ±20 points (kept in 0-100)."""
    copy = base.model_copy(deep=True)
    kind = "model" if i % 3 else "predictions"
    copy.submission = {**copy.submission, "id": f"scale-{i:05d}", "kind": kind, "model": scale_model_name(i),
                       "submitter": f"user{i % 37}"}
    copy.runner = {"name": "predictions" if kind == "predictions" else "vllm"}
    for metrics in copy.scores.values():
        for name, value in metrics.items():
            if isinstance(value, float):
                metrics[name] = round(min(100.0, max(0.0, value + rng.uniform(-20, 20))), 2)
    return copy


def clean_artifacts(folder: Path) -> Path:
    """test-artifacts/<folder> without its files of the last run (each run's screenshots replace
    the last run's); its subfolders are other tests' and stay."""
    path = ARTIFACTS / folder
    path.mkdir(parents=True, exist_ok=True)
    for old in path.iterdir():
        if old.is_file():
            old.unlink()
    return path


# -- the browser ------------------------------------------------------------------------------------------------
# Helpers take a playwright Page; playwright is imported only where it is used, so this module
# (and the client tests importing it) loads without it.

def launch_chromium(playwright):
    """Debian's chromium, headless, from a `sync_playwright()` context."""
    return playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)


def open_page(browser, url: str, viewport: dict | None = None, **context_options):
    """A page in a fresh context (its own cookies and storage) at `viewport`, every wait
    bounded by WAIT_MS, opened at `url`."""
    page = browser.new_context(viewport=viewport or VIEWPORT, **context_options).new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(url)
    return page


def grid(page, elem_id: str):
    return page.locator(f"#{elem_id} [role=grid]").first


def cells(page, elem_id: str):
    return page.locator(f"#{elem_id} [role=gridcell]")


def rows(page, elem_id: str = "leaderboard-table") -> int:
    """Rows of a gr.Dataframe. It draws only the rows in view (virtual scrolling) but
    states how many it holds in aria-rowcount (the header row included)."""
    found = grid(page, elem_id)
    found.wait_for(state="attached")
    return int(found.get_attribute("aria-rowcount")) - 1


def wait_rows(page, expected, elem_id: str = "leaderboard-table", what: str = "", timeout_ms: int = WAIT_MS) -> int:
    """Wait until the table's row count is `expected` (or satisfies it, a predicate); return the count."""
    check = expected if callable(expected) else (lambda n: n == expected)
    waited = 0
    while True:
        n = rows(page, elem_id)
        if check(n):
            return n
        if waited >= timeout_ms:
            raise AssertionError(f"#{elem_id} has {n} rows; expected {what or expected} within {timeout_ms // 1000} s")
        page.wait_for_timeout(200)
        waited += 200


def total_rows(page) -> int:
    """Rows of the whole Leaderboard view, every page, as the line under the table states them
    ("Rows 1-150 of 1,002 · page 1 of 7"; "No rows match.")."""
    text = page.locator("#page-info").inner_text()
    found = re.search(r"of ([\d,]+)", text)
    if found is None:
        return 0 if "No rows" in text else -1  # -1: not drawn yet
    return int(found.group(1).replace(",", ""))


def wait_total(page, expected: int, what: str = "", timeout_ms: int = WAIT_MS) -> int:
    """Wait until the Leaderboard view holds `expected` rows over all its pages."""
    waited = 0
    while True:
        n = total_rows(page)
        if n == expected:
            return n
        if waited >= timeout_ms:
            raise AssertionError(f"the Leaderboard view has {n} rows in all; expected {what or expected} "
                                 f"within {timeout_ms // 1000} s")
        page.wait_for_timeout(200)
        waited += 200


def model_cell(page, text: str, elem_id: str = "leaderboard-table"):
    """The first cell of the table whose whole text is `text`."""
    return cells(page, elem_id).filter(has_text=re.compile(rf"^\s*{re.escape(text)}\s*$")).first


def open_tab(page, name: str) -> None:
    from playwright.sync_api import expect

    tab = page.get_by_role("tab", name=name, exact=True)
    tab.click()
    expect(tab).to_have_attribute("aria-selected", "true")


def choose(page, elem_id: str, option: str) -> None:
    """Pick an option of a gr.Dropdown: typing filters its options, a click picks one."""
    from playwright.sync_api import expect

    box = page.locator(f"#{elem_id} input[role=combobox]")
    box.click()
    box.fill(option)
    page.get_by_role("option", name=option, exact=True).click()
    expect(box).to_have_value(option)


def open_leaderboard(page, timeout_ms: int = WAIT_MS) -> None:
    """Open the Leaderboard tab (the page opens on Models) and wait for its first rows."""
    open_tab(page, "Leaderboard")
    cells(page, "leaderboard-table").first.wait_for(timeout=timeout_ms)


def show_suite(page, suite_id: str) -> None:
    """Pick a suite in the "Show" picker (a gr.Radio): one click. The picker serves every
    tab but Models: from there, the Leaderboard is opened first."""
    from playwright.sync_api import expect

    if not page.locator("#suite-select").is_visible():
        open_leaderboard(page)
    choice = page.locator(f"#suite-select input[type=radio][value={json.dumps(suite_id)}]")
    choice.click()
    expect(choice).to_be_checked()


def overflow_px(page, elem_id: str = "leaderboard-table") -> int:
    """How far a table's scrolling box is wider than its window (0: no sideways scroll)."""
    return page.locator(f"#{elem_id} .virtual-table-viewport").evaluate(
        "element => element.scrollWidth - element.clientWidth")


def tick(page, elem_id: str, label: str, on: bool) -> None:
    """Set one box of a gr.CheckboxGroup (the Leaderboard's filters are folded: opened first)."""
    open_filters(page)
    page.locator(f"#{elem_id} input[type=checkbox][name={json.dumps(label)}]").set_checked(on)


def open_filters(page) -> None:
    """Unfold the Leaderboard's "Filters and columns" (folded when the page opens)."""
    from playwright.sync_api import expect

    if page.locator("#filters").is_visible() and not page.locator("#filter-source").is_visible():
        page.locator("#filters .label-wrap").first.click()
        expect(page.locator("#filter-source")).to_be_visible()


def search(page, text: str) -> None:
    page.locator("#search textarea").fill(text)

