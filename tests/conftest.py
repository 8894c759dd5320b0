"""Shared fixtures: suites are built once per test session (the demo suite with
real video files, a file-less paper-size synthetic suite)."""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


def _test_folders() -> list[Path]:
    """tests/<package>/ folders (one per package tested, plus project/), each test file's name
    unique across them: tests import helpers and each other by bare module name (`from
    test_validation import FakeHub`), and pytest's default import mode would take two files of one
    name for one module."""
    folders = sorted(p for p in TESTS.iterdir() if p.is_dir() and any(p.glob("test_*.py")))
    seen: dict[str, Path] = {}
    for f in sorted(TESTS.glob("*/test_*.py")):
        if f.name in seen:
            raise pytest.UsageError(f"two test files named {f.name}: {seen[f.name].relative_to(ROOT)} and "
                                    f"{f.relative_to(ROOT)}; rename one")
        seen[f.name] = f
    return folders


# The project first, then the helpers beside this file, then each test folder. A test folder is named
# after the package it tests but has no __init__.py, so `import evaluator` still finds the project's
# package (a regular package always wins over a plain folder of that name).
sys.path[:0] = [str(ROOT), str(TESTS), *map(str, _test_folders())]
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from evaluator.benchmarks.common import Secret  # noqa: E402 - after the path is set

# Suites built by tests are drawn from fixed secrets, so they are the same on every run
# (a real build draws a fresh one; tests/evaluator/test_attacker.py builds those).
SECRET = Secret(b"tests: the fixed secret of the test suites")
OTHER_SECRET = Secret(b"tests: another fixed secret, for different suites")


@pytest.fixture(scope="session")
def demo_dir(tmp_path_factory) -> Path:
    from evaluator.demo import build_demo_suite

    out = tmp_path_factory.mktemp("demo")
    build_demo_suite(out, SECRET)
    return out


@pytest.fixture(scope="session")
def demo_suite(demo_dir):
    from evaluator.suite import load_answers, load_suite

    suite = load_suite(demo_dir / "suite")
    return suite, load_answers(demo_dir / "answers", suite)


@pytest.fixture(scope="session")
def synthetic_dir(tmp_path_factory) -> Path:
    from evaluator.demo import synthetic_suite

    out = tmp_path_factory.mktemp("synthetic")
    synthetic_suite(out, SECRET, scale=0.5)
    return out


@pytest.fixture(scope="session")
def synthetic(synthetic_dir):
    from evaluator.suite import load_answers, load_suite

    suite = load_suite(synthetic_dir / "suite")
    return suite, load_answers(synthetic_dir / "answers", suite)


def run_cli(*args: str, cwd: Path = ROOT):
    """Run `python -m evaluator ...` in a real subprocess."""
    import subprocess

    return subprocess.run([sys.executable, "-m", "evaluator", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=600)


@contextmanager
def running_standin():
    """A fresh Hub stand-in (tests/hub_standin.py), with huggingface_hub allowed online (this
    session sets HF_HUB_OFFLINE=1) and Xet off while it runs."""
    from huggingface_hub import constants
    from hub_standin import HubStandin

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(constants, "HF_HUB_OFFLINE", False)
        patch.setattr(constants, "HF_HUB_DISABLE_XET", True)
        standin = HubStandin().start()
        try:
            yield standin
        finally:
            standin.stop()


@pytest.fixture
def hub_standin():
    """A fresh Hub stand-in for one test (running_standin)."""
    with running_standin() as standin:
        yield standin


@contextmanager
def min_bucket_items(n: int | str):
    """LEADERBOARD_MIN_BUCKET_ITEMS set to `n` inside the block (settings re-read)."""
    from space_config.settings import get_settings

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LEADERBOARD_MIN_BUCKET_ITEMS", str(n))
        get_settings.cache_clear()
        try:
            yield
        finally:
            get_settings.cache_clear()  # the next read sees the environment restored


@pytest.fixture(scope="module")
def browser():
    """A headless chromium (tests/site_server.py: launch_chromium) for a module's browser tests
    (per module: playwright's sync loop is not left running beside other tests); the test skips, saying what to install, when playwright or chromium is missing."""
    pytest.importorskip("playwright.sync_api", reason="the python package playwright is missing: pip install -r "
                                                     "requirements-dev.txt (make test does)")
    from playwright.sync_api import sync_playwright
    from site_server import NO_BROWSER, chromium_path, launch_chromium

    if chromium_path() is None:
        pytest.skip(NO_BROWSER)
    with sync_playwright() as p:
        launched = launch_chromium(p)
        yield launched
        launched.close()
