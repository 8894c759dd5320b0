"""bench/site_speed.py's concurrency part, run for real at a small size: its users are separate
processes (the bench refuses to report otherwise), every call gets rows from the site, and
it prints each figure beside its goal."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_concurrency_bench_runs_its_users_in_processes_and_prints_its_goal():
    done = subprocess.run([sys.executable, "bench/site_speed.py", "--only", "c", "--results-small", "5",
                           "--users", "3", "--calls", "2"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    out = done.stdout
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert re.search(r"3 users at once \(3 processes\), 6 calls", out), out
    assert re.search(r"ratio +[\d.]+x .*\(goal <= 5x\) +(OK|MISSED)", out), out
    assert done.returncode == (0 if re.search(r"\(goal <= 5x\) +OK", out) else 1)
