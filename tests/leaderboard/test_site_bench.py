"""The site's benches, run for real at a small size. bench/site_speed.py's concurrency part: its
users are separate processes (the bench refuses to report otherwise), every call gets rows from
the site, and it prints its ratio with its floors and no goal (the capacity bench holds the goal for many
visitors), so it never fails `make bench`. bench/site_capacity.py: both apps get
offered load and the ratio is printed beside its goal. No timing is asserted."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_concurrency_bench_runs_its_users_in_processes_and_prints_its_ratio_without_a_goal():
    done = subprocess.run([sys.executable, "bench/site_speed.py", "--only", "c", "--results-small", "5",
                           "--users", "3", "--calls", "2"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    out = done.stdout
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert re.search(r"3 users at once \(3 processes\), 6 calls", out), out
    assert re.search(r"ratio +[\d.]+x .*\(no goal: .*site_capacity\.py", out), out
    assert re.search(r"floors: the users' own CPU .* Gradio's per-event work alone", out), out
    assert "MISSED" not in out and done.returncode == 0, out


def test_the_capacity_bench_drives_both_apps_and_prints_its_goal():
    """bench/site_capacity.py at a small size: its visitors' events all succeed when alone, each
    app gets steps of offered load, and it prints the rates, their ratio and the goal."""
    done = subprocess.run([sys.executable, "bench/site_capacity.py", "--results", "5", "--seconds", "2",
                           "--bisect", "0", "--start", "4", "--max-steps", "2"], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    out = done.stdout
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert re.search(r"site: a visitor sends \d+ events", out) and re.search(r"bare: a visitor sends 2 events", out), out
    assert re.search(r"site +offered +4\.0 ev/s", out) and re.search(r"bare +offered +4\.0 ev/s", out), out
    assert re.search(r"pinned|NOT pinned", out), out
    found = re.search(r"ratio ([\d.]+) +\(goal >= 0\.6\) +(OK|MISSED)", out)
    assert found, out
    assert done.returncode == (0 if found.group(2) == "OK" else 1)
